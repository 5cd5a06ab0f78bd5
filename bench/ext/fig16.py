#!/usr/bin/env python3
"""Seed 001's Fig. 16 shape redone here, from bench/ext/fig16.sh's CSV.

Usage: fig16.py RUNS.csv OUTDIR

Writes OUTDIR/ext_fig16_bundling.png (per provider: the median message rate of each
row per setting, bars from the slowest round to the fastest, log scale) and prints
Markdown tables: rates per provider and setting, and the gain of bundling (each
setting's rate over the same row's in the same round with every bundle off), beside
the seed's 2.5x."""
import csv
import os
import statistics
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (backend first)

PROVIDERS = ["tcp;ofi_rxm", "sockets", "shm"]
ROWS = ["mr_put_nbi", "mr_put_nbi_session", "mr_put_nbi_scattered",
        "mr_put_nbi_scattered_session"]
SETTINGS = ["default", "SHMEM_OFI_BUNDLE_SIZE=0", "SHOAL_PCNTR=1"]
OFF = "SHMEM_OFI_BUNDLE_SIZE=0"


def cell(v):
    return "%.3f [%.3f, %.3f]" % (statistics.median(v), min(v), max(v)) if v else "-"


def main():
    rate = {}  # (round, provider, setting, bench) -> Mops/s
    for r in csv.DictReader(open(sys.argv[1])):
        rate[(r["round"], r["provider"], r["setting"], r["bench"])] = float(r["rate_Mops"])
    outdir = sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    vals = defaultdict(list)
    gains = defaultdict(list)
    for (rnd, prov, setting, bench), v in rate.items():
        vals[(prov, setting, bench)].append(v)
        off = rate.get((rnd, prov, OFF, bench))
        if setting != OFF and off:
            gains[(prov, setting, bench)].append(v / off)
    fig, axes = plt.subplots(1, len(PROVIDERS), figsize=(14, 4))
    width = 0.27
    for ax, prov in zip(axes, PROVIDERS):
        shown = [s for s in SETTINGS if any((prov, s, b) in vals for b in ROWS)]
        for i, setting in enumerate(shown):
            med, lo, hi = [], [], []
            for row in ROWS:
                v = vals.get((prov, setting, row), [])
                m = statistics.median(v) if v else float("nan")
                med.append(m)
                lo.append(m - min(v) if v else 0)
                hi.append(max(v) - m if v else 0)
            ax.bar([k + i * width for k in range(len(ROWS))], med, width, yerr=[lo, hi],
                   capsize=3, label=setting)
        ax.set_xticks([k + width for k in range(len(ROWS))])
        ax.set_xticklabels([r.replace("mr_put_nbi", "put_nbi").replace("_", " ")
                            for r in ROWS], fontsize=7, rotation=20)
        ax.set_yscale("log")
        ax.set_title(prov)
        ax.set_ylabel("Mops/s, log scale")
        ax.legend(fontsize=7)
    fig.suptitle("Fig. 16 shape: 8 B put_nbi windows of 64, 2 PEs (1 per node), median "
                 "and range over rounds")
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "ext_fig16_bundling.png"), dpi=90)
    print("| provider | setting | " + " | ".join(ROWS) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in ROWS) + " |")
    for prov in PROVIDERS:
        for setting in SETTINGS:
            if any((prov, setting, b) in vals for b in ROWS):
                print("| %s | %s | %s |" % (prov, setting, " | ".join(
                    cell(vals.get((prov, setting, b), [])) for b in ROWS)))
    print()
    print("| provider | setting | gain over the same row with bundles off: " +
          " | ".join(ROWS) + " | seed |")
    print("| --- | --- | " + " | ".join("---" for _ in ROWS) + " | --- |")
    for prov in PROVIDERS:
        for setting in SETTINGS:
            if setting != OFF and any((prov, setting, b) in gains for b in ROWS):
                print("| %s | %s | %s | 2.5 |" % (prov, setting, " | ".join(
                    cell(gains.get((prov, setting, b), [])) for b in ROWS)))


if __name__ == "__main__":
    main()
