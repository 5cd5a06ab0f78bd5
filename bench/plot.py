#!/usr/bin/env python3
"""Turns the RESULT lines of a benchmark run (results.csv) into results.json, a
summary.md table of the key figures and PNG plots. Usage: plot.py [--extensions] results.csv OUTDIR

A bench measured more than once (scripts/bench.sh --extensions repeats rounds) is
plotted at its median. --extensions draws the shmemx_ figures (seed 001, Figs. 14-18)
per configuration, and summary.md gives each extension's ratio to its alternative."""
import csv
import json
import os
import statistics
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (backend first)

STYLE = {"shoal": "C0", "oshmem": "C1", "machine": "C2", "shoal-ofi": "C3", "shoal-mpi": "C4"}


def impl_order(impl):
    """Shoal first, each --baseline twin (IMPL@base) right after its IMPL."""
    name, _, base = impl.partition("@")
    return (name != "shoal", name, base)


def load(path):
    """{(bench, impl, npes, metric): {size: median value}}"""
    runs = defaultdict(lambda: defaultdict(list))
    with open(path) as f:
        for row in csv.DictReader(f):
            key = (row["bench"], row["impl"], int(row["npes"]), row["metric"])
            runs[key][int(row["size"])].append(float(row["value"]))
    return {k: {s: statistics.median(v) for s, v in d.items()} for k, d in runs.items()}


def series(data, bench, metric, npes=None):
    """[(impl, npes, {size: value})] for one bench and metric, in a stable order."""
    out = [(i, n, v) for (b, i, n, m), v in data.items()
           if b == bench and m == metric and (npes is None or n == npes or i == "machine")]
    return sorted(out, key=lambda s: (s[0] != "shoal", s[0], s[1]))


def finish_size_plot(fig, ax, ylabel, title, path, legend_size=8):
    """Log-log axes over message size, labels, legend, saved and closed."""
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=legend_size)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def size_plot(data, benches, metric, ylabel, title, path, npes, extra=()):
    fig, ax = plt.subplots(figsize=(7, 4.5))
    drawn = False
    for bench, style in list(zip(benches, ["-", "--", ":", "-."])) + list(extra):
        for impl, _, vals in series(data, bench, metric, npes):
            sizes = sorted(vals)
            ax.plot(sizes, [vals[s] for s in sizes], style, marker=".",
                    color=STYLE.get(impl), label=f"{bench} ({impl})")
            drawn = True
    if not drawn:
        plt.close(fig)
        return
    finish_size_plot(fig, ax, ylabel, f"{title}, {npes} PEs", path)


def bar_plot(data, prefix, metric, ylabel, title, path, npes):
    benches = sorted({b for (b, _, n, m) in data if b.startswith(prefix) and m == metric
                      and n == npes})
    impls = sorted({i for (b, i, n, m) in data if b in benches and m == metric and n == npes},
                   key=impl_order)
    if not benches:
        return
    fig, ax = plt.subplots(figsize=(max(7, 0.6 * len(benches) * len(impls)), 4.5))
    width = 0.8 / len(impls)
    for k, impl in enumerate(impls):
        vals = [next(iter(data.get((b, impl, npes, metric), {0: 0}).values())) for b in benches]
        ax.bar([x + k * width for x in range(len(benches))], vals, width,
               color=STYLE.get(impl), label=impl)
    ax.set_xticks([x + width * (len(impls) - 1) / 2 for x in range(len(benches))])
    ax.set_xticklabels([b[len(prefix):] for b in benches], rotation=45, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(f"{title}, {npes} PEs")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def coll_plots(data, out, npes_list):
    colls = ["barrier", "bcast", "reduce", "fcollect", "alltoall"]
    fig, axes = plt.subplots(1, len(colls) - 1, figsize=(16, 4))
    for ax, coll in zip(axes, colls[1:]):
        for impl, n, vals in series(data, coll, "lat_us"):
            sizes = sorted(vals)
            ax.plot(sizes, [vals[s] for s in sizes], marker=".", color=STYLE.get(impl),
                    linestyle="-" if n == max(npes_list) else "--", label=f"{impl} {n} PEs")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(coll)
        ax.set_xlabel("bytes per PE")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("latency (us)")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "collectives.png"), dpi=110)
    plt.close(fig)
    # Scaling: the smallest size of each collective against the PE count.
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for coll, style in zip(colls, ["-", "--", ":", "-.", (0, (1, 1))]):
        by_impl = defaultdict(dict)
        for impl, n, vals in series(data, coll, "lat_us"):
            by_impl[impl][n] = vals[min(vals)]
        for impl, pts in by_impl.items():
            ns = sorted(pts)
            ax.plot(ns, [pts[n] for n in ns], linestyle=style, marker="o",
                    color=STYLE.get(impl), label=f"{coll} ({impl})")
    ax.set_xlabel("PEs")
    ax.set_ylabel("latency of the smallest size (us)")
    ax.set_title("collective scaling")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "collective_scaling.png"), dpi=110)
    plt.close(fig)


