#!/bin/sh
# What oshrun's default binding is worth: barrier and 8-byte broadcast, reduce,
# collect and fcollect (bench/micro/coll_small.c) at N PEs, in rounds that
# interleave
#   shoal-unbound  Shoal with oshrun --bind-to none (how oshrun ran before it bound)
#   shoal          Shoal with oshrun's defaults
#   oshmem         Open MPI's OSHMEM (Debian openmpi-bin), bound the same way (--bind-to core)
# and prints the median and range of each figure over the rounds. A run that
# fails (Open MPI's OSHMEM 4.1 sometimes crashes in shmem_finalize, losing its
# buffered output) drops out of its round; the last column says how many counted.
#
#   scripts/bench-binding.sh [--pes N] [--rounds R] [--build DIR]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
pes=2 rounds=5 build="$root/build"
while [ $# -gt 0 ]; do
    case "$1" in
        --pes) pes=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --build) build=$2; shift 2 ;;
        -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
        *) echo "bench-binding.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
[ -x "$build/bench/coll_small" ] || { echo "bench-binding.sh: build Shoal in $build first" >&2; exit 1; }
[ -x /usr/bin/oshcc ] || { echo "bench-binding.sh: needs Open MPI's /usr/bin/oshcc (apt-get install openmpi-bin libopenmpi-dev)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/shoal-bind-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
/usr/bin/oshcc -O2 -I"$root/bench/common" "$root/bench/micro/coll_small.c" \
    "$root/bench/common/bench.c" -lm -o "$work/coll_small_oshmem"
asroot=""
[ "$(id -u)" -eq 0 ] && asroot="--allow-run-as-root"
cd "$work"
for r in $(seq "$rounds"); do
    echo "round $r of $rounds" >&2
    "$build/tools/oshrun/oshrun" -n "$pes" --bind-to none "$build/bench/coll_small" |
        sed -n 's/^RESULT,\([^,]*\),[^,]*,/\1,shoal-unbound,/p' >>"$work/all.csv"
    "$build/tools/oshrun/oshrun" -n "$pes" "$build/bench/coll_small" |
        sed -n 's/^RESULT,\([^,]*\),[^,]*,/\1,shoal,/p' >>"$work/all.csv"
    # The memory hooks of Open MPI's UCX component crash its OSHMEM in finalize here.
    OMPI_MCA_opal_common_ucx_opal_mem_hooks=0 OMPI_MCA_osc='^rdma' /usr/bin/oshrun $asroot \
        --bind-to core -np "$pes" "$work/coll_small_oshmem" 2>/dev/null |
        sed -n 's/^RESULT,\([^,]*\),[^,]*,/\1,oshmem,/p' >>"$work/all.csv"
done
# bench,impl,npes,size,metric,value -> median (min-max) per bench and impl, in µs.
sort -t, -k1,1 -k2,2 -k6,6g "$work/all.csv" | awk -F, -v pes="$pes" '
    { key = $1 "," $2; v[key, ++n[key]] = $6; if (!(key in seen)) { seen[key] = 1; keys[++k] = key } }
    END {
        printf "%d PEs, µs per call: median (min-max) over the rounds that finished\n", pes
        for (i = 1; i <= k; i++) {
            c = n[keys[i]]; m = c % 2 ? v[keys[i], (c + 1) / 2] : (v[keys[i], c / 2] + v[keys[i], c / 2 + 1]) / 2
            printf "%-10s %-14s %8.3f (%.3f-%.3f) rounds %d\n", substr(keys[i], 1, index(keys[i], ",") - 1),
                substr(keys[i], index(keys[i], ",") + 1), m, v[keys[i], 1], v[keys[i], c], c
        }
    }'
