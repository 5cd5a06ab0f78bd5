#!/bin/bash
OLD=${OLD:?build dir of the older commit} NEW=${NEW:?build dir of the newer commit}
for r in 1 2 3 4 5; do
 for v in OLD NEW; do B=${!v}
  timeout 60 $B/tools/oshrun/oshrun -n 2 --bind-to core $B/bench/rma_latency -s 8 -m 8 -i 50000 -w 1000 2>&1 | grep ^RESULT | sed "s/^/$v,shm,/"
  timeout 60 $B/tools/oshrun/oshrun -n 2 --bind-to core $B/bench/amo -i 50000 2>&1 | grep -E '^RESULT,amo_(fetch_add|add|fetch),.*lat' | sed "s/^/$v,shm,/"
  SHOAL_NODE_MAP=pe timeout 60 $B/tools/oshrun/oshrun -n 2 --bind-to core $B/bench/rma_latency -s 8 -m 8 -i 2000 -w 100 2>&1 | grep ^RESULT | sed "s/^/$v,ofi,/"
 done
done