def small_coll_ranges(path, out):
    """coll_small_ranges.png: each collective's smallest size per implementation and PE
    count, as the median with its [min, max] over the repetitions (results.csv from
    scripts/bench.sh has min and max columns; nothing is drawn without them)."""
    colls = ["barrier", "bcast", "reduce", "collect", "fcollect", "alltoall"]
    pts = defaultdict(dict)   # (impl, npes) -> {coll: (median, min, max)}
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if not rows or "min" not in rows[0]:
        return
    smallest = {}
    for r in rows:
        if r["bench"] in colls and r["metric"] == "lat_us":
            k = (r["bench"], r["impl"], r["npes"])
            if k not in smallest or int(r["size"]) < int(smallest[k]["size"]):
                smallest[k] = r
    for (coll, impl, npes), r in smallest.items():
        pts[(impl, int(npes))][coll] = (float(r["value"]), float(r["min"]), float(r["max"]))
    if not pts:
        return
    groups = sorted(pts, key=lambda g: (g[1], g[0]))
    present = [c for c in colls if any(c in pts[g] for g in groups)]
    fig, ax = plt.subplots(figsize=(9, 4.5))
    width = 0.8 / len(groups)
    for gi, g in enumerate(groups):
        xs, med, lo, hi = [], [], [], []
        for ci, c in enumerate(present):
            if c in pts[g]:
                m, a, b = pts[g][c]
                xs.append(ci + gi * width)
                med.append(m)
                lo.append(m - a)
                hi.append(b - m)
        ax.bar(xs, med, width, yerr=[lo, hi], capsize=2, label=f"{g[0]}, {g[1]} PEs")
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(present))])
    ax.set_xticklabels(present)
    ax.set_yscale("log")
    ax.set_ylabel("latency of the smallest size (us): median, [min, max]")
    ax.set_title("small collectives over the repetitions")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "coll_small_ranges.png"), dpi=110)
    plt.close(fig)


def dev_plots(data, out):
    """GPU-aware put (bench/micro/dev_put.c): latency and bandwidth per source/destination
    pairing, one line style per implementation (e.g. shoal-cuda, shoal-emu)."""
    pairs = ["HH", "HD", "DH", "DD"]
    impls = sorted({i for (b, i, _, _) in data if b.startswith("dev_put_")})
    for kind, metric, ylabel, name in [("lat", "latency_us", "put + quiet latency (us)",
                                        "gpu_put_latency.png"),
                                       ("bw", "bandwidth_MBps", "put_nbi bandwidth (MB/s)",
                                        "gpu_put_bandwidth.png")]:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        drawn = False
        for impl, style in zip(impls, ["-", "--", ":", "-."]):
            for k, pair in enumerate(pairs):
                for (b, i, n, m), vals in data.items():
                    if b == f"dev_put_{kind}_{pair}" and i == impl and m == metric:
                        sizes = sorted(vals)
                        ax.plot(sizes, [vals[x] for x in sizes], style, marker=".",
                                color=f"C{k}", label=f"{pair[0]}-{pair[1]} ({impl}, {n} PEs)")
                        drawn = True
        if not drawn:
            plt.close(fig)
            continue
        finish_size_plot(fig, ax, ylabel, "GPU-aware put by source-destination memory",
                         os.path.join(out, name), legend_size=7)


def value(data, bench, impl, npes, metric, size):
    return data.get((bench, impl, npes, metric), {}).get(size)


