#!/bin/sh
# Brings up the virtual cluster for the cluster.* tests (scripts/cluster.sh up K).
# Where this machine cannot host it (not root, no namespaces, no Slurm), records why
# in SKIPFILE so that every cluster test is skipped saying so, and exits 77.
# usage: up.sh SKIPFILE K
here=$(cd "$(dirname "$0")" && pwd)
cluster="$here/../../scripts/cluster.sh"
rm -f "$1"
timeout -k 5 60 "$cluster" up "$2" 2>"$1.err"
rc=$?
cat "$1.err" >&2
case $rc in
0) rm -f "$1.err"; exit 0 ;;
77)
    sed 's/^cluster.sh: //' "$1.err" >"$1"
    rm -f "$1.err"
    echo "skipped: $(cat "$1")"
    exit 77 ;;
124 | 137)
    echo "FAIL: bring-up did not finish within 60 s; removing what it made"
    "$cluster" down
    rm -f "$1.err"
    exit 1 ;;
*)
    echo "FAIL: the virtual cluster did not come up (exit status $rc); see above"
    rm -f "$1.err"
    exit 1 ;;
esac
