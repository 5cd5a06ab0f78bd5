#!/usr/bin/env python3
"""The table of scripts/bench.sh --busy: each small collective at each PE count, Shoal as
launched beside Open MPI's OSHMEM, under each load, median [min-max] in microseconds.

Usage: busy_table.py [--command CMD] RESULTS_DIR

Reads results.csv (median.py's, impl named IMPL/LOAD) and loads.csv; writes busy.md,
and busy.png where matplotlib is installed: one panel per PE count (--pes), each collective's
medians for both implementations under each load side by side, bars from min to max."""
import argparse
import csv
import os

IMPLS = (("shoal-launched", "Shoal"), ("oshmem-launched", "Open MPI"))
# bench, metric, row label: coll_small's slowest-PE figures, then coll_set's active-set
# forms as the OSU benchmarks time them (average over the PEs).
BENCHES = (("barrier", "lat_us", "barrier"), ("reduce", "lat_us", "reduce 8 B"),
           ("collect", "lat_us", "collect 8 B"), ("fcollect", "lat_us", "fcollect 8 B"),
           ("bcast", "lat_us", "bcast 8 B"),
           ("barrier_loop", "avg_us", "barrier_all loop, PE average"),
           ("sum_to_all", "avg_us", "sum_to_all 8 B, PE average"))


def fmt(r):
    if r is None:
        return "-"
    return f"{float(r['value']):.3g} [{float(r['min']):.3g}-{float(r['max']):.3g}]"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--command", default="scripts/bench.sh --busy")
    ap.add_argument("out")
    a = ap.parse_args()
    res = {}
    with open(os.path.join(a.out, "results.csv")) as f:
        for r in csv.DictReader(f):
            impl, _, load = r["impl"].partition("/")
            res[(r["bench"], r["metric"], int(r["npes"]), impl, load)] = r
    with open(os.path.join(a.out, "loads.csv")) as f:
        loads = list(csv.DictReader(f))
    names = [l["load"] for l in loads]
    head = ["us", "PEs"] + [f"{n}: {label}" for n in names for _, label in IMPLS]
    lines = [f"`{a.command}`; load average (1 min) at the start and end of each phase: "
             + ", ".join(f"{l['load']} {l['load1_start']}-{l['load1_end']}" for l in loads),
             "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    counts = sorted({k[2] for k in res})
    for b, metric, label in BENCHES:
        for n in counts:
            cells = [fmt(res.get((b, metric, n, impl, load))) for load in names
                     for impl, _ in IMPLS]
            lines.append(f"| {label} | {n} | " + " | ".join(cells) + " |")
    with open(os.path.join(a.out, "busy.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    plot(res, names, counts, a.command, os.path.join(a.out, "busy.png"))


def plot(res, names, counts, command, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    colors = ("#4c72b0", "#dd8452", "#c44e52")  # one per load, in loads.csv order
    fig, axes = plt.subplots(len(counts), 1, figsize=(12.5, 1 + 3.25 * len(counts)),
                             squeeze=False)
    axes = axes[:, 0]
    bars = [(load, impl, label) for load in names for impl, label in IMPLS]
    width = 0.8 / len(bars)
    for ax, n in zip(axes, counts):
        for k, (load, impl, label) in enumerate(bars):
            xs, ys, lo, hi = [], [], [], []
            for i, (b, metric, _) in enumerate(BENCHES):
                r = res.get((b, metric, n, impl, load))
                if r is None:
                    continue
                v = float(r["value"])
                xs.append(i - 0.4 + (k + 0.5) * width)
                ys.append(v)
                lo.append(v - float(r["min"]))
                hi.append(float(r["max"]) - v)
            shoal = impl == IMPLS[0][0]
            ax.bar(xs, ys, width, yerr=(lo, hi), capsize=1.5, label=f"{load}: {label}",
                   color=colors[names.index(load) % len(colors)] if shoal else "white",
                   edgecolor=colors[names.index(load) % len(colors)], hatch=None if shoal
                   else "//", error_kw={"elinewidth": 0.6})
        ax.set_yscale("log")
        ax.set_ylabel(f"{n} PEs: us (median, min-max)")
        ax.set_xticks(range(len(BENCHES)))
        ax.set_xticklabels([label.replace(", PE average", "\n(PE average)")
                            for _, _, label in BENCHES], fontsize=8)
        ax.grid(axis="y", which="major", alpha=0.3)
    axes[0].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.suptitle(f"Small collectives as launched, alone and beside other work\n{command}",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=90)


if __name__ == "__main__":
    main()
