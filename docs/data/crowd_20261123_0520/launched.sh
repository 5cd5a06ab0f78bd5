#!/bin/bash
# launched.sh REPS SPREAD: as launched, the spread against no binding, coll_small
# (2000 calls) and stress_sync (--rounds 1000) at 4 and 8 PEs, with and without a
# busy loop on CPU 0, the two bindings in turns. SPREAD is how it is asked for:
#   core  oshrun --bind-to core against --bind-to none (launched_core_vs_none.csv)
#   auto  SHOAL_BIND=auto against SHOAL_BIND=none (launched_auto_vs_none.csv)
# CSV: rep,hog,n,bind,metric,value
spread=${2:-}
case $spread in
core | auto) ;;
*) echo "usage: launched.sh REPS core|auto" >&2; exit 2 ;;
esac
B=${SHOAL_SRC:?set SHOAL_SRC to the source tree}/build-release; T=$SHOAL_SRC/build

# launch BUILD BIND N PROGRAM ARGS...: PROGRAM on N PEs by BUILD's oshrun, bound by
# BIND the way SPREAD asks for it.
launch() {
  local build=$1 bind=$2 n=$3; shift 3
  local opt=(--bind-to $bind) var=()
  [ $spread = auto ] && { opt=(); var=(SHOAL_BIND=$bind); }
  timeout 100 env "${var[@]}" $build/tools/oshrun/oshrun -n $n "${opt[@]}" --timeout 90 "$@"
}

echo "rep,hog,n,bind,metric,value"
for rep in $(seq $1); do for hog in 0 1; do
  [ $hog = 1 ] && { taskset -c 0 sh -c 'while :; do :; done' & H=$!; sleep 0.2; }
  for n in 4 8; do for bind in $spread none; do
    [ $((rep % 2)) = 0 ] && { [ $bind = $spread ] && bind=none || bind=$spread; }
    launch $B $bind $n $B/bench/coll_small -i 2000 2>&1 |
      awk -F, -v p="$rep,$hog,$n,$bind" '/^RESULT/{print p","$2","$7}'
    s=$(launch $T $bind $n $T/tests/stress/stress_sync --rounds 1000 2>&1 | sed -n 's/.*PEs in \([0-9.]*\) s/\1/p')
    echo "$rep,$hog,$n,$bind,stress_sync_s,$s"
  done; done
  [ $hog = 1 ] && { kill $H; wait $H 2>/dev/null; }
done; done
