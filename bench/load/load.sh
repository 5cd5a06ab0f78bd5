#!/bin/sh
# A fixed background load for scripts/bench.sh --busy: runs in the foreground until
# it is sent SIGTERM, then ends everything it started.
#
#   bench/load/load.sh KIND SHOAL_BUILD [OSHMEM_BENCH_DIR]
#
# KIND
#   job    another 2-PE Shoal job (oshrun -n 2, no settings) and another 2-PE Open MPI
#          OSHMEM job (when OSHMEM_BENCH_DIR has coll_small), each looping on barriers:
#          two users or a parallel test suite sharing the node
#   cpu    one CPU-bound process per CPU (a shell busy loop)
#   build  one compiler per CPU, compiling a benchmark source over and over (cc -O2)
#   mixed  job, cpu and build together
# SHOAL_BUILD is a Shoal build folder (tools/oshrun/oshrun, bench/coll_small).
set -u
kind=$1
sb=$2
ob=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
ncpu=$(nproc)
pids=""
nap=""
tmp=$(mktemp -d)
stop() {
    # shellcheck disable=SC2086
    kill $pids $nap 2>/dev/null
    # shellcheck disable=SC2086
    wait $pids
    rm -rf "$tmp"
    exit 0
}
trap stop TERM INT HUP

# Barrier loops: coll_small's first collective is a barrier, timed 10^9 times.
job() {
    "$sb/tools/oshrun/oshrun" -n 2 "$sb/bench/coll_small" -i 1000000000 -w 0 \
        > /dev/null 2>&1 &
    pids="$pids $!"
    if [ -n "$ob" ] && [ -x "$ob/coll_small" ]; then
        asroot=""
        [ "$(id -u)" -eq 0 ] && asroot="--allow-run-as-root"
        (cd "$tmp" && OMPI_MCA_osc='^rdma' OMPI_MCA_opal_common_ucx_opal_mem_hooks=0 \
            exec /usr/bin/oshrun $asroot --oversubscribe -np 2 "$ob/coll_small" \
            -i 1000000000 -w 0) > /dev/null 2>&1 &
        pids="$pids $!"
    fi
}
cpu() {
    for _ in $(seq "$ncpu"); do
        sh -c 'while :; do :; done' &
        pids="$pids $!"
    done
}
build() {
    for i in $(seq "$ncpu"); do
        sh -c 'while :; do cc -O2 -I"$1/include" -I"$1/bench/common" -c "$1/bench/micro/coll.c" \
            -o "$2"; done' sh "$here/../.." "$tmp/coll$i.o" > /dev/null 2>&1 &
        pids="$pids $!"
    done
}
case "$kind" in
    job) job ;;
    cpu) cpu ;;
    build) build ;;
    mixed) job; cpu; build ;;
    *) echo "load.sh: KIND is job, cpu, build or mixed" >&2; exit 2 ;;
esac
# Woken by the signal: sleep in the background so the trap runs at once.
while :; do
    sleep 3600 &
    nap=$!
    wait $nap
done
