#!/bin/bash
# As launched, no settings: Shoal before (main), Shoal after (crowd), Open MPI; rounds interleaved.
cd /tmp/crowd
for r in 1 2 3 4; do
  for np in 2 8; do
    it=20000; [ $np -eq 8 ] && it=2000
    for impl in before after ompi; do
      case $impl in
      before) out=$(timeout 300 /tmp/crowd/build-before/tools/oshrun/oshrun -n $np /tmp/crowd/build-before/bench/coll_small -i $it -w 100 2>&1) ;;
      after)  out=$(timeout 300 /tmp/crowd/build-after/tools/oshrun/oshrun -n $np /tmp/crowd/build-after/bench/coll_small -i $it -w 100 2>&1) ;;
      ompi)   out=$(OMPI_MCA_osc='^rdma' OMPI_MCA_opal_common_ucx_opal_mem_hooks=0 timeout 300 /usr/bin/oshrun --allow-run-as-root --oversubscribe -np $np /tmp/crowd/ompi_coll_small -i $it -w 100 2>&1) ;;
      esac
      echo "$out" | grep '^RESULT' | sed "s/^RESULT,/$r,$impl,/"
    done
    echo "# load after round $r np $np: $(cut -d' ' -f1-3 /proc/loadavg)"
  done
done
