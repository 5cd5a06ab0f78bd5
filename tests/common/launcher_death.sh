#!/bin/sh
# kill -9 of a job's launcher (and of the proxy between it and the PEs, if any) while
# the PEs wait: every PE must end within a few seconds instead of waiting on.
# usage: launcher_death.sh openmpi|hydra LAUNCHER NP PROG ARGS...
# openmpi: LAUNCHER is Open MPI's mpirun or PRRTE's prterun (exits 77, skipped, when
# it is neither); hydra: MPICH's mpiexec.hydra.
kind=$1 launcher_cmd=$2 np=$3
shift 3
case $kind in
openmpi)
    if ! "$launcher_cmd" --version 2>/dev/null | grep -Eq 'Open MPI|OpenRTE|PRRTE'; then
        echo "skipped: $launcher_cmd is not Open MPI's mpirun or prterun"
        exit 77
    fi
    opts=--oversubscribe
    [ "$(id -u)" = 0 ] && opts="$opts --allow-run-as-root" ;;
hydra) opts= ;;
*) echo "launcher_death.sh: unknown launcher kind $kind" >&2; exit 2 ;;
esac
name=$(basename "$launcher_cmd")
# shellcheck disable=SC2086 # $opts is a list of options
"$launcher_cmd" $opts -n "$np" "$@" &
launcher=$!
ppid_of() {
    ps -o ppid= -p "$1" 2>/dev/null | tr -d ' '
}
# The PEs: processes of PROG whose parent is the launcher, or a proxy it started.
pes() {
    for p in $(pgrep -f "$1"); do
        pp=$(ppid_of "$p")
        if [ "$pp" = "$launcher" ] || [ "$(ppid_of "$pp")" = "$launcher" ]; then
            echo "$p"
        fi
    done
}
i=0
while [ "$(pes "$1" | wc -l)" -lt "$np" ]; do
    i=$((i + 1))
    [ $i -gt 300 ] && { echo "FAIL: the PEs did not start"; kill -9 $launcher; exit 1; }
    sleep 0.1
done
sleep 1 # past shmem_init: the PEs wait
list=$(pes "$1")
proxy=$(ppid_of "$(echo $list | cut -d' ' -f1)")
[ "$proxy" = "$launcher" ] && proxy=
echo "$name $launcher, ${proxy:+proxy $proxy, }PEs: $(echo $list)"
kill -9 $proxy "$launcher"
wait "$launcher" 2>/dev/null
i=0
while :; do
    alive=
    for p in $list; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
    [ -z "$alive" ] && { echo "OK: every PE ended ${i}00 ms after $name was killed"; exit 0; }
    i=$((i + 1))
    if [ $i -gt 100 ]; then
        echo "FAIL: PEs$alive still run 10 s after $name was killed"
        for p in $alive; do kill -9 "$p"; done
        exit 1
    fi
    sleep 0.1
done
