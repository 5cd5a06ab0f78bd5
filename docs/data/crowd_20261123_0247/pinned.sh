#!/bin/bash
# Interleaved: per repetition, main (before) then crowd (after), each with Open MPI beside it.
cd /tmp/crowd
for r in 1 2 3 4; do
  echo "== rep $r $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
  /tmp/crowd/before-src/scripts/bench.sh --compare-ompi --quick --reps 1 --programs coll --pes 2,8 \
     --build /tmp/crowd/build-before --out /tmp/crowd/res2/before/rep$r > /tmp/crowd/res2/before-$r.log 2>&1
  /tmp/crowd/after-src/scripts/bench.sh --compare-ompi --quick --reps 1 --programs coll --pes 2,8 \
     --build /tmp/crowd/build-after --out /tmp/crowd/res2/after/rep$r > /tmp/crowd/res2/after-$r.log 2>&1
done
echo "== done $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
