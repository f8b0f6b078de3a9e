#!/usr/bin/env python3
"""Bar chart of useful GB/s per kernel and layout from Google Benchmark JSON files.

    python3 bench/plot.py out/drift_gpu.json out/one_field_gpu.json ... -o bench.png

Benchmarks are named <kernel>/<variant> (variant: raw_aos raw_soa raw_aosoa32 aos soa aosoa32);
their bytes_per_second (SetBytesProcessed: useful bytes) becomes GB/s. A copy benchmark
(copy_float4/...) is drawn as the horizontal bound. Also prints the numbers as a table.
Needs matplotlib (on the GPU machine).
"""
import argparse
import json
import sys

VARIANTS = ["raw_aos", "raw_soa", "raw_aosoa32", "aos", "soa", "aosoa32"]
COLORS = {"raw_aos": "#f4a582", "raw_soa": "#92c5de", "raw_aosoa32": "#b8e186",
          "aos": "#ca0020", "soa": "#0571b0", "aosoa32": "#4dac26"}


def load(paths):
    results, copy, context = {}, None, None
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        context = context or data.get("context", {})
        for b in data.get("benchmarks", []):
            if b.get("run_type") == "aggregate" or b.get("error_occurred"):
                continue
            name = b.get("run_name", b["name"])
            for suffix in ("/manual_time", "/real_time"):
                name = name[: -len(suffix)] if name.endswith(suffix) else name
            gbps = b.get("bytes_per_second", 0) / 1e9
            kernel, _, variant = name.partition("/")
            if kernel.startswith("copy"):
                copy = gbps
            elif variant in VARIANTS:
                results.setdefault(kernel, {})[variant] = gbps
    return results, copy, context


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", nargs="+")
    ap.add_argument("-o", "--output", default="bench.png")
    ap.add_argument("--title", default="layout: useful GB/s per kernel and layout")
    args = ap.parse_args()

    results, copy, context = load(args.json)
    if not results:
        print("plot.py: no <kernel>/<variant> benchmarks in", args.json, file=sys.stderr)
        return 1
    kernels = list(results)

    print("%-16s" % "GB/s" + "".join("%13s" % v for v in VARIANTS))
    for k in kernels:
        print("%-16s" % k + "".join("%13s" % ("%.1f" % results[k][v] if v in results[k] else "-") for v in VARIANTS))
    if copy:
        print("copy bound: %.1f GB/s" % copy)

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    width = 0.13
    fig, ax = plt.subplots(figsize=(max(8, 2.2 * len(kernels)), 5))
    for j, v in enumerate(VARIANTS):
        xs = [i + (j - 2.5) * width for i in range(len(kernels))]
        ys = [results[k].get(v, 0) for k in kernels]
        bars = ax.bar(xs, ys, width, label=v.replace("_", "-"), color=COLORS[v],
                      hatch="//" if v.startswith("raw") else None, edgecolor="black", linewidth=0.3)
        for bar, y in zip(bars, ys):
            if y:
                ax.text(bar.get_x() + bar.get_width() / 2, y, "%.0f" % y, ha="center", va="bottom", fontsize=6,
                        rotation=90)
    top = max([copy or 0] + [y for r in results.values() for y in r.values()])
    ax.set_ylim(0, 1.15 * top)
    if copy:
        ax.axhline(copy, color="black", linestyle="--", linewidth=1)
        ax.text(-0.5, copy * 1.01, " float4 copy %.0f GB/s" % copy, va="bottom", ha="left", fontsize=8)
    ax.set_xticks(range(len(kernels)))
    ax.set_xticklabels(kernels)
    ax.set_ylabel("useful GB/s (each touched field read once / written once)")
    ax.set_title(args.title + (" " + context["date"][:10] if context.get("date") else ""))
    ax.legend(ncol=6, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.08))
    fig.tight_layout()
    fig.savefig(args.output, dpi=130)
    print("wrote", args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
