#!/bin/sh
# A virtual cluster on this machine: K nodes (2 to 4), each a network + UTS + mount
# namespace with its own host name (shoal-n1 ...), /dev/shm, /tmp and /run, and M
# network interfaces (eth0 ... ethM-1, 1 to 4), interface i with address 10.213.i.N on
# bridge br<i> (subnet 10.213.i.0/24); the bridges live in a namespace of their own, so
# no packet reaches the machine's own interfaces. Like the NICs of one fabric, every
# interface reaches every other node: a packet leaves through the interface that owns
# its source address (a routing table per interface), so a process bound to eth1 sends
# through eth1 whichever node it reaches. The rest of the file system is shared,
# like a cluster's shared file system. Each node runs munged and slurmd; the first
# also runs slurmctld. Needs root and Debian's slurm-wlm and munge packages.
#
# usage: cluster.sh up [K] [--nics M]  bring up K nodes (default 2), M interfaces each (1)
#        cluster.sh run CMD...    run CMD on the first node, in the current directory
#        cluster.sh on NODE CMD...  run CMD on node NODE (1..K or its host name)
#        cluster.sh rsh HOST CMD... Open MPI's rsh agent: CMD (one shell line) on HOST
#        cluster.sh status        say whether a cluster is up, its nodes' states and
#                                 interfaces
#        cluster.sh down          stop everything and remove every trace of it
#
# Inside, srun/sbatch/sinfo work as on a cluster (the nodes' /etc/slurm is this
# cluster's), and Open MPI's mpirun reaches the nodes through
#   mpirun --hostfile "$CLUSTER_HOSTFILE" --mca plm_rsh_agent "$CLUSTER_RSH"
# (both set in the environment of commands run with `run` and `on`).
#
# The state lives in $SHOAL_CLUSTER_DIR (default /run/shoal-cluster), which `up` makes
# with mode 0700 and every command checks first: root's, not a symbolic link, under
# directories no one else can write into (or sticky). Nothing in it is trusted otherwise. Nodes are entered
# only through namespaces whose identities `up` recorded there; `up` and `down` make and
# remove only network namespaces named with this cluster's random tag, kill only the
# processes in them, and unmount only the namespace handles `up` mounted.
set -u
# The state (config, logs, namespace handles; shared by all nodes): root's alone, checked
# at every use (check_state), at the same path inside the nodes.
S=${SHOAL_CLUSTER_DIR:-/run/shoal-cluster}
NET_PREFIX=10.213
NET=$NET_PREFIX.0 # the first interfaces' subnet: host names and Slurm
NS=shoalcl # prefix of the named network namespaces: shoalcl-TAG-sw, shoalcl-TAG-nK
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

# secure_dir DIR: a real directory (not a symbolic link) of root's that no one else can
# write into, or that is sticky like /tmp (no one else can then remove or rename what
# root made there): what root finds below it stays as root left it.
secure_dir() {
    [ ! -L "$1" ] && [ -d "$1" ] || return 1
    # shellcheck disable=SC2046 # "UID MODE"
    set -- $(stat -c '%u %a' -- "$1")
    [ "$1" -eq 0 ] && { [ $((0$2 & 022)) -eq 0 ] || [ $((0$2 & 01000)) -ne 0 ]; }
}

# check_parents: $S is a plain absolute path every directory above which is secure, so
# that only root can have made what is at $S.
check_parents() {
    case "$S" in
    /*/*) ;;
    *) die "the state directory $S (SHOAL_CLUSTER_DIR) must be an absolute path below /" ;;
    esac
    case "$S" in
    *[!A-Za-z0-9/._-]* | *//* | */ | */./* | */. | */../* | */..)
        die "the state directory $S (SHOAL_CLUSTER_DIR) may hold only letters, digits," \
            "'.', '_', '-' and single '/' between names, without . or .. components"
        ;;
    esac
    d=""
    rest=${S#/}
    while :; do
        secure_dir "${d:-/}" ||
            die "${d:-/} (above the state directory $S) is a symbolic link, not root's, or" \
                "writable by others: refusing to trust anything below it; set" \
                "SHOAL_CLUSTER_DIR to a path under directories only root can write"
        case "$rest" in */*) ;; *) break ;; esac
        d="$d/${rest%%/*}"
        rest=${rest#*/}
    done
}

