#!/usr/bin/env python3
"""Puts the layout advisor's predictions for the MD and gather/scatter kernels beside an H100's
measurements (python3, no packages): the output folder of bench/advise/validate_md_on_gpu.sh.

    python3 bench/advise/compare_md.py --dir OUT

Reads from OUT (any may be missing: its columns stay empty):
  predicted_md.txt, predicted_gather.txt   md_advice and gather_advice ("predict" lines)
  md_<layout>_<atoms>.txt                  md_gpu --compare-raw: "library <layout> <ms> ms"
  ncu_md_<layout>.csv                      ncu on md_gpu (2,048,000 atoms): the last launches of
                                           lj_full<..., false>, initial_integrate, final_integrate
  {gather,scatter}_gpu.json                Google Benchmark: <op>/Particle/<layout>/<order>
  ncu_{gather,scatter}_<layout>.csv        ncu on the library's random gather / scatter

Layouts: aos, soa, aosoa32, and split (md::split_layout: positions AoS, the rest SoA; md_gpu
--layout split). Times: the force kernel from md_gpu (median), the integration kernels from ncu's
gpu__time_duration (one launch, caches flushed), gather/scatter from Google Benchmark. Ratios are
to SoA; layouts within 5% of the fastest tie. Sectors per element: predicted (view + the list or
index loads outside it) against ncu's l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}.sum / n.
"""
import argparse
import collections
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from validation import (err, fmt, fmt_err, kernel_args, per_element,  # noqa: E402
                        print_winners, read_ncu, summary)

LAYOUTS = ("aos", "soa", "aosoa32", "split")
MD_ATOMS = 2048000
PARTICLES = 33554432


def read_predicted(paths):
    rows = collections.OrderedDict()
    for path in paths:
        try:
            f = open(path)
        except OSError:
            continue
        with f:
            for line in f:
                t = line.split()
                if len(t) >= 13 and t[0] == "predict":
                    rows[(t[1], t[2], t[3])] = {
                        "ratio": float(t[4]), "ld": float(t[5]), "st": float(t[6]),
                        "dram": float(t[8]), "bound": t[10], "other_ld": float(t[11]),
                        "us": float(t[12])}
    return rows


def md_kernel(name):
    """(kernel, layout) of an MD kernel ncu captured, or None: md_initial, md_final, and md_force
    for lj_full<Real, false> (the compare-raw launch md_gpu times; <..., true> is a thermo step's)."""
    args = kernel_args(name)
    if not args:
        return None
    functor, targs = args[2], args[3]
    kernel = ("md_initial" if functor == "initial_integrate" else
              "md_final" if functor == "final_integrate" else
              "md_force" if functor == "lj_full" and targs[1:2] in (["false"], ["0"], ["(bool)0"])
              else None)
    return (kernel, args[1]) if kernel else None


