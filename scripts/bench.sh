#!/bin/sh
# Builds Shoal (Release) and the benchmark suite, runs it, and writes runs.csv (every
# repetition), results.csv (medians with min/max), ranges.md, results.json, summary.md
# and PNG plots into a results folder outside the source tree.
#
#   scripts/bench.sh [--pes N[,N...]] [--compare-ompi] [--ofi] [--mpi] [--extensions] [--reps R] [--bind core|none]
#                    [--targets heap,global] [--programs a,b] [--quick] [--out DIR]
#                    [--build DIR] [--baseline DIR|REV] [--small-ops] [--busy] [--isx] [--install-deps]
#                    [--hugepages [--heap SIZE]] [--mpi-amo] [--dry-run]
#
# --compare-ompi  also runs the same sources built with Open MPI's /usr/bin/oshcc and
#                 started by /usr/bin/oshrun (Debian's openmpi-bin OSHMEM), labelled oshmem.
# --ofi           also runs Shoal with every PE on its own "node" (libfabric over
#                 tcp;ofi_rxm on loopback), labelled shoal-ofi, and in the same
#                 repetition the provider's own 8-byte round trip (fi_pingpong, same
#                 provider), labelled fi_pingpong-tcp;ofi_rxm.
# --baseline B    also runs a second Shoal build, interleaved run by run with this one:
#                 B is a Shoal build folder (with tools/oshrun/oshrun) or a git revision
#                 of this repository, which is exported and built (Release) once into
#                 ${XDG_CACHE_HOME:-~/.cache}/shoal-bench/builds/SHA, outside the tree.
#                 Every Shoal run (shoal, shoal-ofi, shoal-mpi, shoal-launched) gets a
#                 twin labelled IMPL@base right before or after it (the order alternates
#                 by repetition), so before/after figures come from one run.
# --small-ops     instead of the suite, the small-operation figures of
#                 docs/performance.md (about 6 minutes with --reps 5, the default here):
#                 8 B get, put+quiet, fetch-add, ping-pong and the progress/idle-CPU
#                 probe over tcp;ofi_rxm beside fi_pingpong and the kernel's own wake-up
#                 round trip (bench/limits/tcp_wake.c, which pins itself to the first
#                 two CPUs); barrier/broadcast/reduce at 2, 4, 8 PEs over ofi; 1, 8 and
#                 32 private contexts over ofi; and coll_small as launched (`oshrun -n 2`,
#                 no settings, no taskset) for Shoal (shoal-launched) and Open MPI's
#                 OSHMEM (oshmem-launched), three times a repetition.
#                 bench/plot_small_ops.py draws small_ops_*.png and the table
#                 small_ops.md, each figure beside its limit or target.
# --busy          instead of the suite, the small collectives (bench/micro/coll_small.c:
#                 barrier, 8 B reduce, collect, fcollect, broadcast; bench/micro/coll_set.c:
#                 the active-set forms OSU times) at 2 and 4 PEs (--pes) as a user
#                 launches them: Shoal's `oshrun -n N` with no settings (shoal-launched)
#                 and Open MPI's `oshrun --oversubscribe -np N` (oshmem-launched),
#                 interleaved, first on the machine as it is (alone), then under each
#                 fixed background load of bench/load/load.sh: job (another 2-PE Shoal
#                 job and another 2-PE Open MPI job looping on barriers) and mixed (those,
#                 a CPU-bound process per CPU and a compiler per CPU). --reps rounds per
#                 load (default 5); busy.md holds medians [min-max] side by side, with
#                 the load average of each phase, and busy.png draws them.
# --isx           instead of the suite, the ISx-shaped integer sort (bench/isx/isx.c: keys
#                 bucketed by range, exchanged by fetch-add reservations and puts, and in
#                 Shoal's runs by turns also by shmemx_team_alltoallv_packed (-x both),
#                 sorted by counting) at 2 and 4 PEs (--pes), with the program's default size (--quick:
#                 a quarter of the keys): Shoal's `oshrun -n N` as launched (shoal-launched)
#                 and with `--bind-to core` (shoal-core), and Open MPI's `oshrun
#                 --oversubscribe -np N` (oshmem-launched), interleaved, the order rotating
#                 by round. --reps rounds (default 5); ranges.md holds each phase's median
#                 [min, max] over the rounds in ms, loads.csv the load average of each run.
# --hugepages     instead of the suite, random access over the symmetric heap
#                 (bench/micro/heap_random.c: first touch, dependent shmem_ptr loads,
#                 non-fetching and fetching AMOs over a --heap table, default 1G) at
#                 --pes PEs (default 2) in shared memory (shoal-*) and with every PE its
#                 own node over tcp;ofi_rxm (shoal-ofi-*), each on normal pages (*-4k),
#                 transparent huge pages (*-thp: shmem_enabled set to advise) and
#                 reserved 2 MiB pages (*-hugetlb: the pool raised for the run),
#                 interleaved, the order rotating by round; each run's log must say the
#                 heap is on the pages asked for. Needs root; the pool and shmem_enabled
#                 are restored on exit. --reps rounds (default 5); ranges.md: medians
#                 [min, max].
# --mpi-amo       instead of the suite, the MPI transport's AMOs beside Open MPI's OSHMEM:
#                 bench/micro/amo_pairs.c (int fadd, cswap, fetch, inc, set, longlong
#                 add, PE i -> PE i + N/2), rma_latency (put/get 8 B to 1 MiB) and
#                 coll_small (barrier...) at 2 and 4 PEs (--pes), every PE pinned (--bind):
#                 Shoal with every operation through MPI (mpi-all) and with nodes of 2 PEs
#                 (mpi: shared memory inside), each under Open MPI's mpirun (*-ompi) and
#                 MPICH's mpiexec.hydra (*-mpich), mpi-all also with the mechanism
#                 SHOAL_MPI_AMO=auto does not take there forced (Open MPI: *-msg,
#                 AMOs as messages; MPICH: *-atomics, MPI's atomics, MPI at the
#                 program's thread level), and OSHMEM's oshrun (oshmem),
#                 interleaved, the order rotating by round. Builds nothing but
#                 Shoal and the programs (oshcc). --reps rounds (default 5); ranges.md:
#                 medians [min, max].
# --reference DIR with --small-ops: the results folder of an earlier run (a quiet
#                 machine's) whose fi_pingpong round trip is drawn and checked too.
# --mpi           also runs Shoal under mpirun with every operation through the MPI
#                 transport (SHOAL_TRANSPORT=mpi-all), labelled shoal-mpi.
# --reps R        repetitions (default 3). Each repetition runs every program once per
#                 implementation, back to back, so that load changes hit all of them alike;
#                 results.csv holds the median and the range of the repetitions.
# --bind core     (default) every PE of every implementation is pinned the same way: PE r
#                 to CPU r mod (CPUs available), by taskset; --bind none pins nothing. Both
#                 launchers get --bind-to none, so neither adds a binding of its own.
# --targets       which remote buffers rma_latency, msg_rate and amo use: heap
#                 (shmem_malloc), global (static data) or both (default), as separate
#                 rows (put_lat for the heap, put_lat.global for static data).
# --programs      only these programs (names below, and progress and coll_small,
#                 which only --programs and --small-ops run); --quick: fewer iterations.
# --out DIR       results folder (default ${XDG_CACHE_HOME:-~/.cache}/shoal-bench/DATE).
# --install-deps  run scripts/install-deps.sh first (it uses apt-get, and says so);
#                 without it, missing tools are named and the script stops.
# --dry-run       check the tools, plan the runs and print each run's progress line,
#                 building and running nothing (the plan lands in the results folder).
# --extensions    instead of the suite: the shmemx_ extensions against their standard
#                 alternatives (bench/ext, HRA) in shared memory and over libfabric's
#                 tcp;ofi_rxm and sockets (every PE its own node), each also with
#                 bundling off (FI_MORE only); --reps rounds interleave the
#                 configurations; plot.py --extensions draws medians (docs/performance.md).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
argv="$*" # for the figures' captions
pes=2
compare=0
ofi=0
mpi=0
ext=0
reps=3
reps_given=0
bind=core
targets=heap,global
only=""
quick=0
deps=0
dry=0
out=""
build="$root/build-release"
base=""
small_ops=0
busy=0
isx=0
hugepages=0
mpi_amo=0
heap=1G
pes_given=0
suite_sel=0 # --programs, --targets, --quick, --mpi: what the suite runs
reference=""
while [ $# -gt 0 ]; do
    case "$1" in
        --pes) pes="$2"; pes_given=1; shift 2 ;;
        --compare-ompi) compare=1; shift ;;
        --ofi) ofi=1; shift ;;
        --mpi) mpi=1; suite_sel=1; shift ;;
        --extensions) ext=1; shift ;;
        --reps) reps="$2"; reps_given=1; shift 2 ;;
        --bind) bind="$2"; shift 2 ;;
        --targets) targets="$2"; suite_sel=1; shift 2 ;;
        --programs) only="$2"; suite_sel=1; shift 2 ;;
        --quick) quick=1; suite_sel=1; shift ;;
        --out) out="$2"; shift 2 ;;
        --build) build="$2"; shift 2 ;;
        --baseline) base="$2"; shift 2 ;;
        --small-ops) small_ops=1; shift ;;
        --busy) busy=1; shift ;;
        --isx) isx=1; shift ;;
        --mpi-amo) mpi_amo=1; shift ;;
        --hugepages) hugepages=1; shift ;;
        --heap) heap="$2"; shift 2 ;;
        --reference) reference="$2"; shift 2 ;;
        --install-deps) deps=1; shift ;;
        --dry-run) dry=1; shift ;;
        -h|--help) sed -n '2,/^set -eu$/{/^set -eu$/!p}' "$0"; exit 0 ;;
        *) echo "bench.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