# check_state: 0 when $S is a cluster's state (a directory of root's, mode 0700, not a
# link, under secure directories), 1 when there is nothing at $S; refuses anything else.
check_state() {
    check_parents
    [ -e "$S" ] || [ -L "$S" ] || return 1
    [ ! -L "$S" ] && [ -d "$S" ] && [ "$(stat -c '%u %a' -- "$S")" = "0 700" ] ||
        die "$S is not a directory of root's with mode 0700 (it is a symbolic link, a" \
            "file, another user's or open to others), so this script did not make it and" \
            "trusts nothing in it: look at it, remove it, then run $me up"
    tag=$(cat "$S/tag" 2>/dev/null)
    case "$tag" in
    [0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]) ;;
    *) tag="" ;; # up stopped before choosing one: nothing of the cluster's was made yet
    esac
    return 0
}

nodes() {
    k=$(cat "$S/nodes" 2>/dev/null)
    case "$k" in [2-4]) echo "$k" ;; *) echo 0 ;; esac
}

# The interfaces each node has (1 when the cluster recorded none).
nics() {
    m=$(cat "$S/nics" 2>/dev/null)
    case "$m" in [1-4]) echo "$m" ;; *) echo 1 ;; esac
}

# ns_ids FILE...: the namespaces FILEs name, as nsfs device:inode, on one line.
ns_ids() {
    # shellcheck disable=SC2046 # one line of words
    echo $(stat -L -c %d:%i -- "$@" 2>/dev/null)
}

# enter N CMD...: CMD inside node N's namespaces: those of its munged (recorded at
# start, and reachable through /proc from inside any node), or before that the
# handles made for them (visible only outside the nodes). Entered only when they are
# the namespaces made for node N (recorded in $S/nN.ns), checked on descriptors opened
# once, so that a pid that has meanwhile gone to another process cannot switch them.
enter() {
    n=$1
    shift
    want=$(cat "$S/n$n.ns" 2>/dev/null) pid=""
    [ -n "$want" ] || die "shoal-n$n was never made: run $me down, then up"
    if [ -s "$S/n$n.pid" ]; then
        pid=$(cat "$S/n$n.pid")
        case "$pid" in '' | *[!0-9]*) die "$S/n$n.pid holds no pid: run $me down, then up" ;; esac
        { command exec 7<"/proc/$pid/ns/net" 8<"/proc/$pid/ns/uts" 9<"/proc/$pid/ns/mnt"; } \
            2>/dev/null && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = munged ] ||
            die "shoal-n$n's munged (pid $pid) is gone: run $me down, then up"
        [ "$(awk '/^Uid:/ { print $2 $3 $4 $5 }' "/proc/$pid/status" 2>/dev/null)" = 0000 ] ||
            die "pid $pid, recorded as shoal-n$n's munged, does not run as root: it is not" \
                "the cluster's; refusing to enter it (run $me down, then up)"
    else
        { command exec 7<"/run/netns/$NS-$tag-n$n" 8<"$S/ns/n$n.uts" 9<"$S/ns/n$n.mnt"; } \
            2>/dev/null || die "shoal-n$n's namespaces are gone: run $me down, then up"
    fi
    [ "$(ns_ids /proc/self/fd/7 /proc/self/fd/8 /proc/self/fd/9)" = "$want" ] ||
        die "the namespaces of ${pid:+pid }${pid:-shoal-n$n's handles} are not the ones" \
            "made for shoal-n$n: refusing to enter them (run $me down, then up)"
    # shellcheck disable=SC2016 # for the inner shell
    nsenter --net=/proc/self/fd/7 --uts=/proc/self/fd/8 --mount=/proc/self/fd/9 -- \
        sh -c 'exec 7<&- 8<&- 9<&-; exec "$@"' sh "$@"
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
    check_state && [ -e "$S/up" ] || die "no cluster is up (run: $me up)"
    k=$(nodes)
    [ "$n" -ge 1 ] && [ "$n" -le "$k" ] || die "node $n does not exist (the cluster has $k)"
    # The same directory inside the node (not the node's own /tmp of the same name).
    id=$(stat -c %d:%i "$dir") || die "no directory $dir"
    # shellcheck disable=SC2016 # for the inner shell
    enter "$n" env SHOAL_CLUSTER_DIR="$S" CLUSTER_HOSTFILE="$S/hostfile" CLUSTER_RSH="$S/rsh" \
        sh -c '
        cd "$1" 2>/dev/null && [ "$(stat -c %d:%i .)" = "$2" ] || {
            echo "cluster.sh: $1 is not on the shared file system (each node has its own" \
                "/tmp, /dev/shm and /run): run from another directory" >&2
            exit 1
        }
        shift 2
        exec "$@"' sh "$dir" "$id" "$@"
}

