#!/bin/sh
# Fig. 18's AMO rows (bench/ext/amo_rate.c) over libfabric's tcp;ofi_rxm, sockets and
# shm, each PE its own node, 2 PEs bound by oshrun, interleaved: every round runs each
# provider with signal sets as atomics (SHMEM_OFI_SIGNAL_WRITE=off) and as writes (on).
# Usage: fig18.sh BUILD_DIR OUT.csv [ROUNDS] [ITERS]
# OUT.csv: round,provider,signal_write,bench,rate_Mops (bench/ext/fig18.py reads it).
set -eu
build=$1 out=$2 rounds=${3:-5} iters=${4:-100}
echo "round,provider,signal_write,bench,rate_Mops" >"$out"
r=1
while [ "$r" -le "$rounds" ]; do
    for prov in "tcp;ofi_rxm" sockets shm; do
        for sw in off on; do
            SHOAL_NODE_MAP=pe SHMEM_OFI_PROVIDER="$prov" SHMEM_OFI_SIGNAL_WRITE=$sw \
                "$build/tools/oshrun/oshrun" -n 2 --timeout 120 "$build/bench/amo_rate" \
                -i "$iters" -w 4 |
                awk -F, -v r="$r" -v p="$prov" -v s="$sw" \
                    '/^RESULT,/ { printf "%s,\"%s\",%s,%s,%s\n", r, p, s, $2, $7 }' >>"$out"
        done
    done
    r=$((r + 1))
done
