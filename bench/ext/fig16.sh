#!/bin/sh
# Seed 001's Fig. 16 shape over libfabric's tcp;ofi_rxm, sockets and shm (each PE its
# own node, 2 PEs bound by oshrun, 1 PE per node): message rate of windows of 64
# 8-byte put_nbi, adjacent and scattered, with and without a bundling session
# (bench/ext's mr_ rows), interleaved over the settings: bundling as it runs by
# default, every bundle off (SHMEM_OFI_BUNDLE_SIZE=0), and over shm SHOAL_PCNTR=1,
# which turns bundling outside sessions off there (a counter of the operations
# targeting each PE counts messages).
# Usage: fig16.sh BUILD_DIR OUT.csv [ROUNDS]
# OUT.csv: round,provider,setting,bench,rate_Mops (bench/ext/fig16.py reads it).
set -eu
build=$1 out=$2 rounds=${3:-5}
echo "round,provider,setting,bench,rate_Mops" >"$out"
r=1
while [ "$r" -le "$rounds" ]; do
    for prov in "tcp;ofi_rxm" sockets shm; do
        settings="default SHMEM_OFI_BUNDLE_SIZE=0"
        [ "$prov" = shm ] && settings="$settings SHOAL_PCNTR=1"
        for setting in $settings; do
            # shellcheck disable=SC2046 # no setting, or one VAR=value word
            env SHOAL_NODE_MAP=pe SHMEM_OFI_PROVIDER="$prov" \
                $([ "$setting" = default ] || echo "$setting") \
                "$build/tools/oshrun/oshrun" -n 2 --timeout 120 "$build/bench/ext" -s 8 -m 8 \
                -i 80 -w 2 |
                awk -F, -v r="$r" -v p="$prov" -v s="$setting" \
                    '/^RESULT,mr_/ { printf "%s,\"%s\",%s,%s,%s\n", r, p, s, $2, $7 }' >>"$out"
        done
    done
    r=$((r + 1))
done
