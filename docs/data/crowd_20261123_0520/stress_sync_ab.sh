#!/bin/bash
# ab.sh REPS ROUNDS: stress_sync, main vs this work, with/without a busy loop on CPU 0,
# pinned (--bind-to core) and unbound, 4 and 8 PEs; CSV on stdout
reps=$1; rounds=$2
declare -A B=([main]=${SHOAL_MAIN_BUILD:?a Release build of main} [new]=${SHOAL_SRC:?set SHOAL_SRC to the source tree}/build)
echo "rep,build,hog,n,bind,barrier_us,ring_us,gather_us,total_s,load"
for rep in $(seq $reps); do for hog in 0 1; do
  [ $hog = 1 ] && { taskset -c 0 sh -c 'while :; do :; done' & H=$!; sleep 0.2; }
  for n in 4 8; do for bind in core none; do for b in main new; do
    [ $((rep % 2)) = 0 ] && { [ $b = main ] && b=new || b=main; }
    d=${B[$b]}
    out=$(timeout 100 $d/tools/oshrun/oshrun -n $n --bind-to $bind --timeout 90 $d/tests/stress/stress_sync --rounds $rounds 2>&1)
    echo "$rep,$b,$hog,$n,$bind,$(echo "$out" | sed -n 's/.*( *\([0-9.]*\) us each.*/\1/p' | tr '\n' ',')$(echo "$out" | sed -n 's/.*PEs in \([0-9.]*\) s/\1/p'),$(cut -d' ' -f1 /proc/loadavg)"
  done; done; done
  [ $hog = 1 ] && { kill $H; wait $H 2>/dev/null; }
done; done
