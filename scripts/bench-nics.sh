#!/bin/sh
# What a second NIC per node is worth: the aggregate put rate between two nodes of the
# virtual cluster (scripts/cluster.sh up 2 --nics 2) with every PE on eth0
# (SHMEM_OFI_NUM_NICS=1) and with the PEs dealt over eth0 and eth1
# (SHMEM_OFI_NUM_NICS=2, ROUND-ROBIN), in rounds that interleave the two; prints each
# round's MB/s and the median and range of each. The program is the NIC tests'
# tests/cluster/nics_check (each PE puts BYTES to every PE of the other node, ROUNDS
# times a job, and checks what it got). Needs root; brings a cluster up and takes it
# down, so no other may be up.
#
#   scripts/bench-nics.sh [--pes N] [--reps R] [--bytes B] [--rounds K] [--build DIR]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
pes=4 reps=5 bytes=4194304 rounds=16 build="$root/build"
while [ $# -gt 0 ]; do
    case "$1" in
    --pes) pes=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --bytes) bytes=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    -h | --help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "bench-nics.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
prog="$build/tests/cluster/nics_check"
cluster="$root/scripts/cluster.sh"
[ -x "$prog" ] || { echo "bench-nics.sh: build Shoal's tests in $build first (no $prog)" >&2; exit 1; }
[ $((pes % 2)) -eq 0 ] || { echo "bench-nics.sh: --pes must be even (as many on each node)" >&2; exit 2; }
"$cluster" up 2 --nics 2
trap '"$cluster" down >/dev/null' EXIT
out=$(mktemp)
trap 'rm -f "$out"; "$cluster" down >/dev/null' EXIT
for r in $(seq "$reps"); do
    # The order alternates by round, so that drift favours neither.
    order="1 2"
    [ $((r % 2)) -eq 1 ] || order="2 1"
    for nics in $order; do
        rate=$("$cluster" run env SHMEM_OFI_NUM_NICS="$nics" SHMEM_OFI_NIC_POLICY=ROUND-ROBIN \
            srun --mpi=pmix -N 2 -n "$pes" --ntasks-per-node=$((pes / 2)) "$prog" 2 "$bytes" \
            "$rounds" 2>/dev/null | sed -n 's/.*ok, \([0-9.]*\) MB\/s.*/\1/p')
        [ -n "$rate" ] || { echo "bench-nics.sh: the $nics-NIC job of round $r failed" >&2; exit 1; }
        echo "round $r: $nics NIC(s): $rate MB/s"
        echo "$nics $rate" >>"$out"
    done
done
for nics in 1 2; do
    awk -v n="$nics" '$1 == n { print $2 }' "$out" | sort -n | awk -v n="$nics" -v pes="$pes" \
        '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
           printf "%d NIC(s) a node, %d PEs: median %.1f MB/s [%.1f-%.1f], %d rounds\n",
                  n, pes, m, v[1], v[NR], NR }'
done
