"""What compare.py and compare_md.py share (python3, no packages): ncu's CSV, the library kernel's
name, and the comparison's errors, winners and summaries.

    python3 bench/advise/validation.py ncu.csv     # lists the launches ncu captured: a check that
                                                   # a kernel filter matched what it should

ncu --csv prints one row per metric and launch ("ID", "Kernel Name", "Metric Name", "Metric Unit",
"Metric Value"), after the application's own output (lines that do not start with a quote).
The library launches every functor through layout::cuda::detail::for_each_index_kernel<T, Layout,
F, ...>; ncu's demangled name drops the namespaces ("void for_each_index_kernel<atom<double>,
split<aos, soa, &atom<double>::x>, lj_full<double, false>, 1ul, false, false, ...>(...)"), c++filt
keeps them: kernel_args reads either.
"""
import collections
import csv
import io
import re
import sys

TIE = 0.05  # layouts within 5% are equivalent, in the prediction and the measurement alike

# ncu's units, to bytes and seconds. ncu 2025 writes durations as "ns" (older ones "nsecond"): a
# unit missing here once read 80224 ns as 80224 s (compare_md.py's 'meas us' of the integration
# kernels, 2026-11-26). A unit not listed leaves the value out, with a warning.
UNIT_SCALE = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6,
              "GB": 1e9, "sector": 1, "": 1,
              "nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3, "second": 1,
              "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}

L1_LD = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
L1_ST = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
DRAM = ("dram__bytes_read.sum", "dram__bytes_write.sum")
DURATION = "gpu__time_duration.sum"


def read_ncu(path):
    """The launches of one ncu --csv file, in launch order: [(kernel name, {metric: value})],
    values in bytes and seconds. A missing or empty file gives []."""
    try:
        with open(path, errors="replace") as f:
            text = f.read()
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
        entry = launches.setdefault(row.get("ID"), (name, {}))
        if unit not in UNIT_SCALE:
            print("validation.py: %s: unknown unit %r of %s: left out"
                  % (path, unit, row.get("Metric Name", "")), file=sys.stderr)
            continue
        value *= UNIT_SCALE[unit]
        entry[1][row.get("Metric Name", "")] = value
    return list(launches.values())


def per_element(metrics, n):
    """ncu's counts of one launch (or their mean) per element: L1 sectors loaded and stored,
    DRAM bytes, and the launch's time in microseconds (not per element); None where missing."""
    def get(*names):
        if not all(m in metrics for m in names):
            return None  # not measured: left empty rather than counted as zero
        return sum(metrics[m] for m in names) / n
    d = metrics.get(DURATION)
    return {"ld": get(L1_LD), "st": get(L1_ST), "dram": get(*DRAM),
            "us": d * 1e6 if d is not None else None}


def template_args(name, template):
    """The top-level template arguments of `template<...>` in a demangled name, or None."""
    at = name.find(template + "<")
    if at < 0:
        return None
    args, depth, start = [], 0, at + len(template) + 1
    for k in range(start, len(name)):
        c = name[k]
        if c in "<(":
            depth += 1
        elif c in ">)":
            if depth == 0:
                args.append(name[start:k].strip())
                return args
            depth -= 1
        elif c == "," and depth == 0:
            args.append(name[start:k].strip())
            start = k + 1
    return None


def unqualified(arg):
    """'const md::lj_full<double, false>' -> 'lj_full'; 'layout::policy::aos' -> 'aos'."""
    arg = re.sub(r"^(const|volatile|struct|class)\s+", "", arg.strip())
    head = arg.split("<", 1)[0]
    return head.split("::")[-1].strip()


def layout_name(arg):
    """The layout argument as the tables name it: aos, soa, aosoa32, split."""
    base = unqualified(arg)
    if base == "aosoa":
        lanes = re.search(r"<\s*(\d+)", arg)
        return "aosoa" + lanes.group(1) if lanes else "aosoa"
    return base


def kernel_args(name):
    """(element struct, layout, functor, functor's template arguments) of a library kernel's
    demangled name, or None for any other kernel."""
    args = template_args(name, "for_each_index_kernel")
    if not args or len(args) < 3:
        return None
    return (unqualified(args[0]), layout_name(args[1]), unqualified(args[2]),
            template_args(args[2], unqualified(args[2])) or [])


def err(p, m):
    return None if p is None or m in (None, 0) else (p - m) / m


def fmt(x, spec="{:.2f}", width=7):
    return (spec.format(x) if x is not None else "-").rjust(width)


def fmt_err(e, width=7):
    return ("{:+.0f}%".format(100 * e) if e is not None else "-").rjust(width)


def winners(rows, field):
    best = min(r[field] for r in rows.values())
    return sorted(l for l, r in rows.items() if r[field] <= best * (1 + TIE))


def print_winners(by_kernel, width):
    """by_kernel: {(kernel, element): {layout: {"pred", "meas"}}}. Prints predicted and measured
    winners per kernel; returns (agree, total) over the kernels measured under every layout."""
    print("\nwinner (layouts within %.0f%% of the fastest count as tied):" % (100 * TIE))
    agree = total = 0
    for (kernel, element), rows in by_kernel.items():
        pw = winners(rows, "pred")
        have = {l: r for l, r in rows.items() if r["meas"] is not None}
        mw = winners(have, "meas") if have and len(have) == len(rows) else []
        ok = bool(mw) and bool(set(pw) & set(mw))
        if mw:
            total += 1
            agree += ok
        print("  %-*s predicted %-24s measured %-24s %s"
              % (width, kernel + " " + element, "=".join(pw), "=".join(mw) or "-",
                 ("agree" if ok else "DISAGREE") if mw else ""))
    return agree, total


def summary(name, errors, goal):
    """errors: [(|error|, kernel, element, layout)]."""
    if not errors:
        print("%s: no measurements" % name)
        return
    worst = max(errors)
    within = sum(1 for e in errors if e[0] <= goal)
    print("%s: mean |error| %.1f%%, worst %.1f%% (%s %s %s), %d of %d within %.0f%%"
          % (name, 100 * sum(e[0] for e in errors) / len(errors), 100 * worst[0], worst[1],
             worst[2], worst[3], within, len(errors), 100 * goal))


def main(paths):
    for path in paths:
        launches = read_ncu(path)
        print("%s: %d launches" % (path, len(launches)))
        for k, (name, metrics) in enumerate(launches):
            print("  %3d %-40s %s" % (k, kernel_args(name) or "-", name[:120]))


if __name__ == "__main__":
    main(sys.argv[1:])
