#!/usr/bin/env python3
"""The small-operation figures of one `scripts/bench.sh --small-ops` run, each beside
its provider limit or target, medians with [min, max] over the repetitions.

Usage: plot_small_ops.py [--command TEXT] [--reference DIR] OUTDIR

Reads OUTDIR/results.csv (median.py: value, min, max, reps), OUTDIR/runs.csv and
OUTDIR/loads.csv (the load average as each run started); writes into OUTDIR
  small_ops_latency.png   8 B round trips over tcp;ofi_rxm against fi_pingpong's round
                          trip and 1.5 times it; the limit is the provider's best run
                          (its minimum), as a loaded machine slows it most
  small_ops_cpu.png       CPU of an idle PE, of a computing PE's other threads (target
                          < 2 % of a core) and of a PE waiting in a barrier
  small_ops_coll_ofi.png  barrier, 8 B broadcast and reduce at 2/4/8 PEs over ofi
                          against 1 ms
  small_ops_ctx.png       1, 8, 32 private contexts (plot_ctx_cost.py), against 200 MB
                          and 10 ms; its rows in small_ops_ctx.csv
  small_ops_launched.png  `oshrun -n 2` small collectives, Shoal against Open MPI's
                          OSHMEM, each as launched with no settings
  small_ops.md            the table: group | metric | Shoal | limit or target | met?; the
                          get from a computing PE also shows bench/limits/tcp_wake.c's
                          kernel round trip of the same shape (impl "machine", each
                          repetition) and the floor it sets with the provider's own cost
Runs of a --baseline build (impl@base) are drawn beside the current build's.
--reference DIR: another bench.sh results folder (e.g. one taken on a quiet machine)
whose fi_pingpong round trip is drawn too; the round-trip targets are then checked
against the smaller of the two, since a loaded machine slows fi_pingpong (which spins
on its completion queues) far more than Shoal's PEs."""
import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (backend first)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import plot_ctx_cost  # noqa: E402

PROVIDER = "fi_pingpong-tcp;ofi_rxm"
OFI, LAUNCHED, OMPI = "shoal-ofi", "shoal-launched", "oshmem-launched"
RT_OPS = [  # (label, bench, size, factor to a round trip)
    ("get", "get_lat", 8, 1),
    ("put + quiet", "put_lat", 8, 1),
    ("fetch-add", "amo_fetch_add", 8, 1),
    ("ping-pong\n(2 x half RT)", "pingpong", 8, 2),
    ("get from a\ncomputing PE:\nmean", "get_busy", 8, 1),
    ("get from a\ncomputing PE:\nmedian get", "get_busy_p50", 8, 1),
    ("get from a\nwaiting PE:\nmean", "get_wait", 8, 1),
    ("get from a\nwaiting PE:\nmedian get", "get_wait_p50", 8, 1),
]
COLLS = ["barrier", "bcast", "reduce", "collect", "fcollect"]


def results(folder):
    """{(bench, impl, npes, size, metric): (median, min, max, reps)} of a results.csv"""
    res = {}
    with open(os.path.join(folder, "results.csv")) as f:
        for r in csv.DictReader(f):
            key = (r["bench"], r["impl"], int(r["npes"]), int(r["size"]), r["metric"])
            res[key] = (float(r["value"]), float(r["min"]), float(r["max"]), int(r["reps"]))
    return res


