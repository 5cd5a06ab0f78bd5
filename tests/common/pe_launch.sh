#!/bin/sh
# Starts a multi-PE test the way the test mode asks:
#   pe_launch.sh OSHRUN -n N --timeout T PROG ARGS...
# Normally runs OSHRUN as given. With SHOAL_TEST_LAUNCHER=mpirun (scripts/test.sh's
# mpi modes) it starts the same program with Open MPI's mpirun instead, which the
# mpi transport needs: more PEs than cores, root allowed, the same time limit.
oshrun=$1
shift
case ${SHOAL_TEST_LAUNCHER:-oshrun} in
oshrun) exec "$oshrun" "$@" ;;
mpirun) ;;
*) echo "pe_launch.sh: SHOAL_TEST_LAUNCHER=$SHOAL_TEST_LAUNCHER: use oshrun or mpirun" >&2
   exit 2 ;;
esac
[ "$1" = -n ] && [ "$3" = --timeout ] ||
    { echo "pe_launch.sh: expected -n N --timeout T PROG..." >&2; exit 2; }
n=$2 t=$4
shift 4
set -- --oversubscribe -n "$n" --timeout "$t" "$@"
[ "$(id -u)" = 0 ] && set -- --allow-run-as-root "$@"
exec "${SHOAL_TEST_MPIRUN:-mpirun}" "$@"
