#!/bin/sh
# Which interfaces a job's traffic leaves through, on a cluster whose nodes have two
# (cluster.sh up K --nics 2): runs nics_check on 2 nodes under the NIC variables of
# CASE and compares each node's eth0 and eth1 transmit counters before and after.
# A NIC the policy chose must have sent at least a quarter of what its PEs sent; one
# it did not choose, less than LOW (Slurm's own messages go through eth0).
#   rr:   SHMEM_OFI_NUM_NICS=2, ROUND-ROBIN: both NICs of each node
#   one:  SHMEM_OFI_NUM_NICS=1: eth0 alone
#   user: a USER mapping that sends every local PE to NIC 1: eth1 alone
#   rr1:  ROUND-ROBIN with 1 PE a node: eth0 alone (local PE 0 takes NIC 0)
#   gpu:  AUTO for GPU PEs (emu, device heap) on a node described by a topology file
#         whose GPU 0 shares a PCI switch with eth1 and GPU 1 with eth0: local PE 0 on
#         eth1, local PE 1 on eth0 (CPU PEs would take eth0 first)
#   asym: the second node restricted to eth0 (FI_TCP_IFACE): shmem_init stops, naming
#         the counts and SHMEM_OFI_SKIP_NIC_SYMMETRY_TEST, which then lets it run
# usage: nics.sh SKIPFILE SECONDS CASE PES NICS_CHECK
set -u
here=$(cd "$(dirname "$0")" && pwd)
cluster="$here/../../scripts/cluster.sh"
skipfile=$1 secs=$2 case=$3 pes=$4 prog=$5
if [ -s "$skipfile" ]; then
    echo "skipped: $(cat "$skipfile")"
    exit 77
fi
"$cluster" status >/dev/null 2>&1 || { echo "FAIL: no virtual cluster is up: see cluster.up"; exit 1; }
[ "$("$cluster" on 1 sh -c 'ls -d /sys/class/net/eth1 2>/dev/null')" = /sys/class/net/eth1 ] ||
    { echo "FAIL: the cluster's nodes have no eth1: cluster.up must bring it up with --nics 2"; exit 1; }
bytes=524288 rounds=4
per_node=$((pes / 2))
# What each node's PEs send in all: to the PEs of the other node, every round.
sent=$((per_node * per_node * bytes * rounds))
low=$((sent / 8))
case "$case" in
rr) vars="SHMEM_OFI_NUM_NICS=2 SHMEM_OFI_NIC_POLICY=ROUND-ROBIN" want="eth0 eth1" ;;
one) vars="SHMEM_OFI_NUM_NICS=1" want="eth0" ;;
user) vars="SHMEM_OFI_NUM_NICS=2 SHMEM_OFI_NIC_POLICY=USER SHMEM_OFI_NIC_MAPPING=1:0-$((per_node - 1))" want="eth1" ;;
asym) ;;
gpu)
    # The Perlmutter-like node of tests/topology, its first two NICs renamed to the
    # cluster's interfaces, crossed; on the shared file system, beside the program.
    topo=$(mktemp "$(dirname "$prog")/nics-topo.XXXXXX.xml")
    trap 'rm -f "$topo"' EXIT
    sed 's/name="cxi0"/name="eth1"/; s/name="cxi1"/name="eth0"/' \
        "$here/../topology/perlmutter.xml" >"$topo"
    vars="SHOAL_TOPOLOGY_FILE=$topo SHOAL_DEVICE=emu SHMEM_SYMMETRIC_SIZE_DEVICE=16M"
    vars="$vars SHMEM_ENABLE_DEVICE_AWARENESS=1" want="eth0 eth1" ;;
