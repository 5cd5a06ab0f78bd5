#!/bin/bash
# oshrun removes the regions libfabric's shm provider left in /dev/shm ("PID:UID:N")
# for a PE killed before it could close them, and nothing else: not a wrong suffix,
# a symlink or its target, another user's file of that pid, nor another pid's region.
# usage: shm_regions.sh OSHRUN SHM_CHECK NP   (NP > 1; with SHMEM_OFI_PROVIDER=shm)
set -u
oshrun=$1; prog=$2; np=$3
# A pid nothing can have, and no other run of this test beside it uses.
other=$(($(cat /proc/sys/kernel/pid_max) + 1 + $$))
decoy=/dev/shm/$other:$(id -u):0
out=$(mktemp)
pid=
cleanup() {
    rm -f "$out" "$decoy"
    [ -n "$pid" ] && rm -f /dev/shm/"$pid":0:x /dev/shm/"$pid".target /dev/shm/"$pid":0:99 \
        /dev/shm/"$pid":65534:0
}
trap cleanup EXIT
: >"$decoy" || exit 1
status=0
timeout 60 "$oshrun" -n "$np" "$prog" kill_decoys >"$out" 2>&1
rc=$?
pid=$(sed -n 's/^shm_check: PE 1 pid \([0-9]*\)$/\1/p' "$out")
[ $rc -eq 124 ] && { echo "FAIL: job hung"; status=1; }
[ $rc -eq 0 ] && { echo "FAIL: status 0 after a killed PE"; status=1; }
if ! grep -q "^oshrun: PE 1 (pid $pid) was killed by signal 9 (Killed); ending the job" "$out"; then
    echo "FAIL: no message naming the killed PE:"; cat "$out"; status=1
fi
[ -n "$pid" ] || { echo "FAIL: PE 1 printed no pid"; cat "$out"; exit 1; }
left=$(ls -A /dev/shm | grep -E "^$pid(:[0-9]+)+$" | sort)
kept="$pid:0:99" # the symlink, which is no region
[ "$(id -u)" = 0 ] && kept="$kept"$'\n'"$pid:65534:0"
if [ "$left" != "$(sort <<<"$kept")" ]; then
    echo "FAIL: /dev/shm holds of PE 1 (pid $pid):"; echo "$left"; echo "expected:"; echo "$kept"
    status=1
fi
for f in "$pid:0:x" "$pid.target"; do
    [ -f /dev/shm/"$f" ] || { echo "FAIL: /dev/shm/$f was removed"; status=1; }
done
[ -L /dev/shm/"$pid:0:99" ] || { echo "FAIL: the symlink /dev/shm/$pid:0:99 was removed"; status=1; }
[ -f "$decoy" ] || { echo "FAIL: another pid's region $decoy was removed"; status=1; }
[ $status -eq 0 ] && echo "PE 1's regions removed, decoys kept ($np PEs)"
exit $status