mkdir -p "$build"
build=$(cd "$build" && pwd)
case "$bind" in core|none) ;; *) echo "bench.sh: --bind core or none" >&2; exit 2 ;; esac
[ -z "$reference" ] || [ -e "$reference/results.csv" ] ||
    { echo "bench.sh: --reference $reference: no results.csv there" >&2; exit 2; }
[ -z "$reference" ] || reference=$(cd "$reference" && pwd) # the runs happen in $out
[ -z "$reference" ] || [ "$small_ops" -eq 1 ] ||
    { echo "bench.sh: --reference goes with --small-ops" >&2; exit 2; }
if [ "$small_ops" -eq 1 ]; then
    [ "$ext" -eq 0 ] || { echo "bench.sh: --small-ops or --extensions, not both" >&2; exit 2; }
    [ "$suite_sel" -eq 0 ] && [ "$pes_given" -eq 0 ] || {
        echo "bench.sh: --small-ops runs a fixed set; --pes, --programs, --targets, --quick" \
             "and --mpi are the suite's" >&2
        exit 2; }
    # These figures need the network runs, Open MPI and more repetitions.
    ofi=1 compare=1
    [ "$reps_given" -eq 1 ] || reps=5
fi
if [ "$busy" -eq 1 ]; then
    [ "$small_ops" -eq 0 ] && [ "$ext" -eq 0 ] && [ -z "$base" ] && [ "$suite_sel" -eq 0 ] &&
        [ "$ofi" -eq 0 ] || {
        echo "bench.sh: --busy runs a fixed set on its own (--pes, --reps only)" >&2
        exit 2; }
    compare=1
    [ "$pes_given" -eq 1 ] || pes=2,4
    [ "$reps_given" -eq 1 ] || reps=5
fi
if [ "$isx" -eq 1 ]; then
    [ "$small_ops" -eq 0 ] && [ "$ext" -eq 0 ] && [ "$busy" -eq 0 ] && [ -z "$base" ] &&
        [ -z "$only" ] && [ "$mpi" -eq 0 ] && [ "$ofi" -eq 0 ] || {
        echo "bench.sh: --isx runs one program on its own (--pes, --reps, --quick only)" >&2
        exit 2; }
    compare=1
    [ "$pes_given" -eq 1 ] || pes=2,4
    [ "$reps_given" -eq 1 ] || reps=5