class Run:
    def __init__(self, out, command, reference=None):
        self.out = out
        self.command = command
        self.res = results(out)
        self.reps = defaultdict(list)  # the same key -> every repetition's value
        with open(os.path.join(out, "runs.csv")) as f:
            for r in csv.DictReader(f):
                self.reps[(r["bench"], r["impl"], int(r["npes"]), int(r["size"]),
                           r["metric"])].append(float(r["value"]))
        # The reference folder's provider round trip (best run), in us.
        self.ref_rt = None
        if reference:
            ref = results(reference).get(("pingpong", PROVIDER, 2, 8, "lat_us"))
            self.ref_rt = 2 * ref[1] if ref else None
            self.ref = reference
        with open(os.path.join(out, "loads.csv")) as f:
            self.loads = list(csv.DictReader(f))
        self.base = any(k[1].endswith("@base") for k in self.res)

    def get(self, bench, impl, npes, size, metric="lat_us"):
        return self.res.get((bench, impl, npes, size, metric))

    def caption(self, programs, impls=None, per_rep=1):
        """The load while these programs ran, the repetitions and the command."""
        ls = [float(r["load1"]) for r in self.loads if r["program"] in programs
              and (impls is None or r["impl"].split("@")[0] in impls)]
        reps = max((int(r["rep"]) for r in self.loads), default=0)
        load = f"load average {min(ls):.1f}-{max(ls):.1f}" if ls else "load not recorded"
        runs = f"{reps} interleaved repetitions" + \
            (f" of {per_rep} runs each" if per_rep > 1 else "")
        return (f"{load} on {os.cpu_count()} CPUs as these runs started; "
                f"{runs}, median and [min, max]\n{self.command}")


def finish(fig, run, programs, name, impls=None, per_rep=1):
    fig.text(0.01, 0.01, run.caption(programs, impls, per_rep), fontsize=7, va="bottom")
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(os.path.join(run.out, name), dpi=90)
    plt.close(fig)


def bars(ax, groups, series, points=None):
    """series: [(label, colour, [(median, min, max) or None per group])]; points, if
    given, holds each series' repetitions per group, drawn as dots on the bars."""
    width = 0.8 / max(1, len(series))
    for j, (label, colour, vals) in enumerate(series):
        xs = [i + j * width for i, v in enumerate(vals) if v]
        med = [v[0] for v in vals if v]
        err = [[v[0] - v[1] for v in vals if v], [v[2] - v[0] for v in vals if v]]
        ax.bar(xs, med, width, yerr=err, capsize=2, color=colour, label=label)
        for i, ys in enumerate(points[j] if points else []):
            ax.plot([i + j * width + width / 4] * len(ys), ys, "o", ms=3, mfc="white",
                    mec="black", mew=0.7, zorder=3)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(groups))])
    ax.set_xticklabels(groups, fontsize=8)


def scaled(v, factor):
    return None if v is None else tuple(x * factor for x in v[:3])


def latency_plot(run, rows):
    fi = run.get("pingpong", PROVIDER, 2, 8)
    impls = [OFI] + ([OFI + "@base"] if run.base else [])
    fig, ax = plt.subplots(figsize=(9, 4.8))
    series = []
    for impl, colour in zip(impls, ["C3", "C7"]):
        vals = [scaled(run.get(b, impl, 2, s), f) for _, b, s, f in RT_OPS]
        series.append((impl, colour, vals))
    points = [[[x * f for x in run.reps[(b, impl, 2, s, "lat_us")]] for _, b, s, f in RT_OPS]
              for impl in impls]
    bars(ax, [label for label, *_ in RT_OPS], series, points)
    if fi:
        rt = 2 * fi[1]
        ax.axhspan(2 * fi[1], 2 * fi[2], color="C2", alpha=0.12,
                   label=f"fi_pingpong round trips, all runs (median {2 * fi[0]:.1f} us)")
        ax.axhline(rt, color="C2", lw=1, label=f"fi_pingpong round trip, best run: {rt:.1f} us")
        ax.axhline(1.5 * rt, color="C2", lw=1, ls="--",
                   label=f"target: 1.5 x that = {1.5 * rt:.1f} us")
    if run.ref_rt:
        ax.axhline(run.ref_rt, color="C9", lw=1,
                   label=f"fi_pingpong round trip in {os.path.basename(run.ref.rstrip('/'))}: "
                   f"{run.ref_rt:.1f} us")
        ax.axhline(1.5 * run.ref_rt, color="C9", lw=1, ls="--",
                   label=f"target from it: {1.5 * run.ref_rt:.1f} us")
    rts = [x for x in (2 * fi[1] if fi else None, run.ref_rt) if x]
    if rts:
        # Log scale when the two limits lie far apart (a loaded run against a quiet one).
        if max(rts) > 5 * min(rts):
            ax.set_yscale("log")
        else:
            ax.set_ylim(0, max(ax.get_ylim()[1], 1.8 * max(rts)))
    ax.set_ylabel("us per operation (one round trip each)")
    ax.set_title("8 B operations over tcp;ofi_rxm, 2 PEs (one per node), vs the provider")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=7)
    finish(fig, run, {"rma_latency", "amo", "progress", ""}, "small_ops_latency.png",
           {OFI, "provider"})
    rts = [(2 * fi[1], "this run") if fi else None,
           (run.ref_rt, "reference") if run.ref_rt else None]
    rts = [x for x in rts if x]
    for label, b, s, f in RT_OPS:
        v = scaled(run.get(b, OFI, 2, s), f)
        lim = ("<= 1.5 x fi_pingpong RT: " + ", ".join(f"{1.5 * rt:.3g} ({where})"
                                                        for rt, where in rts)) \
            if rts else "fi_pingpong missing"
        if b.startswith("get_busy"):
            lim += wake_limit(run)
        strict = min((rt for rt, _ in rts), default=None)
        met = "–" if not (v and strict) else ("yes" if v[0] <= 1.5 * strict else "no")
        rows.append(("latency", f"{label.replace(chr(10), ' ')}, 8 B, tcp;ofi_rxm (us)", v,
                     scaled(run.get(b, OFI + "@base", 2, s), f), lim, met))


