#!/bin/sh
# Brings up the virtual cluster for the cluster.* tests (scripts/cluster.sh up ARGS).
# Where this machine cannot host it (not root, no namespaces, no Slurm), records why
# in SKIPFILE so that every cluster test is skipped saying so, and exits 77.
# usage: up.sh SKIPFILE K [--nics M]
here=$(cd "$(dirname "$0")" && pwd)
cluster="$here/../../scripts/cluster.sh"
skipfile=$1
shift
rm -f "$skipfile"
timeout -k 5 60 "$cluster" up "$@" 2>"$skipfile.err"
rc=$?
cat "$skipfile.err" >&2
case $rc in
0) rm -f "$skipfile.err"; exit 0 ;;
77)
    sed 's/^cluster.sh: //' "$skipfile.err" >"$skipfile"
    rm -f "$skipfile.err"
    echo "skipped: $(cat "$skipfile")"
    exit 77 ;;
124 | 137)
    echo "FAIL: bring-up did not finish within 60 s; removing what it made"
    "$cluster" down
    rm -f "$skipfile.err"
    exit 1 ;;
*)
    echo "FAIL: the virtual cluster did not come up (exit status $rc); see above"
    rm -f "$skipfile.err"
    exit 1 ;;
esac
