#!/usr/bin/env bash
# Drives tests that check a program's exit status and messages.
#
#   test_errors.sh mode OSHRUN PROG MODE
#       Runs `PROG MODE` (test_errors.c) under OSHRUN at the PE counts the mode needs
#       (override with TEST_ERRORS_PES) with the environment it needs, and checks the
#       exit status, that the output matches the mode's message, and that the job
#       ended promptly (nobody hung). What a mode needs is its row of error_cases.h.
#
#   test_errors.sh expect STATUS REGEX COUNT -- COMMAND...
#       Runs COMMAND; its exit status must be STATUS (a number, or "nonzero") and
#       exactly COUNT lines of its output (stdout and stderr) must match the extended
#       regular expression REGEX ("+" for COUNT: at least one).
#
# Nobody hung: the job must end within 10 s (times SHOAL_TEST_TIMEOUT_SCALE) of the
# first line matching REGEX, the failure's report (of its start when there is no
# REGEX). That times the teardown alone, so a slow start on a loaded machine does not
# count; a job that never reports is ended by its launcher's --timeout (status 124).
set -u

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# run_check STATUS REGEX COUNT CMD... : runs CMD, checks status, message, line count.
run_check() {
    local want_status=$1 regex=$2 count=$3
    shift 3
    local out=$TMP/out stamps=$TMP/stamps
    : >"$stamps"
    # Each line with the time it came (microseconds), for the teardown check below.
    local start=${EPOCHREALTIME/./}
    "$@" 2>&1 | while IFS= read -r line || [ -n "$line" ]; do
        printf '%s\n' "${EPOCHREALTIME/./}" >>"$stamps"
        printf '%s\n' "$line"
    done >"$out"
    local status=${PIPESTATUS[0]} end=${EPOCHREALTIME/./}
    local took=$(((end - start) / 1000000))
    echo "--- $* (exit $status, ${took}s)"
    sed 's/^/    /' "$out" | head -n 40
    if [ "$want_status" = nonzero ]; then
        [ "$status" -ne 0 ] || fail "$*: exit status 0, expected nonzero"
        [ "$status" -ne 124 ] || fail "$*: timed out"
    else
        [ "$status" -eq "$want_status" ] ||
            fail "$*: exit status $status, expected $want_status"
    fi
    if [ -n "$regex" ]; then
        local n
        n=$(grep -cE -- "$regex" "$out")
        if [ "$count" = + ]; then
            [ "$n" -ge 1 ] || fail "$*: no output line matches /$regex/"
        else
            [ "$n" -eq "$count" ] ||
                fail "$*: $n output lines match /$regex/, expected $count"
        fi
    fi
    ! grep -q "was not caught" "$out" || fail "$*: the error was not caught"
    local from=$start first
    if [ -n "$regex" ]; then
        first=$(grep -nE -m1 -- "$regex" "$out" | cut -d: -f1)
        [ -z "$first" ] || from=$(sed -n "${first}p" "$stamps")
    fi
    local teardown=$(((end - from) / 1000)) cap
    cap=$(awk -v s="${SHOAL_TEST_TIMEOUT_SCALE:-1}" 'BEGIN { printf "%d", 10000 * s }')
    [ "$teardown" -le "$cap" ] ||
        fail "$*: the job took ${teardown} ms to end after the first line matching /$regex/ (at most $cap ms)"
}

# mode_spec PROG MODE: sets PES (unless TEST_ERRORS_PES overrides them), ENVS (VAR=VAL
# list), STATUS and REGEX from error_cases.h, as PROG --spec MODE prints them.
mode_spec() {
    local spec env
    spec=$("$1" --spec "$2") || fail "no case $2 in error_cases.h"
    IFS=$'\x1f' read -r PES env STATUS REGEX <<<"$spec"
    read -r -a ENVS <<<"$env"
}

case ${1:-} in
mode)
    [ $# -eq 4 ] || fail "usage: $0 mode OSHRUN PROG MODE"
    oshrun=$2 prog=$3 mode=$4
    mode_spec "$prog" "$mode"
    # The bad_size modes are ordinary programs; test_errors.c's "bad_size*" modes
    # just call shmem_init.
    limit=$(awk -v s="${SHOAL_TEST_TIMEOUT_SCALE:-1}" 'BEGIN { printf "%d", 20 * s }')
    for n in ${TEST_ERRORS_PES:-$PES}; do
        run_check "$STATUS" "$REGEX" + env "${ENVS[@]}" "$oshrun" -n "$n" --timeout "$limit" "$prog" "$mode"
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
