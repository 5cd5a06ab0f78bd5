#!/bin/sh
# A virtual cluster on this machine: K nodes (2 to 4), each a network + UTS + mount
# namespace with its own host name (shoal-n1 ...), /dev/shm, /tmp and /run, and an
# address on a bridge (10.213.0.0/24) that lives in a namespace of its own, so no
# packet reaches the machine's own interfaces. The rest of the file system is shared,
# like a cluster's shared file system. Each node runs munged and slurmd; the first
# also runs slurmctld. Needs root and Debian's slurm-wlm and munge packages.
#
# usage: cluster.sh up [K]        bring up K nodes (default 2)
#        cluster.sh run CMD...    run CMD on the first node, in the current directory
#        cluster.sh on NODE CMD...  run CMD on node NODE (1..K or its host name)
#        cluster.sh rsh HOST CMD... Open MPI's rsh agent: CMD (one shell line) on HOST
#        cluster.sh status        say whether a cluster is up and its nodes' states
#        cluster.sh down          stop everything and remove every trace
#
# Inside, srun/sbatch/sinfo work as on a cluster (the nodes' /etc/slurm is this
# cluster's), and Open MPI's mpirun reaches the nodes through
#   mpirun --hostfile "$CLUSTER_HOSTFILE" --mca plm_rsh_agent "$CLUSTER_RSH"
# (both set in the environment of commands run with `run` and `on`).
set -u
S=/var/tmp/shoal-cluster # state: config, logs, namespace handles (shared by all nodes)
NET=10.213.0
NS=shoalcl # prefix of the named network namespaces
me=$(basename "$0")

die() {
    echo "$me: $*" >&2
    exit 1
}

# cannot_run REASON: what `up` says when this machine cannot host the cluster (exit 77,
# the tests' "skipped").
cannot_run() {
    echo "$me: cannot make a virtual cluster here: $*" >&2
    exit 77
}

nodes() { cat "$S/nodes" 2>/dev/null || echo 0; }

# enter N CMD...: CMD inside node N's namespaces: those of its munged (recorded at
# start, and reachable through /proc from inside any node), or before that the
# handles made for them (visible only outside the nodes).
enter() {
    n=$1
    shift
    if [ -s "$S/n$n.pid" ]; then
        pid=$(cat "$S/n$n.pid")
        [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = munged ] ||
            die "shoal-n$n's munged (pid $pid) is gone: run $me down, then up"
        nsenter -t "$pid" --net --uts --mount -- "$@"
    else
        nsenter --net="/run/netns/$NS-n$n" --uts="$S/ns/n$n.uts" --mount="$S/ns/n$n.mnt" -- "$@"
    fi
}

node_number() {
    case "$1" in
    [1-4]) echo "$1" ;;
    shoal-n[1-4]) echo "${1#shoal-n}" ;;
    *) return 1 ;;
    esac
}

# Runs CMD in node N in directory DIR with the cluster's variables set.
run_on() {
    n=$1 dir=$2
    shift 2
    [ -e "$S/up" ] || die "no cluster is up (run: $me up)"
    k=$(nodes)
    [ "$n" -ge 1 ] && [ "$n" -le "$k" ] || die "node $n does not exist (the cluster has $k)"
    # The same directory inside the node (not the node's own /tmp of the same name).
    id=$(stat -c %d:%i "$dir") || die "no directory $dir"
    enter "$n" env CLUSTER_HOSTFILE="$S/hostfile" CLUSTER_RSH="$S/rsh" sh -c '
        cd "$1" 2>/dev/null && [ "$(stat -c %d:%i .)" = "$2" ] || {
            echo "cluster.sh: $1 is not on the shared file system (each node has its own" \
                "/tmp, /dev/shm and /run): run from another directory" >&2
            exit 1
        }
        shift 2
        exec "$@"' sh "$dir" "$id" "$@"
}

# The processes in the cluster's network namespaces (ours: nothing else lives there).
cluster_pids() {
    inodes=""
    for f in /run/netns/"$NS"-*; do
        [ -e "$f" ] && inodes="$inodes $(stat -L -c %i "$f")"
    done
    [ -n "$inodes" ] || return 0
    # One stat for every process: "INODE /proc/PID/ns/net".
    stat -L -c '%i %n' /proc/[0-9]*/ns/net 2>/dev/null |
        awk -v want="$inodes" 'BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) ns[w[i]] = 1 }
            $1 in ns { split($2, p, "/"); print p[3] }'
}