def read_measured(out):
    meas = {}  # (kernel, element, layout) -> {"us", "ld", "st", "dram"}
    def put(key, **kw):
        meas.setdefault(key, {}).update({k: v for k, v in kw.items() if v is not None})
    for path in glob.glob(os.path.join(out, "md_*_*.txt")):
        text = open(path, errors="replace").read()
        atoms = re.search(r"Force kernel, (\d+) atoms", text)
        lib = re.search(r"library (\S+)\s+([\d.]+) ms", text)
        raw_soa = re.search(r"raw SoA\s+([\d.]+) ms", text)
        if atoms and lib:
            put(("md_force", "atom(80B)-" + atoms.group(1), lib.group(1)),
                us=float(lib.group(2)) * 1e3,
                raw_soa_us=float(raw_soa.group(1)) * 1e3 if raw_soa else None)
    for path in glob.glob(os.path.join(out, "ncu_md_*.csv")):
        # ncu profiles the last launches of the run (validate_md_on_gpu.sh): of each kernel, the
        # last one is step 100's (the force kernel: compare-raw's, after the run).
        last = {}
        for name, metrics in read_ncu(path):
            key = md_kernel(name)
            if key:
                last[key] = metrics
        for (kernel, layout), metrics in last.items():
            s = per_element(metrics, MD_ATOMS)
            key = (kernel, "atom(80B)-%d" % MD_ATOMS, layout)
            # the force kernel's time is md_gpu's median; the integration kernels' is ncu's
            put(key, ld=s["ld"], st=s["st"], dram=s["dram"], ncu_us=s["us"])
            if kernel != "md_force":
                put(key, us=s["us"])
    for op in ("gather", "scatter"):
        try:
            bench = json.load(open(os.path.join(out, op + "_gpu.json")))["benchmarks"]
        except (OSError, ValueError, KeyError):
            bench = []
        for b in bench:
            t = b.get("name", "").split("/")
            if len(t) >= 4 and t[1] == "Particle" and t[2] in LAYOUTS:
                scale = {"ns": 1e-3, "us": 1, "ms": 1e3, "s": 1e6}[b.get("time_unit", "us")]
                put((op + "_" + t[3], "Particle(32B)", t[2]), us=b["real_time"] * scale)
        for layout in LAYOUTS:
            launches = read_ncu(os.path.join(out, "ncu_%s_%s.csv" % (op, layout)))
            if launches:
                s = per_element(launches[0][1], PARTICLES)
                put((op + "_random", "Particle(32B)", layout), ld=s["ld"], st=s["st"],
                    dram=s["dram"])
    return meas


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", required=True, help="validate_md_on_gpu.sh's output folder")
    a = ap.parse_args()
    pred = read_predicted([os.path.join(a.dir, "predicted_md.txt"),
                           os.path.join(a.dir, "predicted_gather.txt")])
    if not pred:
        raise SystemExit("compare_md.py: no 'predict' lines in %s/predicted_*.txt" % a.dir)
    meas = read_measured(a.dir)

    # measured ratios to SoA; the force kernel's runs are one md_gpu run per layout, each with
    # the hand-written SoA kernel timed beside the library's: each time is taken relative to that
    # run's raw SoA time first, so that a run that is slower as a whole (the GPU's clocks, a
    # neighbour on the machine) does not read as a slower layout
    for (kernel, element, layout), m in meas.items():
        soa_m = meas.get((kernel, element, "soa"), {})
        soa = soa_m.get("us")
        if soa and m.get("us"):
            m["ratio"] = m["us"] / soa
            if m.get("raw_soa_us") and soa_m.get("raw_soa_us"):
                m["ratio"] = (m["us"] / m["raw_soa_us"]) / (soa / soa_m["raw_soa_us"])

    print("time ratio to SoA, predicted by layout::advise vs measured on the GPU; L1 sectors per "
          "element (view + index loads) and DRAM bytes per element, predicted vs ncu\n")
    print("%-14s %-19s %-8s | %7s %7s %6s %-8s | %8s %8s | %8s %7s %6s | %6s %6s %6s | %7s %7s"
          % ("kernel", "element", "layout", "pred", "meas", "error", "bound", "pred us", "meas us",
             "ld.pred", "ld.ncu", "error", "st.pr", "st.ncu", "error", "dram.pr", "dram.nc"))
    ratio_errors, sector_errors = [], []
    by_kernel = collections.OrderedDict()
    for (kernel, element, layout), p in pred.items():
        m = meas.get((kernel, element, layout), {})
        e_ratio = err(p["ratio"], m.get("ratio")) if layout != "soa" else None
        ld = p["ld"] + p["other_ld"]
        e_ld, e_st = err(ld, m.get("ld")), err(p["st"], m.get("st"))
        if e_ratio is not None:
            ratio_errors.append((abs(e_ratio), kernel, element, layout))
        for e in (e_ld, e_st):
            if e is not None:
                sector_errors.append((abs(e), kernel, element, layout))
        print("%-14s %-19s %-8s | %s %s %s %-8s | %s %s | %s %s %s | %s %s %s | %s %s"
              % (kernel, element, layout, fmt(p["ratio"]), fmt(m.get("ratio")), fmt_err(e_ratio),
                 p["bound"], fmt(p["us"], "{:.1f}", 8), fmt(m.get("us"), "{:.1f}", 8),
                 fmt(ld, "{:.2f}", 8), fmt(m.get("ld"), "{:.2f}"), fmt_err(e_ld),
                 fmt(p["st"], "{:.2f}", 6), fmt(m.get("st"), "{:.2f}", 6), fmt_err(e_st),
                 fmt(p["dram"], "{:.1f}"), fmt(m.get("dram"), "{:.1f}")))
        by_kernel.setdefault((kernel, element), {})[layout] = {
            "pred": p["ratio"], "meas": m.get("ratio")}

    agree, total = print_winners(by_kernel, 34)

    print()
    if total:
        print("winners: %d of %d kernels agree" % (agree, total))
    summary("time ratios (aos, aosoa32, split vs soa)", ratio_errors, 0.25)
    summary("L1 sectors per element (ld, st)", sector_errors, 0.10)


if __name__ == "__main__":
    main()
