#!/usr/bin/env python3
"""Folds the repeated runs of scripts/bench.sh into one figure per row.

Usage: median.py [--all-sizes] runs.csv results.csv ranges.md

runs.csv has a rep column (one row per repetition); results.csv gets the median of
each (bench, impl, npes, size, metric) as value, with min, max and reps beside it;
ranges.md is the same as a Markdown table (median [min, max]) for the small sizes
(every size with --all-sizes), each network row beside the provider's own figure
when the run measured one."""
import csv
import statistics
import sys
from collections import defaultdict

KEY = ("bench", "impl", "npes", "size", "metric")


def impl_order(impl):
    """Shoal first, each --baseline twin (IMPL@base) right after its IMPL."""
    name, _, base = impl.partition("@")
    return (name != "shoal", name, base)


def main():
    args = sys.argv[1:]
    all_sizes = "--all-sizes" in args
    runs, results, ranges = [a for a in args if a != "--all-sizes"][:3]
    vals = defaultdict(list)
    with open(runs) as f:
        for row in csv.DictReader(f):
            vals[tuple(row[k] for k in KEY)].append(float(row["value"]))
    rows = []
    for key, v in vals.items():
        rows.append(dict(zip(KEY, key), value=statistics.median(v), min=min(v), max=max(v),
                         reps=len(v)))
    rows.sort(key=lambda r: (r["bench"], int(r["npes"]), int(r["size"]), r["metric"],
                             r["impl"]))
    with open(results, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(KEY) + ["value", "min", "max", "reps"])
        w.writeheader()
        for r in rows:
            w.writerow({**r, "value": f"{r['value']:.6g}", "min": f"{r['min']:.6g}",
                        "max": f"{r['max']:.6g}"})

    # The provider's raw round trip (fi_pingpong), to hold each network row against.
    raw = {r["npes"]: r for r in rows if r["impl"].startswith("fi_pingpong")}
    raw_any = next(iter(raw.values()), None)
    impls = sorted({r["impl"] for r in rows if not r["impl"].startswith("fi_pingpong")},
                   key=impl_order)
    lines = ["| bench | PEs | size | metric | " + " | ".join(impls) + " |",
             "|---|---|---|---|" + "---|" * len(impls)]
    table = defaultdict(dict)
    for r in rows:
        if (all_sizes or int(r["size"]) <= 8) and not r["impl"].startswith("fi_pingpong"):
            table[(r["bench"], int(r["npes"]), int(r["size"]), r["metric"])][r["impl"]] = r
    for (bench, npes, size, metric), by in sorted(table.items()):
        cells = []
        for i in impls:
            r = by.get(i)
            cells.append(f"{r['value']:.3g} [{r['min']:.3g}, {r['max']:.3g}]" if r else "")
        lines.append(f"| {bench} | {npes} | {size} | {metric} | " + " | ".join(cells) + " |")
    if raw_any:
        lines += ["", f"Provider round trip measured in the same run ({raw_any['impl']}, "
                  f"8 B, half round trip): {raw_any['value']:.3g} us "
                  f"[{raw_any['min']:.3g}, {raw_any['max']:.3g}] over {raw_any['reps']} runs."]
    with open(ranges, "w") as f:
        f.write("Medians over the repetitions, [min, max] beside each.\n\n")
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
