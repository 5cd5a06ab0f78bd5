#!/bin/sh
# Builds Shoal (Release) and the benchmark suite, runs it, and writes results.csv,
# results.json, summary.md and PNG plots into a results folder.
#
#   scripts/bench.sh [--pes N[,N...]] [--compare-ompi] [--ofi] [--extensions [--reps R]]
#                    [--out results/DIR] [--build DIR]
#
# --compare-ompi builds the same sources with Open MPI's /usr/bin/oshcc and runs them
# with /usr/bin/oshrun (Debian's openmpi-bin OSHMEM) so the plots show both side by side.
# --ofi also runs Shoal with every PE on its own "node" (libfabric over tcp;ofi_rxm on
# loopback), labelled shoal-ofi.
# --extensions runs instead the shmemx_ extensions against their standard alternatives
# (bench/ext, HRA) in shared memory and over libfabric's tcp;ofi_rxm, sockets and shm
# providers (every PE its own node), plus each provider with bundling off (FI_MORE
# only); R rounds (default 2) interleave the configurations, and plots use medians.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
pes=2
compare=0
ofi=0
ext=0
reps=2
out=""
build="$root/build-release"
while [ $# -gt 0 ]; do
    case "$1" in
        --pes) pes="$2"; shift 2 ;;
        --compare-ompi) compare=1; shift ;;
        --ofi) ofi=1; shift ;;
        --extensions) ext=1; shift ;;
        --reps) reps="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --build) build="$2"; shift 2 ;;
        -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
        *) echo "bench.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
out=${out:-$root/results/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out/raw"
out=$(cd "$out" && pwd)

"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSHOAL_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j 2

# Each program with the arguments of a default run: a few minutes on 2 cores.
programs="rma_latency:micro/rma_latency.c:-i 5000
rma_bandwidth:micro/rma_bandwidth.c:-i 500
msg_rate:micro/msg_rate.c:-i 20000
signal:micro/signal.c:-m 256K -i 2000
amo:micro/amo.c:-i 20000
coll:micro/coll.c:-m 256K -i 200
hra:hra/hra.c:-n 1M -u 200000
heat:proxy/heat.c:-n 512 -t 200
bucket_sort:proxy/bucket_sort.c:-e 1M"

# Open MPI's OSHMEM on one node without a network: the default osc/rdma component
# crashes in shmem_finalize (a memory hook of an unloaded component), so leave it out.
ompi_run() {
    n=$1; shift
    asroot=""
    [ "$(id -u)" -eq 0 ] && asroot="--allow-run-as-root"
    OMPI_MCA_osc='^rdma' timeout 600 /usr/bin/oshrun $asroot --oversubscribe -np "$n" "$@"
}
shoal_run() {
    n=$1; shift
    "$build/tools/oshrun/oshrun" -n "$n" --timeout 600 "$@"
}
shoal_ofi_run() {
    SHOAL_NODE_MAP=pe SHMEM_OFI_PROVIDER='tcp;ofi_rxm' BENCH_IMPL=shoal-ofi shoal_run "$@"
}

# --extensions: each configuration is "label:node map:provider:extra environment".
if [ "$ext" -eq 1 ]; then
    configs="shoal:::
shoal-ofi-tcp:pe:tcp;ofi_rxm:
shoal-ofi-tcp-fimore:pe:tcp;ofi_rxm:SHMEM_OFI_BUNDLE_SIZE=0
shoal-ofi-sockets:pe:sockets:
shoal-ofi-sockets-fimore:pe:sockets:SHMEM_OFI_BUNDLE_SIZE=0"
    # libfabric's shm provider fails Shoal's AMO tests today (docs/performance.md).
    ext_programs="ext:-m 1M -i 400 -w 5
hra:-n 64K -u 2000"
    n=$(echo "$pes" | cut -d, -f1)
    failed=0
    cd "$out"
    r=1
    while [ "$r" -le "$reps" ]; do
        while IFS=: read -r label map prov extra; do
            while IFS=: read -r name args; do
                # With bundling off only the session rows differ: HRA once is enough.
                case "$label:$name" in *-fimore:hra) continue ;; esac
                echo "== round $r, $label, $n PEs: $name $args"
                log="$out/raw/$label/np$n/$name.$r.txt"
                mkdir -p "$(dirname "$log")"
                env BENCH_IMPL="$label" ${map:+SHOAL_NODE_MAP=$map} ${prov:+SHMEM_OFI_PROVIDER=$prov} \
                    $extra "$build/tools/oshrun/oshrun" -n "$n" --timeout 900 \
                    "$build/bench/$name" $args < /dev/null > "$log" 2>&1 || {
                    echo "   FAILED (see $log)"; failed=1; }
            done <<EOT
$ext_programs
EOT
        done <<EOT
$configs
EOT
        r=$((r + 1))
    done
    echo "bench,impl,npes,size,metric,value" > "$out/results.csv"
    grep -rh '^RESULT,' "$out/raw" | cut -d, -f2- >> "$out/results.csv"
    py=python3
    $py -c 'import matplotlib' 2>/dev/null || py=/usr/bin/python3
    $py "$root/bench/plot.py" --extensions "$out/results.csv" "$out"
    echo "results in $out"
    exit $failed
fi

impls="shoal"
if [ "$compare" -eq 1 ]; then
    [ -x /usr/bin/oshcc ] || { echo "bench.sh: /usr/bin/oshcc not found (apt-get install openmpi-bin libopenmpi-dev)" >&2; exit 1; }
    impls="shoal oshmem"
    mkdir -p "$build/bench-oshmem"
    echo "$programs" | while IFS=: read -r name src args; do
        /usr/bin/oshcc -O3 -I"$root/bench/common" "$root/bench/$src" "$root/bench/common/bench.c" \
            -lm -o "$build/bench-oshmem/$name"
    done
fi

[ "$ofi" -eq 1 ] && impls="$impls shoal-ofi"
failed=0
cd "$out" # a directory that surely exists: Open MPI's oshrun fails when getcwd does
echo "== machine limits"
"$build/bench/machine_limits" 200000 > "$out/raw/machine_limits.txt" || failed=1
for n in $(echo "$pes" | tr ',' ' '); do
    for impl in $impls; do
        mkdir -p "$out/raw/$impl/np$n"
        # A here-document, not a pipe, so a failure reaches `failed` in this shell;
        # the launchers read stdin, so each run gets /dev/null instead of the list.
        while IFS=: read -r name src args; do
            echo "== $impl, $n PEs: $name $args"
            case "$impl" in
            shoal)     run=shoal_run;     prog="$build/bench/$name" ;;
            shoal-ofi) run=shoal_ofi_run; prog="$build/bench/$name" ;;
            *)         run=ompi_run;      prog="$build/bench-oshmem/$name" ;;
            esac
            log="$out/raw/$impl/np$n/$name.txt"
            $run "$n" "$prog" $args < /dev/null > "$log" 2>&1 || {
                echo "   FAILED (see $log)"; failed=1; }
        done <<EOT
$programs
EOT
    done
done

echo "bench,impl,npes,size,metric,value" > "$out/results.csv"
grep -rh '^RESULT,' "$out/raw" | cut -d, -f2- >> "$out/results.csv"
# The Debian python3-matplotlib serves /usr/bin/python3, not necessarily another python3 on PATH.
py=python3
$py -c 'import matplotlib' 2>/dev/null || py=/usr/bin/python3
$py "$root/bench/plot.py" "$out/results.csv" "$out"
echo "results in $out"
exit $failed
