#!/usr/bin/env python3
"""Plots what private contexts cost over libfabric, before and after, from the runs of
bench/ctx_cost -o private -T collected in a CSV (docs/data/ctx_cost_ofi.csv,
ctx_cost_shm.csv: one row per run of tcp;ofi_rxm, sockets or shm; columns provider,
rep, contexts, build, first_op_median_us, first_op_max_us, extra_rss_mb,
extra_pss_mb, load1). Usage: plot_ctx_cost.py data.csv out.png
(bench/plot_small_ops.py calls main() with its own caption and names for the builds, and
log_axes() for its own counts.)"""
import csv
import statistics
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (backend first)


def log_axes(ax, ticks, xlabel):
    """Log-log axes over a count that doubles: those ticks on x, labelled as numbers."""
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(t) for t in ticks])
    ax.set_xlabel(xlabel)


def main(src, out, caption=None, labels=None):
    runs = defaultdict(list)
    with open(src) as f:
        for row in csv.DictReader(f):
            runs[(row["provider"], row["build"], int(row["contexts"]))].append(row)
    fig, (mem, lat) = plt.subplots(1, 2, figsize=(10, 4))
    for prov, colour in (("tcp;ofi_rxm", "C3"), ("sockets", "C0"), ("shm", "C2")):
        for build, style in (("before", "--"), ("after", "-")):
            ns = sorted(n for (p, b, n) in runs if p == prov and b == build)
            if not ns:
                continue
            rss = [statistics.median(float(r["extra_rss_mb"]) for r in runs[(prov, build, n)])
                   for n in ns]
            ms = [[float(r["first_op_median_us"]) / 1000 for r in runs[(prov, build, n)]]
                  for n in ns]
            mid = [statistics.median(m) for m in ms]
            err = [[c - min(m) for c, m in zip(mid, ms)], [max(m) - c for c, m in zip(mid, ms)]]
            label = f"{prov} {(labels or {}).get(build, build)}"
            # The log axis cannot show 0 MB: a context that adds nothing sits at 0.1.
            mem.plot(ns, [max(v, 0.1) for v in rss], style, color=colour, marker="o", label=label)
            lat.errorbar(ns, mid, yerr=err, fmt=style, color=colour, marker="o", capsize=3,
                         label=label)
    mem.axhline(200, color="gray", lw=0.8, ls=":")
    mem.text(1, 230, "target: 200 MB for 32", fontsize=8, color="gray")
    lat.axhline(10, color="gray", lw=0.8, ls=":")
    lat.text(1, 12, "target: 10 ms", fontsize=8, color="gray")
    for ax in (mem, lat):
        log_axes(ax, [1, 8, 32], "private contexts per PE (one thread each)")
    mem.set_ylabel("extra RSS per PE (MB)")
    mem.set_title("memory")
    lat.set_ylabel("first put + quiet on a new context (ms)")
    lat.set_title("first operation: median of run medians, range")
    mem.legend(fontsize=8, loc="lower right")
    loads = [float(r["load1"]) for rs in runs.values() for r in rs]
    if caption:
        fig.suptitle("Item 5: bench/ctx_cost -o private -T, 2 PEs, SHOAL_NODE_MAP=pe", fontsize=9)
        fig.text(0.01, 0.01, caption, fontsize=7, va="bottom")
        fig.tight_layout(rect=(0, 0.08, 1, 1))
    else:
        fig.suptitle("bench/ctx_cost -o private -T, 2 PEs, SHOAL_NODE_MAP=pe "
                     f"(load average {min(loads):.0f}-{max(loads):.0f} on 2 cores)", fontsize=9)
        fig.tight_layout()
    fig.savefig(out, dpi=90)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
