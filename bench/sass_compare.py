#!/usr/bin/env python3
"""Compares the SASS of each library kernel with its hand-written twin (python3, no packages).

    python3 bench/sass_compare.py build/examples/particles/particles_gpu [-o sass.txt]
    python3 bench/sass_compare.py --ptx particles.ptx      # widths only, from nvcc -ptx output

A second table gives, for every kernel of the binary (library kernels with any elements per
thread, raw_, llama_ and copy kernels), its global loads and stores by width in bits
(LDG 128x2 64x1 = two LDG.E.128 and one LDG.E.64): which accesses became vector ones. With
--ptx (where there is no cuobjdump) the same counts come from ld.global / st.global, before
ptxas; ptxas keeps the vector widths that PTX asks for.

Runs `cuobjdump -sass` (and `-res-usage`) on the binary, then pairs
    layout::cuda::detail::for_each_index_kernel<S, layout::policy::L, F, pointee...>
with the raw kernel raw_<L>_<F>_<S> (examples/particles/gpu_kernels.cuh). For each pair it prints
the instruction count (NOPs left out), the global loads and stores (LDG/STG with their modifiers:
.CONSTANT is the read-only path), registers, and whether the two opcode sequences are identical
once addresses, registers and operands are stripped. Where they differ it lists the opcode counts
that differ and the first position where the sequences part.
"""
import argparse
import collections
import re
import shutil
import subprocess
import sys

RAW = re.compile(r"raw_(aos|soa|aosoa32)_(\w+)_(Particle|WideParticle)\b")
# for_each_index_kernel<S, layout::policy::L, F, pointee...>: the view's pointers are separate
# __restrict__ parameters.
LIB = re.compile(r"for_each_index_kernel<(?:const )?(\w+),\s*layout::policy::(aos|soa|aosoa<(\d+)u?l?>)\s*,\s*(\w+)\s*[,>]\s*(?:\(?unsigned long\)?)?\s*(\d*)")
INSN = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")


def demangle(names):
    for tool in ("cu++filt", "/usr/local/cuda/bin/cu++filt", "c++filt"):
        path = shutil.which(tool)
        if path:
            out = subprocess.run([path], input="\n".join(names), capture_output=True, text=True).stdout.splitlines()
            if len(out) == len(names):
                return dict(zip(names, out))
    return {n: n for n in names}


def parse_mangled_lib(name):
    """Fallback without a demangler: ...for_each_index_kernelI8ParticleNS_6policy3soaE5driftJ..."""
    m = re.search(r"for_each_index_kernelI(?:K)?(\d+)", name)
    if not m:
        return None
    at = m.end(1)
    struct = name[at:at + int(m.group(1))]
    m = re.search(r"policy(\d+)", name)
    if not m:  # a policy spelled through a substitution (split<...>): not compared
        return None
    at = m.end(1)
    policy = name[at:at + int(m.group(1))]
    rest = name[at + int(m.group(1)):]
    lanes = re.match(r"ILm(\d+)EE", rest)
    if lanes:
        policy += lanes.group(1)
        rest = rest[lanes.end():]
    rest = rest.lstrip("E")  # the Es closing the policy's template arguments
    m = re.match(r"(\d+)", rest)
    if not m:
        return None
    functor = rest[m.end(1):m.end(1) + int(m.group(1))]
    per_thread = re.match(r"Lm(\d+)E", rest[m.end(1) + int(m.group(1)):])
    if per_thread and per_thread.group(1) != "1":
        return ("lib" + per_thread.group(1), struct, policy, functor)
    return ("lib", struct, policy, functor)


def key_of(name, pretty):
    m = RAW.search(pretty) or RAW.search(name)
    if m:
        return ("raw", m.group(3), m.group(1), m.group(2))
    m = LIB.search(pretty)
    if m:
        policy = "aosoa" + m.group(3) if m.group(3) else m.group(2)
        if m.group(5) and m.group(5) != "1":  # more elements per thread: no raw twin
            return ("lib%s" % m.group(5), m.group(1), policy, m.group(4))
        return ("lib", m.group(1), policy, m.group(4))
    if "for_each_index_kernel" in name:
        parsed = parse_mangled_lib(name)
        if parsed:
            return parsed
    return None


