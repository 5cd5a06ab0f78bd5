#!/usr/bin/env bash
# Drives tests that check a program's exit status and messages.
#
#   test_errors.sh mode OSHRUN PROG MODE
#       Runs `PROG MODE` (test_errors.c) under OSHRUN at the PE counts the mode needs
#       (1, 2 and 4 for most; override with TEST_ERRORS_PES) with the environment the
#       mode needs (SHMEM_DEBUG=1 for the checks it alone makes), and checks the
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

# routine WHAT: the routine a before_init_WHAT / after_finalize_WHAT mode calls.
routine() {
    case $1 in
    put | p | get) echo "shmem_long_$1" ;;
    ctx_put) echo shmem_ctx_long_put ;;
    amo) echo shmem_long_atomic_fetch_add ;;
    reduce) echo shmem_long_sum_reduce ;;
    bcast) echo shmem_long_broadcast ;;
    *) echo "shmem_$1" ;;
    esac
}

# mode_spec MODE: sets ENVS (VAR=VAL list), STATUS, REGEX and PES (the PE counts, unless
# TEST_ERRORS_PES overrides them) for a test_errors.c mode.
mode_spec() {
    ENVS=()
    STATUS=nonzero
    PES="1 2 4"
    local debug=(SHMEM_DEBUG=1)
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
    before_init_*)
        PES="1 2"
        REGEX="^shoal: $(routine "${1#before_init_}"): called before shmem_init" ;;
    after_finalize_*)
        PES="1 2"
        # quiet on the default context is checked only under SHMEM_DEBUG
        [ "$1" = after_finalize_quiet ] && ENVS=("${debug[@]}")
        REGEX="^shoal: PE [0-9]+: $(routine "${1#after_finalize_}"): called after shmem_finalize" ;;
    ctx_destroyed | ctx_destroyed_quiet)
        ENVS=("${debug[@]}")
        REGEX="shmem_ctx_(long_put|quiet): the context was destroyed" ;;
    ctx_destroyed_nodebug) REGEX='shmem_ctx_long_put: the context was destroyed' ;;
    ctx_team_destroyed) REGEX='shmem_ctx_int_atomic_inc: the context was destroyed' ;;
    ctx_destroy_twice) REGEX='shmem_ctx_destroy: the context was already destroyed' ;;
    team_destroyed) REGEX='shmem_team_n_pes: the team was destroyed' ;;
    typed_overflow) REGEX='shmem_long_put: nelems [0-9]+ of 8-byte elements overflows' ;;
    team_destroyed_coll) REGEX='shmem_team_sync: the team was destroyed' ;;
    *_mismatch)
        # a disagreement needs two PEs; SHMEM_DEBUG compares the arguments
        ENVS=("${debug[@]}")
        PES="2 4"
        # NAME differs across the PEs (LOW on PE 0, HIGH on the last PE)
        local l='on PE 0, ' r=' on PE [13]\)' w='differs across the PEs \('
        case $1 in
        malloc_mismatch) REGEX="shmem_malloc: size ${w}16 ${l}(32|64)${r}" ;;
        calloc_mismatch) REGEX="shmem_calloc: count ${w}4 ${l}3${r}" ;;
        align_mismatch) REGEX="shmem_align: alignment ${w}64 ${l}128${r}" ;;
        realloc_mismatch) REGEX="shmem_realloc: size ${w}4096 ${l}8192${r}" ;;
        free_mismatch) REGEX="shmem_free: ptr .* ${w}[0-9]+ ${l}[0-9]+${r}" ;;
        bcast_root_mismatch) REGEX="shmem_broadcastmem: PE_root ${w}0 ${l}1${r}" ;;
        reduce_mismatch) REGEX="shmem_long_sum_reduce: nreduce ${w}4 ${l}2${r}" ;;
        fcollect_mismatch) REGEX="shmem_int_fcollect: nelems differs across the team \\(2 ${l}1${r}" ;;
        alltoalls_mismatch) REGEX="shmem_int_alltoalls: dst ${w}1 ${l}2${r}" ;;
        scan_mismatch) REGEX="shmem_int_sum_inscan: nelems ${w}3 ${l}0${r}" ;;
        *) fail "unknown mode $1" ;;
        esac ;;
    put_overflow)
        ENVS=("${debug[@]}")
        REGEX='shmem_putmem: [0-9]+ bytes at 0x[0-9a-f]+ run past the end of the symmetric heap' ;;
    init_after_finalize) REGEX='^shoal: PE [0-9]+: shmem_init: called after the last shmem_finalize; Shoal cannot be initialized again' ;;
    wait_nonsym | test_nonsym)
        ENVS=("${debug[@]}")
        REGEX="shmem_int_(wait_until|test): ivar 0x[0-9a-f]+ is not symmetric" ;;
    clear_unheld | clear_other) REGEX='shmem_clear_lock: the lock at 0x[0-9a-f]+ is not held by this PE' ;;
    put_wrap) REGEX='shmem_putmem: [0-9]+ bytes at 0x[0-9a-f]+ run past the end of the symmetric heap' ;;
    get_wrap) REGEX='shmem_getmem: [0-9]+ bytes at 0x[0-9a-f]+ run past the end of the symmetric heap' ;;
    iput_past_end) REGEX='shmem_long_iput: 2 blocks of 8 bytes at stride 134217728 .* run past the end of the symmetric heap' ;;
    iput_negative) REGEX='shmem_long_iput: 2 blocks at stride -1048576 .* start before the symmetric heap' ;;
    iget_past_end) REGEX='shmem_long_iget: 2 blocks of 8 bytes at stride 134217728 .* run past the end of the symmetric heap' ;;
    ibput_wrap) REGEX='shmem_long_ibput: 2 blocks of 16 bytes at stride [0-9]+ .* run past the end of the symmetric heap' ;;
    alltoalls_past_end) PES="2 4" REGEX='shmem_long_alltoalls: [0-9]+ blocks of 8 bytes at stride 134217728 .* run past the end of the symmetric heap' ;;
    zero_and_huge | zero_and_huge_debug)
        # not an error: empty transfers are no-ops, huge allocations return NULL with a
        # warning naming SHMEM_SYMMETRIC_SIZE, and the program ends normally
        [ "$1" = zero_and_huge_debug ] && ENVS=("${debug[@]}")
        STATUS=0
        REGEX='shmem_malloc: [0-9]+ bytes requested, symmetric heap exhausted.*SHMEM_SYMMETRIC_SIZE' ;;
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
    for n in ${TEST_ERRORS_PES:-$PES}; do
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
