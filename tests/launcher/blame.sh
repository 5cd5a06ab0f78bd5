#!/bin/sh
# A PE killed while another PE's operations target it: the job's verdict names the
# death (status 128+9), not the failure it caused on the other PE, whichever
# oshrun hears of first, and nothing follows the verdict line. Runs the job RUNS
# times, since which news arrives first is a race.
# usage: blame.sh RUNS OSHRUN PROG ARGS... (the last PE is the one killed)
set -u
runs=$1; shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
i=0
while [ $i -lt "$runs" ]; do
    i=$((i + 1))
    "$@" >"$out" 2>&1
    rc=$?
    fail() { echo "FAIL (run $i): $*"; cat "$out"; exit 1; }
    [ $rc -eq 137 ] || fail "exit status $rc, expected 137 (the killed PE's)"
    grep -Eq "^oshrun: PE [0-9]+ \(pid [0-9]+\) was killed by signal 9 \(Killed\); ending the job$" "$out" ||
        fail "the verdict does not name the killed PE"
    tail -n 1 "$out" | grep -q "; ending the job$" || fail "output after the verdict"
done
echo "the death was the verdict in all $runs runs"