def opcode(text):
    text = re.sub(r"^@!?U?P\w+\s+", "", text.strip())  # predicate
    return text.split()[0] if text else ""


def functions(sass):
    funcs, current = {}, None
    for line in sass.splitlines():
        m = re.match(r"\s*Function\s*:\s*(\S+)", line)
        if m:
            current = m.group(1)
            funcs[current] = []
            continue
        if current is None:
            continue
        m = INSN.search(line)
        if m:
            op = opcode(m.group(2))
            if op and op != "NOP":
                funcs[current].append(op)
    return funcs


def registers(binary):
    out = subprocess.run(["cuobjdump", "-res-usage", binary], capture_output=True, text=True).stdout
    regs, current = {}, None
    for line in out.splitlines():
        m = re.search(r"Function (\S+):", line)
        if m:
            current = m.group(1)
        m = re.search(r"REG:(\d+)\s+STACK:(\d+)", line)
        if m and current:
            regs[current] = (int(m.group(1)), int(m.group(2)))
    return regs


def width(op):
    """Bits moved by one LDG/STG (LDG.E.128 -> 128, LDG.E -> 32, LDG.E.U8 -> 8)."""
    for mod, bits in ((".128", 128), (".64", 64), (".U16", 16), (".S16", 16), (".U8", 8), (".S8", 8)):
        if mod in op:
            return bits
    return 32


def widths(ops):
    """'LDG 128x1 64x1 | STG 64x1 32x1' from a kernel's opcodes (SASS)."""
    out = []
    for kind in ("LDG", "STG"):
        c = collections.Counter(width(o) for o in ops if o.startswith(kind))
        out.append("%s %s" % (kind, " ".join("%dx%d" % (b, c[b]) for b in sorted(c, reverse=True)) or "-"))
    return " | ".join(out)


PTX_ENTRY = re.compile(r"^\.(?:visible|weak)\s+\.entry\s+(\S+?)\(", re.M)
PTX_MEM = re.compile(r"\b(ld|st)\.global(?:\.nc)?(?:\.v(\d))?\.[a-z]?(\d+)")


def ptx_widths(ptx):
    """{kernel: 'LDG 128x1 | STG 32x1'} from PTX: ld.global.v4.f32 counts as one 128-bit LDG."""
    starts = [(m.start(), m.group(1)) for m in PTX_ENTRY.finditer(ptx)] + [(len(ptx), None)]
    result = {}
    for (begin, name), (end, _) in zip(starts, starts[1:]):
        counts = {"ld": collections.Counter(), "st": collections.Counter()}
        for m in PTX_MEM.finditer(ptx, begin, end):
            counts[m.group(1)][int(m.group(2) or 1) * int(m.group(3))] += 1
        result[name] = " | ".join(
            "%s %s" % (label, " ".join("%dx%d" % (b, c[b]) for b in sorted(c, reverse=True)) or "-")
            for label, c in (("LDG", counts["ld"]), ("STG", counts["st"])))
    return result


def width_table(named_widths, pretty):
    lines = ["", "global loads and stores by width in bits (count), every kernel:"]
    rows = []
    for name, w in named_widths.items():
        label = pretty.get(name, name)
        label = re.sub(r"\(.*", "", label) if "for_each_index_kernel" not in label else label
        label = label.replace("layout::cuda::detail::", "").replace("layout::policy::", "")
        rows.append((label[:110], w))
    for label, w in sorted(rows):
        lines.append("  %-110s %s" % (label, w))
    return lines


