#!/usr/bin/env python3
"""Seed 001's Fig. 16 shape over libfabric's shm provider, from bench/ext/fig16_shm.sh.

Usage: fig16_shm.py RUNS.csv OUTDIR

Writes OUTDIR/ext_fig16_bundling_shm.png (median message rate of each row per setting,
bars from the slowest round to the fastest) and prints a Markdown table."""
import csv
import os
import statistics
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (backend first)

ROWS = ["mr_put_nbi", "mr_put_nbi_session", "mr_put_nbi_scattered",
        "mr_put_nbi_scattered_session"]
SETTINGS = ["default", "SHMEM_OFI_BUNDLE_SIZE=0", "SHOAL_PCNTR=1"]


def main():
    vals = defaultdict(list)
    for r in csv.DictReader(open(sys.argv[1])):
        vals[(r["bench"], r["setting"])].append(float(r["rate_Mops"]))
    outdir = sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    fig, ax = plt.subplots(figsize=(10, 4))
    width = 0.25
    table = ["| row (8 B, windows of 64) | " + " | ".join(SETTINGS) + " |",
             "| --- | " + " | ".join("---" for _ in SETTINGS) + " |"]
    cells = defaultdict(list)
    for i, setting in enumerate(SETTINGS):
        med, lo, hi = [], [], []
        for row in ROWS:
            v = vals.get((row, setting), [])
            m = statistics.median(v) if v else 0
            med.append(m)
            lo.append(m - min(v) if v else 0)
            hi.append(max(v) - m if v else 0)
            cells[row].append("%.3f [%.3f, %.3f]" % (m, min(v), max(v)) if v else "-")
        ax.bar([k + i * width for k in range(len(ROWS))], med, width, yerr=[lo, hi],
               capsize=3, label=setting)
    ax.set_xticks([k + width for k in range(len(ROWS))])
    ax.set_xticklabels([r.replace("mr_", "") for r in ROWS], fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("Mops/s (log)")
    ax.set_title("Fig. 16 shape over shm: 8 B put_nbi windows, 2 PEs, median and range")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "ext_fig16_bundling_shm.png"), dpi=90)
    for row in ROWS:
        table.append("| %s | %s |" % (row, " | ".join(cells[row])))
    print("\n".join(table))


if __name__ == "__main__":
    main()
