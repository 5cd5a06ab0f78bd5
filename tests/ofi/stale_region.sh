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
#              alone): Shoal must keep it and end the job naming it and the remedy.
#   keep_ctx   a newer file at the name of a private context's endpoint (PID:UID:1):
#              kept, shmem_ctx_create fails with that message as a warning, and the
#              job goes on.
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
msg() { # the message for file $1, made $2
    echo "libfabric's shm provider needs /dev/shm/$1 for this PE's endpoint, but a file of that name is there ($2, so Shoal leaves it alone); if no running process uses it (a process killed before it closed its endpoint leaves one behind), remove it and run again"
}
if [ "$case" = keep_ctx ]; then
    # shellcheck disable=SC2016 # expanded by the PE's shell
    "${launch[@]}" -n "$np" --timeout 60 sh -c '"$@"; exit $?' sh "$prog" keep_ctx >"$out" 2>&1
    rc=$?
    [ $rc -eq 0 ] || fail "exit status $rc"
    [ "$(grep -c '^stale: PE [0-9]* ctx refused$' "$out")" -eq "$np" ] || fail "not every PE went on"
    [ "$(made made | wc -l)" -eq "$np" ] || fail "not every PE made its file"
    for f in $(made made); do
        [ -f "/dev/shm/$f" ] || fail "/dev/shm/$f went"
        grep -qF "$(msg "$f" "made since this program started")" "$out" ||
            fail "no warning naming /dev/shm/$f"
    done
    grep -q "^shoal: PE [0-9]*: warning: shmem_ctx_create: libfabric's shm provider needs" "$out" ||
        fail "the message is not shmem_ctx_create's warning"
    echo "contexts refused, files kept, the job went on ($np PEs)"
    exit 0
fi
# shellcheck disable=SC2016 # expanded by the PE's shell
"${launch[@]}" -n "$np" --timeout 60 sh -c '"$@"; exit $?' sh "$prog" keep "$case" >"$out" 2>&1
rc=$?
[ $rc -eq 124 ] && fail "the job hung"
[ $rc -eq 0 ] && fail "exit status 0"
grep -q "^stale: shmem_init returned" "$out" && fail "shmem_init returned with the file in the way"
case $case in
newer) why="made since this program started" ;;
symlink) why="a symbolic link" ;;
other_uid) why="another user's file" ;;
esac
hit=
for f in $(made made); do
    case $case in
    symlink) [ -L "/dev/shm/$f" ] && [ -f "/dev/shm/${f%%:*}.target" ] ;;
    other_uid) [ "$(stat -c %u "/dev/shm/$f" 2>/dev/null)" = 65534 ] ;;
    *) [ -f "/dev/shm/$f" ] ;;
    esac || fail "/dev/shm/$f is no longer what it was"
    grep -qx "shoal: PE [0-9]*: shmem_init: $(msg "$f" "$why")" "$out" && hit=1
done
[ -n "$hit" ] || fail "no message naming the file and the remedy"
echo "$case files kept, the job ended naming one ($np PEs, status $rc)"
