#!/bin/sh
# Builds shmem4py (the Python bindings for OpenSHMEM) against an installed Shoal
# in a virtual environment, and optionally runs shmem4py's own test suite.
#
#   scripts/shmem4py.sh VENV [--test PES...]
#
# oshcc and oshrun of the Shoal to use must be on PATH. docs/python.md explains
# each step; this script is what the test suite runs (tests/python).
set -eu
venv=$1; shift
version=1.0.0

# shmem4py 1.0.0 recognises implementations by their vendor macros; for one it does
# not know, it compiles stand-ins for every OpenSHMEM 1.5 routine, which then clash
# with the real ones in shmem.h. Shoal has all of them, so tell shmem4py so.
have="SHMEM_CTX_INVALID shmem_team_t shmem_malloc_with_hints shmem_amo_nbi
      shmem_put_signal shmem_signal_fetch shmem_signal_wait_until shmem_broadcast
      shmem_collect shmem_fcollect shmem_alltoall shmem_alltoalls shmem_broadcastmem
      shmem_collectmem shmem_fcollectmem shmem_alltoallmem shmem_alltoallsmem shmem_reduce
      shmem_wait_test_many shmem_pcontrol"
cflags=""
for h in $have; do cflags="$cflags -DPySHMEM_HAVE_$h=1"; done

[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
pip="$venv/bin/python -m pip --disable-pip-version-check -q"
# numpy<2: shmem4py 1.0.0 calls np.array(..., copy=False), which NumPy 2 rejects.
$pip install cffi setuptools wheel 'numpy<2'
if ! "$venv/bin/python" -c 'import shmem4py' 2>/dev/null; then
    OSHCC=oshcc CFLAGS="$cflags" $pip install --no-build-isolation --no-cache-dir \
        "shmem4py==$version"
fi
[ "${1:-}" = "--test" ] || exit 0
shift

# The tests live in the source distribution, not in the installed package.
src="$venv/shmem4py-$version"
if [ ! -d "$src/test" ]; then
    $pip download --no-deps --no-binary=:all: -d "$venv" "shmem4py==$version"
    tar -xzf "$venv/shmem4py-$version.tar.gz" -C "$venv"
fi
status=0
for n in "$@"; do
    echo "== shmem4py test suite at $n PEs"
    (cd "$src/test" && oshrun -n "$n" --timeout 300 "$venv/bin/python" -m unittest discover -s .) ||
        status=1
done
exit $status