fi
if [ "$mpi_amo" -eq 1 ]; then
    [ "$small_ops" -eq 0 ] && [ "$ext" -eq 0 ] && [ "$busy" -eq 0 ] && [ "$isx" -eq 0 ] &&
        [ -z "$base" ] && [ "$suite_sel" -eq 0 ] && [ "$ofi" -eq 0 ] || {
        echo "bench.sh: --mpi-amo runs a fixed set on its own (--pes, --reps, --bind only)" >&2
        exit 2; }
    compare=1
    [ "$pes_given" -eq 1 ] || pes=2,4
    [ "$reps_given" -eq 1 ] || reps=5
fi
if [ "$hugepages" -eq 1 ]; then
    [ "$small_ops" -eq 0 ] && [ "$ext" -eq 0 ] && [ "$busy" -eq 0 ] && [ "$isx" -eq 0 ] &&
        [ -z "$base" ] && [ "$suite_sel" -eq 0 ] && [ "$ofi" -eq 0 ] && [ "$compare" -eq 0 ] || {
        echo "bench.sh: --hugepages runs one program on its own (--pes, --reps, --heap only)" >&2
        exit 2; }
    [ "$(id -u)" -eq 0 ] || {
        echo "bench.sh: --hugepages reserves huge pages and sets shmem_enabled: run it as root" >&2
        exit 2; }
    case "$heap" in
        [1-9]*G) heap_mb=$((${heap%G} * 1024)) ;;
        [1-9]*M) heap_mb=${heap%M} ;;
        *) echo "bench.sh: --heap takes whole M or G (512M, 1G)" >&2; exit 2 ;;
    esac
    [ "$reps_given" -eq 1 ] || reps=5
fi
case "$reps" in ''|*[!0-9]*|0) echo "bench.sh: --reps needs a positive number" >&2; exit 2 ;; esac
out=${out:-${XDG_CACHE_HOME:-$HOME/.cache}/shoal-bench/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out/raw"
out=$(cd "$out" && pwd)

# What the run needs; apt-get only when asked, and announced.
need="cmake ninja python3"
[ "$compare" -eq 1 ] && need="$need /usr/bin/oshcc /usr/bin/oshrun"
[ "$ofi" -eq 1 ] && need="$need fi_pingpong"
[ "$bind" = core ] && need="$need taskset"
[ "$mpi_amo" -eq 1 ] && need="$need mpirun mpiexec.hydra"
missing=""
for t in $need; do command -v "$t" >/dev/null 2>&1 || missing="$missing $t"; done
py=python3
$py -c 'import matplotlib' 2>/dev/null || py=/usr/bin/python3
# Only the plots need matplotlib, and a dry run draws none.
[ "$dry" -eq 1 ] || $py -c 'import matplotlib' 2>/dev/null || missing="$missing python3-matplotlib"
if [ -n "$missing" ]; then
    if [ "$deps" -eq 1 ]; then
        echo "bench.sh: missing:$missing; running scripts/install-deps.sh (apt-get install, may ask for sudo)"
        "$root/scripts/install-deps.sh"
    else
        echo "bench.sh: missing:$missing. Install them (scripts/install-deps.sh does, with apt-get)" >&2
        echo "or rerun with --install-deps to let this script run it." >&2
        exit 1
    fi
fi

[ "$dry" -eq 1 ] && [ "$ext" -eq 1 ] &&
    { echo "bench.sh: --dry-run plans the suite, not --extensions" >&2; exit 2; }
[ -n "$base" ] && [ "$ext" -eq 1 ] &&
    { echo "bench.sh: --baseline compares builds in the suite, not --extensions" >&2; exit 2; }
if [ "$dry" -eq 0 ]; then
    echo "bench.sh: building Shoal (Release) in $build"
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSHOAL_BUILD_TESTS=OFF >/dev/null
    cmake --build "$build" -j 2 | tail -n 1
fi

# --baseline: a build folder as it is, or a git revision built once into the cache.
bbuild=""
if [ -n "$base" ]; then
    if [ -d "$base" ]; then
        bbuild=$(cd "$base" && pwd)
        [ -x "$bbuild/tools/oshrun/oshrun" ] || {
            echo "bench.sh: --baseline $base: no tools/oshrun/oshrun there;" \
                 "give a Shoal build folder or a git revision" >&2
            exit 2; }
        echo "bench.sh: baseline: the build in $bbuild (runs labelled IMPL@base)"
    else
        sha=$(git -C "$root" rev-parse --verify --quiet "$base^{commit}" 2>/dev/null) || {
            echo "bench.sh: --baseline $base: neither a folder nor a git revision of $root" >&2
            exit 2; }
        cache="${XDG_CACHE_HOME:-$HOME/.cache}/shoal-bench/builds/$(echo "$sha" | cut -c1-12)"
        bbuild="$cache/build"
        echo "bench.sh: baseline: $base ($(echo "$sha" | cut -c1-12)) built in $bbuild (runs labelled IMPL@base)"
        if [ "$dry" -eq 0 ]; then
            if [ ! -e "$cache/src/CMakeLists.txt" ]; then
                rm -rf "$cache/src"
                mkdir -p "$cache/src"
                git -C "$root" archive "$sha" | tar -x -C "$cache/src"
            fi
            cmake -S "$cache/src" -B "$bbuild" -G Ninja -DCMAKE_BUILD_TYPE=Release \
                -DSHOAL_BUILD_TESTS=OFF >/dev/null
            cmake --build "$bbuild" -j 2 | tail -n 1
        fi
    fi
fi

# Each program with the arguments of a default run (--quick: a tenth of the iterations)
# and whether it runs once per target (t).
programs="rma_latency:-i 5000:t
rma_bandwidth:-i 500:
msg_rate:-i 20000:t
signal:-m 256K -i 2000:
amo:-i 20000:t
coll:-m 256K -i 200:
alltoalls:-m 4096 -i 200:
hra:-n 1M -u 200000:
heat:-n 512 -t 200:
bucket_sort:-e 1M:"
src_of() {
    case "$1" in
    hra) echo hra/hra.c ;;
    heat) echo "proxy/$1.c" ;;
    bucket_sort) echo "proxy/bucket_sort.c proxy/bucket_sort_host.c proxy/bucket_sort_gpu.c" ;;
    *) echo "micro/$1.c" ;;
    esac
}
# Programs only --programs runs (--small-ops runs them too): the
# get from a computing PE and the idle/busy CPU use (needs 2 PEs or more), and the
# small collectives.
optional="progress:-i 2000 -w 50:
coll_small:-i 20000 -w 200:"
if [ -n "$only" ]; then
    known=$(printf '%s\n%s\n' "$programs" "$optional" | cut -d: -f1 | tr '\n' ' ' | sed 's/ *$//')
    for name in $(echo "$only" | tr ',' ' '); do
        case " $known " in *" $name "*) ;; *)
            echo "bench.sh: --programs: no program $name; choose from: $known" >&2
            exit 2 ;;
        esac
    done
    programs=$(printf '%s\n%s\n' "$programs" "$optional" | while IFS=: read -r name rest; do
        case ",$only," in *",$name,"*) echo "$name:$rest" ;; esac
    done)
    case ",$only,:$pes" in *,progress,*:1|*,progress,*:1,*|*,progress,*:*,1|*,progress,*:*,1,*)
        echo "bench.sh: --programs progress needs 2 PEs or more (--pes)" >&2; exit 2 ;;
    esac
