#!/bin/sh
# kill -9 of hydra (mpiexec.hydra and its proxy) while the PEs wait: every PE must
# end within a few seconds instead of waiting on. usage: launcher_death.sh MPIEXEC NP
# PROG ARGS...
mpiexec=$1 np=$2
shift 2
"$mpiexec" -n "$np" "$@" &
launcher=$!
# The PEs: processes of PROG whose parent is the proxy mpiexec started.
pes() {
    for p in $(pgrep -f "$1"); do
        pp=$(ps -o ppid= -p "$p" 2>/dev/null | tr -d ' ')
        ppp=$(ps -o ppid= -p "$pp" 2>/dev/null | tr -d ' ')
        [ "$ppp" = "$launcher" ] && echo "$p"
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
proxy=$(ps -o ppid= -p "$(echo $list | cut -d' ' -f1)" | tr -d ' ')
echo "mpiexec $launcher, proxy $proxy, PEs: $(echo $list)"
kill -9 "$proxy" "$launcher"
wait "$launcher" 2>/dev/null
i=0
while :; do
    alive=
    for p in $list; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
    [ -z "$alive" ] && { echo "OK: every PE ended ${i}00 ms after hydra was killed"; exit 0; }
    i=$((i + 1))
    if [ $i -gt 100 ]; then
        echo "FAIL: PEs$alive still run 10 s after hydra was killed"
        for p in $alive; do kill -9 "$p"; done
        exit 1
    fi
    sleep 0.1
done
