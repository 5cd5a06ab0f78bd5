#!/bin/sh
# scripts/cluster.sh run by root on a machine it shares: what another user plants, or
# what some other program made, must neither run as root nor be removed.
#   state   a user without privileges makes look like a cluster's state: the old state
#           place (/var/tmp/shoal-cluster), a state directory of its own, one below its
#           own directory, a link to its state; each with pid files naming its own
#           "munged" (a process in a mount namespace of its own whose /usr/bin/env is the
#           user's program) and an rsh agent of its own. status, run, on and rsh must
#           refuse all of these (naming why) and never run the user's program. Then a
#           state of root's whose pid files name a process that is not the cluster's
#           munged (the user's, or root's in other namespaces): refused, never entered.
#   umount  down on the user's planted state (links to a mount of root's in ns/) must
#           refuse; down on a state of root's holding such links, and a mount it did not
#           make, must unmount neither.
#   netns   a network namespace shoalcl-sw (with a process in it) that the cluster did
#           not make: up must refuse naming it, down with no cluster up must do nothing;
#           the namespace and its process must survive both.
# None of this touches a cluster that is up: every command here names another state
# directory (SHOAL_CLUSTER_DIR), except status, run, on and rsh at the default place,
# which only run `true` there. Skipped (77), saying why, without root, useradd or
# unprivileged user namespaces.
# usage: safety.sh state|umount|netns
set -u
here=$(cd "$(dirname "$0")" && pwd)
cluster="$here/../../scripts/cluster.sh"
case_=${1:-}
status=0
user="" pids="" cleanup_paths="" ns_made=""

skip() {
    echo "skipped: $*"
    exit 77
}
fail() {
    echo "FAIL: $*"
    status=1
}

cleanup() {
    for p in $pids; do
        kill -9 "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    for m in $(awk '{ print $5 }' /proc/self/mountinfo | grep '^/var/tmp/shoal-safety\|^/tmp/shoal-safety'); do
        umount -l "$m" 2>/dev/null
    done
    # shellcheck disable=SC2086 # one path per word
    [ -z "$cleanup_paths" ] || rm -rf --one-file-system $cleanup_paths
    [ -z "$ns_made" ] || ip netns del "$ns_made" 2>/dev/null
    [ -z "$user" ] || userdel "$user" || echo "safety.sh: could not remove the user $user"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

[ "$(id -u)" -eq 0 ] || skip "needs root (it runs cluster.sh as root against another user)"

# A throwaway user without privileges: the attacker.
make_user() {
    for c in useradd userdel setpriv unshare; do
        command -v "$c" >/dev/null 2>&1 || skip "no $c command here"
    done
    name=shoalatk$$
    i=0
    # useradd fails while another process holds /etc/passwd's lock: a few tries.
    until useradd -M -N -r -d /nonexistent -s /bin/sh "$name" 2>/dev/null; do
        i=$((i + 1))
        [ "$i" -lt 10 ] || skip "cannot add a user with useradd here"
        sleep 0.2
    done
    user=$name
    uid=$(id -u "$user") gid=$(id -g "$user")
}
as_user() { setpriv --reuid="$uid" --regid="$gid" --clear-groups -- "$@"; }

# wait_for PID: until PID is a process named munged, in a mount namespace not ours.
wait_for() {
    i=0
    while [ "$(cat "/proc/$1/comm" 2>/dev/null)" != munged ] ||
        [ "$(stat -L -c %i "/proc/$1/ns/mnt" 2>/dev/null)" = "$(stat -L -c %i /proc/self/ns/mnt)" ]; do
        i=$((i + 1))
        [ "$i" -lt 50 ] || return 1
        sleep 0.1
    done
}

# run_expect WHAT RC-WANT ERE [ENV...] -- ARGS...: runs cluster.sh ARGS as root; RC-WANT is
# a status or "nonzero"; ERE must match a line it writes ("" for anything).
run_expect() {
    what=$1 want=$2 re=$3
    shift 3
    envs=""
    while [ "$1" != -- ]; do
        envs="$envs $1"
        shift
    done
    shift
    # shellcheck disable=SC2086 # one assignment per word
    err=$(env $envs timeout -k 2 15 "$cluster" "$@" 2>&1)
    rc=$?
    case "$want" in
    nonzero) [ "$rc" -ne 0 ] || fail "$what: cluster.sh $* succeeded; it should have refused" ;;
    *) [ "$rc" -eq "$want" ] || fail "$what: cluster.sh $* exited $rc, expected $want: $err" ;;
    esac
    [ -z "$re" ] || printf '%s\n' "$err" | grep -Eq -- "$re" ||
        fail "$what: cluster.sh $* said '$err', which does not match: $re"
}

