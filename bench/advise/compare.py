#!/usr/bin/env python3
"""Puts the layout advisor's predictions beside measurements (python3, no packages).

    python3 bench/advise/compare.py --predicted predicted.txt [--measured particles.txt]
                                    [--ncu ncu.csv --ncu-n 8388608]

predicted.txt: the output of examples/advise/particles_advice ("predict" lines).
particles.txt: the output of particles_gpu (its table; vs_soa = time / library SoA time).
ncu.csv:       ncu --csv --metrics l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}.sum,
               dram__bytes_{read,write}.sum on the library kernels (for_each_index_kernel),
               run with --n NCU_N (default 33554432); per launch, divided by NCU_N: per element.

Prints, per kernel and layout: the predicted and measured time ratio to SoA and the error; the
predicted and measured winner; the L1 sectors per element (ld, st) and DRAM bytes per element,
predicted and from ncu. Any input may be missing: its columns are left empty.
"""
import argparse
import collections
import csv
import io
import re
import sys

FUNCTORS = {"drift": "drift", "scale_mass": "one_field", "wide_drift": "wide_drift",
            "integrate": "most_fields"}
STRUCTS = {"Particle": "Particle(32B)", "WideParticle": "Wide(64B)"}
TIE = 0.05  # layouts within 5% are equivalent, in the prediction and the measurement alike


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


# ncu prints "for_each_index_kernel<Particle, aosoa<32>, drift, std::byte>" (no namespaces);
# cu++filt "layout::policy::aosoa<32ul>": either goes.
LIB = re.compile(r"for_each_index_kernel<\s*(?:const\s+)?(?:\w+::)*(\w+)\s*,\s*(?:\w+::)*"
                 r"(aos|soa|aosoa<\s*(\d+)\w*\s*>)\s*,\s*(?:const\s+)?(?:\w+::)*(\w+)")


def kernel_key(name):
    m = LIB.search(name)
    if m:
        struct, policy, lanes, functor = m.group(1), m.group(2), m.group(3), m.group(4)
    else:  # mangled: ...for_each_index_kernelI8ParticleNS_6policy3soaE5drift...
        m = re.search(r"for_each_index_kernelI(?:K)?(\d+)", name)
        if not m:
            return None
        at = m.end(1)
        struct = name[at:at + int(m.group(1))]
        p = re.search(r"policy(\d+)", name[at:])
        if not p:
            return None
        pat = at + p.end(1)
        policy = name[pat:pat + int(p.group(1))]
        rest = name[pat + int(p.group(1)):]
        lanes = None
        ln = re.match(r"ILm(\d+)EE", rest)
        if ln:
            lanes, rest = ln.group(1), rest[ln.end():]
        rest = rest.lstrip("E")
        fm = re.match(r"(\d+)", rest)
        if not fm:
            return None
        functor = rest[fm.end(1):fm.end(1) + int(fm.group(1))]
    layout = "aosoa" + lanes if lanes else policy.split("<")[0]
    if functor not in FUNCTORS or struct not in STRUCTS:
        return None
    return (FUNCTORS[functor], STRUCTS[struct], layout)


def read_ncu(path, n):
    """Per (kernel, element, layout): each metric's mean over the launches, per element."""
    sums = collections.defaultdict(lambda: collections.defaultdict(float))
    launches = collections.defaultdict(set)
    with open(path, errors="replace") as f:
        text = f.read()
    lines = [l for l in text.splitlines() if l.startswith('"')]
    if not lines:
        return {}
    for row in csv.DictReader(io.StringIO("\n".join(lines))):
        name = row.get("Kernel Name") or row.get("Function Name") or ""
        key = kernel_key(name)
        if not key:
            continue
        try:
            value = float(row["Metric Value"].replace(",", ""))
        except (KeyError, ValueError):
            continue
        metric, unit = row.get("Metric Name", ""), row.get("Metric Unit", "")
        scale = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6,
                 "GB": 1e9, "nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3}.get(unit, 1)
        sums[key][metric] += value * scale
        launches[key].add(row.get("ID"))
    out = {}
    for key, metrics in sums.items():
        k = max(1, len(launches[key]))
        def per_element(*names):
            if not all(m in metrics for m in names):
                return None  # not measured: left empty rather than counted as zero
            return sum(metrics[m] for m in names) / k / n
        out[key] = {
            "ld": per_element("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
            "st": per_element("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
            "dram": per_element("dram__bytes_read.sum", "dram__bytes_write.sum"),
            "launches": k,
        }
    return out


def err(p, m):
    return None if p is None or m in (None, 0) else (p - m) / m


def fmt(x, spec="{:.2f}", width=7):
    return (spec.format(x) if x is not None else "-").rjust(width)


def fmt_err(e, width=7):
    return ("{:+.0f}%".format(100 * e) if e is not None else "-").rjust(width)


def winners(rows, field):
    best = min(r[field] for r in rows.values())
    return sorted(l for l, r in rows.items() if r[field] <= best * (1 + TIE))


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
                               (a.ncu, lambda p: read_ncu(p, a.ncu_n), "ncu")):
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
        print("  %-12s %-14s predicted %-16s measured %-16s %s"
              % (kernel, element, "/".join(pw), "/".join(mw) or "-",
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
    summary("time ratios (aos, aosoa vs soa)", ratio_errors, 0.25)
    summary("L1 sectors per element (ld, st)", sector_errors, 0.05)
    summary("DRAM bytes per element", dram_errors, 0.25)


if __name__ == "__main__":
    main()
