#!/bin/bash
# However a job ends, it leaves nothing in /dev/shm and no process behind.
# usage: no_leftovers.sh OSHRUN SHM_CHECK NP
set -u
oshrun=$1; prog=$2; np=$3
status=0
for mode in ok kill segv exit; do
    before=$(ls -A /dev/shm 2>/dev/null | sort)
    timeout 30 "$oshrun" -n "$np" "$prog" "$mode" >/dev/null 2>&1
    rc=$?
    if [ "$mode" = ok ] && [ $rc -ne 0 ]; then echo "FAIL [$mode np$np]: status $rc"; status=1; fi
    if [ "$mode" != ok ] && [ "$np" -gt 1 ] && [ $rc -eq 0 ]; then
        echo "FAIL [$mode np$np]: status 0 after a failing PE"; status=1
    fi
    [ $rc -eq 124 ] && { echo "FAIL [$mode np$np]: job hung"; status=1; }
    # Only what appeared counts: other jobs on the machine may remove their own files.
    added=$(comm -13 <(echo "$before") <(ls -A /dev/shm 2>/dev/null | sort))
    if [ -n "$added" ]; then
        echo "FAIL [$mode np$np]: left in /dev/shm:"; echo "$added"; status=1
    fi
    if pgrep -f "^$prog $mode" >/dev/null; then
        echo "FAIL [$mode np$np]: PE processes left running"; status=1
    fi
done
[ $status -eq 0 ] && echo "no leftovers at $np PEs"
exit $status
