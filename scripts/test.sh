#!/bin/sh
# Fresh machine to a full test run: dependencies, build with tests, run every test.
# SHOAL_SANITIZE=address (ASan+UBSan) or thread (TSan) builds and tests that variant
# in build-<sanitizer> (TSan with tests/tsan.supp's suppressions).
#
# The multi-PE tests run in five transport modes (SHOAL_TEST_MODES, default all):
#   shm       every PE on one node: shared memory only (the whole suite);
#   ofi       every PE its own "node": libfabric over tcp;ofi_rxm on loopback;
#   mixed     nodes of 2 PEs: shared memory inside a node, libfabric between nodes;
#   mpi       started by mpirun, every operation through MPI-3 RMA (SHOAL_TRANSPORT=
#             mpi-all); skipped when the build has no MPI module;
#   mpi-mixed started by mpirun, nodes of 2 PEs: shared memory inside, MPI between.
# The network modes run at 2, 4 and 8 PEs; SHOAL_TEST_NET_ALL=1 adds 16 (slow on 2
# cores: every oversubscribed PE must be scheduled to progress its peers' traffic).
# The mpi modes leave out the tests that check what oshrun prints and returns (labels
# errors, oshrun: argument checks do not depend on the transport) and the ofi.* tests
# of libfabric's own options. Every MPI operation is a library call plus a flush, so
# on CI's 2 cores mode mpi runs the suite at 2 and 4 PEs (stress tests at 2) and the
# mpi_np8 subset below at 8, and mpi-mixed the suite at 4 PEs;
# SHOAL_TEST_NET_ALL=1 runs all of it at 2 to 16.
# After the five modes, mode cluster runs the tests labelled cluster once: jobs
# launched by srun, sbatch and mpirun across the nodes of a virtual cluster
# (scripts/cluster.sh; about 40 s; skipped, saying why, without root or Slurm).
# SHOAL_TEST_TIMEOUT_SCALE (a whole number) multiplies every test's time limits, for a
# slow machine or one busy with other work: the tests' own limits are set for CI's idle
# 2 cores. Unset, it follows the load this script starts on: 1 up to 2 runnable tasks
# per CPU, one more for each 2 more, at most 4.
# Arguments go to every ctest run (e.g. -R api.rma).
set -e
cd "$(dirname "$0")/.."
if [ -z "${SHOAL_TEST_TIMEOUT_SCALE:-}" ]; then
    load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)
    SHOAL_TEST_TIMEOUT_SCALE=$(awk -v l="$load" -v c="$(nproc)" \
        'BEGIN { s = int(l / c / 2) + 1; print (s > 4 ? 4 : s) }')
    [ "$SHOAL_TEST_TIMEOUT_SCALE" -eq 1 ] ||
        echo "test.sh: load $load on $(nproc) CPUs: time limits x$SHOAL_TEST_TIMEOUT_SCALE" \
            "(SHOAL_TEST_TIMEOUT_SCALE=1 keeps them)"
fi
export SHOAL_TEST_TIMEOUT_SCALE
scripts/install-deps.sh
dir=build
extra=""
if [ -n "$SHOAL_SANITIZE" ]; then
    dir="build-$SHOAL_SANITIZE"
    extra="-DSHOAL_SANITIZE=$SHOAL_SANITIZE"
fi
# TSan: leave out what libfabric's own copies race with (tests/tsan.supp says why).
if [ "$SHOAL_SANITIZE" = thread ]; then
    TSAN_OPTIONS="suppressions=$PWD/tests/tsan.supp${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
    export TSAN_OPTIONS
fi
cmake -S . -B "$dir" -G Ninja -DSHOAL_WERROR=ON \
    -DSHOAL_TEST_TIMEOUT_SCALE="$SHOAL_TEST_TIMEOUT_SCALE" $extra
cmake --build "$dir"
cd "$dir"
jobs="${SHOAL_TEST_JOBS:-2}"
skip_net='^np(1|16)$'
[ -n "${SHOAL_TEST_NET_ALL:-}" ] && skip_net='^np1$'
status=0
# The 8-PE tests of mode mpi: own-memory polling, RMA, signals, contexts, threads and
# the collectives MPI runs (api.amo and api.wait, a remote poll per step, run at 2
# and 4 PEs).
mpi_np8='self_poll|rma_typed|rma_large|signal|static|ctx|threads|coll_reduce|coll_bcast|coll_collect|coll_alltoall|coll_active'
for mode in ${SHOAL_TEST_MODES:-shm ofi mixed mpi mpi-mixed cluster}; do
    echo "==== transport mode: $mode ===="
    case "$mode" in
    shm)   ctest --output-on-failure -j "$jobs" -LE '^cluster$' "$@" || status=1; continue ;;
    cluster) ctest --output-on-failure -L '^cluster$' "$@" || status=1; continue ;;
    ofi)   map=pe ;;
    mixed) map=block:2 ;;
    mpi|mpi-mixed)
        if [ ! -e src/libshoal-mpi.so ]; then
            echo "skipped: built without the MPI transport (install libopenmpi-dev)"
            continue
        fi
        drop='^ofi\.|^stress_.*\.np4$'
        if [ "$mode" = mpi ]; then
            transport=mpi-all map= skip='^(np1|np8|np16|errors|oshrun)$'
            np8="^api\.($mpi_np8)\.np8\$"
        else   # at 2 PEs block:2 is one node, where MPI has nothing to do: 4 PEs only
            transport=mpi map=block:2 skip='^(np1|np2|np8|np16|errors|oshrun)$' np8=
        fi
        if [ -n "${SHOAL_TEST_NET_ALL:-}" ]; then
            skip='^(np1|errors|oshrun)$' drop='^ofi\.' np8=
        fi
        for sel in "-LE $skip -E $drop" ${np8:+"-R $np8"}; do
            # shellcheck disable=SC2086 # $sel is two ctest options
            SHOAL_TEST_LAUNCHER=mpirun SHOAL_TRANSPORT=$transport SHOAL_NODE_MAP=$map \
                ctest --output-on-failure -j "$jobs" -L '^pe$' $sel "$@" || status=1
        done
        continue ;;
    *)     echo "unknown transport mode $mode (use shm, ofi, mixed, mpi, mpi-mixed, cluster)"; exit 2 ;;
    esac
    SHOAL_NODE_MAP=$map SHMEM_OFI_PROVIDER='tcp;ofi_rxm' \
        ctest --output-on-failure -j "$jobs" -L '^pe$' -LE "$skip_net" "$@" || status=1
done
exit $status