def wake_limit(run):
    """The kernel's own round trip of the same shape (bench/limits/tcp_wake.c): a
    TCP ping to a thread asleep beside a busy one, raised as Shoal's progress
    thread is where the run had the right, else at its PE's priority; and the floor
    under a get served that way: that round trip plus what the provider adds to a
    round trip of plain TCP sockets (fi_pingpong's less tcp_wake's spinning one)."""
    fi = run.get("pingpong", PROVIDER, 2, 8)
    spin = run.get("tcp_spin_rt", "machine", 2, 8)
    for bench, how in (("tcp_wake_raised_rt", "thread raised 10 levels"),
                       ("tcp_wake_rt", "thread at its PE's priority")):
        w = run.get(bench, "machine", 2, 8)
        if w:
            text = (f"; kernel's own wake-up round trip, {how}: "
                    f"{w[0]:.3g} [{w[1]:.3g}, {w[2]:.3g}]")
            if fi and spin:
                text += (f"; floor, that + the provider's own cost "
                         f"({2 * fi[0]:.3g} - {spin[0]:.3g}): "
                         f"{w[0] + 2 * fi[0] - spin[0]:.3g}")
            return text
    return ""


def cpu_plot(run, rows):
    probes = [("idle PE (asleep\nbetween calls)", "idle_cpu", True),
              ("computing PE:\nits other threads", "busy_bg_cpu", True),
              ("PE waiting in a\nbarrier (polls)", "wait_cpu", False)]
    impls = [OFI] + ([OFI + "@base"] if run.base else [])
    fig, ax = plt.subplots(figsize=(7, 4.5))
    series = [(impl, colour, [run.get(b, impl, 2, 0, "pct_core") for _, b, _ in probes])
              for impl, colour in zip(impls, ["C3", "C7"])]
    bars(ax, [p[0] for p in probes], series)
    ax.axhline(2, color="C2", ls="--", lw=1, label="target for an idle PE: 2 % of a core")
    ax.set_yscale("log")
    ax.set_ylabel("CPU time, % of one core (getrusage)")
    ax.set_title("What waiting and progress cost, bench/micro/progress, tcp;ofi_rxm")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=7)
    finish(fig, run, {"progress"}, "small_ops_cpu.png", {OFI})
    for label, b, target in probes:
        v = run.get(b, OFI, 2, 0, "pct_core")
        met = "–" if not v else ("yes" if v[0] < 2 else "no")
        rows.append(("CPU", f"{label.replace(chr(10), ' ')}, CPU (% of a core)", v,
                     run.get(b, OFI + "@base", 2, 0, "pct_core"),
                     "< 2 %" if target else "none (a PE that owns its core polls)",
                     met if target else "–"))