def summary(ops):
    mem = collections.Counter(o for o in ops if o.startswith(("LDG", "STG", "LD.", "ST.", "LDL", "STL")))
    return mem


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary", nargs="?")
    ap.add_argument("--ptx", help="PTX file (nvcc -ptx): print the width table only")
    ap.add_argument("-o", "--output", help="write the comparison here too")
    args = ap.parse_args()

    if args.ptx:
        named = ptx_widths(open(args.ptx).read())
        text = "\n".join(["PTX widths: %s" % args.ptx] + width_table(named, demangle(list(named)))) + "\n"
        sys.stdout.write(text)
        if args.output:
            with open(args.output, "w") as f:
                f.write(text)
        return 0
    if not args.binary:
        ap.error("a binary (or --ptx FILE)")

    if not shutil.which("cuobjdump"):
        print("sass_compare: cuobjdump not found (it is on the GPU machine)", file=sys.stderr)
        return 1
    sass = subprocess.run(["cuobjdump", "-sass", args.binary], capture_output=True, text=True, check=True).stdout
    funcs = functions(sass)
    regs = registers(args.binary)
    pretty = demangle(list(funcs))

    kernels = {}
    for name, ops in funcs.items():
        key = key_of(name, pretty[name])
        if key:
            # A library kernel comes twice where the layout makes an alignment claim (Claimed
            # true, what runs on the library's own, aligned memory; false for other pointers):
            # pair the claimed one.
            unclaimed = re.search(r"(?:false|0),\s*(?:false|0)\s*,", pretty[name]) or "Lb0ELb0E" in name
            if key in kernels and unclaimed:
                continue
            kernels[key] = (name, ops)

    lines = ["SASS: library kernel (layout::cuda::for_each_index) vs hand-written raw kernel, %s" % args.binary,
             "instructions exclude NOPs; LDG/STG with modifiers; regs/stack from cuobjdump -res-usage", ""]
    header = "%-12s %-13s %-8s | %5s %5s | %5s %5s | %4s %4s | %-9s | %s" % (
        "kernel", "struct", "layout", "lib", "raw", "lib", "raw", "lib", "raw", "identical", "global memory ops (lib | raw)")
    lines.append("%-35s | %-11s | %-11s | %-9s | %-9s |" % ("", " instrs", " regs", " stack", ""))
    lines.append(header)
    lines.append("-" * len(header))
    details = []
    identical_count = total = 0
    for key in sorted(k for k in kernels if k[0] == "lib"):
        _, struct, policy, functor = key
        raw_key = ("raw", struct, policy, functor)
        lib_name, lib_ops = kernels[key]
        if raw_key not in kernels:
            lines.append("%-12s %-13s %-8s | no raw twin found" % (functor, struct, policy))
            continue
        raw_name, raw_ops = kernels[raw_key]
        total += 1
        same = lib_ops == raw_ops
        identical_count += same
        lm, rm = summary(lib_ops), summary(raw_ops)
        fmt = lambda c: " ".join("%s:%d" % kv for kv in sorted(c.items()))
        lr, rr = regs.get(lib_name, ("?", "?")), regs.get(raw_name, ("?", "?"))
        lines.append("%-12s %-13s %-8s | %5d %5d | %5s %5s | %4s %4s | %-9s | %s | %s" % (
            functor, struct, policy, len(lib_ops), len(raw_ops), lr[0], rr[0],
            lr[1], rr[1], "yes" if same else "NO", fmt(lm), fmt(rm)))
        if not same:
            lc, rc = collections.Counter(lib_ops), collections.Counter(raw_ops)
            diff = {op: lc[op] - rc[op] for op in set(lc) | set(rc) if lc[op] != rc[op]}
            first = next((i for i, (a, b) in enumerate(zip(lib_ops, raw_ops)) if a != b), min(len(lib_ops), len(raw_ops)))
            details.append("%s %s %s: opcode counts lib-raw: %s; sequences part at instruction %d (lib %s, raw %s)" % (
                functor, struct, policy, " ".join("%s:%+d" % kv for kv in sorted(diff.items())) or "(same counts, other order)",
                first, lib_ops[first] if first < len(lib_ops) else "end", raw_ops[first] if first < len(raw_ops) else "end"))
    lines.append("")
    lines.append("%d of %d library kernels have the same opcode sequence as their raw twin" % (identical_count, total))
    if details:
        lines.append("")
        lines.append("differences:")
        lines.extend("  " + d for d in details)
    lines.extend(width_table({name: widths(ops) for name, ops in funcs.items()}, pretty))
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
