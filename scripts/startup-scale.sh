#!/bin/sh
# Start-up at scale on the virtual cluster (scripts/cluster.sh, 4 nodes): bench/startup
# (the slowest shmem_init, the first contact with every PE, the largest resident memory
# a PE added) at 4 to 128 PEs over 4 nodes under srun --mpi=pmix (oversubscribed past 16),
# for Shoal and, where Debian's openmpi-bin provides it, Open MPI's OSHMEM launched the
# same way. Writes OUT/startup.csv (impl,pes,init_ms,contact_ms,rss_mib) and plots it
# to OUT/startup.png. Needs root; brings the cluster up and down unless one is up.
# usage: startup-scale.sh [BUILD [OUT]]   (defaults: build, results)
#        startup-scale.sh --plot CSV PNG [LABEL]  (the plot alone, from an earlier run;
#                                 LABEL: the run's commit and date, for the title)
set -eu
cd "$(dirname "$0")/.."
# The Python with matplotlib (python3-matplotlib is the system one's).
py=python3
"$py" -c 'import matplotlib' 2>/dev/null || py=/usr/bin/python3

plot() {
    "$py" - "$1" "$2" "$3" <<'PY'
import csv, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
rows = list(csv.DictReader(open(sys.argv[1])))
fig, axes = plt.subplots(1, 3, figsize=(13, 4))
for ax, key, label in zip(axes, ("init_ms", "contact_ms", "rss_mib"),
                          ("slowest shmem_init (ms)", "first contact with every PE (ms)",
                           "resident memory added per PE (MiB)")):
    for impl in sorted({r["impl"] for r in rows}):
        pts = [(int(r["pes"]), float(r[key])) for r in rows if r["impl"] == impl]
        ax.plot([p for p, _ in pts], [v for _, v in pts], marker="o", label=impl)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("PEs over 4 nodes (srun --mpi=pmix)")
    ax.set_ylabel(label)
    ax.grid(True, alpha=0.3)
    ax.legend()
fig.suptitle("Start-up on the virtual cluster: 4 nodes sharing 2 cores"
             + (" (" + sys.argv[3] + ")" if sys.argv[3] else ""))
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=90)
PY
}

if [ "${1:-}" = --plot ]; then
    plot "$2" "$3" "${4:-}"
    exit 0
fi
build=$(readlink -f "${1:-build}") out=${2:-results}
pes=${SHOAL_STARTUP_PES:-4 8 16 32 64 128}
mkdir -p "$out"
[ -x "$build/bench/startup" ] || { echo "startup-scale.sh: build $build/bench/startup first"; exit 2; }
impls="shoal"
if [ -x /usr/bin/oshmem_info ] && [ -x /usr/bin/oshcc ]; then
    /usr/bin/oshcc -O2 -Ibench/common bench/micro/startup.c bench/common/bench.c \
        -o "$build/bench/startup-oshmem" && impls="shoal oshmem"
fi
brought_up=0
if ! scripts/cluster.sh status >/dev/null 2>&1; then
    scripts/cluster.sh up 4
    brought_up=1
fi
csv="$out/startup.csv"
echo "impl,pes,init_ms,contact_ms,rss_mib" >"$csv"
for n in $pes; do
    for impl in $impls; do
        prog="$build/bench/startup"
        [ "$impl" = oshmem ] && prog="$build/bench/startup-oshmem"
        # OSHMEM: leave out the osc/rdma component, which crashes at finalize here.
        # A second try for a run that fails (OSHMEM's start-up fails now and then).
        line=""
        for try in 1 2; do
            [ -z "$line" ] || break
            line=$(timeout 600 scripts/cluster.sh run env OMPI_MCA_osc='^rdma' \
                OMPI_MCA_opal_common_ucx_opal_mem_hooks=0 \
                srun --mpi=pmix -N 4 -n "$n" --overcommit "$prog" 2>&1 | awk -F, '
                    /^RESULT,startup_init,/ { i = $NF } /^RESULT,startup_contact,/ { c = $NF }
                    /^RESULT,startup_rss,/ { r = $NF } END { if (i != "") print i "," c "," r }')
        done
        if [ -n "$line" ]; then
            echo "$impl,$n,$line" | tee -a "$csv"
        else
            echo "startup-scale.sh: $impl at $n PEs failed" >&2
        fi
    done
done
[ "$brought_up" -eq 0 ] || scripts/cluster.sh down
plot "$csv" "$out/startup.png" "Shoal $(git rev-parse --short HEAD 2>/dev/null || echo ?), $(date -u +%F)"
echo "startup-scale.sh: $csv and $out/startup.png"
