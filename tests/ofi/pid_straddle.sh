#!/bin/bash
# Over libfabric's shm provider an endpoint's address names its process's pid, so
# PEs whose pids have different numbers of digits (9999 and 10000) have addresses of
# different lengths; the job must run all the same. In a pid namespace of its own
# (root only), with a /dev/shm of its own (the provider's regions are named by pid,
# so a namespace's pid 9999 must not meet the host's), the next pid is set just
# below 10000 before each job, for a few starting points, and every job must run;
# at least one must have straddled.
# usage: pid_straddle.sh OSHRUN PROG NP
set -u
oshrun=$1; prog=$2; np=$3
[ "$(id -u)" = 0 ] && command -v unshare >/dev/null ||
    { echo "skipped: a pid namespace of its own needs root and unshare"; exit 77; }
unshare --pid --fork --mount-proc sh -c 'mount -t tmpfs shm /dev/shm' 2>/dev/null ||
    { echo "skipped: unshare --pid refused here"; exit 77; }
straddled=0
for back in $((np - 1)) $((np / 2)) 1; do
    out=$(unshare --pid --fork --mount-proc bash -c '
        mount -t tmpfs shm /dev/shm || exit 3
        echo $((10000 - $1 - 1)) >/proc/sys/kernel/ns_last_pid || exit 3
        shift
        exec "$@"' sh "$back" "$oshrun" -n "$np" --timeout 30 \
        sh -c 'echo "straddle: PE pid $$"; exec "$@"' sh "$prog" 2>&1)
    rc=$?
    echo "$out"
    [ $rc -eq 0 ] || { echo "FAIL: the job with pids from about $((10000 - back)) ended with status $rc"; exit 1; }
    pids=$(echo "$out" | sed -n 's/^straddle: PE pid //p')
    [ "$(echo "$pids" | wc -l)" -eq "$np" ] || { echo "FAIL: not every PE said its pid"; exit 1; }
    short=$(echo "$pids" | awk '$1 < 10000' | wc -l)
    [ "$short" -gt 0 ] && [ "$short" -lt "$np" ] && straddled=$((straddled + 1))
done
[ $straddled -gt 0 ] || { echo "FAIL: no job had PEs on both sides of pid 10000 (the test's set-up)"; exit 1; }
echo "pid_straddle: $straddled job(s) of $np PEs with 4- and 5-digit pids ran over shm"