def coll_plot(run, rows):
    fig, ax = plt.subplots(figsize=(7, 4.5))
    impls = [(OFI, "-")] + ([(OFI + "@base", ":")] if run.base else [])
    for c, colour in zip(["barrier", "bcast", "reduce", "fcollect"], ["C0", "C1", "C3", "C4"]):
        size = 0 if c == "barrier" else 8
        for impl, style in impls:
            pts = [(n, run.get(c, impl, n, size)) for n in (2, 4, 8)]
            pts = [(n, v) for n, v in pts if v]
            if not pts:
                continue
            ax.errorbar([n for n, _ in pts], [v[0] for _, v in pts],
                        yerr=[[v[0] - v[1] for _, v in pts], [v[2] - v[0] for _, v in pts]],
                        fmt=style, marker="o", capsize=3, color=colour,
                        label=f"{c}{'' if c == 'barrier' else ' 8 B'} ({impl})")
    ax.axhline(1000, color="C2", ls="--", lw=1, label="target at 8 PEs: 1 ms")
    plot_ctx_cost.log_axes(ax, [2, 4, 8], "PEs (every PE its own node, 2 CPUs)")
    ax.set_ylabel("us per call (slowest PE's average)")
    ax.set_title("Collectives over tcp;ofi_rxm, bench/micro/coll_small")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    finish(fig, run, {"coll_small", ""}, "small_ops_coll_ofi.png", {OFI, "provider"})
    fi = run.get("pingpong", PROVIDER, 2, 8)
    for c in ["barrier", "bcast", "reduce"]:
        size = 0 if c == "barrier" else 8
        v = run.get(c, OFI, 8, size)
        met = "–" if not v else ("yes" if v[0] < 1000 else "no")
        lim = "< 1000 us" + (f" (fi_pingpong best RT {2 * fi[1]:.0f} us)" if fi else "")
        rows.append(("collectives",
                     f"{c}{'' if c == 'barrier' else ' 8 B'}, 8 PEs over ofi (us)", v,
                     run.get(c, OFI + "@base", 8, size), lim, met))


def ctx_plot(run, rows):
    path = os.path.join(run.out, "small_ops_ctx.csv")
    loads = {(r["rep"], r["impl"], r["args"]): r["load1"] for r in run.loads
             if r["program"] == "ctx_cost"}
    per = defaultdict(dict)  # (rep, impl, contexts) -> {bench: value}
    with open(os.path.join(run.out, "runs.csv")) as f:
        for r in csv.DictReader(f):
            if r["bench"].startswith("ctx_") and r["impl"] in (OFI, OFI + "@base"):
                per[(r["rep"], r["impl"], int(r["size"]))][r["bench"]] = r["value"]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["provider", "rep", "contexts", "build", "first_op_median_us",
                    "first_op_max_us", "extra_rss_mb", "extra_pss_mb", "load1"])
        for (rep, impl, n), v in sorted(per.items()):
            load = next((lv for (rp, im, a), lv in loads.items()
                         if rp == rep and im == impl and f"-i {n} " in a + " "), "0")
            w.writerow(["tcp;ofi_rxm", rep, n, "before" if impl.endswith("@base") else "after",
                        v.get("ctx_first_op_median"), v.get("ctx_first_op_max"),
                        v.get("ctx_extra_rss"), v.get("ctx_extra_pss"), load])
    if per:
        plot_ctx_cost.main(path, os.path.join(run.out, "small_ops_ctx.png"),
                           caption=run.caption({"ctx_cost"}, {OFI}),
                           labels={"before": "baseline build", "after": "this build"})
    for what, bench, metric, div, target, unit in [
            ("extra RSS per PE, 32 private contexts", "ctx_extra_rss", "MB", 1, 200, "MB"),
            ("first put + quiet on a new context, median of 32", "ctx_first_op_median",
             "lat_us", 1000, 10, "ms"),
            ("first put + quiet on a new context, slowest of 32", "ctx_first_op_max",
             "lat_us", 1000, 10, "ms")]:
        v = scaled(run.get(bench, OFI, 2, 32, metric), 1 / div)
        b = scaled(run.get(bench, OFI + "@base", 2, 32, metric), 1 / div)
        met = "–" if not v else ("yes" if v[0] < target else "no")
        rows.append(("contexts", f"{what}, tcp;ofi_rxm ({unit})", v, b, f"< {target} {unit}",
                     met))


