#!/usr/bin/env bash
# Drives tests that check a program's exit status and messages.
#
#   test_errors.sh mode OSHRUN PROG MODE
#       Runs `PROG MODE` (test_errors.c) under OSHRUN at 1, 2 and 4 PEs (override
#       with TEST_ERRORS_PES) with the environment the mode needs, and checks the
#       exit status, that the output matches the mode's message, and that the job
#       ended promptly (nobody hung).
#
#   test_errors.sh expect STATUS REGEX COUNT -- COMMAND...
#       Runs COMMAND; its exit status must be STATUS (a number, or "nonzero") and
#       exactly COUNT lines of its output (stdout and stderr) must match the extended
#       regular expression REGEX ("+" for COUNT: at least one).
set -u

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# run_check STATUS REGEX COUNT CMD... : runs CMD, checks status, message, line count.
run_check() {
    local want_status=$1 regex=$2 count=$3
    shift 3
    local out
    out=$(mktemp)
    local start=$SECONDS
    "$@" >"$out" 2>&1
    local status=$? took=$((SECONDS - start))
    echo "--- $* (exit $status, ${took}s)"
    sed 's/^/    /' "$out" | head -n 40
    if [ "$want_status" = nonzero ]; then
        [ "$status" -ne 0 ] || { rm -f "$out"; fail "$*: exit status 0, expected nonzero"; }
        [ "$status" -ne 124 ] || { rm -f "$out"; fail "$*: timed out"; }
    else
        [ "$status" -eq "$want_status" ] ||
            { rm -f "$out"; fail "$*: exit status $status, expected $want_status"; }
    fi
    if [ -n "$regex" ]; then
        local n
        n=$(grep -cE -- "$regex" "$out")
        if [ "$count" = + ]; then
            [ "$n" -ge 1 ] || { rm -f "$out"; fail "$*: no output line matches /$regex/"; }
        else
            [ "$n" -eq "$count" ] ||
                { rm -f "$out"; fail "$*: $n output lines match /$regex/, expected $count"; }
        fi
    fi
    if grep -q "was not caught" "$out"; then
        rm -f "$out"
        fail "$*: the error was not caught"
    fi
    rm -f "$out"
    # Nobody hung: oshrun's --timeout is 20 s, a prompt teardown takes far less.
    [ "$took" -le 15 ] || fail "$*: took ${took}s"
}

# mode_spec MODE: sets ENVS (VAR=VAL list), STATUS and REGEX for a test_errors.c mode.
mode_spec() {
    ENVS=()
    STATUS=nonzero
    case $1 in
    before_init) REGEX='shmem_my_pe: called before shmem_init' ;;
    after_finalize) REGEX='called after shmem_finalize' ;;
    pe_range) REGEX='shmem_int_p: PE [0-9]+ is out of range' ;;
    pe_negative) REGEX='shmem_int_atomic_inc: PE -1 is out of range' ;;
    not_symmetric) REGEX='shmem_int_p: address 0x[0-9a-f]+ is not symmetric' ;;
    not_symmetric_malloc) REGEX='shmem_int_put: address 0x[0-9a-f]+ is not symmetric' ;;
    debug_range)
        ENVS=(SHMEM_DEBUG=1 SHMEM_SYMMETRIC_SIZE=1M)
        REGEX='shmem_putmem: 4194304 bytes at 0x[0-9a-f]+ run past the end of the symmetric heap' ;;
    debug_range_static)
        ENVS=(SHMEM_DEBUG=1)
        REGEX='shmem_getmem: [0-9]+ bytes at 0x[0-9a-f]+ run past the end of the symmetric static data' ;;
    misaligned) REGEX='shmem_int_atomic_fetch_add: .*not aligned' ;;
    misaligned_global) REGEX='shmem_long_atomic_set: .*not aligned' ;;
    bad_size)
        ENVS=(SHMEM_SYMMETRIC_SIZE=abc)
        REGEX='shmem_init: .*SHMEM_SYMMETRIC_SIZE' ;;
    bad_size_suffix)
        ENVS=(SHMEM_SYMMETRIC_SIZE=12Q)
        REGEX='shmem_init: .*SHMEM_SYMMETRIC_SIZE' ;;
    bad_cmp) REGEX='shmem_int_wait_until: cmp 42 is not one of' ;;
    ctx_invalid) REGEX='shmem_ctx_int_atomic_inc: .*SHMEM_CTX_INVALID' ;;
    global_exit | global_exit_all) STATUS=7 REGEX='' ;;
    free_nonheap | free_global | free_interior) REGEX='shmem_free: .*was not returned by shmem_malloc' ;;
    free_twice) REGEX='shmem_free: .*already freed' ;;
    realloc_nonheap) REGEX='shmem_realloc: .*was not returned by shmem_malloc' ;;
    *) fail "unknown mode $1" ;;
    esac
}

case ${1:-} in
mode)
    [ $# -eq 4 ] || fail "usage: $0 mode OSHRUN PROG MODE"
    oshrun=$2 prog=$3 mode=$4
    mode_spec "$mode"
    # The bad_size modes are ordinary programs; test_errors.c's "bad_size*" modes
    # just call shmem_init.
    for n in ${TEST_ERRORS_PES:-1 2 4}; do
        run_check "$STATUS" "$REGEX" + env "${ENVS[@]}" "$oshrun" -n "$n" --timeout 20 "$prog" "$mode"
    done
    echo "mode $mode: OK"
    ;;
expect)
    [ $# -ge 6 ] && [ "$5" = -- ] || fail "usage: $0 expect STATUS REGEX COUNT -- COMMAND..."
    status=$2 regex=$3 count=$4
    shift 5
    run_check "$status" "$regex" "$count" "$@"
    echo "OK"
    ;;
*)
    fail "usage: $0 mode OSHRUN PROG MODE | expect STATUS REGEX COUNT -- COMMAND..."
    ;;
esac