pwned_check() { # WHAT
    if [ -s "$A/pwned" ]; then
        fail "$1: root ran the other user's program: $(sort -u "$A/pwned" | tr '\n' ' ')"
        : >"$A/pwned"
    fi
}

# The attacker's directory, its program (a /usr/bin/env that records who ran it) and
# its "munged" (sleep under that name).
attacker_setup() {
    make_user
    A=/var/tmp/shoal-safety.$$
    cleanup_paths="$cleanup_paths $A"
    as_user sh -ec 'mkdir -m 755 "$1"; cp /bin/sleep "$1/munged"
        printf "#!/bin/sh\necho \"uid \$(id -u) ran its /usr/bin/env\" >>%s/pwned\n" "$1" >"$1/env"
        chmod 755 "$1/env"; : >"$1/pwned"; chmod 666 "$1/pwned"' sh "$A" ||
        skip "the throwaway user cannot write in /var/tmp"
}

# plant DIR PID: the attacker makes DIR look like the state of a 2-node cluster whose
# munged is PID, its namespaces recorded as the cluster's.
plant() {
    as_user sh -ec 'd=$1 pid=$2 a=$3
        mkdir -p "$d/ns"; echo 2 >"$d/nodes"; : >"$d/up"; echo 0badc0de >"$d/tag"
        echo "$pid" >"$d/n1.pid"; echo "$pid" >"$d/n2.pid"
        echo $(stat -L -c %d:%i /proc/$pid/ns/net /proc/$pid/ns/uts /proc/$pid/ns/mnt) >"$d/n1.ns"
        cp "$d/n1.ns" "$d/n2.ns"
        printf "#!/bin/sh\necho \"uid \$(id -u) ran its rsh agent\" >>%s/pwned\n" "$a" >"$d/rsh"
        chmod 755 "$d/rsh"; echo "shoal-n1 slots=4" >"$d/hostfile"' sh "$1" "$2" "$A"
}

# The commands that enter a node, each as root against state DIR's ("" for the default
# place); each must refuse with a message matching ERE ("" to check nothing but that
# the attacker's program did not run).
entering_commands() { # WHAT DIR ERE
    for c in "status" "run true" "on 2 true" "rsh shoal-n1 true"; do
        # shellcheck disable=SC2086 # the command's words
        if [ -n "$2" ]; then
            run_expect "$1" nonzero "$3" SHOAL_CLUSTER_DIR="$2" -- $c
        else
            env -u SHOAL_CLUSTER_DIR timeout -k 2 15 "$cluster" $c >/dev/null 2>&1
        fi
        pwned_check "$1: cluster.sh $c"
    done
}