def summary(data, npes, impls):
    """Markdown table of the headline figures, with the machine's limit beside them."""
    rows = [
        ("8 B put latency (us)", "put_lat", "lat_us", 8, None),
        ("8 B get latency (us)", "get_lat", "lat_us", 8, None),
        ("8 B ping-pong, half round trip (us)", "pingpong", "lat_us", 8, "shm_pingpong"),
        ("1 MiB put bandwidth (MB/s)", "put_bw", "bw_MBps", 1 << 20, "memcpy_bw"),
        ("1 MiB get bandwidth (MB/s)", "get_bw", "bw_MBps", 1 << 20, "memcpy_bw"),
        ("8 B put_nbi rate (Mops/s)", "put_nbi_rate", "rate_Mops", 8, None),
        ("shmem_p rate (Mops/s)", "p_rate", "rate_Mops", 8, None),
        ("fetch-add latency (us)", "amo_fetch_add", "lat_us", 8, "atomic_rtt"),
        ("add rate (Mops/s)", "amo_add", "rate_Mops", 8, None),
        ("barrier (us)", "barrier", "lat_us", 0, None),
        ("8 B broadcast (us)", "bcast", "lat_us", 8, None),
        ("8 B reduce (us)", "reduce", "lat_us", 8, None),
        ("HRA put (MUPS)", "hra_put", "rate_Mups", 8, None),
        ("HRA amo_add (MUPS)", "hra_amo_add", "rate_Mups", 8, None),
        ("heat 512x512 (MLUPS)", "heat", "rate_MLUPS", 512, None),
        ("bucket sort UB (GiB/s/PE)", "bucket_sort", "ub_GiBps", 1 << 20, None),
    ]
    head = "| metric | " + " | ".join(impls) + " | machine limit |"
    lines = [f"### {npes} PEs", "", head, "|" + " --- |" * (len(impls) + 2)]
    fmt = lambda v: "–" if v is None else f"{v:.3g}"  # noqa: E731
    for label, bench, metric, size, limit in rows:
        cells = [fmt(value(data, bench, i, npes, metric, size)) for i in impls]
        lim = None
        if limit:
            metric_l = "bw_MBps" if limit == "memcpy_bw" else "lat_us"
            lim = value(data, limit, "machine", 2, metric_l, size if limit == "memcpy_bw" else 8)
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {fmt(lim)} |")
    return "\n".join(lines) + "\n"


EXT_FIGS = [
    # (file, title, metric, ylabel, [(bench, linestyle)])
    ("ext_fig14_local_completion", "Fig. 14 shape: put completion", "bw_MBps", "bandwidth (MB/s)",
     [("lc_put", "-"), ("lc_nbi_quiet", "--"), ("lc_nbi_local", "-."), ("lc_nbi_none", ":")]),
    ("ext_fig16_bundling", "Fig. 16 shape: put_nbi message rate", "rate_Mops", "rate (Mops/s)",
     [("mr_put_nbi", "-"), ("mr_put_nbi_session", "--"), ("mr_put_nbi_scattered", "-."),
      ("mr_put_nbi_scattered_session", ":")]),
    ("ext_fig11_pws", "Figs. 10/11/17 shape: put-with-signal rate", "rate_Mops", "rate (Mops/s)",
     [("pws_nbi", "-"), ("pws_nbi_session", "--"), ("pws_transform_by_hand", "-."),
      ("pws_put_fence_set", ":"), ("pws_triggered", (0, (3, 1, 1, 1, 1, 1)))]),
]

# (extension, its standard alternative, size) for the summary's ratio table.
EXT_RATIOS = [
    ("mr_put_nbi_session", "mr_put_nbi", 8), ("mr_put_nbi_session", "mr_put_nbi", 512),
    ("mr_put_nbi_scattered_session", "mr_put_nbi_scattered", 8),
    ("pws_nbi_session", "pws_nbi", 8), ("pws_nbi_session", "pws_nbi", 512),
    ("pws_transform_by_hand", "pws_put_fence_set", 8), ("pws_triggered", "pws_nbi", 8),
    ("amo_add_single_transmit", "amo_add", 8), ("amo_fetch_add_single_transmit", "amo_fetch_add", 8),
    ("signal_set", "amo_set", 8),
    ("lc_nbi_local", "lc_nbi_quiet", 8), ("lc_nbi_local", "lc_nbi_quiet", 65536),
    ("lc_nbi_local", "lc_nbi_none", 65536),
]


