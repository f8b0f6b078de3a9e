#!/usr/bin/env python3
"""Puts the layout advisor's predictions for the MD and gather/scatter kernels beside an H100's
measurements (python3, no packages): the output folder of bench/advise/validate_md_on_gpu.sh.

    python3 bench/advise/compare_md.py --dir OUT

Reads from OUT (any may be missing: its columns stay empty):
  predicted_md.txt, predicted_gather.txt   md_advice and gather_advice ("predict" lines)
  md_<layout>_<atoms>.txt                  md_gpu --compare-raw: "library <layout> <ms> ms"
  ncu_md_<layout>.csv                      ncu on md_gpu (2,048,000 atoms): lj_full<..., false>,
                                           initial_integrate, final_integrate
  {gather,scatter}_gpu.json                Google Benchmark: <op>/Particle/<layout>/<order>
  ncu_{gather,scatter}_<layout>.csv        ncu on the library's random gather / scatter

Times: the force kernel from md_gpu (median), the integration kernels from ncu's
gpu__time_duration (one launch, caches flushed), gather/scatter from Google Benchmark. Ratios are
to SoA; layouts within 5% of the fastest tie. Sectors per element: predicted (view + the list or
index loads outside it) against ncu's l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}.sum / n.
"""
import argparse
import collections
import csv
import glob
import io
import json
import os
import re

TIE = 0.05
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


def layout_of(name):
    m = re.search(r"policy::(aosoa)<\s*(\d+)|policy::(soa|aos)\b", name)
    if not m:
        return None
    return "aosoa" + m.group(2) if m.group(1) else m.group(3)


def read_ncu(path):
    """Rows of one ncu --csv file: [(kernel name, {metric: value})], in launch order."""
    try:
        text = open(path, errors="replace").read()
    except OSError:
        return []
    lines = [l for l in text.splitlines() if l.startswith('"')]
    if not lines:
        return []
    launches = collections.OrderedDict()
    for row in csv.DictReader(io.StringIO("\n".join(lines))):
        name = row.get("Kernel Name") or row.get("Function Name") or ""
        try:
            value = float(row["Metric Value"].replace(",", ""))
        except (KeyError, ValueError):
            continue
        unit = row.get("Metric Unit", "")
        scale = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6,
                 "GB": 1e9, "nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3,
                 "second": 1}.get(unit, 1)
        entry = launches.setdefault(row.get("ID"), (name, {}))
        entry[1][row.get("Metric Name", "")] = value * scale
    return list(launches.values())


def ncu_summary(metrics, n):
    def get(*names):
        if not all(m in metrics for m in names):
            return None
        return sum(metrics[m] for m in names) / n
    d = get("gpu__time_duration.sum")
    return {"ld": get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
            "st": get("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
            "dram": get("dram__bytes_read.sum", "dram__bytes_write.sum"),
            "us": d * n * 1e6 if d is not None else None}


def read_measured(out):
    meas = {}  # (kernel, element, layout) -> {"us", "ld", "st", "dram"}
    def put(key, **kw):
        meas.setdefault(key, {}).update({k: v for k, v in kw.items() if v is not None})
    for path in glob.glob(os.path.join(out, "md_*_*.txt")):
        text = open(path, errors="replace").read()
        atoms = re.search(r"Force kernel, (\d+) atoms", text)
        lib = re.search(r"library (\S+)\s+([\d.]+) ms", text)
        if atoms and lib:
            put(("md_force", "atom(80B)-" + atoms.group(1), lib.group(1)),
                us=float(lib.group(2)) * 1e3)
    for path in glob.glob(os.path.join(out, "ncu_md_*.csv")):
        seen = set()
        for name, metrics in read_ncu(path):
            layout = layout_of(name)
            kernel = ("md_initial" if "initial_integrate" in name else
                      "md_final" if "final_integrate" in name else
                      "md_force" if re.search(r"lj_full<\s*double\s*,\s*false", name) else None)
            if not layout or not kernel or kernel in seen:
                continue
            seen.add(kernel)
            s = ncu_summary(metrics, MD_ATOMS)
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
            if len(t) >= 4 and t[1] == "Particle" and t[2] in ("aos", "soa", "aosoa32"):
                scale = {"ns": 1e-3, "us": 1, "ms": 1e3, "s": 1e6}[b.get("time_unit", "us")]
                put((op + "_" + t[3], "Particle(32B)", t[2]), us=b["real_time"] * scale)
        for layout in ("aos", "soa", "aosoa32"):
            launches = read_ncu(os.path.join(out, "ncu_%s_%s.csv" % (op, layout)))
            if launches:
                s = ncu_summary(launches[0][1], PARTICLES)
                put((op + "_random", "Particle(32B)", layout), ld=s["ld"], st=s["st"],
                    dram=s["dram"])
    return meas


def err(p, m):
    return None if p is None or m in (None, 0) else (p - m) / m


def fmt(x, spec="{:.2f}", width=7):
    return (spec.format(x) if x is not None else "-").rjust(width)


def fmt_err(e, width=6):
    return ("{:+.0f}%".format(100 * e) if e is not None else "-").rjust(width)


def winners(rows, field):
    best = min(r[field] for r in rows.values())
    return sorted(l for l, r in rows.items() if r[field] <= best * (1 + TIE))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", required=True, help="validate_md_on_gpu.sh's output folder")
    a = ap.parse_args()
    pred = read_predicted([os.path.join(a.dir, "predicted_md.txt"),
                           os.path.join(a.dir, "predicted_gather.txt")])
    if not pred:
        raise SystemExit("compare_md.py: no 'predict' lines in %s/predicted_*.txt" % a.dir)
    meas = read_measured(a.dir)

    # measured ratios to SoA
    for (kernel, element, layout), m in meas.items():
        soa = meas.get((kernel, element, "soa"), {}).get("us")
        if soa and m.get("us"):
            m["ratio"] = m["us"] / soa

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

    print("\nwinner (layouts within %.0f%% of the fastest count as tied):" % (100 * TIE))
    agree = total = 0
    for (kernel, element), rows in by_kernel.items():
        pw = winners(rows, "pred")
        have = {l: r for l, r in rows.items() if r["meas"] is not None}
        mw = winners(have, "meas") if len(have) == len(rows) else []
        ok = bool(mw) and bool(set(pw) & set(mw))
        if mw:
            total += 1
            agree += ok
        print("  %-14s %-19s predicted %-22s measured %-22s %s"
              % (kernel, element, "=".join(pw), "=".join(mw) or "-",
                 ("agree" if ok else "DISAGREE") if mw else ""))

    def summary(name, errors, goal):
        if not errors:
            print("%s: no measurements" % name)
            return
        worst = max(errors)
        within = sum(1 for e in errors if e[0] <= goal)
        print("%s: mean |error| %.1f%%, worst %.1f%% (%s %s %s), %d of %d within %.0f%%"
              % (name, 100 * sum(e[0] for e in errors) / len(errors), 100 * worst[0], worst[1],
                 worst[2], worst[3], within, len(errors), 100 * goal))

    print()
    if total:
        print("winners: %d of %d kernels agree" % (agree, total))
    summary("time ratios (aos, aosoa32 vs soa)", ratio_errors, 0.25)
    summary("L1 sectors per element (ld, st)", sector_errors, 0.10)


if __name__ == "__main__":
    main()
