#!/bin/sh
# A job in network mode (every PE its own node, tcp;ofi_rxm) while a separate
# libfabric client tries to write into its memory with guessable keys and
# addresses. Passes when every such write fails and the job's memory is unchanged.
# With "external", the job listens on the host's first non-loopback interface
# (SHMEM_OFI_DOMAIN), as a job spanning hosts would, so that only its memory keys
# keep the attacker out.
# usage: attack.sh OSHRUN VICTIM ATTACKER NPES [external]
set -u
oshrun="$1"; victim="$2"; attacker="$3"; n="$4"
if [ "${5:-}" = external ]; then
    command -v ip >/dev/null 2>&1 || { echo "skipped: no ip command"; exit 77; }
    iface=$(ip -o -4 addr show | awk '$2 != "lo" { print $2; exit }')
    [ -n "$iface" ] || { echo "skipped: no IPv4 interface but loopback"; exit 77; }
    export SHMEM_OFI_DOMAIN="$iface"
fi
dir=$(mktemp -d /tmp/shoal-attack.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
SHOAL_NODE_MAP=pe SHMEM_OFI_PROVIDER="tcp;ofi_rxm" "$oshrun" -n "$n" --timeout 100 "$victim" "$dir" &
job=$!
i=0
while [ "$(ls "$dir" | grep -c '^ready\.')" -lt "$n" ]; do
    i=$((i + 1))
    if [ $i -gt 600 ] || ! kill -0 $job 2>/dev/null; then
        echo "attack.sh: the job did not start"; touch "$dir/done"; wait $job; exit 1
    fi
    sleep 0.1
done
pids=$(cat "$dir"/ready.* | cut -d' ' -f1)
vaddr=$(head -n1 "$dir/ready.0" | cut -d' ' -f2)
# 0x108000: where the first shmem_malloc block sat in the heap when the heap's key
# was always 1 and remote addresses were offsets (the issue's attack); 0x200000 is
# further into the same 4 MiB block; then the block's virtual address.
"$attacker" "0x108000,0x200000,$vaddr" $pids
arc=$?
touch "$dir/done"
wait $job
jrc=$?
echo "attack.sh: attacker exit $arc (0: every write failed), job exit $jrc"
[ $arc -eq 0 ] && [ $jrc -eq 0 ]