case_state() {
    attacker_setup
    # (as_user's command itself, not a shell around it: $! is then the munged)
    setpriv --reuid="$uid" --regid="$gid" --clear-groups -- unshare -Urm \
        sh -c 'mount --bind "$1/env" /usr/bin/env && exec "$1/munged" 60' sh "$A" &
    fake=$!
    pids="$pids $fake"
    wait_for "$fake" || skip "the throwaway user cannot make a user and mount namespace" \
        "(unprivileged user namespaces are off): the attack cannot be staged"
    old=/var/tmp/shoal-cluster
    if [ -e "$old" ] || [ -L "$old" ]; then
        echo "safety.sh: $old exists already (not this test's): not planting there"
    else
        cleanup_paths="$cleanup_paths $old"
        plant "$old" "$fake"
        entering_commands "planted $old" "" ""
    fi
    # A state directory of the user's, one below its own directory, a link to one.
    st=/var/tmp/shoal-safety-state.$$ link=/var/tmp/shoal-safety-link.$$
    cleanup_paths="$cleanup_paths $st $link"
    as_user mkdir -m 700 "$st"
    plant "$st" "$fake"
    plant "$A/state" "$fake"
    as_user ln -s "$st" "$link"
    as_user chmod 700 "$A/state"
    entering_commands "the user's state directory" "$st" "$st is not a directory of root's with mode 0700"
    entering_commands "a state below the user's directory" "$A/state" "$A \(above the state directory"
    entering_commands "a link to the user's state" "$link" "$link is not a directory of root's"
    # A state of root's naming a pid that is no longer the cluster's munged: the user's...
    R=$(mktemp -d /tmp/shoal-safety.XXXXXX)
    cleanup_paths="$cleanup_paths $R"
    mkdir "$R/ns"
    echo 2 >"$R/nodes"
    : >"$R/up"
    echo 0badc0de >"$R/tag"
    # (the namespaces up would have recorded: none of these processes')
    echo "1:1 1:2 1:3" >"$R/n1.ns"
    cp "$R/n1.ns" "$R/n2.ns"
    echo "$fake" >"$R/n1.pid"
    echo "$fake" >"$R/n2.pid"
    entering_commands "a state of root's naming the user's munged" "$R" "pid $fake.* does not run as root"
    # ... or root's own, in namespaces the cluster did not make.
    B=$(mktemp -d /tmp/shoal-safety.XXXXXX)
    cleanup_paths="$cleanup_paths $B"
    cp /bin/sleep "$B/munged"
    unshare -m sh -c 'mount --bind "$1/env" /usr/bin/env && exec "$2/munged" 60' sh "$A" "$B" &
    rootfake=$!
    pids="$pids $rootfake"
    wait_for "$rootfake" || { fail "root's own stand-in munged did not start"; return; }
    echo "$rootfake" >"$R/n1.pid"
    echo "$rootfake" >"$R/n2.pid"
    entering_commands "a state of root's naming a munged in other namespaces" "$R" \
        "namespaces of pid $rootfake are not the ones made for shoal-n"
    [ "$status" -ne 0 ] || echo "safety.sh: every planted state was refused; nothing ran as the user's"
}

# alive PID: not gone and not a zombie.
alive() {
    st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)
    [ -n "$st" ] && [ "$st" != Z ]
}

# mounted V: V is a mount point (no link followed).
mounted() { awk -v p="$1" '$5 == p { f = 1 } END { exit !f }' /proc/self/mountinfo; }

