#!/bin/sh
# kill -9 of mpirun while its PEs wait: every PE must end within a few seconds
# instead of spinning on. usage: launcher_death.sh MPIRUN NP PROG ARGS...
# Exits 77 (skipped) when MPIRUN is not Open MPI's or PRRTE's.
mpirun=$1 np=$2
shift 2
if ! "$mpirun" --version 2>/dev/null | grep -Eq 'Open MPI|OpenRTE|PRRTE'; then
    echo "skipped: $mpirun is not Open MPI's mpirun or prterun"
    exit 77
fi
root=
[ "$(id -u)" = 0 ] && root=--allow-run-as-root
"$mpirun" $root --oversubscribe -n "$np" "$@" &
launcher=$!
# The PEs: processes of PROG whose parent is this mpirun (or its daemon below it).
pes() {
    for p in $(pgrep -f "$1"); do
        pp=$(ps -o ppid= -p "$p" 2>/dev/null | tr -d ' ')
        [ "$pp" = "$launcher" ] && echo "$p"
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
echo "mpirun $launcher, PEs: $(echo $list)"
kill -9 "$launcher"
wait "$launcher" 2>/dev/null
i=0
while :; do
    alive=
    for p in $list; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
    [ -z "$alive" ] && { echo "OK: every PE ended ${i}00 ms after mpirun was killed"; exit 0; }
    i=$((i + 1))
    if [ $i -gt 100 ]; then
        echo "FAIL: PEs$alive still run 10 s after mpirun was killed"
        for p in $alive; do kill -9 "$p"; done
        exit 1
    fi
    sleep 0.1
done