fi
if [ "$quick" -eq 1 ]; then
    programs=$(echo "$programs" | sed -e 's/-i \([0-9]*\)0\b/-i \1/' -e 's/-u 200000/-u 20000/' \
                                      -e 's/-t 200/-t 20/' -e 's/-e 1M/-e 128K/')
fi

impls="shoal"
[ "$compare" -eq 1 ] && impls="shoal oshmem"
[ "$ofi" -eq 1 ] && impls="$impls shoal-ofi"
if [ "$mpi" -eq 1 ]; then
    [ "$dry" -eq 1 ] || [ -e "$build/src/libshoal-mpi.so" ] ||
        { echo "bench.sh: --mpi: this build has no MPI transport (install libopenmpi-dev)" >&2; exit 1; }
    impls="$impls shoal-mpi"
fi

# Pinning: a wrapper every PE of every implementation starts through, so both are
# bound alike whatever their launchers would do.
ncpu=$(nproc)
pin="$out/raw/pin.sh"
cat > "$pin" <<EOF
#!/bin/sh
r=\${SHOAL_RANK:-\${OMPI_COMM_WORLD_RANK:-\${PMIX_RANK:-\${PMI_RANK:-0}}}}
exec taskset -c \$((r % $ncpu)) "\$@"
EOF
chmod +x "$pin"
wrap=""
[ "$bind" = core ] && wrap="$pin"

# Open MPI's OSHMEM on one node without a network: the default osc/rdma component
# crashes in shmem_finalize (a memory hook of an unloaded component), so leave it out.
ompi_run() {
    n=$1; shift
    asroot=""
    [ "$(id -u)" -eq 0 ] && asroot="--allow-run-as-root"
    OMPI_MCA_osc='^rdma' OMPI_MCA_opal_common_ucx_opal_mem_hooks=0 timeout 600 \
        /usr/bin/oshrun $asroot --oversubscribe --bind-to none -np "$n" $wrap "$@"
}
# As a user launches it: each launcher's own defaults (Open MPI binds 2 PEs to cores,
# oshrun binds when the PEs fit), no taskset.
ompi_launched_run() {
    n=$1; shift
    asroot=""
    [ "$(id -u)" -eq 0 ] && asroot="--allow-run-as-root"
    OMPI_MCA_osc='^rdma' OMPI_MCA_opal_common_ucx_opal_mem_hooks=0 timeout 600 \
        /usr/bin/oshrun $asroot -np "$n" "$@"
}
# As launched on a busy node, where Open MPI needs --oversubscribe to start more PEs
# than cores (--busy).
ompi_oversub_run() {
    n=$1; shift
    asroot=""
    [ "$(id -u)" -eq 0 ] && asroot="--allow-run-as-root"
    OMPI_MCA_osc='^rdma' OMPI_MCA_opal_common_ucx_opal_mem_hooks=0 timeout 600 \
        /usr/bin/oshrun $asroot --oversubscribe -np "$n" "$@"
}
# The Shoal launchers take the build from $sb: this one or the baseline.
shoal_run() {
    n=$1; shift
    "$sb/tools/oshrun/oshrun" -n "$n" --timeout 600 --bind-to none $wrap "$@"
}
shoal_launched_run() {
    n=$1; shift
    "$sb/tools/oshrun/oshrun" -n "$n" --timeout 600 "$@"
}
shoal_ofi_run() {
    SHOAL_NODE_MAP=pe SHMEM_OFI_PROVIDER='tcp;ofi_rxm' shoal_run "$@"
}
shoal_mpi_run() {
    n=$1; shift
    asroot=""
    [ "$(id -u)" -eq 0 ] && asroot="--allow-run-as-root"
    [ -e "$sb/src/libshoal-mpi.so" ] ||
        { echo "bench.sh: --mpi: $sb has no MPI transport (install libopenmpi-dev)"; return 1; }
    SHOAL_TRANSPORT=mpi-all timeout 600 \
        mpirun $asroot --oversubscribe --bind-to none -n "$n" $wrap "$@"
}
# The provider's own 8-byte ping-pong on loopback: one RESULT line (half round trip).
# Its two processes are pinned as PEs 0 and 1 would be.
provider_run() {
    prov='tcp;ofi_rxm'
    port=$((40000 + $$ % 20000))
    SHOAL_RANK=0 $wrap fi_pingpong -p "$prov" -e rdm -I 2000 -S 8 -B "$port" > "$1.srv" 2>&1 &
    srv=$!
    sleep 0.3
    line=$(SHOAL_RANK=1 timeout 300 $wrap fi_pingpong -p "$prov" -e rdm -I 2000 -S 8 -P "$port" 127.0.0.1 2>&1 |
           awk '$1 == 8 {print $(NF-1)}')
    wait $srv || true
    [ -n "$line" ] || return 1
    echo "RESULT,pingpong,fi_pingpong-$prov,2,8,lat_us,$line"
}

