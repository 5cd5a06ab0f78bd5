#!/bin/sh
# Runs one job on the virtual cluster (scripts/cluster.sh) and checks how it ends.
# usage: job.sh SKIPFILE SECONDS [--rc N|nonzero] [--out ERE]... [--err ERE]...
#               [--file FILE] -- CMD...
# CMD runs on the first node, in this directory, with SECONDS to finish. --out/--err:
# each ERE must match a line of the job's standard output / error. --file: the job
# writes its output to FILE (sbatch -o), which then counts as its standard output.
# Exits 77 (skipped) when the cluster could not be brought up here, saying why
# (cluster.up wrote the reason to SKIPFILE).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cluster="$here/../../scripts/cluster.sh"
skipfile=$1 secs=$2
shift 2
want_rc=0
outs="" errs="" file=""
nl='
'
while [ $# -gt 0 ]; do
    case "$1" in
    --rc) want_rc=$2; shift 2 ;;
    --out) outs="$outs$2$nl"; shift 2 ;;
    --err) errs="$errs$2$nl"; shift 2 ;;
    --file) file=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "job.sh: unknown option $1"; exit 2 ;;
    esac
done
if [ -s "$skipfile" ]; then
    echo "skipped: $(cat "$skipfile")"
    exit 77
fi
if ! "$cluster" status >/dev/null 2>&1; then
    echo "FAIL: no virtual cluster is up: see the output of test cluster.up"
    exit 1
fi
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
echo "job.sh: $*"
timeout -k 5 "$secs" "$cluster" run "$@" >"$out" 2>"$err"
rc=$?
if [ -n "$file" ]; then
    cat "$file" >>"$out" 2>/dev/null || echo "job.sh: the job wrote no $file" >>"$err"
    rm -f "$file"
fi
cat "$out"
cat "$err" >&2
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    echo "FAIL: the job did not end within $secs s"
    "$cluster" run squeue >&2
    exit 1
fi
case "$want_rc" in
nonzero) [ "$rc" -ne 0 ] || { echo "FAIL: the job succeeded; it should have failed"; exit 1; } ;;
*) [ "$rc" -eq "$want_rc" ] || { echo "FAIL: exit status $rc, expected $want_rc"; exit 1; } ;;
esac
status=0
check() { # FILE WHAT ERE-LIST
    printf '%s' "$3" | while IFS= read -r re; do
        grep -Eq -- "$re" "$1" || { echo "FAIL: no line of the job's $2 matches: $re"; exit 1; }
    done
}
check "$out" output "$outs" || status=1
check "$err" "error output" "$errs" || status=1
[ "$status" -ne 0 ] || echo "job.sh: ok (exit status $rc)"
exit $status
