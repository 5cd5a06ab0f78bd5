#!/bin/bash
# launched.sh REPS: as launched, oshrun --bind-to core (spread) vs none, coll_small
# (2000 calls) and stress_sync (--rounds 1000) at 4 and 8 PEs; with and without a
# busy loop on CPU 0. CSV: rep,hog,n,bind,metric,value
B=${SHOAL_SRC:?set SHOAL_SRC to the source tree}/build-release; T=${SHOAL_SRC:?set SHOAL_SRC to the source tree}/build
echo "rep,hog,n,bind,metric,value"
for rep in $(seq $1); do for hog in 0 1; do
  [ $hog = 1 ] && { taskset -c 0 sh -c 'while :; do :; done' & H=$!; sleep 0.2; }
  for n in 4 8; do for bind in core none; do
    [ $((rep % 2)) = 0 ] && { [ $bind = core ] && bind=none || bind=core; }
    timeout 100 $B/tools/oshrun/oshrun -n $n --bind-to $bind --timeout 90 $B/bench/coll_small -i 2000 2>&1 |
      awk -F, -v p="$rep,$hog,$n,$bind" '/^RESULT/{print p","$2","$7}'
    s=$(timeout 100 $T/tools/oshrun/oshrun -n $n --bind-to $bind --timeout 90 $T/tests/stress/stress_sync --rounds 1000 2>&1 | sed -n 's/.*PEs in \([0-9.]*\) s/\1/p')
    echo "$rep,$hog,$n,$bind,stress_sync_s,$s"
  done; done
  [ $hog = 1 ] && { kill $H; wait $H 2>/dev/null; }
done; done