case_umount() {
    attacker_setup
    V=$(mktemp -d /var/tmp/shoal-safety-victim.XXXXXX)
    cleanup_paths="$cleanup_paths $V"
    mount -t tmpfs -o size=1m shoal-victim "$V" || skip "cannot mount a tmpfs here"
    # The user's: the old state place, a state directory of its own, with links to V.
    old=/var/tmp/shoal-cluster
    st=/var/tmp/shoal-safety-state.$$
    cleanup_paths="$cleanup_paths $st"
    as_user mkdir -m 700 "$st"
    dirs=$st
    if [ -e "$old" ] || [ -L "$old" ]; then
        echo "safety.sh: $old exists already (not this test's): not planting there"
    else
        cleanup_paths="$cleanup_paths $old"
        as_user mkdir -m 700 "$old"
        dirs="$dirs $old"
    fi
    for d in $dirs; do
        as_user sh -ec 'mkdir "$1/ns"; : >"$1/up"; echo 2 >"$1/nodes"; echo 0badc0de >"$1/tag"
            ln -s "$2" "$1/ns/x"; ln -s "$2" "$1/ns/n1.mnt"; ln -s "$2" "$1/ns/n1.uts"' sh "$d" "$V"
    done
    run_expect "down on the user's state" 1 "$st is not a directory of root's" \
        SHOAL_CLUSTER_DIR="$st" -- down
    mounted "$V" || { fail "down on the user's state unmounted $V"; mount -t tmpfs shoal-victim "$V"; }
    [ -e "$st/ns/x" ] || fail "down on the user's state removed what was in it"
    # Root's state holding links to V, and a mount that down did not make.
    R=$(mktemp -d /tmp/shoal-safety.XXXXXX)
    cleanup_paths="$cleanup_paths $R"
    mkdir "$R/ns" "$R/ns/other"
    echo 0badc0de >"$R/tag"
    ln -s "$V" "$R/ns/n1.mnt"
    ln -s "$V" "$R/ns/n2.uts"
    ln -s "$V" "$R/ns/x"
    run_expect "down on root's state with links" 0 "$R/ns/n1.mnt is a symbolic link" \
        SHOAL_CLUSTER_DIR="$R" -- down
    mounted "$V" || { fail "down on root's state unmounted $V through a link"; mount -t tmpfs shoal-victim "$V"; }
    [ ! -e "$R" ] || fail "down left $R"
    mkdir -p -m 700 "$R" "$R/ns"
    mount -t tmpfs -o size=1m shoal-safety "$R/ns" || { fail "cannot mount a tmpfs on $R/ns"; return; }
    : >"$R/ns/kept"
    run_expect "down on root's state with a mount it did not make" 1 "mounts are left below $R" \
        SHOAL_CLUSTER_DIR="$R" -- down
    mounted "$R/ns" || fail "down unmounted $R/ns, which it did not mount"
    [ -e "$R/ns/kept" ] || fail "down removed files in a file system it did not mount"
    umount "$R/ns"
    [ "$status" -ne 0 ] || echo "safety.sh: down unmounted nothing it did not mount, through no link"
}

case_netns() {
    command -v ip >/dev/null 2>&1 || skip "no ip command here"
    ns=shoalcl-sw
    [ ! -e "/run/netns/$ns" ] || skip "a network namespace $ns exists already (not this test's)"
    ip netns add "$ns" 2>/dev/null || skip "cannot make a network namespace here"
    ns_made=$ns
    ip netns exec "$ns" sleep 60 &
    p=$!
    pids="$pids $p"
    want=$(stat -L -c %i "/run/netns/$ns")
    i=0
    until [ "$(stat -L -c %i "/proc/$p/ns/net" 2>/dev/null)" = "$want" ]; do
        i=$((i + 1))
        [ "$i" -lt 50 ] || { fail "the process in $ns did not start"; return; }
        sleep 0.1
    done
    dir=/run/shoal-safety.$$
    cleanup_paths="$cleanup_paths $dir"
    err=$(SHOAL_CLUSTER_DIR=$dir timeout -k 2 60 "$cluster" up 2 2>&1 >/dev/null)
    rc=$?
    if [ "$rc" -eq 77 ] && [ -e "/run/netns/$ns" ] && alive "$p"; then
        skip "cluster.sh up cannot run here: $err"
    fi
    [ "$rc" -eq 1 ] || fail "up beside $ns exited $rc, expected 1: $err"
    printf '%s\n' "$err" | grep -q "$ns" || fail "up's refusal does not name $ns: $err"
    [ ! -e "$dir" ] || fail "up made $dir though it refused"
    [ "$rc" -ne 0 ] || SHOAL_CLUSTER_DIR=$dir "$cluster" down
    [ -e "/run/netns/$ns" ] || fail "up deleted $ns, which it did not make"
    alive "$p" || fail "up killed the process in $ns"
    run_expect "down with no cluster up" 0 "no cluster is up" SHOAL_CLUSTER_DIR="$dir" -- down
    [ -e "/run/netns/$ns" ] || fail "down deleted $ns, which it did not make"
    alive "$p" || fail "down killed the process in $ns"
    [ "$status" -ne 0 ] || echo "safety.sh: up refused beside $ns, and neither removed it"
}

case "$case_" in
state) case_state ;;
umount) case_umount ;;
netns) case_netns ;;
*) echo "usage: safety.sh state|umount|netns"; exit 2 ;;
esac
exit $status