def ext_main(data, out):
    impls = sorted({i for (_, i, _, _) in data})
    text = ["# Extensions against their standard alternatives (medians)", "",
            "Ratio > 1: the extension is faster.", "",
            "| extension / alternative | size | " + " | ".join(impls) + " |",
            "| --- | --- |" + " --- |" * len(impls)]
    for ext, alt, size in EXT_RATIOS:
        cells = []
        for impl in impls:
            metric = "bw_MBps" if ext.startswith("lc_") else "rate_Mops"
            a = value(data, ext, impl, 2, metric, size)
            b = value(data, alt, impl, 2, metric, size)
            cells.append("–" if not a or not b else f"{a / b:.2f}")
        text.append(f"| {ext} / {alt} | {size} | " + " | ".join(cells) + " |")
    for impl in impls:
        for name, title, metric, ylabel, benches in EXT_FIGS:
            fig, ax = plt.subplots(figsize=(7, 4.5))
            drawn = False
            for bench, style in benches:
                vals = data.get((bench, impl, 2, metric))
                if vals:
                    sizes = sorted(vals)
                    ax.plot(sizes, [vals[s] for s in sizes], style, marker=".", label=bench)
                    drawn = True
            if not drawn:
                plt.close(fig)
                continue
            finish_size_plot(fig, ax, ylabel, f"{title} ({impl}, 2 PEs)",
                             os.path.join(out, f"{name}_{impl}.png"))
    # Fig. 18 and HRA: one bar group per configuration.
    for prefix, metric, ylabel, name in [("amo_", "rate_Mops", "rate (Mops/s)", "ext_fig18_amo"),
                                         ("signal_set", "rate_Mops", "rate (Mops/s)", None),
                                         ("hra_", "rate_Mups", "updates (M/s, all PEs)", "ext_hra")]:
        if name is None:
            continue
        benches = sorted({b for (b, _, _, m) in data if m == metric and
                          (b.startswith(prefix) or (prefix == "amo_" and b == "signal_set"))})
        if not benches:
            continue
        fig, ax = plt.subplots(figsize=(max(7, len(benches) * 0.9), 4.5))
        width = 0.8 / max(1, len(impls))
        for j, impl in enumerate(impls):
            ys = [next(iter(data.get((b, impl, 2, metric), {0: 0}).values())) for b in benches]
            ax.bar([i + j * width for i in range(len(benches))], ys, width, label=impl)
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(benches))])
        ax.set_xticklabels(benches, rotation=35, ha="right", fontsize=7)
        ax.set_yscale("log")
        ax.set_ylabel(ylabel)
        ax.set_title(f"{'Fig. 18 shape: AMO rate' if prefix == 'amo_' else 'HRA'} (2 PEs)")
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(out, f"{name}.png"), dpi=110)
        plt.close(fig)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(text) + "\n")
    print("\n".join(text))


def main():
    args = sys.argv[1:]
    ext = bool(args) and args[0] == "--extensions"
    if ext:
        args = args[1:]
    if len(args) != 2:
        sys.exit(__doc__)
    data = load(args[0])
    out = args[1]
    if ext:
        os.makedirs(out, exist_ok=True)
        ext_main(data, out)
        return
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump([{"bench": b, "impl": i, "npes": n, "metric": m, "size": s, "value": v}
                   for (b, i, n, m), vals in sorted(data.items()) for s, v in sorted(vals.items())],
                  f, indent=1)
    npes_list = sorted({n for (_, i, n, _) in data if i != "machine"})
    impls = sorted({i for (_, i, _, _) in data if i != "machine"}, key=impl_order)
    text = ["# Benchmark summary", ""]
    for n in npes_list:
        p = lambda name: os.path.join(out, f"{name}_np{n}.png")  # noqa: E731
        size_plot(data, ["put_lat", "get_lat"], "lat_us", "latency (us)", "put/get latency",
                  p("latency"), n)
        size_plot(data, ["put_bw", "get_bw"], "bw_MBps", "bandwidth (MB/s)", "put/get bandwidth",
                  p("bandwidth"), n, extra=[("memcpy_bw", ":")])
        size_plot(data, ["put_signal_lat", "put_fence_set_lat"], "lat_us", "latency (us)",
                  "put-with-signal vs put+fence+set, ping-pong", p("signal_latency"), n)
        size_plot(data, ["put_signal_bw", "put_fence_set_bw"], "bw_MBps", "bandwidth (MB/s)",
                  "put-with-signal vs put+fence+set", p("signal_bandwidth"), n)
        bar_plot(data, "amo_", "lat_us", "latency (us)", "AMO latency", p("amo_latency"), n)
        bar_plot(data, "amo_", "rate_Mops", "rate (Mops/s)", "AMO rate", p("amo_rate"), n)
        bar_plot(data, "hra_", "rate_Mups", "updates (M/s, all PEs)", "HRA random access",
                 p("hra"), n)
        text.append(summary(data, n, impls))
    coll_plots(data, out, npes_list)
    small_coll_ranges(sys.argv[1], out)


    dev_plots(data, out)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(text))
    print("\n".join(text))


if __name__ == "__main__":
    main()