# --busy: every load phase runs its rounds, each round every PE count and both
# implementations, the order of the implementations alternating by round.
if [ "$busy" -eq 1 ]; then
    [ "$dry" -eq 0 ] || { echo "bench.sh: --dry-run plans the suite, not --busy" >&2; exit 2; }
    mkdir -p "$build/bench-oshmem"
    for prog in coll_small coll_set; do
        /usr/bin/oshcc -O3 -I"$root/bench/common" "$root/bench/micro/$prog.c" \
            "$root/bench/common/bench.c" -lm -lpthread -ldl -o "$build/bench-oshmem/$prog"
    done
    sb="$build"
    cd "$out"
    echo "rep,bench,impl,npes,size,metric,value" > "$out/runs.csv"
    echo "load,load1_start,load1_end" > "$out/loads.csv"
    failed=0
    for load in alone job mixed; do
        lp=""
        if [ "$load" != alone ]; then
            "$root/bench/load/load.sh" "$load" "$build" "$build/bench-oshmem" &
            lp=$!
            sleep 2 # the load's jobs start up
        fi
        l0=$(cut -d' ' -f1 /proc/loadavg)
        for r in $(seq "$reps"); do
            for n in $(echo "$pes" | tr ',' ' '); do
                order="shoal-launched oshmem-launched"
                [ $((r % 2)) -eq 0 ] && order="oshmem-launched shoal-launched"
                for impl in $order; do
                    for prog in coll_small coll_set; do
                        echo "== $load, round $r/$reps, $n PEs: $impl $prog (load $(cut -d' ' -f1 /proc/loadavg))"
                        log="$out/raw/$load/np$n/$impl.$prog.$r.txt"
                        mkdir -p "$(dirname "$log")"
                        if [ "$impl" = shoal-launched ]; then
                            run=shoal_launched_run bin="$build/bench/$prog"
                        else
                            run=ompi_oversub_run bin="$build/bench-oshmem/$prog"
                        fi
                        BENCH_IMPL="$impl/$load" $run "$n" "$bin" -i 2000 -w 100 \
                            < /dev/null > "$log" 2>&1 || { echo "   FAILED (see $log)"; failed=1; }
                        grep '^RESULT,' "$log" | sed "s/^RESULT,/$r,/" >> "$out/runs.csv" || true
                    done
                done
            done
        done
        echo "$load,$l0,$(cut -d' ' -f1 /proc/loadavg)" >> "$out/loads.csv"
        if [ -n "$lp" ]; then
            kill -TERM "$lp"
            wait "$lp" || true
        fi
    done
    $py "$root/bench/median.py" "$out/runs.csv" "$out/results.csv" "$out/ranges.md"
    $py "$root/bench/busy_table.py" --command "scripts/bench.sh $argv" "$out"
    echo "bench.sh: results in $out (busy.md and busy.png: alone and under each load, side by side; ranges.md)"
    exit $failed
fi

# summarize WHAT: the medians and ranges of $out/runs.csv, with the load, the rounds,
# the time taken and the commit, for a suite whose ranges.md shows WHAT.
summarize() {
    $py "$root/bench/median.py" --all-sizes "$out/runs.csv" "$out/results.csv" "$out/ranges.md"
    {
        echo "load average at the start: $l0; at the end: $(cut -d' ' -f1-3 /proc/loadavg) on $ncpu CPUs"
        echo "rounds: $reps; took $(( $(date +%s) - start )) s; $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')"
    } >> "$out/ranges.md"
    echo "bench.sh: results in $out (ranges.md: $1)"
}

# --isx: every round runs each PE count under the three launches, the order rotating.
if [ "$isx" -eq 1 ]; then
    [ "$dry" -eq 0 ] || { echo "bench.sh: --dry-run plans the suite, not --isx" >&2; exit 2; }
    mkdir -p "$build/bench-oshmem"
    /usr/bin/oshcc -O3 -I"$root/bench/common" "$root/bench/isx/isx.c" \
        "$root/bench/common/bench.c" -lm -lpthread -ldl -o "$build/bench-oshmem/isx"
    args=""
    [ "$quick" -eq 1 ] && args="-k 1M"
    sb="$build"
    cd "$out"
    echo "rep,bench,impl,npes,size,metric,value" > "$out/runs.csv"
    echo "rep,npes,impl,load1" > "$out/loads.csv"
    l0=$(cut -d' ' -f1-3 /proc/loadavg)
    start=$(date +%s)
    failed=0
    for r in $(seq "$reps"); do
        for n in $(echo "$pes" | tr ',' ' '); do
            case $((r % 3)) in
            1) order="shoal-launched shoal-core oshmem-launched" ;;
            2) order="shoal-core oshmem-launched shoal-launched" ;;
            *) order="oshmem-launched shoal-launched shoal-core" ;;
            esac
            for impl in $order; do
                load=$(cut -d' ' -f1 /proc/loadavg)
                echo "== round $r/$reps, $n PEs: $impl isx $args (load $load)"
                echo "$r,$n,$impl,$load" >> "$out/loads.csv"
                log="$out/raw/np$n/$impl.$r.txt"
                mkdir -p "$(dirname "$log")"
                # Shoal's runs time both exchanges, the put one as Open MPI's does.
                case "$impl" in
                shoal-launched) set -- shoal_launched_run "$n" "$build/bench/isx" -x both ;;
                shoal-core) set -- "$build/tools/oshrun/oshrun" -n "$n" --timeout 600 \
                                --bind-to core "$build/bench/isx" -x both ;;
                *) set -- ompi_oversub_run "$n" "$build/bench-oshmem/isx" ;;
                esac
                # shellcheck disable=SC2086
                BENCH_IMPL="$impl" "$@" $args < /dev/null > "$log" 2>&1 ||
                    { echo "   FAILED (see $log)"; failed=1; }
                grep '^RESULT,' "$log" | sed "s/^RESULT,/$r,/" >> "$out/runs.csv" || true
            done
        done
    done
    summarize "each phase's median [min, max], ms"
    exit $failed
