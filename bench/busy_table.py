#!/usr/bin/env python3
"""The table of scripts/bench.sh --busy: each small collective at 2 and 4 PEs, Shoal as
launched beside Open MPI's OSHMEM, under each load, median [min-max] in microseconds.

Usage: busy_table.py [--command CMD] RESULTS_DIR

Reads results.csv (median.py's, impl named IMPL/LOAD) and loads.csv; writes busy.md."""
import argparse
import csv
import os

IMPLS = (("shoal-launched", "Shoal"), ("oshmem-launched", "Open MPI"))
BENCHES = ("barrier", "reduce", "collect", "fcollect", "bcast")


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
            res[(r["bench"], int(r["npes"]), impl, load)] = r
    with open(os.path.join(a.out, "loads.csv")) as f:
        loads = list(csv.DictReader(f))
    names = [l["load"] for l in loads]
    head = ["us", "PEs"] + [f"{n}: {label}" for n in names for _, label in IMPLS]
    lines = [f"`{a.command}`; load average (1 min) at the start and end of each phase: "
             + ", ".join(f"{l['load']} {l['load1_start']}-{l['load1_end']}" for l in loads),
             "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for b in BENCHES:
        for n in (2, 4):
            cells = [fmt(res.get((b, n, impl, load))) for load in names for impl, _ in IMPLS]
            size = "" if b == "barrier" else " 8 B"
            lines.append(f"| {b}{size} | {n} | " + " | ".join(cells) + " |")
    with open(os.path.join(a.out, "busy.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
