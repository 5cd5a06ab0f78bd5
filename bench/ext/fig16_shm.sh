#!/bin/sh
# Seed 001's Fig. 16 shape over libfabric's shm provider (each PE its own node, 2 PEs
# bound by oshrun, 1 PE per node): message rate of windows of 64 8-byte put_nbi, with
# and without a bundling session (bench/ext's mr_ rows), interleaved over three
# settings: bundling outside sessions as it runs by default, with every bundle off
# (SHMEM_OFI_BUNDLE_SIZE=0), and with SHOAL_PCNTR=1, which turns bundling outside
# sessions off over shm (a counter of the operations targeting each PE counts messages).
# Usage: fig16_shm.sh BUILD_DIR OUT.csv [ROUNDS]
# OUT.csv: round,setting,bench,rate_Mops
set -eu
build=$1 out=$2 rounds=${3:-5}
echo "round,setting,bench,rate_Mops" >"$out"
r=1
while [ "$r" -le "$rounds" ]; do
    for setting in default SHMEM_OFI_BUNDLE_SIZE=0 SHOAL_PCNTR=1; do
        env SHOAL_NODE_MAP=pe SHMEM_OFI_PROVIDER=shm $([ "$setting" = default ] || echo "$setting") \
            "$build/tools/oshrun/oshrun" -n 2 --timeout 120 "$build/bench/ext" -s 8 -m 8 -i 80 \
            -w 2 |
            awk -F, -v r="$r" -v s="$setting" \
                '/^RESULT,mr_/ { printf "%s,%s,%s,%s\n", r, s, $2, $7 }' >>"$out"
    done
    r=$((r + 1))
done
