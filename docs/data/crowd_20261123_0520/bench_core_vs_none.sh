#!/bin/bash
# 5 rounds alternating bench.sh --bind core / --bind none (8 PEs, coll, with Open MPI)
cd ${SHOAL_SRC:?set SHOAL_SRC to the source tree}
for i in 1 2 3 4 5; do
  for bind in core none; do
    [ $((i % 2)) = 0 ] && { [ $bind = core ] && bind=none || bind=core; }
    scripts/bench.sh --compare-ompi --quick --reps 1 --pes 8 --programs coll --bind $bind --out ${OUT:-.}/bench_$bind.$i >/dev/null 2>&1
    awk -F, -v b=$bind -v i=$i 'NR>1 && ($2=="barrier" || (($2=="bcast"||$2=="reduce") && $5==8)) {print i","b","$2","$3","$7}' ${OUT:-.}/bench_$bind.$i/runs.csv
  done
done