rr1) vars="SHMEM_OFI_NUM_NICS=2 SHMEM_OFI_NIC_POLICY=ROUND-ROBIN" want="eth0" ;;
*) echo "nics.sh: unknown case $case"; exit 2 ;;
esac
if [ "$case" = asym ]; then
    # shellcheck disable=SC2016 # for the PEs' shell
    one_nic='[ "$(hostname)" = shoal-n1 ] || export FI_TCP_IFACE=eth0; exec "$@"'
    for skip in 0 1; do
        out=$(timeout -k 5 "$secs" "$cluster" run env SHMEM_OFI_NUM_NICS=2 \
            SHMEM_OFI_SKIP_NIC_SYMMETRY_TEST=$skip srun --mpi=pmix -w shoal-n1,shoal-n2 -N 2 \
            -n "$pes" --ntasks-per-node="$per_node" sh -c "$one_nic" sh "$prog" 2 4096 1 2>&1)
        rc=$?
        echo "$out"
        if [ "$skip" = 0 ]; then
            [ "$rc" -ne 0 ] || { echo "FAIL: nodes with 2 and 1 NICs ran; shmem_init should stop"; exit 1; }
            echo "$out" | grep -q "node has 1 NIC(s) for provider .*, PE 0's 2: .*SHMEM_OFI_SKIP_NIC_SYMMETRY_TEST=1" ||
                { echo "FAIL: no message naming the NIC counts and SHMEM_OFI_SKIP_NIC_SYMMETRY_TEST"; exit 1; }
        else
            [ "$rc" -eq 0 ] || { echo "FAIL: with SHMEM_OFI_SKIP_NIC_SYMMETRY_TEST=1 the job ended with status $rc"; exit 1; }
        fi
    done
    echo "nics.sh: asym: refused with 2 and 1 NICs, run with the test skipped"
    exit 0
fi
counters() { # the tx_bytes of eth0 and eth1 on nodes 1 and 2, one line
    for n in 1 2; do
        "$cluster" on "$n" cat /sys/class/net/eth0/statistics/tx_bytes \
            /sys/class/net/eth1/statistics/tx_bytes
    done | tr '\n' ' '
}
before=$(counters)
echo "nics.sh: $vars srun -N 2 -n $pes nics_check ($sent bytes a node between nodes)"
# shellcheck disable=SC2086 # one variable a word
# The nodes whose counters are read, with as many PEs on each.
job=$(timeout -k 5 "$secs" "$cluster" run env $vars SHMEM_OFI_PROVIDER_DISPLAY=1 srun --mpi=pmix \
    -w shoal-n1,shoal-n2 -N 2 -n "$pes" --ntasks-per-node="$per_node" "$prog" 2 "$bytes" "$rounds" 2>&1)
rc=$?
after=$(counters)
echo "$job"
[ "$rc" -eq 0 ] || { echo "FAIL: the job ended with status $rc"; exit 1; }
status=0
if [ "$case" = gpu ]; then
    for pn in "PE 0: NIC 1 eth1" "PE 1: NIC 0 eth0"; do
        echo "$job" | grep -q "^shmem: $pn," ||
            { echo "FAIL: SHMEM_OFI_PROVIDER_DISPLAY does not say \"$pn\" (the NIC on the PE's GPU's switch)"; status=1; }
    done
fi
set -- $after
for b in $before; do
    d=$(($1 - b))
    shift
    deltas="${deltas:-} $d"
done
set -- $deltas
for n in 1 2; do
    for i in 0 1; do
        d=$1
        shift
        case " $want " in
        *" eth$i "*)
            if [ "$d" -lt $((sent / 4)) ]; then
                echo "FAIL: shoal-n$n's eth$i sent $d bytes; the policy chose it, so at least $((sent / 4))"
                status=1
            fi ;;
        *)
            if [ "$d" -ge "$low" ]; then
                echo "FAIL: shoal-n$n's eth$i sent $d bytes; the policy did not choose it, so under $low"
                status=1
            fi ;;
        esac
        echo "nics.sh: shoal-n$n eth$i sent $d bytes"
    done
done
[ "$status" -ne 0 ] || echo "nics.sh: $case: the traffic left through $want, as chosen"
exit $status