fi

# --mpi-amo: every round runs each program at each PE count under the seven
# configurations, the order rotating by round.
if [ "$mpi_amo" -eq 1 ]; then
    [ "$dry" -eq 0 ] || { echo "bench.sh: --dry-run plans the suite, not --mpi-amo" >&2; exit 2; }
    [ -e "$build/src/libshoal-mpi.so" ] && [ -e "$build/src/libshoal-mpich.so" ] || {
        echo "bench.sh: --mpi-amo: $build lacks libshoal-mpi.so or libshoal-mpich.so" \
             "(install libopenmpi-dev and libmpich-dev)" >&2; exit 1; }
    mkdir -p "$build/bench-oshmem"
    progs="amo_pairs:-i 2000 -w 100
rma_latency:-s 8 -m 1M -i 1000 -w 50
coll_small:-i 2000 -w 100"
    for p in amo_pairs rma_latency coll_small; do
        /usr/bin/oshcc -O3 -I"$root/bench/common" "$root/bench/micro/$p.c" \
            "$root/bench/common/bench.c" -lm -lpthread -ldl -o "$build/bench-oshmem/$p"
    done
    asroot=""
    [ "$(id -u)" -eq 0 ] && asroot="--allow-run-as-root"
    amo_run() { # CONFIG NP PROG ARGS...
        c=$1 n=$2; shift 2
        case "$c" in
        oshmem) ompi_run "$n" "$@"; return ;;
        shoal-mpi-all*) t=mpi-all map= ;;
        *) t=mpi map=block:2 ;;
        esac
        mech=auto
        case "$c" in *-atomics*) mech=mpi ;; *-msg*) mech=msg ;; esac
        case "$c" in
        *-ompi*) SHOAL_TRANSPORT=$t SHOAL_NODE_MAP=$map SHOAL_MPI_AMO=$mech timeout 600 \
                     mpirun $asroot --oversubscribe --bind-to none -n "$n" $wrap "$@" ;;
        *) SHOAL_TRANSPORT=$t SHOAL_NODE_MAP=$map SHOAL_MPI_AMO=$mech timeout 600 \
               mpiexec.hydra -n "$n" $wrap "$@" ;;
        esac
    }
    configs="shoal-mpi-all-ompi shoal-mpi-all-mpich shoal-mpi-all-msg-ompi
             shoal-mpi-all-atomics-mpich shoal-mpi-ompi shoal-mpi-mpich oshmem"
    cd "$out"
    echo "rep,bench,impl,npes,size,metric,value" > "$out/runs.csv"
    l0=$(cut -d' ' -f1-3 /proc/loadavg)
    start=$(date +%s)
    failed=0
    for r in $(seq "$reps"); do
        # shellcheck disable=SC2086 # a rotation of the word list
        order=$(echo $configs | tr ' ' '\n' | awk -v k="$r" '{ a[NR] = $0 }
            END { for (i = 0; i < NR; i++) print a[(i + k) % NR + 1] }')
        for n in $(echo "$pes" | tr ',' ' '); do
            while IFS=: read -r prog args; do
                for c in $order; do
                    echo "== round $r/$reps, $n PEs: $c $prog (load $(cut -d' ' -f1 /proc/loadavg))"
                    log="$out/raw/np$n/$c.$prog.$r.txt"
                    mkdir -p "$(dirname "$log")"
                    bin="$build/bench/$prog"
                    [ "$c" = oshmem ] && bin="$build/bench-oshmem/$prog"
                    # shellcheck disable=SC2086 # $args is the program's options
                    BENCH_IMPL="$c" amo_run "$c" "$n" "$bin" $args < /dev/null > "$log" 2>&1 ||
                        { echo "   FAILED (see $log)"; failed=1; }
                    grep '^RESULT,' "$log" | sed "s/^RESULT,/$r,/" >> "$out/runs.csv" || true
                done
            done <<EOF
$progs
EOF
        done
    done
    summarize "medians [min, max] of each configuration, us"
    exit $failed
fi

# --hugepages: every round runs the six configurations once, the order rotating.
if [ "$hugepages" -eq 1 ]; then
    [ "$dry" -eq 0 ] || { echo "bench.sh: --dry-run plans the suite, not --hugepages" >&2; exit 2; }
    pool=/sys/kernel/mm/hugepages/hugepages-2048kB
    thp=/sys/kernel/mm/transparent_hugepage/shmem_enabled
    # tests/api/hugepages.sh changes the same settings; one at a time.
    exec 9>/tmp/shoal-hugepages.lock
    flock -w 600 9 || { echo "bench.sh: /tmp/shoal-hugepages.lock stays held" >&2; exit 1; }
    prev=$(cat "$pool/nr_hugepages")
    prev_thp=$(sed 's/.*\[\(.*\)\].*/\1/' "$thp")
    trap 'echo "$prev" > "$pool/nr_hugepages"; echo "$prev_thp" > "$thp"' EXIT
    trap 'exit 1' INT TERM HUP
    # The table, 16 MiB of slack for the allocator and the library's 4 MiB reserve.
    sym=$((heap_mb + 16))M
    per_pe=$(( (heap_mb + 16 + 4 + 1) / 2 + 1 ))
    sb="$build"
    cd "$out"
    echo "rep,bench,impl,npes,size,metric,value" > "$out/runs.csv"
    l0=$(cut -d' ' -f1-3 /proc/loadavg)
    start=$(date +%s)
    failed=0
    configs="4k thp hugetlb"
    for r in $(seq "$reps"); do
        for n in $(echo "$pes" | tr ',' ' '); do
            for mode in shoal shoal-ofi; do
                for k in $configs; do
                    impl="$mode-$k"
                    echo "$prev" > "$pool/nr_hugepages"
                    echo "$prev_thp" > "$thp"
                    hp=1
                    case "$k" in
                    4k) hp="" want="normal pages" ;;
                    thp) echo advise > "$thp"; want="transparent huge pages" ;;
                    hugetlb) echo $((prev + n * per_pe)) > "$pool/nr_hugepages"
                             want="reserved huge (hugetlb) pages" ;;
                    esac
                    load=$(cut -d' ' -f1 /proc/loadavg)
                    echo "== round $r/$reps, $n PEs: $impl heap_random -t $heap -l 1000000 -a 20000 -f 1000 (load $load)"
                    log="$out/raw/np$n/$impl.$r.txt"
                    mkdir -p "$(dirname "$log")"
                    run=shoal_run
                    [ "$mode" = shoal-ofi ] && run=shoal_ofi_run
                    BENCH_IMPL="$impl" SHOAL_LOG=mem:info SHMEM_SYMMETRIC_SIZE="$sym" \
                        SHMEM_SYMMETRIC_HEAP_USE_HUGE_PAGES=$hp \
                        $run "$n" "$build/bench/heap_random" -t "$heap" -l 1000000 -a 20000 -f 1000 < /dev/null > "$log" 2>&1 ||
                        { echo "   FAILED (see $log)"; failed=1; }
                    [ "$(grep -c "\] heap on $want" "$log")" -eq "$n" ] ||
                        { echo "   FAILED: not every PE's heap on $want (see $log)"; failed=1; }
                    grep '^RESULT,' "$log" | sed "s/^RESULT,/$r,/" >> "$out/runs.csv" || true
                done
            done
            configs="${configs#* } ${configs%% *}"
        done
    done
    summarize "median [min, max] per configuration"
    exit $failed
