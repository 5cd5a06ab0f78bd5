#!/bin/sh
# Takes the virtual cluster down and checks that nothing of it is left: no process in
# its namespaces, no namespace, mount, network link or file. Skipped (77) when
# cluster.up was (SKIPFILE holds why).
# usage: down.sh SKIPFILE
here=$(cd "$(dirname "$0")" && pwd)
cluster="$here/../../scripts/cluster.sh"
if [ -s "$1" ]; then
    echo "skipped: $(cat "$1")"
    exit 77
fi
S=${SHOAL_CLUSTER_DIR:-/run/shoal-cluster}
# The cluster's network namespaces ("NAME DEVICE:INODE", recorded by up) and processes:
# those whose network namespace is one of them.
names=$(awk '{ print $1 }' "$S/netns" 2>/dev/null)
ids=$(awk '{ print $2 }' "$S/netns" 2>/dev/null)
[ -n "$names" ] || { echo "FAIL: $S/netns names no namespace of the cluster"; exit 1; }
pids=$(stat -L -c '%d:%i %n' /proc/[0-9]*/ns/net 2>/dev/null |
    awk -v want="$ids" 'BEGIN { n = split(want, w); for (i = 1; i <= n; i++) ns[w[i]] = 1 }
        $1 in ns { split($2, p, "/"); print p[3] }')
[ -n "$pids" ] || { echo "FAIL: no cluster process was running before down"; exit 1; }
"$cluster" down || { echo "FAIL: cluster.sh down failed"; exit 1; }
status=0
# A process still exiting may outlive its namespaces by a moment: 2 s to go.
alive() { # PID: not gone and not a zombie
    st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)
    [ -n "$st" ] && [ "$st" != Z ]
}
for p in $pids; do
    i=0
    while alive "$p" && [ "$i" -lt 20 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    alive "$p" && { echo "FAIL: process $p ($(cat "/proc/$p/comm" 2>/dev/null)) is left"; status=1; }
done
for name in $names; do
    [ ! -e "/run/netns/$name" ] || { echo "FAIL: network namespace $name is left"; status=1; }
done
grep -q " $S[ /]" /proc/self/mountinfo && { echo "FAIL: mounts left:"; grep " $S[ /]" /proc/self/mountinfo; status=1; }
[ -e "$S" ] && { echo "FAIL: $S is left"; status=1; }
[ "$status" -ne 0 ] || echo "down.sh: nothing of the cluster is left"
exit $status
