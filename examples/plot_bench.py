#!/usr/bin/env python3
"""Figures and tables from benchmark JSON lines.

    plot_bench.py OUTDIR FILE.jsonl [FILE.jsonl ...] [--roof DEVICE=GFLOPS,GBS ...]
    plot_bench.py --table FILE.jsonl [FILE.jsonl ...]

Reads two kinds of lines:
  * the recorded tables of docs/results/: speed.jsonl (a "solver" key:
    libpscr, vkfft-dst1 or cublas-fdm, with median_ms) and accuracy.jsonl
    (forward_error, fftw_dst1_forward_error);
  * pscr-bench --json FILE lines (solve_median_s, the FFTW and clFFT anchors,
    flops, bytes, kernel_s), and those of the cuFFT DST-I script
    (../shared/tools/cufft_dst_poisson.py --json, an "anchor" key).

Figures (PNG, needs matplotlib), per problem and dimension found in the files:
  time-<problem>-<dim>d.png      solve time against n per device and type, with the anchors
  speedup-<problem>-<dim>d.png   anchor time / libpscr time against n
  roofline.png                   attained GFlop/s against operational intensity
                                 (pscr-bench lines: the plan's cost model), with
                                 each device's bandwidth and peak (--roof, or the table below)
  kernels-<device>.png           per-kernel shares of the device time per case (pscr-bench lines)

--table prints the speed and accuracy tables of README.md and docs/benchmarks.md
as Markdown (no matplotlib needed). Where several lines give the same case,
the last one in the files is used.

    python3 examples/plot_bench.py docs/results/figures docs/results/speed.jsonl
    python3 examples/plot_bench.py --table docs/results/speed.jsonl docs/results/accuracy.jsonl
"""
import json
import os
import re
import sys

plt = None  # matplotlib.pyplot, imported by main() when figures are asked for

# Peak double-precision GFlop/s (no tensor cores) and memory bandwidth in GB/s
# from the vendors' data sheets, matched by a substring of the device name.
ROOFS = {"H100 80GB HBM3": (33500.0, 3350.0)}


def label(r):
    return f"{short(r['device'])} {r['type']}"


def short(device):
    return re.sub(r"\s+", " ", device.replace("pthread-", "PoCL ")).strip()[:28]


PRECISION_TYPE = {"double": "float64", "float": "float32"}
# Anchors of the recorded speed table (speed.jsonl "solver") and their names in figures.
TABLE_ANCHORS = {"vkfft-dst1": ("vkfft_s", "VkFFT DST-I"), "cublas-fdm": ("fdm_s", "cuBLAS FDM"),
                 "cupy-channel": ("channel_s", "cuFFT + Thomas")}
ANCHOR_STYLES = (("fftw_s", "FFTW DST-I (CPU)", "s--"), ("clfft_s", "clFFT DST-I", "^:"),
                 ("cufft_s", "cuFFT DST-I", "d-."), ("vkfft_s", "VkFFT DST-I", "v--"),
                 ("fdm_s", "cuBLAS FDM", "x:"))


def read_lines(paths):
    """Every JSON object of the files, in order."""
    out = []
    for path in paths:
        with open(path) as fh:
            out += [json.loads(line) for line in fh if line.strip()]
    return out


def table_case(r):
    """The problem name, dimension, precision and size of a speed.jsonl line."""
    problem = f"{r['problem']}-{r['mesh']}" if r.get("mesh") else r["problem"]
    return (problem, r["dim"], PRECISION_TYPE[r["precision"]], r["n"])


def load_table(lines):
    """speed.jsonl lines as rows of the figures: libpscr's with their anchors' times."""
    anchors = {}
    for r in lines:
        if r.get("solver") in TABLE_ANCHORS:
            anchors[(r["solver"],) + table_case(r)] = 1e-3 * r["median_ms"]
    rows = []
    for r in lines:
        if r.get("solver") != "libpscr":
            continue
        problem, dim, typ, n = table_case(r)
        row = dict(problem=problem, dim=dim, type=typ, n=n, device=r["device"], solve_median_s=1e-3 * r["median_ms"])
        for solver, (key, _) in TABLE_ANCHORS.items():
            a = anchors.get((solver, problem, dim, typ, n))
            if a:
                row[key] = a
        rows.append(row)
    return rows


def load(paths):
    cases = {}
    for path in paths:
        lines = read_lines([path])
        if any("solver" in r for r in lines):  # a recorded speed table
            for r in load_table(lines):
                cases[(r["device"], r["problem"], r["dim"], r["type"], r["n"])] = r
            continue
        rows, cufft = [], {}
        for r in lines:
            if "forward_error" in r and "solve_median_s" not in r:
                continue  # accuracy lines: tables only
            if r.get("anchor") == "cufft-dst1":
                cufft[(r["dim"], r["n"], PRECISION_TYPE[r["precision"]])] = 1e-3 * r["median_ms"]
                continue
            r.setdefault("device", r.get("backend", "?"))
            rows.append(r)
        for r in rows:
            a = cufft.get((r["dim"], r["n"], r["type"])) if r["problem"] == "poisson" else None
            if a:
                r["cufft_s"] = a
            cases[(r["device"], r["problem"], r["dim"], r["type"], r["n"])] = r
    return list(cases.values())