fi

# --extensions: each configuration is "label:node map:provider:extra environment".
if [ "$ext" -eq 1 ]; then
    configs="shoal:::
shoal-ofi-tcp:pe:tcp;ofi_rxm:
shoal-ofi-tcp-fimore:pe:tcp;ofi_rxm:SHMEM_OFI_BUNDLE_SIZE=0
shoal-ofi-sockets:pe:sockets:
shoal-ofi-sockets-fimore:pe:sockets:SHMEM_OFI_BUNDLE_SIZE=0"
    # Not libfabric's shm provider: it reaches only PEs on one node, which Shoal's own
    # shared memory serves.
    ext_programs="ext:-m 1M -i 400 -w 5
hra:-n 64K -u 2000"
    n=$(echo "$pes" | cut -d, -f1)
    failed=0
    cd "$out"
    for r in $(seq "$reps"); do
        while IFS=: read -r label map prov extra; do
            while IFS=: read -r name args; do
                # With bundling off only the session rows differ: HRA once is enough.
                case "$label:$name" in *-fimore:hra) continue ;; esac
                echo "== round $r, $label, $n PEs: $name $args"
                log="$out/raw/$label/np$n/$name.$r.txt"
                mkdir -p "$(dirname "$log")"
                env BENCH_IMPL="$label" ${map:+SHOAL_NODE_MAP=$map} ${prov:+SHMEM_OFI_PROVIDER=$prov} \
                    $extra "$build/tools/oshrun/oshrun" -n "$n" --timeout 900 --bind-to none $wrap \
                    "$build/bench/$name" $args < /dev/null > "$log" 2>&1 || {
                    echo "   FAILED (see $log)"; failed=1; }
            done <<EOT
$ext_programs
EOT
        done <<EOT
$configs
EOT
    done
    echo "bench,impl,npes,size,metric,value" > "$out/results.csv"
    grep -rh '^RESULT,' "$out/raw" | cut -d, -f2- >> "$out/results.csv"
    py=python3
    $py -c 'import matplotlib' 2>/dev/null || py=/usr/bin/python3
    $py "$root/bench/plot.py" --extensions "$out/results.csv" "$out"
    echo "results in $out"
    exit $failed
fi

# One repetition's runs, in order: PE count, implementation, program, arguments, target.
matrix() {
    if [ "$small_ops" -eq 1 ]; then
        # Small operations over tcp;ofi_rxm beside the provider, private contexts,
        # collectives at 2/4/8 PEs over ofi, and the as-launched 2-PE collectives
        # against Open MPI's OSHMEM: that pair three times, at the start, middle and
        # end, as it is the noisiest.
        launched="2:shoal-launched:coll_small:-i 20000 -w 200:-
2:oshmem-launched:coll_small:-i 20000 -w 200:-"
        cat <<EOT
2:provider:::
$launched
2:shoal-ofi:rma_latency:-s 8 -m 8 -i 2000 -w 100:-
2:shoal-ofi:amo:-i 2000 -w 100:-
2:wake:::
2:shoal-ofi:progress:-i 500 -w 20:-
$launched
2:shoal-ofi:ctx_cost:-i 1 -o private -T:-
2:shoal-ofi:ctx_cost:-i 8 -o private -T:-
2:shoal-ofi:ctx_cost:-i 32 -o private -T:-
2:shoal-ofi:coll_small:-i 1000 -w 20:-
4:shoal-ofi:coll_small:-i 300 -w 10:-
8:shoal-ofi:coll_small:-i 200 -w 10:-
$launched
EOT
        return
    fi
    for n in $(echo "$pes" | tr ',' ' '); do
        [ "$ofi" -eq 1 ] && echo "$n:provider:::"
        echo "$programs" | while IFS=: read -r name args tgt; do
            tl="-"
            [ -n "$tgt" ] && tl=$(echo "$targets" | tr ',' ' ')
            for t in $tl; do
                for impl in $impls; do echo "$n:$impl:$name:$args:$t"; done
            done
        done
    done
}
# The plan: every repetition runs the matrix; with --baseline each Shoal run has its
# @base twin beside it, the current build first in odd repetitions, second in even ones.
plan="$out/raw/plan.txt"
: > "$plan"
for rep in $(seq "$reps"); do
    matrix | while IFS=: read -r n impl rest; do
        case "$bbuild:$impl" in
        :*|*:provider|*:wake|*:oshmem*) echo "$rep:$n:$impl:$rest" ;;
        *) if [ $((rep % 2)) -eq 1 ]; then
               echo "$rep:$n:$impl:$rest"; echo "$rep:$n:$impl@base:$rest"
           else
               echo "$rep:$n:$impl@base:$rest"; echo "$rep:$n:$impl:$rest"
           fi ;;
        esac
    done >> "$plan"