# The network namespaces this cluster made that are still there and still the ones it
# made: "NAME DEVICE:INODE" lines.
our_netns() {
    [ -f "$S/netns" ] || return 0
    while read -r name id; do
        case "$name" in "$NS-$tag-"*) ;; *) continue ;; esac
        f=/run/netns/$name
        [ ! -L "$f" ] && [ "$(ns_ids "$f")" = "$id" ] && echo "$name $id"
    done <"$S/netns"
}

# The processes in the cluster's network namespaces (ours: nothing else lives there).
cluster_pids() {
    ids=$(our_netns | awk '{ print $2 }')
    [ -n "$ids" ] || return 0
    # One stat for every process: "DEVICE:INODE /proc/PID/ns/net".
    stat -L -c '%d:%i %n' /proc/[0-9]*/ns/net 2>/dev/null |
        awk -v want="$ids" 'BEGIN { n = split(want, w); for (i = 1; i <= n; i++) ns[w[i]] = 1 }
            $1 in ns { split($2, p, "/"); print p[3] }'
}

# mounted_at PATH [FSTYPE]: something (of FSTYPE) is mounted at exactly PATH (no link
# followed: mountinfo names mount points as they are; $S holds no character it escapes).
mounted_at() {
    awk -v p="$1" -v t="${2:-}" '{ i = 7; while ($i != "-") i++ }
        $5 == p && (t == "" || $(i + 1) == t) { found = 1 } END { exit !found }' /proc/self/mountinfo
}

