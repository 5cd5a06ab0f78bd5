#!/bin/bash
# However a job ends, it leaves nothing in /dev/shm and no process behind.
# usage: no_leftovers.sh OSHRUN SHM_CHECK NP
# Only this job's files count, not those of other jobs on a shared machine: the
# jobs run in a mount namespace of their own whose /dev/shm is a fresh tmpfs, so
# whatever is there afterwards was left by them. Where no namespace can be made
# (no unprivileged user namespaces), files appearing in the shared /dev/shm count
# when their name holds the pid of one of the job's PEs, as libfabric's shm
# provider names its regions ("PID:EP:N"); Shoal itself names no file there.
set -u
case "${1:-}" in
--private) shift; where=private ;; # in the namespace, on the fresh tmpfs
--shared) shift; where=shared ;;
*)
    where=shared
    if unshare --user --map-root-user --mount true 2>/dev/null; then
        # The mount happens only inside the new namespace; where it is refused
        # (a namespace without that right) the run goes on with the shared one.
        exec unshare --user --map-root-user --mount bash -c \
            'if mount -t tmpfs -o mode=1777 shoal-no-leftovers /dev/shm 2>/dev/null; then
                 exec bash "$0" --private "$@"
             fi
             exec bash "$0" --shared "$@"' "$0" "$@"
    fi
    ;;
esac
oshrun=$1; prog=$2; np=$3
status=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for mode in ok kill segv exit; do
    before=$(ls -A /dev/shm 2>/dev/null | sort)
    timeout 30 "$oshrun" -n "$np" "$prog" "$mode" >"$out" 2>&1
    rc=$?
    if [ "$mode" = ok ] && [ $rc -ne 0 ]; then echo "FAIL [$mode np$np]: status $rc"; status=1; fi
    if [ "$mode" != ok ] && [ "$np" -gt 1 ] && [ $rc -eq 0 ]; then
        echo "FAIL [$mode np$np]: status 0 after a failing PE"; status=1
    fi
    [ $rc -eq 124 ] && { echo "FAIL [$mode np$np]: job hung"; status=1; }
    pids=$(sed -n 's/^shm_check: PE [0-9]* pid \([0-9]*\)$/\1/p' "$out")
    if [ "$(echo "$pids" | grep -c .)" -ne "$np" ]; then
        echo "FAIL [$mode np$np]: expected $np PEs to start:"; cat "$out"; status=1
    fi
    # Only what appeared counts: other jobs on the machine may remove their own files.
    added=$(comm -13 <(echo "$before") <(ls -A /dev/shm 2>/dev/null | sort))
    if [ "$where" = shared ] && [ -n "$added" ]; then
        added=$(echo "$added" | grep -E "(^|[^0-9])($(echo $pids | tr ' ' '|'))([^0-9]|$)")
    fi
    if [ -n "$added" ]; then
        echo "FAIL [$mode np$np]: left in /dev/shm:"; echo "$added"; status=1
    fi
    if pgrep -f "^$prog $mode" >/dev/null; then
        echo "FAIL [$mode np$np]: PE processes left running"; status=1
    fi
done
[ $status -eq 0 ] && echo "no leftovers at $np PEs ($where /dev/shm)"
exit $status
