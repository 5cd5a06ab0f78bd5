#!/bin/sh
# Runs a program under MPICH's mpiexec.hydra as a user would, and checks the outcome:
#   hydra.sh MPIEXEC NP LIMIT [--rc N|nonzero] [--err-once REGEX] [--err-some REGEX]
#            -- PROG ARGS...
# LIMIT: seconds before the job is ended (stretched by SHOAL_TEST_TIMEOUT_SCALE).
# --rc: the exit status mpiexec must return (default 0).
# --err-once: exactly one stderr line must match (a message printed once).
# --err-some: at least one must.
# --out-some: at least one stdout line must match (each, when given more than once).
mpiexec=$1 np=$2 limit=$3
shift 3
want_rc=0 want_err= want_some= want_out=
nl='
'
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    case $1 in
        --rc) want_rc=$2; shift 2 ;;
        --err-once) want_err=$2; shift 2 ;;
        --err-some) want_some=$2; shift 2 ;;
        --out-some) want_out="$want_out$2$nl"; shift 2 ;;
        *) echo "hydra.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
shift
limit=$((limit * ${SHOAL_TEST_TIMEOUT_SCALE:-1}))

err=$(mktemp) && out=$(mktemp) || exit 1
trap 'rm -f "$err" "$out"' EXIT
# -kill-after: a job that ignores the end of its time still ends.
timeout -k 5 "$limit" "$mpiexec" -n "$np" "$@" >"$out" 2>"$err"
rc=$?
cat "$out"
cat "$err" >&2

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || fail "the job did not end within $limit s"
case $want_rc in
    nonzero) [ "$rc" -ne 0 ] || fail "mpiexec returned 0, expected a failure" ;;
    *) [ "$rc" -eq "$want_rc" ] || fail "mpiexec returned $rc, expected $want_rc" ;;
esac
if [ -n "$want_err" ]; then
    n=$(grep -Ec "$want_err" "$err")
    [ "$n" -eq 1 ] || fail "stderr has $n lines matching '$want_err', expected exactly 1"
fi
if [ -n "$want_some" ]; then
    grep -Eq "$want_some" "$err" || fail "no stderr line matches '$want_some'"
fi
printf '%s' "$want_out" | while IFS= read -r re; do
    grep -Eq -- "$re" "$out" || fail "no stdout line matches '$re'"
done || exit 1
exit 0