# Removes what this cluster made, and nothing else: its processes (those in its network
# namespaces), the namespace handles it mounted, its network namespaces, $S.
down() {
    if ! check_state; then
        echo "$me: no cluster is up (nothing at $S): nothing to remove"
        return 0
    fi
    # Every process in the nodes, jobs and daemons alike, by its pid.
    for sig in TERM TERM TERM TERM TERM KILL KILL; do
        pids=$(cluster_pids)
        [ -n "$pids" ] || break
        # shellcheck disable=SC2086 # one pid per word
        kill -s "$sig" $pids 2>/dev/null
        sleep 0.5
    done
    [ -z "$(cluster_pids)" ] || echo "$me: processes left in the cluster: $(cluster_pids)" >&2
    # The handles make_node mounted, by their exact names: a symbolic link is never
    # followed, and only a namespace handle (nsfs) mounted there is unmounted.
    for h in 1 2 3 4; do
        for t in uts mnt; do
            f=$S/ns/n$h.$t
            if [ -L "$f" ]; then
                echo "$me: $f is a symbolic link, not a handle this script made: left alone" >&2
            elif mounted_at "$f" nsfs; then
                umount -c "$f" 2>/dev/null || umount -c -l "$f"
            fi
        done
    done
    our_netns | while read -r name id; do ip netns del "$name"; done
    if mounted_at "$S"; then
        umount -c "$S" 2>/dev/null || umount -c -l "$S"
    fi
    left=$(awk -v p="$S/" 'index($5, p) == 1 { print $5 }' /proc/self/mountinfo)
    [ -z "$left" ] || die "mounts are left below $S, so it stays: $left"
    rm -rf --one-file-system "$S"
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
    # The rsh agent, in $S (which only root can reach): this script, for this cluster.
    self=$(readlink -f "$0" | sed "s/'/'\\\\''/g")
    printf "#!/bin/sh\nSHOAL_CLUSTER_DIR=%s\nexport SHOAL_CLUSTER_DIR\nexec '%s' rsh \"\$@\"\n" \
        "$S" "$self" >"$S/rsh"
    chmod 700 "$S/rsh"
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

# add_netns NAME: makes network namespace NAME and records it (with its identity) as
# this cluster's, for down.
add_netns() {
    ip netns add "$1" || return 1
    echo "$1 $(ns_ids "/run/netns/$1")" >>"$S/netns"
}

# add_nic N I: node N's interface ethI, address 10.213.I.N on bridge brI. With more
# than one, packets from ethI's address leave through ethI to any node (table 100+I,
# taken before the main table): the far node's interface on that bridge answers for
# every address of its node. Strict reverse-path filtering would drop what then
# arrives on another interface than the one the node replies through: off.
add_nic() {
    n=$1 i=$2 node=$NS-$tag-n$1
    ip -n "$NS-$tag-sw" link add "v$n-$i" type veth peer name "eth$i" netns "$node" &&
        ip -n "$NS-$tag-sw" link set "v$n-$i" master "br$i" up &&
        ip -n "$node" addr add "$NET_PREFIX.$i.$n/24" dev "eth$i" &&
        ip -n "$node" link set "eth$i" up || return 1
    [ "$(nics)" -gt 1 ] || return 0
    ip -n "$node" rule add from "$NET_PREFIX.$i.$n" lookup $((100 + i)) pref $((100 + i)) &&
        ip -n "$node" route add "$NET_PREFIX.0.0/16" dev "eth$i" table $((100 + i)) &&
        nsenter --net="/run/netns/$node" sysctl -q -w "net.ipv4.conf.eth$i.rp_filter=0" \
            net.ipv4.conf.all.rp_filter=0
}

make_node() {
    n=$1
    add_netns "$NS-$tag-n$n" && ip -n "$NS-$tag-n$n" link set lo up || return 1
    for i in $(seq 0 $(($(nics) - 1))); do
        add_nic "$n" "$i" || return 1
    done
    touch "$S/ns/n$n.uts" "$S/ns/n$n.mnt"
    # The node's own /tmp, /dev/shm and /run; /sys shows its own interfaces; its
    # /etc/hosts and /etc/slurm are the cluster's. Its /run is made aside and moved into
    # place, to hold the state directory at its path when that is under /run.
    nsenter --net="/run/netns/$NS-$tag-n$n" \
        unshare --uts="$S/ns/n$n.uts" --mount="$S/ns/n$n.mnt" --propagation private \
        sh -ec '
            hostname "shoal-n$1"
            mount -t tmpfs -o mode=1777 shoal-tmp /tmp
            mount -t tmpfs -o mode=1777 shoal-shm /dev/shm
            mkdir /tmp/.run
            mount -t tmpfs -o mode=755 shoal-run /tmp/.run
            mkdir -p /tmp/.run/munge /tmp/.run/slurm
            case "$2" in
            /run/*)
                mkdir -p "/tmp/.run/${2#/run/}"
                mount --bind "$2" "/tmp/.run/${2#/run/}"
                ;;
            esac
            # -n: mount would note the move in /run/mount, which the move hides.
            mount -n --move /tmp/.run /run
            rmdir /tmp/.run
            mkdir /run/.cgroup
            mount --rbind /sys/fs/cgroup /run/.cgroup
            mount -t sysfs shoal-sys /sys
            mount --move /run/.cgroup /sys/fs/cgroup
            rmdir /run/.cgroup
            mount --bind "$2/hosts" /etc/hosts
            mount --bind "$2/etc" /etc/slurm' sh "$n" "$S" || return 1
    ns_ids "/run/netns/$NS-$tag-n$n" "$S/ns/n$n.uts" "$S/ns/n$n.mnt" >"$S/n$n.ns"
}

up() {
    k=2 m=1
    while [ $# -gt 0 ]; do
        case "$1" in
        --nics) [ $# -gt 1 ] || die "up: --nics needs a count (1 to 4)"; m=$2; shift 2 ;;
        --nics=*) m=${1#--nics=}; shift ;;
        *) k=$1; shift ;;
        esac
    done
    case "$k" in [2-4]) ;; *) die "up: K must be 2, 3 or 4 (got $k)" ;; esac
    case "$m" in [1-4]) ;; *) die "up: --nics M must be 1, 2, 3 or 4 (got $m)" ;; esac
    [ "$(id -u)" -eq 0 ] || cannot_run "namespaces and Slurm's daemons need root"
    for c in ip nsenter unshare munged slurmctld slurmd srun sinfo; do
        command -v "$c" >/dev/null 2>&1 ||
            cannot_run "no $c command (apt-get install iproute2 util-linux munge slurm-wlm)"
    done
    [ -e /usr/lib/x86_64-linux-gnu/slurm-wlm/mpi_pmix.so ] || [ -n "$(find /usr/lib \
        -name mpi_pmix.so -path '*slurm*' 2>/dev/null | head -n 1)" ] ||
        cannot_run "Slurm has no PMIx plugin (mpi_pmix.so; apt-get install slurm-wlm)"
    case "$S" in
    /tmp/* | /dev/shm/*)
        die "up: $S is below /tmp or /dev/shm, which each node has its own: set" \
            "SHOAL_CLUSTER_DIR to a path on the shared file system or below /run"
        ;;
    esac
    ! check_state || die "a cluster is already up (or half made) in $S: run $me down first"
    # Namespaces of our prefix that some other cluster, or an earlier one whose state
    # is lost, made: left to whoever made them.
    others=""
    for f in /run/netns/"$NS"-*; do
        [ -e "$f" ] || [ -L "$f" ] && others="$others ${f#/run/netns/}"
    done
    [ -z "$others" ] || die "up: network namespaces of this script's prefix are there" \
        "already, not made by a cluster of $S:$others; if another cluster is up, take it" \
        "down; if they are left from an earlier one, remove them (ip netns del NAME)"
    t0=$(date +%s)
    # Made here, at once with its final mode, or not at all: nothing made by anyone else
    # in between is taken for ours.
    mkdir -m 700 "$S" || die "up: cannot make $S"
    check_state || die "up: $S vanished as it was made"
    # This cluster's tag: its network namespaces are named with it.
    tag=$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
    echo "$tag" >"$S/tag"
    # The namespace handles below must live on a private mount.
    mount --bind "$S" "$S" && mount --make-private "$S" ||
        { down; cannot_run "cannot make a private mount of $S"; }
    echo "$k" >"$S/nodes"
    echo "$m" >"$S/nics"
    write_config "$k"
    err="$S/log/netns.err"
    bridges() {
        for i in $(seq 0 $((m - 1))); do
            ip -n "$NS-$tag-sw" link add "br$i" type bridge &&
                ip -n "$NS-$tag-sw" link set "br$i" up || return 1
        done
    }
    if ! { add_netns "$NS-$tag-sw" && bridges; } 2>"$err"; then
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
    echo "$me: $k nodes up in $(($(date +%s) - t0)) s: shoal-n1..shoal-n$k ($NET.1-$k)$(
        [ "$m" -eq 1 ] || echo ", $m interfaces each (eth0-eth$((m - 1)): $NET_PREFIX.0-$((m - 1)).N)")"
}

status() {
    if ! check_state || [ ! -e "$S/up" ]; then
        echo "no cluster is up"
        return 1
    fi
    echo "cluster of $(nodes) nodes, $(nics) interface(s) each; state in $S"
    run_on 1 / sinfo -N
    for n in $(seq "$(nodes)"); do
        echo "shoal-n$n:"
        run_on "$n" / ip -br -4 addr show | grep -v '^lo ' | sed 's/@[^ ]*//; s/^/  /'
    done
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
*) die "usage: $me up [K] [--nics M] | run CMD... | on NODE CMD... | rsh HOST CMD... | status | down" ;;
esac
