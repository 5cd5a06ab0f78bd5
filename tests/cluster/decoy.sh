#!/bin/sh
# Gives this node a second interface that reaches none of the job's peers and that
# libfabric lists before the cluster's (a veth pair with an address of its own, like a
# container bridge or a management network), then runs CMD: the job must still pick
# the interface its peers share. The interface goes with the node (cluster.sh down).
# usage: decoy.sh CMD...
ip link show shoal-decoy0 >/dev/null 2>&1 ||
    { ip link add shoal-decoy0 type veth peer name shoal-decoy1 &&
      ip addr add 172.31.99.1/24 dev shoal-decoy0 &&
      ip link set shoal-decoy0 up && ip link set shoal-decoy1 up; } ||
    { echo "decoy.sh: cannot add an interface to $(hostname)"; exit 1; }
exec "$@"
