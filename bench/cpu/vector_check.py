#!/usr/bin/env python3
"""Vectorized or not, per kernel and layout, from the disassembly of a built particles_cpu.

The CPU counterpart of bench/sass_compare.py: objdump -d the binary, find the out-of-line loop
functions (the library's layout::detail::host_loop_elements<T, Layout, F, ...> and
layout::detail::host_loop_blocks<T, Layout, N, F, ...>, and the hand-written
particles::cpu_raw loops), and count in each
  packed  - packed float arithmetic on xmm/ymm/zmm (addps, vmulps, vfmadd231ps, ...)
  scalar  - scalar float arithmetic (addss, mulss, ...)
  vmem    - instructions with an xmm/ymm/zmm register and a memory operand
  loop    - instructions and vector memory operands of the main loop (the loop with the most
            packed arithmetic): equal to the hand-written loop's when the library matches it
A loop is "vectorized: yes" when its function has packed float arithmetic.

    python3 bench/cpu/vector_check.py build/cpu/examples/particles/particles_cpu
    python3 bench/cpu/vector_check.py BINARY --strict   # exit 1 if a library loop is scalar
                                                        # where its hand-written twin is not
"""
import argparse
import re
import subprocess
import sys

PACKED = re.compile(r"^v?(add|sub|mul|div|min|max|sqrt|rcp|rsqrt|fn?m(add|sub)\d*|round|and|andn|or|xor|blendv?|cmp\w*)ps$")
SCALAR = re.compile(r"^v?(add|sub|mul|div|min|max|sqrt|fn?m(add|sub)\d*|round)ss$")
KERNELS = {"drift": "drift", "wide_drift": "wide_drift", "scale_mass": "one_field",
           "integrate": "most_fields"}
FUNCTOR = re.compile(r"(?<![A-Za-z_])(wide_drift|drift|scale_mass|integrate)(?![A-Za-z_])")


def functions(binary):
    """(name, [(address, instruction)]) of every function in the binary."""
    out = subprocess.run(["objdump", "-d", "-C", "--no-show-raw-insn", binary],
                         check=True, capture_output=True, text=True).stdout
    name, body = None, []
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
        if m:
            if name:
                yield name, body
            name, body = m.group(1), []
        elif name and "\t" in line:
            addr, ins = line.split("\t", 1)
            body.append((int(addr.strip().rstrip(":"), 16), ins.strip()))
    if name:
        yield name, body


def classify(name):
    """(kernel, element, layout, variant) of a loop function, or None."""
    # layout::detail::host_loop_elements<T, layout::policy::aos|soa|split<...>, F const, ...>
    # and the block/lane nest, layout::detail::host_loop_blocks<T, layout::policy::aosoa<N>, ...>
    m = re.match(r"void layout::detail::host_loop_(?:elements|blocks)<(?:const )?(\w+)(?: const)?, "
                 r"layout::policy::(aos|soa|split|aosoa)\b(?:<(\d+)u?l?>)?", name)
    if m:
        f = FUNCTOR.search(name)
        if not f:
            return None
        layout = m.group(2) + (m.group(3) if m.group(2) == "aosoa" else "")
        return KERNELS[f.group(1)], m.group(1), layout, "library"
    if "particles::cpu_raw::" not in name:
        return None
    m = re.search(r"cpu_raw::(\w+?)_(aos|soa|split)(?:<(\w+)>)?\(", name)
    if m:
        kernel, layout = m.group(1), m.group(2)
        elem = m.group(3) or ("WideParticle" if kernel in ("wide_drift", "integrate") else
                              "Particle" if kernel == "drift" else "any")
        return KERNELS.get(kernel, kernel), elem, layout, "raw"
    m = re.search(r"cpu_raw::blocks_loop<raw::(\w+)Block(\d+),.*?operator\(\)\((\w+) const&", name)
    if m:
        elem = "WideParticle" if m.group(1) == "Wide" else "Particle"
        return KERNELS[m.group(3)], elem, "aosoa" + m.group(2), "raw"
    return None


def hot_loop(body):
    """The instructions of the loop with the most packed arithmetic (the main vector loop), or
    of the longest loop where none has any: from a backward branch's target to the branch."""
    best, best_key = [], (-1, -1)
    for k, (_, ins) in enumerate(body):
        m = re.match(r"^j\w+\s+([0-9a-f]+) <", ins)
        if not m:
            continue
        target = int(m.group(1), 16)
        start = next((j for j, (a, _) in enumerate(body) if a == target), None)
        if start is None or start > k:
            continue
        loop = [i for _, i in body[start:k + 1]]
        key = (count(loop)[0], len(loop))
        if key > best_key:
            best, best_key = loop, key
    return best


def count(body):
    """(packed, scalar, vmem) counts of a list of instructions."""
    packed = scalar = vmem = 0
    for ins in body:
        parts = ins.split(None, 1)
        op, args = parts[0], parts[1] if len(parts) > 1 else ""
        packed += bool(PACKED.match(op))
        scalar += bool(SCALAR.match(op))
        vmem += bool(re.search(r"%[xyz]mm", args) and "(" in args)
    return packed, scalar, vmem


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary")
    ap.add_argument("--strict", action="store_true")
    args = ap.parse_args()
    rows = {}
    for name, body in functions(args.binary):
        c = classify(name)
        if c:
            loop = hot_loop(body)
            rows[c] = count([i for _, i in body]) + (len(loop), count(loop)[2])
    if not rows:
        print("vector_check: no loop functions found in", args.binary)
        return 1
    # The raw SoA and split drifts serve wide_drift too, and scale_mass_soa both elements and
    # the split layout (mass is a cold SoA column there).
    def raw_of(kernel, elem, layout):
        for key in ((kernel, elem, layout, "raw"), (kernel, "any", layout, "raw"),
                    ("drift", "Particle", layout, "raw") if kernel == "wide_drift" else None,
                    (kernel, "any", "soa", "raw") if layout == "split" else None):
            if key and key in rows:
                return rows[key]
        return None
    print(f"{'kernel':<12} {'element':<13} {'layout':<8} {'library':>8} {'packed/scalar/vmem':>18}"
          f" {'loop':>9} {'raw':>5} {'packed/scalar/vmem':>18} {'loop':>9}")
    bad = 0
    for (kernel, elem, layout, variant) in sorted(k for k in rows if k[3] == "library"):
        lib = rows[(kernel, elem, layout, variant)]
        raw = raw_of(kernel, elem, layout)
        lib_yes = lib[0] > 0
        raw_yes = raw is not None and raw[0] > 0
        if raw_yes and not lib_yes:
            bad += 1
        fmt = lambda c: "-" if c is None else "%d/%d/%d" % c[:3]
        fmt_loop = lambda c: "-" if c is None else "%d/%d" % c[3:]
        print(f"{kernel:<12} {elem:<13} {layout:<8} {'yes' if lib_yes else 'NO':>8} {fmt(lib):>18}"
              f" {fmt_loop(lib):>9} {('-' if raw is None else 'yes' if raw_yes else 'NO'):>5}"
              f" {fmt(raw):>18} {fmt_loop(raw):>9}")
    print("\n(packed/scalar/vmem: packed and scalar float arithmetic instructions, and vector "
          "instructions with a memory operand, in the whole loop function; loop: instructions / "
          "vector memory operands of its main loop, the one with the most packed arithmetic)")
    if bad:
        print(f"{bad} library loop(s) scalar where the hand-written one is vectorized")
    return 1 if (args.strict and bad) else 0


if __name__ == "__main__":
    sys.exit(main())
