#!/bin/sh
# Shoal's ofi_rxm settings (src/transport/ofi/ofi_init.c: 4 KiB buffers, 256 posted
# receives, connection requests looked at every 200 us) against libfabric's own
# (16 KiB, 4096, 10 ms), interleaved round by round, the order alternating: 8-byte
# put, get, AMOs and put-with-signal latency and 1 MiB put/get bandwidth, 2 PEs each
# its own node over tcp;ofi_rxm, beside the provider's own 8-byte round trip
# (fi_pingpong) measured in the same round.
#
#   bench/micro/rxm_settings.sh [BUILD] [ROUNDS] [OUT]
#
# BUILD: a Shoal build folder (default build); ROUNDS: default 5; OUT: the results
# folder (default a new one under /tmp), which gets runs.csv, results.csv and
# ranges.md (bench/median.py: median [min, max] of each figure).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
b=$(cd "${1:-$root/build}" && pwd)
rounds=${2:-5}
out=${3:-$(mktemp -d /tmp/rxm-settings.XXXXXX)}
mkdir -p "$out"
oshrun=$b/tools/oshrun/oshrun
[ -x "$oshrun" ] && [ -x "$b/bench/rma_latency" ] ||
    { echo "rxm_settings.sh: $b has no oshrun or benchmarks; build it first" >&2; exit 1; }

# One setting's runs: $1 is its label, the rest its environment.
runs() {
    label=$1; shift
    for args in "rma_latency -s 8 -m 8 -i 2000 -w 200" "amo -i 2000 -w 200" \
                "signal -s 8 -m 8 -i 2000 -w 200" "rma_bandwidth -s 1M -m 1M -i 50 -w 5"; do
        # shellcheck disable=SC2086
        env "$@" SHOAL_NODE_MAP=pe SHMEM_OFI_PROVIDER='tcp;ofi_rxm' \
            timeout 300 "$oshrun" -n 2 "$b"/bench/$args 2>&1 |
            grep '^RESULT,' | sed "s/^\(RESULT,[^,]*\),shoal,/\1,$label,/"
    done
}
provider() {
    command -v fi_pingpong > /dev/null || return 0
    port=$((40000 + $$ % 20000))
    fi_pingpong -p 'tcp;ofi_rxm' -e rdm -I 2000 -S 8 -B "$port" > /dev/null 2>&1 &
    srv=$!
    sleep 0.3
    v=$(timeout 120 fi_pingpong -p 'tcp;ofi_rxm' -e rdm -I 2000 -S 8 -P "$port" 127.0.0.1 2>&1 |
        awk '$1 == 8 {print $(NF-1)}')
    wait $srv
    [ -n "$v" ] && echo "RESULT,pingpong,fi_pingpong-tcp;ofi_rxm,2,8,lat_us,$v"
}
libfabric_defaults="FI_OFI_RXM_BUFFER_SIZE=16384 FI_OFI_RXM_MSG_RX_SIZE=4096
FI_OFI_RXM_CM_PROGRESS_INTERVAL=10000"

echo "rep,bench,impl,npes,size,metric,value" > "$out/runs.csv"
r=1
while [ "$r" -le "$rounds" ]; do
    {
        provider
        if [ $((r % 2)) -eq 1 ]; then
            runs shoal-rxm-shoal
            # shellcheck disable=SC2086
            runs shoal-rxm-libfabric $libfabric_defaults
        else
            # shellcheck disable=SC2086
            runs shoal-rxm-libfabric $libfabric_defaults
            runs shoal-rxm-shoal
        fi
    } | sed "s/^RESULT,/$r,/" >> "$out/runs.csv"
    r=$((r + 1))
done
python3 "$root/bench/median.py" --all-sizes "$out/runs.csv" "$out/results.csv" "$out/ranges.md"
echo "load average after the run: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/ranges.md"
cat "$out/ranges.md"
echo "results in $out"
