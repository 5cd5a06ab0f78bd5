#!/bin/sh
# Runs a program under Open MPI's mpirun as a user would, plus what CI needs
# (more PEs than cores; root), and checks the outcome:
#   mpirun.sh MPIRUN NP [--rc N|nonzero] [--err-once REGEX] [--err-some REGEX] -- PROG ARGS...
# --rc: the exit status mpirun must return (default 0).
# --err-once: exactly one stderr line must match (e.g. an abort message printed once).
# --err-some: at least one must (a message every PE prints, of which mpirun may cut
#             some short when it ends the job).
# Exits 77, which ctest reports as skipped, when MPIRUN is not Open MPI's or PRRTE's:
# other launchers (MPICH's hydra) do not start PMIx jobs.
mpirun=$1 np=$2
shift 2
want_rc=0 want_err= want_some=
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    case $1 in
        --rc) want_rc=$2; shift 2 ;;
        --err-once) want_err=$2; shift 2 ;;
        --err-some) want_some=$2; shift 2 ;;
        *) echo "mpirun.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
shift

if ! "$mpirun" --version 2>/dev/null | grep -Eq 'Open MPI|OpenRTE|PRRTE'; then
    echo "skipped: $mpirun is not Open MPI's mpirun or prterun"
    exit 77
fi
set -- --oversubscribe -n "$np" "$@"
[ "$(id -u)" = 0 ] && set -- --allow-run-as-root "$@"

err=$(mktemp) || exit 1
trap 'rm -f "$err"' EXIT
"$mpirun" "$@" 2>"$err"
rc=$?
cat "$err" >&2

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
case $want_rc in
    nonzero) [ "$rc" -ne 0 ] || fail "mpirun returned 0, expected a failure" ;;
    *) [ "$rc" -eq "$want_rc" ] || fail "mpirun returned $rc, expected $want_rc" ;;
esac
if [ -n "$want_err" ]; then
    n=$(grep -Ec "$want_err" "$err")
    [ "$n" -eq 1 ] || fail "stderr has $n lines matching '$want_err', expected exactly 1"
fi
if [ -n "$want_some" ]; then
    grep -Eq "$want_some" "$err" || fail "no stderr line matches '$want_some'"
fi
exit 0