def launched_plot(run, rows):
    impls = [(LAUNCHED, "C0")] + ([(LAUNCHED + "@base", "C7")] if run.base else []) + \
        [(OMPI, "C1")]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    series = [(impl, colour, [run.get(c, impl, 2, 0 if c == "barrier" else 8) for c in COLLS])
              for impl, colour in impls]
    points = [[run.reps[(c, impl, 2, 0 if c == "barrier" else 8, "lat_us")] for c in COLLS]
              for impl, _ in impls]
    bars(ax, [c if c == "barrier" else f"{c} 8 B" for c in COLLS], series, points)
    ax.set_yscale("log")
    ax.set_ylabel("us per call (slowest PE's average; dots: each run)")
    ax.set_title("`oshrun -n 2` as launched (no settings, no taskset)\n"
                 "Shoal (shoal-launched) against Open MPI's OSHMEM (oshmem-launched)",
                 fontsize=10)
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=7)
    reps = max((int(r["rep"]) for r in run.loads), default=1)
    per_rep = max(1, len(run.reps[("barrier", LAUNCHED, 2, 0, "lat_us")]) // max(1, reps))
    finish(fig, run, {"coll_small"}, "small_ops_launched.png", {LAUNCHED, OMPI}, per_rep)
    for c in COLLS:
        size = 0 if c == "barrier" else 8
        v, o = run.get(c, LAUNCHED, 2, size), run.get(c, OMPI, 2, size)
        met = "–" if not (v and o) else ("yes" if v[0] <= o[0] else "no")
        rows.append(("as launched",
                     f"`oshrun -n 2` {c}{'' if c == 'barrier' else ' 8 B'} (us)", v,
                     run.get(c, LAUNCHED + "@base", 2, size),
                     f"<= Open MPI {fmt(o)}", met))


def fmt(v):
    if not v:
        return "–"
    return f"{v[0]:.3g} [{v[1]:.3g}, {v[2]:.3g}]"


def main():
    args = sys.argv[1:]
    command, reference = "scripts/bench.sh --small-ops", None
    while args[:1] in (["--command"], ["--reference"]) and len(args) > 1:
        if args[0] == "--command":
            command = args[1]
        else:
            reference = args[1]
        args = args[2:]
    if len(args) != 1:
        sys.exit(__doc__)
    run = Run(args[0], command, reference)
    rows = []
    for draw in (latency_plot, cpu_plot, coll_plot, ctx_plot, launched_plot):
        draw(run, rows)
    head = ["group", "metric", "Shoal"] + (["baseline"] if run.base else []) + \
        ["limit or target", "met?"]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for group, metric, v, b, lim, met in rows:
        cells = [group, metric, fmt(v)] + ([fmt(b)] if run.base else []) + [lim, met]
        lines.append("| " + " | ".join(cells) + " |")
    ls = [float(r["load1"]) for r in run.loads]
    lines += ["", f"Medians [min, max] over the repetitions; load average "
              f"{min(ls, default=0):.1f}-{max(ls, default=0):.1f} on {os.cpu_count()} CPUs "
              f"as the runs started. Command: `{command}`."]
    with open(os.path.join(run.out, "small_ops.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
