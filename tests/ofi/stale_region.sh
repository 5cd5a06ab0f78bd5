#!/bin/bash
# Regions of libfabric's shm provider ("PID:UID:N" in /dev/shm) that a process
# killed before it closed its endpoints left behind, found by a later PE with the
# same pid. Each PE's pid gets such a file at its first endpoint's name:
#   old        made before the program started (by the PE's shell, which then execs
#              it with the same pid): Shoal removes it, says so (SHOAL_LOG=ofi:info),
#              and the job runs. At 1 PE no endpoint opens: Shoal leaves it.
#   newer, symlink, other_uid
#              made by the program itself (test_ofi_stale.c, run as the child of the
#              PE's shell, so that oshrun's own clean-up of the PE's pid leaves it
#              alone; other_uid is what another user can plant): Shoal must keep
#              it, the endpoint take another name (said with SHOAL_LOG=ofi:info)
#              and the job run.
#   keep_ctx   a newer file at the name of a private context's endpoint (PID:UID:1):
#              kept, and the context opens under another name all the same.
# usage: stale_region.sh sh PE_LAUNCH.SH OSHRUN PROG NP CASE
#   (tests/common/pe_launch.sh: oshrun, or mpirun with SHOAL_TEST_LAUNCHER=mpirun)
set -u
launch=("$1" "$2" "$3"); prog=$4; np=$5; case=$6
[ "$case" = other_uid ] && [ "$(id -u)" != 0 ] &&
    { echo "skipped: giving a file to another user needs root"; exit 77; }
out=$(mktemp)
trap 'cleanup; rm -f "$out"' EXIT
# Every file this run made (or was about to), by its name in /dev/shm.
made() { sed -n "s/^stale: $1 \\([0-9]*:[0-9]*:[0-9]*\\)\$/\\1/p" "$out"; }
# Those files, and the regions their programs (exited, not the PEs oshrun knows)
# left if a check failed.
cleanup() {
    for f in $(made making); do rm -f "/dev/shm/${f%%:*}":* "/dev/shm/${f%%:*}.target"; done
}
fail() { echo "FAIL: $*"; cat "$out"; exit 1; }
uid=$(id -u)
if [ "$case" = old ]; then
    # The coarse clock file times come from ticks every few ms: sleep past it, so
    # that the file is older than the program.
    # shellcheck disable=SC2016 # expanded by the PE's shell
    SHOAL_LOG=ofi:info "${launch[@]}" -n "$np" --timeout 60 sh -c '
        name=$$:'"$uid"':0
        echo "stale: making $name"
        head -c 4096 /dev/zero >"/dev/shm/$name" || exit 2
        echo "stale: made $name"
        sleep 0.1
        exec "$@"' sh "$prog" >"$out" 2>&1
    rc=$?
    [ $rc -eq 0 ] || fail "exit status $rc"
    [ "$(grep -c '^stale: PE [0-9]* OK$' "$out")" -eq "$np" ] || fail "not every PE said OK"
    [ "$(made made | wc -l)" -eq "$np" ] || fail "not every PE made its file"
    for f in $(made made); do
        if [ "$np" -eq 1 ]; then
            # (oshrun removes it once the PE has exited: the PE's pid made it)
            grep -q "removed /dev/shm/$f" "$out" && fail "a 1-PE job opened no endpoint, yet removed $f"
        else
            grep -q "^shoal: PE [0-9]*: \\[ofi\\] removed /dev/shm/$f, a region of libfabric's shm provider left by an earlier process with this PE's pid (${f%%:*})" "$out" ||
                fail "no PE said it removed /dev/shm/$f"
        fi
    done
    echo "stale regions removed, the job ran ($np PEs)"
    exit 0
fi
# A file Shoal may not remove stays, and the endpoint takes another name.
moved() { # the log line for file $1
    echo "\\[ofi\\] /dev/shm/$1, the name libfabric's shm provider chose for this endpoint's region, is taken by a file Shoal leaves alone; the region is /dev/shm/${1%:*}:[0-9]* instead"
}
if [ "$case" = keep_ctx ]; then
    # shellcheck disable=SC2016 # expanded by the PE's shell
    SHOAL_LOG=ofi:info "${launch[@]}" -n "$np" --timeout 60 sh -c '"$@"; exit $?' sh "$prog" keep_ctx >"$out" 2>&1
    rc=$?
    [ $rc -eq 0 ] || fail "exit status $rc"
    [ "$(grep -c '^stale: PE [0-9]* ctx OK$' "$out")" -eq "$np" ] || fail "not every PE's context worked"
    [ "$(made made | wc -l)" -eq "$np" ] || fail "not every PE made its file"
    for f in $(made made); do
        [ -f "/dev/shm/$f" ] || fail "/dev/shm/$f went"
        grep -q "$(moved "$f")" "$out" || fail "no PE said its context moved off /dev/shm/$f"
    done
    echo "contexts opened under other names, files kept ($np PEs)"
    exit 0
fi
# shellcheck disable=SC2016 # expanded by the PE's shell
SHOAL_LOG=ofi:info "${launch[@]}" -n "$np" --timeout 60 sh -c '"$@"; exit $?' sh "$prog" keep "$case" >"$out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "exit status $rc: a file in the way stopped the job"
[ "$(grep -c '^stale: PE [0-9]* OK$' "$out")" -eq "$np" ] || fail "not every PE said OK"
for f in $(made made); do
    case $case in
    symlink) [ -L "/dev/shm/$f" ] && [ -f "/dev/shm/${f%%:*}.target" ] ;;
    other_uid) [ "$(stat -c %u "/dev/shm/$f" 2>/dev/null)" = 65534 ] ;;
    *) [ -f "/dev/shm/$f" ] ;;
    esac || fail "/dev/shm/$f is no longer what it was"
    grep -q "$(moved "$f")" "$out" || fail "no PE said its endpoint moved off /dev/shm/$f"
done
echo "$case files kept, the endpoints took other names, the job ran ($np PEs)"