down() {
    # Every process in the nodes, jobs and daemons alike, by its pid.
    for sig in TERM TERM TERM TERM TERM KILL KILL; do
        pids=$(cluster_pids)
        [ -n "$pids" ] || break
        # shellcheck disable=SC2086 # one pid per word
        kill -s "$sig" $pids 2>/dev/null
        sleep 0.5
    done
    [ -z "$(cluster_pids)" ] || echo "$me: processes left in the cluster: $(cluster_pids)" >&2
    for f in "$S"/ns/*; do
        [ -e "$f" ] && { umount "$f" 2>/dev/null || umount -l "$f"; }
    done
    for f in /run/netns/"$NS"-*; do
        [ -e "$f" ] && ip netns del "${f#/run/netns/}"
    done
    if grep -q " $S " /proc/self/mountinfo; then
        umount "$S" 2>/dev/null || umount -l "$S"
    fi
    rm -rf "$S"
    return 0
}

# Prints the last lines of every log, for a bring-up that failed.
show_logs() {
    for f in "$S"/log/*; do
        [ -s "$f" ] || continue
        echo "---- $f (last lines) ----" >&2
        tail -n 15 "$f" >&2
    done
}

fail_up() {
    echo "$me: bring-up failed: $*" >&2
    show_logs
    down
    exit 1
}

write_config() {
    k=$1
    mkdir -p "$S/etc" "$S/log" "$S/ns" "$S/ctld"
    for n in $(seq "$k"); do mkdir -p "$S/spool/shoal-n$n"; done
    {
        echo "127.0.0.1 localhost"
        for n in $(seq "$k"); do echo "$NET.$n shoal-n$n"; done
    } >"$S/hosts"
    for n in $(seq "$k"); do echo "shoal-n$n slots=4"; done >"$S/hostfile"
    printf '#!/bin/sh\nexec %s rsh "$@"\n' "$(readlink -f "$0")" >"$S/rsh"
    chmod 755 "$S/rsh"
    # Root runs every daemon; no accounting, cgroup tracking or task binding (nothing here
    # needs them and they would touch the machine's own cgroups). config_overrides:
    # 4 CPUs a node whatever the machine has, so that -N 4 -n 16 places 4 tasks on
    # each node as on a cluster of 4-core nodes; srun --overcommit places more.
    cat >"$S/etc/slurm.conf" <<EOF
ClusterName=shoal
SlurmctldHost=shoal-n1($NET.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation=$S/ctld
SlurmdSpoolDir=$S/spool/%n
SlurmctldPidFile=/run/slurm/slurmctld.pid
SlurmdPidFile=/run/slurm/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd-%n.log
SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
KillOnBadExit=1
InactiveLimit=0
KillWait=5
MinJobAge=30
SlurmctldTimeout=30
SlurmdTimeout=30
MessageTimeout=10
EOF
    for n in $(seq "$k"); do
        echo "NodeName=shoal-n$n NodeAddr=$NET.$n CPUs=4 State=UNKNOWN"
    done >>"$S/etc/slurm.conf"
    echo "PartitionName=cluster Nodes=ALL Default=YES MaxTime=INFINITE State=UP" \
        >>"$S/etc/slurm.conf"
    dd if=/dev/urandom of="$S/munge.key" bs=1024 count=1 2>/dev/null
    chmod 400 "$S/munge.key"
}

make_node() {
    n=$1
    ip netns add "$NS-n$n" &&
        ip -n "$NS-sw" link add "v$n" type veth peer name eth0 netns "$NS-n$n" &&
        ip -n "$NS-sw" link set "v$n" master br0 up &&
        ip -n "$NS-n$n" addr add "$NET.$n/24" dev eth0 &&
        ip -n "$NS-n$n" link set eth0 up &&
        ip -n "$NS-n$n" link set lo up || return 1
    touch "$S/ns/n$n.uts" "$S/ns/n$n.mnt"
    # The node's own /tmp, /dev/shm and /run; /sys shows its own interfaces; its
    # /etc/hosts and /etc/slurm are the cluster's.
    nsenter --net="/run/netns/$NS-n$n" \
        unshare --uts="$S/ns/n$n.uts" --mount="$S/ns/n$n.mnt" --propagation private \
        sh -ec '
            hostname "shoal-n$1"
            mount -t tmpfs -o mode=1777 shoal-tmp /tmp
            mount -t tmpfs -o mode=1777 shoal-shm /dev/shm
            mount -t tmpfs -o mode=755 shoal-run /run
            mkdir -p /run/munge /run/slurm
            mkdir /run/.cgroup
            mount --rbind /sys/fs/cgroup /run/.cgroup
            mount -t sysfs shoal-sys /sys
            mount --move /run/.cgroup /sys/fs/cgroup
            rmdir /run/.cgroup
            mount --bind "$2/hosts" /etc/hosts
            mount --bind "$2/etc" /etc/slurm' sh "$n" "$S"
}

up() {
    k=${1:-2}
    case "$k" in [2-4]) ;; *) die "up: K must be 2, 3 or 4 (got $k)" ;; esac
    [ "$(id -u)" -eq 0 ] || cannot_run "namespaces and Slurm's daemons need root"
    for c in ip nsenter unshare munged slurmctld slurmd srun sinfo; do
        command -v "$c" >/dev/null 2>&1 ||
            cannot_run "no $c command (apt-get install iproute2 util-linux munge slurm-wlm)"
    done
    [ -e /usr/lib/x86_64-linux-gnu/slurm-wlm/mpi_pmix.so ] || [ -n "$(find /usr/lib \
        -name mpi_pmix.so -path '*slurm*' 2>/dev/null | head -n 1)" ] ||
        cannot_run "Slurm has no PMIx plugin (mpi_pmix.so; apt-get install slurm-wlm)"
    [ ! -e "$S" ] || die "a cluster is already up (or half made): run $me down first"
    t0=$(date +%s)
    mkdir -p "$S" && chmod 700 "$S"
    # The namespace handles below must live on a private mount.
    mount --bind "$S" "$S" && mount --make-private "$S" ||
        { rm -rf "$S"; cannot_run "cannot make a private mount of $S"; }
    echo "$k" >"$S/nodes"
    write_config "$k"
    err="$S/log/netns.err"
    if ! { ip netns add "$NS-sw" && ip -n "$NS-sw" link add br0 type bridge &&
        ip -n "$NS-sw" link set br0 up; } 2>"$err"; then
        why=$(cat "$err")
        down
        cannot_run "cannot make network namespaces: $why"
    fi
    for n in $(seq "$k"); do
        if ! make_node "$n" 2>"$err"; then
            why=$(cat "$err")
            down
            cannot_run "cannot make node $n's namespaces: $why"
        fi
    done
    for n in $(seq "$k"); do
        enter "$n" munged --force --key-file="$S/munge.key" --seed-file="$S/munge-n$n.seed" \
            --log-file="$S/log/munged-n$n.log" 2>>"$S/log/munged-n$n.log" &&
            enter "$n" cat /run/munge/munged.pid >"$S/n$n.pid" ||
            fail_up "munged did not start on shoal-n$n"
    done
    enter 1 slurmctld 2>>"$S/log/slurmctld.log" || fail_up "slurmctld did not start"
    for n in $(seq "$k"); do
        enter "$n" slurmd 2>>"$S/log/slurmd-shoal-n$n.log" ||
            fail_up "slurmd did not start on shoal-n$n"
    done
    touch "$S/up"
    # Ready when every node is idle: seconds normally.
    i=0
    while :; do
        idle=$(enter 1 sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)
        [ "$idle" -eq "$k" ] && break
        i=$((i + 1))
        [ "$i" -lt 60 ] || fail_up "after 30 s, $idle of $k nodes are idle: $(enter 1 sinfo -N 2>&1)"
        sleep 0.5
    done
    echo "$me: $k nodes up in $(($(date +%s) - t0)) s: shoal-n1..shoal-n$k ($NET.1-$k)"
}

status() {
    if [ ! -e "$S/up" ]; then
        echo "no cluster is up"
        return 1
    fi
    echo "cluster of $(nodes) nodes; state in $S"
    run_on 1 / sinfo -N
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
up) up "$@" ;;
down) down ;;
run)
    [ $# -gt 0 ] || die "run: name a command"
    run_on 1 "$PWD" "$@"
    ;;
on)
    [ $# -gt 1 ] || die "on: name a node and a command"
    n=$(node_number "$1") || die "on: no node $1 (1..$(nodes) or shoal-nN)"
    shift
    run_on "$n" "$PWD" "$@"
    ;;
rsh)
    # Open MPI calls the agent as: agent [options] HOST COMMAND-LINE...
    while [ $# -gt 0 ]; do
        case "$1" in -*) shift ;; *) break ;; esac
    done
    [ $# -gt 1 ] || die "rsh: name a host and a command"
    n=$(node_number "$1") || die "rsh: no node $1"
    shift
    run_on "$n" "$PWD" sh -c "$*"
    ;;
status) status ;;
*) die "usage: $me up [K] | run CMD... | on NODE CMD... | rsh HOST CMD... | status | down" ;;
esac
