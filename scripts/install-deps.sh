#!/bin/sh
# Installs what building and testing Shoal needs on Debian/Ubuntu.
set -e
# libfabric, PMIx and Open MPI: the ofi transport, the PMIx bootstrap and the mpirun
# tests; clang: the fuzz targets; clang-format: scripts/format.sh; python3-matplotlib:
# the benchmark plots; python3-venv: the shmem4py test (tests/python); man-db: the
# install test reads the installed manual pages with man; slurm-wlm and munge: the
# virtual cluster of the cluster tests (scripts/cluster.sh) and the srun --mpi=pmi2
# test; mpich and libmpich-dev: the hydra tests and the MPI transport's MPICH module
# (Open MPI stays the default mpicc/mpirun: Debian's alternatives rank it first);
# libhwloc-dev: the layout of hwloc's objects for the node topology (the library is
# loaded at run time); hwloc-nox: lstopo, which the topology tests read their files with.
pkgs="build-essential cmake ninja-build pkg-config libfabric-dev libfabric-bin libpmix-dev
      openmpi-bin libopenmpi-dev clang clang-format python3-matplotlib python3-venv iproute2
      valgrind man-db slurm-wlm munge mpich libmpich-dev libhwloc-dev hwloc-nox"
missing=""
for p in $pkgs; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q $missing
