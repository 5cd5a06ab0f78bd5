#!/bin/sh
# Runs a Shoal program with its PEs in two network namespaces joined by a veth pair,
# so that traffic between the two "nodes" crosses an interface with two addresses
# (10.211.0.1 and 10.211.0.2, which exist only inside the namespaces made here).
# PEs 0..n/2-1 live in namespace A, the rest in B; SHOAL_NODE_MAP says the same.
# Exits 77 (skipped) where namespaces cannot be made (not root, no ip, no veth).
# usage: two_namespaces.sh OSHRUN NPES PROGRAM [ARGS...]
set -u
oshrun="$1"; n="$2"; shift 2
command -v ip >/dev/null 2>&1 || { echo "skipped: no ip command (apt-get install iproute2)"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "skipped: making network namespaces needs root"; exit 77; }

a="shoal-a-$$"; b="shoal-b-$$"
cleanup() {
    ip netns del "$a" 2>/dev/null
    ip netns del "$b" 2>/dev/null
}
trap cleanup EXIT INT TERM
if ! { ip netns add "$a" && ip netns add "$b" &&
       ip link add "sa$$" type veth peer name "sb$$" &&
       ip link set "sa$$" netns "$a" && ip link set "sb$$" netns "$b" &&
       ip -n "$a" link set "sa$$" name shoal0 && ip -n "$b" link set "sb$$" name shoal0 &&
       ip -n "$a" addr add 10.211.0.1/24 dev shoal0 && ip -n "$b" addr add 10.211.0.2/24 dev shoal0 &&
       ip -n "$a" link set shoal0 up && ip -n "$b" link set shoal0 up &&
       ip -n "$a" link set lo up && ip -n "$b" link set lo up; } 2>/tmp/shoal-netns-$$.err; then
    echo "skipped: cannot make network namespaces here: $(cat /tmp/shoal-netns-$$.err)"
    rm -f /tmp/shoal-netns-$$.err
    exit 77
fi
rm -f /tmp/shoal-netns-$$.err

half=$(( n / 2 ))
# Each PE enters its namespace and talks through shoal0 only (not loopback).
SHOAL_NODE_MAP="block:$half" SHMEM_OFI_PROVIDER="tcp;ofi_rxm" FI_TCP_IFACE=shoal0 \
    "$oshrun" -n "$n" --timeout 120 sh -c '
        if [ "$SHOAL_RANK" -lt '"$half"' ]; then ns='"$a"'; else ns='"$b"'; fi
        exec ip netns exec "$ns" "$@"' sh "$@"