done
total=$(wc -l < "$plan")

# Open MPI's OSHMEM runs the same sources, built with its oshcc.
oprogs=$(awk -F: '$3 ~ /^oshmem/ {print $4}' "$plan" | sort -u)
if [ -n "$oprogs" ] && [ "$dry" -eq 0 ]; then
    mkdir -p "$build/bench-oshmem"
    echo "bench.sh: building$(echo " $oprogs" | tr '\n' ' ') with Open MPI's oshcc"
    for name in $oprogs; do
        srcs=""
        for f in $(src_of "$name"); do srcs="$srcs $root/bench/$f"; done
        # shellcheck disable=SC2086
        /usr/bin/oshcc -O3 -I"$root/bench/common" $srcs \
            "$root/bench/common/bench.c" -lm -lpthread -ldl -o "$build/bench-oshmem/$name"
    done
fi

what=$(awk -F: '{print $3}' "$plan" | awk '!seen[$0]++' | tr '\n' ' ')
pes_used=$(awk -F: '{print $2}' "$plan" | sort -un | tr '\n' ',' | sed 's/,$//')
echo "bench.sh: $total runs ($reps repetitions; PEs $pes_used; ${what% }; bind $bind) into $out"
echo "bench.sh: load average now: $(cut -d' ' -f1-3 /proc/loadavg)"
failed=0
cd "$out" # a directory that surely exists: Open MPI's oshrun fails when getcwd does
echo "rep,bench,impl,npes,size,metric,value" > "$out/runs.csv"
echo "run,rep,npes,impl,program,args,load1" > "$out/loads.csv"
if [ "$dry" -eq 0 ]; then
    "$build/bench/machine_limits" 200000 > "$out/raw/machine_limits.txt" || failed=1
    grep '^RESULT,' "$out/raw/machine_limits.txt" | sed 's/^RESULT,/0,/' >> "$out/runs.csv" || true
fi
start=$(date +%s)
k=0
# A here-document, not a pipe, so a failure reaches `failed` in this shell; the
# launchers read stdin, so each run gets /dev/null instead of the list.
while IFS=: read -r rep n impl name args t; do
    k=$((k + 1))
    now=$(date +%s)
    el=$((now - start))
    eta="?"
    [ "$k" -gt 1 ] && eta=$(( el * (total - k + 1) / (k - 1) ))
    label="$impl $name"
    [ "$t" != "-" ] && [ -n "$t" ] && label="$label ($t)"
    printf '[%d/%d] rep %d/%d, %d PEs: %s; %d left, %ds elapsed, about %ss to go\n' \
        "$k" "$total" "$rep" "$reps" "$n" "$label" "$((total - k))" "$el" "$eta"
    # The run number keeps apart the logs of one program run with several arguments.
    log="$out/raw/rep$rep/np$n/$impl${name:+-$name}${t:+-$t}.$k.txt"
    if [ "$dry" -eq 1 ]; then
        tl=""
        [ "$t" != "-" ] && tl="$t"
        echo "   would run: $impl $name $args${tl:+ (target $tl)}"
        continue
    fi
    echo "$k,$rep,$n,$impl,$name,$args,$(cut -d' ' -f1 /proc/loadavg)" >> "$out/loads.csv"
    mkdir -p "$(dirname "$log")"
    if [ "$impl" = provider ]; then
        provider_run "$log" > "$log" 2>&1 || { echo "   FAILED (see $log)"; failed=1; }
    elif [ "$impl" = wake ]; then
        # The kernel's round trip behind a get from a computing PE (it pins itself).
        "$build/bench/tcp_wake" 500 > "$log" 2>&1 || { echo "   FAILED (see $log)"; failed=1; }
    else
        sb="$build"
        case "$impl" in *@base) sb="$bbuild" ;; esac
        case "$impl" in
        shoal|shoal@base)                   run=shoal_run;          prog="$sb/bench/$name" ;;
        shoal-ofi|shoal-ofi@base)           run=shoal_ofi_run;      prog="$sb/bench/$name" ;;
        shoal-mpi|shoal-mpi@base)           run=shoal_mpi_run;      prog="$sb/bench/$name" ;;
        shoal-launched|shoal-launched@base) run=shoal_launched_run; prog="$sb/bench/$name" ;;
        oshmem-launched) run=ompi_launched_run; prog="$build/bench-oshmem/$name" ;;
        *)               run=ompi_run;          prog="$build/bench-oshmem/$name" ;;
        esac
        # Heap rows keep the plain names plot.py knows; global ones are bench.global.
        # BENCH_IMPL: the programs label their RESULT lines with the plan's name.
        target=""
        [ "$t" = global ] && target=global
        BENCH_IMPL="$impl" BENCH_TARGET="$target" $run "$n" "$prog" $args \
            < /dev/null > "$log" 2>&1 || { echo "   FAILED (see $log)"; failed=1; }
    fi
    grep '^RESULT,' "$log" | sed "s/^RESULT,/$rep,/" >> "$out/runs.csv" || true
done <<EOT
$(cat "$plan")
EOT

if [ "$dry" -eq 1 ]; then
    echo "bench.sh: dry run: nothing built or run; the plan is in $plan"
    exit 0
fi
$py "$root/bench/median.py" "$out/runs.csv" "$out/results.csv" "$out/ranges.md"
{
    echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) on $ncpu CPUs"
    echo "bind: $bind; repetitions: $reps; took $(( $(date +%s) - start )) s"
} >> "$out/ranges.md"
if [ "$small_ops" -eq 1 ]; then
    $py "$root/bench/plot_small_ops.py" --command "scripts/bench.sh $argv" \
        ${reference:+--reference "$reference"} "$out"
    echo "bench.sh: results in $out (small_ops.md: the table; small_ops_*.png; ranges.md)"
    exit $failed
fi
$py "$root/bench/plot.py" "$out/results.csv" "$out"
echo "bench.sh: results in $out (ranges.md: medians and ranges; summary.md; *.png)"
exit $failed
