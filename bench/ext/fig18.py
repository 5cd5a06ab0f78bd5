#!/usr/bin/env python3
"""Seed 001's Fig. 18 (AMO rates) redone here from bench/ext/fig18.sh's CSV.

Usage: fig18.py RUNS.csv OUTDIR

Writes OUTDIR/ext_fig18_rates.png (median rate of each row per provider, bars from
the slowest to the fastest round), OUTDIR/ext_fig18_gains.png (each extension over
its standard alternative, the ratio taken within one run, median and range over the
rounds, beside the gain the seed reports on Slingshot) and prints the gains as a
Markdown table. Ratios within a run are the usable figures on a loaded machine:
the two rows of a ratio run seconds apart in one job."""
import csv
import os
import statistics
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (backend first)

PROVIDERS = ["tcp;ofi_rxm", "sockets", "shm"]
# (label, numerator row, its SHMEM_OFI_SIGNAL_WRITE runs, denominator row, seed gain)
GAINS = [
    ("signal_set / amo_set (auto: atomic)", "signal_set", "off", "amo_set", 1.9),
    ("signal_set / amo_set (write, =on)", "signal_set", "on", "amo_set", 1.9),
    ("put_signal SET (write) / (atomic)", "put_signal_set", "on/off", None, None),
    ("single-transmit add / add", "amo_add_single_transmit", "both", "amo_add", 1.4),
    ("fetch-add in / out of a session", None, None, None, 1.0),
]


def load(path):
    runs = defaultdict(dict)  # (round, provider, sw) -> bench -> rate
    for r in csv.DictReader(open(path)):
        runs[(r["round"], r["provider"], r["signal_write"])][r["bench"]] = float(r["rate_Mops"])
    return runs


def ratios(runs, prov, num, sw, den):
    out = []
    for (rnd, p, s), rows in runs.items():
        if p != prov or num not in rows:
            continue
        if sw == "on/off":
            other = runs.get((rnd, p, "off"), {})
            if s == "on" and num in other:
                out.append(rows[num] / other[num])
            continue
        if sw in ("on", "off") and s != sw:
            continue
        if den in rows:
            out.append(rows[num] / rows[den])
    return out


def main():
    runs = load(sys.argv[1])
    outdir = sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    # Rates.
    rows = ["amo_add", "amo_add_single_transmit", "amo_fetch_add", "amo_set", "signal_set"]
    fig, axes = plt.subplots(1, len(PROVIDERS), figsize=(13, 4), sharey=False)
    for ax, prov in zip(axes, PROVIDERS):
        labels, med, lo, hi = [], [], [], []
        for row in rows:
            for sw in ("off", "on") if row == "signal_set" else ("both",):
                vals = [
                    v[row] for (_, p, s), v in runs.items()
                    if p == prov and row in v and (sw == "both" or s == sw)
                ]
                if not vals:
                    continue
                m = statistics.median(vals)
                labels.append(row.replace("amo_", "").replace("_single_transmit", " (st)") +
                              ("" if sw == "both" else " (write)" if sw == "on" else " (atomic)"))
                med.append(m)
                lo.append(m - min(vals))
                hi.append(max(vals) - m)
        ax.bar(range(len(med)), med, yerr=[lo, hi], capsize=3, color="tab:blue")
        ax.set_xticks(range(len(med)))
        ax.set_xticklabels(labels, rotation=45, ha="right", fontsize=8)
        ax.set_title(prov)
        ax.set_ylabel("Mops/s (windows of 64, 8 B, 2 PEs)")
    fig.suptitle("Fig. 18 shape: AMO rate, PE 0 -> PE 1, median and range over rounds")
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "ext_fig18_rates.png"), dpi=90)
    # Gains beside the seed's.
    table = ["| gain | seed (Slingshot) | " + " | ".join(PROVIDERS) + " |",
             "| --- | --- | " + " | ".join("---" for _ in PROVIDERS) + " |"]
    fig, ax = plt.subplots(figsize=(10, 4))
    width = 0.2
    shown = [g for g in GAINS if g[1]]
    for i, prov in enumerate(PROVIDERS):
        meds, lo, hi = [], [], []
        for label, num, sw, den, seed in shown:
            r = ratios(runs, prov, num, sw, den)
            m = statistics.median(r) if r else float("nan")
            meds.append(m)
            lo.append(m - min(r) if r else 0)
            hi.append(max(r) - m if r else 0)
        ax.bar([k + i * width for k in range(len(shown))], meds, width, yerr=[lo, hi],
               capsize=3, label=prov)
    seeds = [g[4] for g in shown]
    ax.bar([k + len(PROVIDERS) * width for k in range(len(shown))],
           [s or float("nan") for s in seeds], width, color="grey", label="seed, Slingshot")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks([k + 1.5 * width for k in range(len(shown))])
    ax.set_xticklabels([g[0] for g in shown], fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("ratio, log scale (> 1: the extension is faster)")
    ax.set_title("Fig. 18 gains: ratio within each run, median and range over rounds")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "ext_fig18_gains.png"), dpi=90)
    for label, num, sw, den, seed in shown:
        cells = []
        for prov in PROVIDERS:
            r = ratios(runs, prov, num, sw, den)
            cells.append("%.2f [%.2f, %.2f] (%d)" % (statistics.median(r), min(r), max(r), len(r))
                         if r else "-")
        table.append("| %s | %s | %s |" % (label, "%.1f" % seed if seed else "-",
                                           " | ".join(cells)))
    print("\n".join(table))


if __name__ == "__main__":
    main()
