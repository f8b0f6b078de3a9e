#!/usr/bin/env python3
"""Puts the layout advisor's predictions beside measurements (python3, no packages).

    python3 bench/advise/compare.py --predicted predicted.txt [--measured particles.txt]
                                    [--ncu ncu.csv --ncu-n 8388608]

predicted.txt: the output of examples/advise/particles_advice ("predict" lines).
particles.txt: the output of particles_gpu (its table; vs_soa = time / library SoA time).
ncu.csv:       ncu --csv --metrics l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}.sum,
               dram__bytes_{read,write}.sum on the library kernels (for_each_index_kernel),
               run with --n NCU_N (default 33554432); per launch, divided by NCU_N: per element.
               Names as ncu prints them, demangled (validation.kernel_args reads them).

Layouts: aos, soa, aosoa32 and split (particles::split_of<T>, the same in particles_advice and
particles_gpu).

Prints, per kernel and layout: the predicted and measured time ratio to SoA and the error; the
predicted and measured winner; the L1 sectors per element (ld, st) and DRAM bytes per element,
predicted and from ncu. Any input may be missing: its columns are left empty.
"""
import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from validation import (err, fmt, fmt_err, kernel_args, per_element,  # noqa: E402
                        print_winners, read_ncu, summary)

FUNCTORS = {"drift": "drift", "scale_mass": "one_field", "wide_drift": "wide_drift",
            "integrate": "most_fields"}
STRUCTS = {"Particle": "Particle(32B)", "WideParticle": "Wide(64B)"}


def read_predicted(path):
    rows = collections.OrderedDict()
    with open(path) as f:
        for line in f:
            t = line.split()
            if len(t) >= 11 and t[0] == "predict":
                rows[(t[1], t[2], t[3])] = {
                    "ratio": float(t[4]), "ld": float(t[5]), "st": float(t[6]),
                    "sector_bytes": float(t[7]), "dram_bytes": float(t[8]),
                    "lines": float(t[9]), "bound": t[10]}
    return rows


def read_measured(path):
    """particles_gpu's table: the header names the columns; library rows only (not raw-)."""
    rows = {}
    columns = None
    with open(path) as f:
        for line in f:
            t = line.split()
            if t[:3] == ["kernel", "element", "layout"] and "vs_soa" in t:
                columns = {name: k for k, name in enumerate(t)}
                continue
            if not columns or len(t) <= columns["vs_soa"] or t[2].startswith("raw-"):
                continue
            try:
                ratio = float(t[columns["vs_soa"]].rstrip("x"))
                us = float(t[columns["time_us"]])
            except ValueError:
                continue
            rows[(t[0], t[1], t[2])] = {"ratio": ratio, "us": us}
    return rows


def kernel_key(name):
    """(kernel, element, layout) of a library kernel of examples/particles, or None."""
    args = kernel_args(name)
    if not args or args[2] not in FUNCTORS or args[0] not in STRUCTS:
        return None
    return (FUNCTORS[args[2]], STRUCTS[args[0]], args[1])


def read_ncu_means(path, n):
    """Per (kernel, element, layout): each metric's mean over its launches, per element."""
    sums = collections.defaultdict(lambda: collections.defaultdict(float))
    count = collections.Counter()
    for name, metrics in read_ncu(path):
        key = kernel_key(name)
        if not key:
            continue
        count[key] += 1
        for metric, value in metrics.items():
            sums[key][metric] += value
    return {key: per_element({m: v / count[key] for m, v in metrics.items()}, n)
            for key, metrics in sums.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--predicted", required=True)
    ap.add_argument("--measured")
    ap.add_argument("--ncu")
    ap.add_argument("--ncu-n", type=float, default=33554432)
    a = ap.parse_args()

    pred = read_predicted(a.predicted)
    if not pred:
        sys.exit("compare.py: no 'predict' lines in " + a.predicted)
    meas, ncu = {}, {}
    for path, reader, what in ((a.measured, lambda p: read_measured(p), "measured"),
                               (a.ncu, lambda p: read_ncu_means(p, a.ncu_n), "ncu")):
        if not path:
            continue
        try:
            (meas if what == "measured" else ncu).update(reader(path))
        except OSError as e:
            print("compare.py: %s: %s (its columns stay empty)" % (what, e))

    print("time ratio to SoA (library kernels), predicted by layout::advise vs measured; "
          "L1 sectors and DRAM bytes per element, predicted vs ncu\n")
    print("%-12s %-14s %-8s | %7s %7s %7s %-8s | %6s %6s %6s | %6s %6s %6s | %7s %7s %7s"
          % ("kernel", "element", "layout", "pred", "meas", "error", "bound", "ld.pr", "ld.ncu",
             "error", "st.pr", "st.ncu", "error", "dram.pr", "dram.nc", "error"))
    ratio_errors, sector_errors, dram_errors = [], [], []
    by_kernel = collections.OrderedDict()
    for (kernel, element, layout), p in pred.items():
        m = meas.get((kernel, element, layout), {})
        n = ncu.get((kernel, element, layout), {})
        e_ratio = err(p["ratio"], m.get("ratio")) if layout != "soa" else None
        e_ld, e_st = err(p["ld"], n.get("ld")), err(p["st"], n.get("st"))
        e_dram = err(p["dram_bytes"], n.get("dram"))
        if e_ratio is not None:
            ratio_errors.append((abs(e_ratio), kernel, element, layout))
        for e in (e_ld, e_st):
            if e is not None:
                sector_errors.append((abs(e), kernel, element, layout))
        if e_dram is not None:
            dram_errors.append((abs(e_dram), kernel, element, layout))
        print("%-12s %-14s %-8s | %s %s %s %-8s | %s %s %s | %s %s %s | %s %s %s"
              % (kernel, element, layout, fmt(p["ratio"]), fmt(m.get("ratio")), fmt_err(e_ratio),
                 p["bound"], fmt(p["ld"], "{:.3f}", 6), fmt(n.get("ld"), "{:.3f}", 6),
                 fmt_err(e_ld, 6), fmt(p["st"], "{:.3f}", 6), fmt(n.get("st"), "{:.3f}", 6),
                 fmt_err(e_st, 6), fmt(p["dram_bytes"], "{:.1f}"), fmt(n.get("dram"), "{:.1f}"),
                 fmt_err(e_dram)))
        by_kernel.setdefault((kernel, element), {})[layout] = {
            "pred": p["ratio"], "meas": m.get("ratio")}

    agree, total = print_winners(by_kernel, 27)

    print()
    if total:
        print("winners: %d of %d kernels agree" % (agree, total))
    summary("time ratios (aos, aosoa, split vs soa)", ratio_errors, 0.25)
    summary("L1 sectors per element (ld, st)", sector_errors, 0.05)
    summary("DRAM bytes per element", dram_errors, 0.25)


if __name__ == "__main__":
    main()