def finish(fig, ax, xlabel, ylabel, title, name):
    """Labels, grid and legend; writes the figure to `name` and closes it."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(name, dpi=120)
    plt.close(fig)
    return name


def figure_time_and_speedup(rows, outdir):
    written = []
    groups = sorted({(r["problem"], r["dim"]) for r in rows})
    for problem, dim in groups:
        sel = [r for r in rows if r["problem"] == problem and r["dim"] == dim]
        series = sorted({label(r) for r in sel})
        fig, ax = plt.subplots(figsize=(7, 4.5))
        fig2, ax2 = plt.subplots(figsize=(7, 4.5))
        any_speedup = False
        for s in series:
            pts = sorted((r for r in sel if label(r) == s), key=lambda r: r["n"])
            ns = [r["n"] for r in pts]
            ax.loglog(ns, [1e3 * r["solve_median_s"] for r in pts], "o-", label=f"libpscr {s}")
            for key, name, style in ANCHOR_STYLES:
                a = [(r["n"], r[key]) for r in pts if r.get(key, 0) > 0]
                if a:
                    ax.loglog([x for x, _ in a], [1e3 * t for _, t in a], style, label=f"{name}, {s}")
                    sp = [(r["n"], r[key] / r["solve_median_s"]) for r in pts if r.get(key, 0) > 0]
                    ax2.loglog([x for x, _ in sp], [v for _, v in sp], style, label=f"vs {name}, {s}")
                    any_speedup = True
        written.append(finish(fig, ax, "n (unknowns n^%d)" % dim, "solve time, median [ms]",
                              f"{problem} {dim}D: device-resident solve",
                              os.path.join(outdir, f"time-{problem}-{dim}d.png")))
        if any_speedup:
            ax2.axhline(1.0, color="k", lw=0.8)
            written.append(finish(fig2, ax2, "n", "anchor time / libpscr time",
                                  f"{problem} {dim}D: speed-up over the anchors",
                                  os.path.join(outdir, f"speedup-{problem}-{dim}d.png")))
        plt.close(fig2)
    return written


def figure_roofline(rows, outdir, roofs):
    rows = [r for r in rows if r.get("flops", 0) > 0 and r.get("bytes", 0) > 0]
    if not rows:
        return []
    fig, ax = plt.subplots(figsize=(7, 4.5))
    devices = sorted({r["device"] for r in rows})
    for dev in devices:
        pts = [r for r in rows if r["device"] == dev]
        xs = [r["flops"] / r["bytes"] for r in pts]
        ys = [1e-9 * r["flops"] / r["solve_median_s"] for r in pts]
        line = ax.loglog(xs, ys, "o", label=short(dev))[0]
        for r, x, y in zip(pts, xs, ys):
            if r["n"] >= 1000 or r["dim"] == 3:
                ax.annotate(f"{r['dim']}D {r['n']} {r['type']}", (x, y), fontsize=5)
        roof = next((v for k, v in roofs.items() if k in dev), None)
        if roof:
            peak, bw = roof
            ax.loglog([0.05, peak / bw, 100], [bw * 0.05, peak, peak], "-", color=line.get_color(), lw=1.2,
                      label=f"{short(dev)}: {bw:.0f} GB/s, {peak:.0f} GFlop/s")
    return [finish(fig, ax, "operational intensity [flop/byte] (cost model)", "attained [GFlop/s]",
                   "Roofline: libpscr solves", os.path.join(outdir, "roofline.png"))]


def figure_kernels(rows, outdir):
    written = []
    for dev in sorted({r["device"] for r in rows}):
        pts = sorted((r for r in rows if r["device"] == dev and r.get("kernel_s")),
                     key=lambda r: (r["problem"], r["dim"], r["type"], r["n"]))
        if not pts:
            continue
        kernels = sorted({k for r in pts for k in r["kernel_s"]})
        fig, ax = plt.subplots(figsize=(max(6, 0.6 * len(pts) + 2), 4.5))
        bottom = [0.0] * len(pts)
        for k in kernels:
            share = [100 * r["kernel_s"].get(k, 0) / max(sum(r["kernel_s"].values()), 1e-30) for r in pts]
            ax.bar(range(len(pts)), share, bottom=bottom, label=k)
            bottom = [b + s for b, s in zip(bottom, share)]
        ax.set_xticks(range(len(pts)))
        ax.set_xticklabels([f"{r['problem'][:4]} {r['dim']}D {r['n']}\n{r['type']}" for r in pts], fontsize=6, rotation=60)
        ax.set_ylabel("share of device time [%]")
        ax.set_title(f"Per-kernel shares: {short(dev)}")
        ax.legend(fontsize=6, bbox_to_anchor=(1.01, 1), loc="upper left")
        safe = re.sub(r"[^A-Za-z0-9]+", "-", short(dev)).strip("-").lower()
        name = os.path.join(outdir, f"kernels-{safe}.png")
        fig.tight_layout()
        fig.savefig(name, dpi=120)
        plt.close(fig)
        written.append(name)
    return written


def ms(t):
    """Milliseconds with three significant digits, as the tables print them."""
    return f"{t:#.3g} ms" if t >= 1 else f"{t:.3f} ms"


def case_name(r):
    if r["problem"] == "channel":  # n periodic points in x (and z), n - 1 graded ones between the walls
        size = f"{r['n']}×{r['n'] - 1}" if r["dim"] == 2 else f"{r['n']}²×{r['n'] - 1}"
        prec = "" if r["precision"] == "double" else f" {r['precision']}"
        return f"{r['dim']}D {size} channel{prec}"
    size = f"{r['n']}{'²' if r['dim'] == 2 else '³'}"
    prec = "" if r["precision"] == "double" else f" {r['precision']}"
    return f"{r['dim']}D {size} {r['mesh']}{prec}" if r.get("mesh") else f"{r['dim']}D {size}{prec}"


def print_tables(paths):
    """The speed table (libpscr beside its anchor) and the accuracy table, as Markdown."""
    lines = read_lines(paths)
    speed = [r for r in lines if r.get("solver") == "libpscr"]
    anchors = {(r["solver"],) + table_case(r): r for r in lines if r.get("solver") in TABLE_ANCHORS}
    if speed:
        revs = sorted({r.get("rev", "?") for r in speed})
        print(f"Speed ({speed[0]['device']}, median ms, revision {', '.join(revs)}):\n")
        print("| case | libpscr | method | anchor | anchor time | libpscr / anchor |")
        print("|---|---|---|---|---|---|")
        for r in speed:
            for solver, (_, name) in TABLE_ANCHORS.items():
                a = anchors.get((solver,) + table_case(r))
                if a:
                    print(f"| {case_name(r)} | {ms(r['median_ms'])} | {r.get('method', '')} | {name} | "
                          f"{ms(a['median_ms'])} | {r['median_ms'] / a['median_ms']:.2f} |")
        print()
    acc = {}
    for r in lines:
        if "forward_error" in r and "solver" not in r:
            acc.setdefault((r["mesh"], r["dim"], r["n"]), {})[r["precision"]] = r
    if acc:
        print("Accuracy (relative forward error; / FFT: against FFTW's DST-I solver of the same precision):\n")
        print("| case | float | / FFT | double | / FFT |")
        print("|---|---|---|---|---|")
        for (mesh, dim, n), by in acc.items():
            cells = []
            for p in ("float", "double"):
                r = by.get(p)
                e = r["forward_error"] if r else None
                fe = r.get("fftw_dst1_forward_error") if r else None
                cells += [f"{e:.2e}" if e is not None else "", f"{e / fe:.1f}" if e and fe else ""]
            print(f"| {mesh} {dim}D {n}{'²' if dim == 2 else '³'} | " + " | ".join(cells) + " |")
        print()


def main(argv):
    global plt
    if argv and argv[0] == "--table":
        if len(argv) < 2:
            sys.exit(__doc__)
        print_tables(argv[1:])
        return
    roofs = dict(ROOFS)
    args = []
    i = 0
    while i < len(argv):
        if argv[i] == "--roof":
            dev, _, vals = argv[i + 1].partition("=")
            peak, bw = (float(v) for v in vals.split(","))
            roofs[dev] = (peak, bw)
            i += 2
        else:
            args.append(argv[i])
            i += 1
    if len(args) < 2:
        sys.exit(__doc__)
    outdir, paths = args[0], args[1:]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot
        plt = matplotlib.pyplot
    except ImportError:
        sys.exit("plot_bench.py: the figures need matplotlib (apt-get install python3-matplotlib, or pip install "
                 "matplotlib); --table prints the tables without it")
    os.makedirs(outdir, exist_ok=True)
    rows = load(paths)
    if not rows:
        sys.exit("plot_bench.py: no cases in " + ", ".join(paths))
    written = figure_time_and_speedup(rows, outdir) + figure_roofline(rows, outdir, roofs) + figure_kernels(rows, outdir)
    for w in written:
        print(w)


if __name__ == "__main__":
    main(sys.argv[1:])
