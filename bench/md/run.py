#!/usr/bin/env python3
"""The MD mini-app (examples/md) against LAMMPS on in.lj, on this machine's CPU.

    python3 bench/md/run.py --md build/md/examples/md/md [--reps 3] [--cores 1,2] [--cells 20]

For each core count: LAMMPS with pair_style lj/cut and with -sf opt (lj/cut/opt), on 1 core as
`lmp`, on N as `mpirun -np N lmp`; the mini-app with --layout aos, soa, aosoa32 and --threads N
(OpenMP). Every configuration runs --reps times, interleaved (so that a burst of load from
elsewhere hits all of them alike), and the fastest run counts. Prints a Markdown table: loop time,
timesteps/s, atom-steps/s, the ratio to lj/cut, and the time split into force, neighbor build,
sorting (md only: wrap + bin_by_key) and integration (LAMMPS: Modify, fix nve).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, cwd, env=None):
    out = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    if out.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), out.stdout[-3000:]))
    return out.stdout


def parse_lammps(text):
    loop = float(re.search(r"Loop time of ([0-9.eE+-]+) on", text).group(1))
    sec = {}
    for name in ("Pair", "Neigh", "Comm", "Output", "Modify", "Other"):
        m = re.search(r"^%s\s*\|\s*([0-9.eE+-]+)\s*\|\s*([0-9.eE+-]+)" % name, text, re.M)
        if m:
            sec[name] = float(m.group(2))  # avg over ranks
    return {"loop": loop, "force": sec.get("Pair", 0), "neighbor": sec.get("Neigh", 0),
            "sort": 0.0, "integrate": sec.get("Modify", 0), "comm": sec.get("Comm", 0),
            "thermo": last_thermo(text)}


def parse_md(text):
    loop = float(re.search(r"Loop time of ([0-9.eE+-]+) on", text).group(1))
    sec = {}
    for name in ("Force", "Neighbor", "Sort", "Integrate", "Other"):
        m = re.search(r"^%s\s*\|\s*([0-9.eE+-]+)" % name, text, re.M)
        sec[name] = float(m.group(1)) if m else 0.0
    return {"loop": loop, "force": sec["Force"], "neighbor": sec["Neighbor"], "sort": sec["Sort"],
            "integrate": sec["Integrate"], "comm": 0.0, "thermo": last_thermo(text)}


def last_thermo(text):
    lines = text.splitlines()
    for k, line in enumerate(lines):
        if line.split()[:6] == ["Step", "Temp", "E_pair", "E_mol", "TotEng", "Press"]:
            rows = []
            for row in lines[k + 1:]:
                w = row.split()
                if not w or not re.match(r"^-?\d+$", w[0]):
                    break
                rows.append(w)
            return " ".join(rows[-1]) if rows else ""
    return ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--md", required=True, help="the md binary (examples/md, built with OpenMP)")
    ap.add_argument("--lmp", default="lmp")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--cores", default="1,2")
    ap.add_argument("--cells", type=int, default=20, help="20: 32,000 atoms; 80: 2,048,000")
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--layouts", default="aos,soa,aosoa32")
    args = ap.parse_args()

    md = os.path.abspath(args.md)
    lmp = shutil.which(args.lmp)
    if not lmp:
        sys.exit("lmp not found (Debian: apt-get install lammps)")
    work = tempfile.mkdtemp(prefix="md_bench_")
    shutil.copy(os.path.join(HERE, "in.lj"), work)
    scale = args.cells // 20
    if scale * 20 != args.cells:
        sys.exit("--cells must be a multiple of 20 (in.lj's -var x/y/z scale 20 unit cells)")
    atoms = 4 * args.cells ** 3
    lmp_vars = ["-var", "x", str(scale), "-var", "y", str(scale), "-var", "z", str(scale)]
    env1 = dict(os.environ, OMP_NUM_THREADS="1")
    # The mini-app starts from LAMMPS's own start (write_data after in.lj's set-up), so both
    # follow the same trajectory and their thermo can be compared too.
    with open(os.path.join(work, "in.lj")) as f:
        start = f.read().replace("run\t\t100", "write_data\tstart.data")
    with open(os.path.join(work, "in.start"), "w") as f:
        f.write(start)
    run([lmp, "-in", "in.start", "-log", "none", "-screen", "none"] + lmp_vars, work, env1)

    configs = []
    for cores in [int(c) for c in args.cores.split(",")]:
        mpi = [] if cores == 1 else ["mpirun", "-np", str(cores), "--allow-run-as-root",
                                     "--oversubscribe", "--bind-to", "none"]
        configs.append((cores, "LAMMPS lj/cut", mpi + [lmp, "-in", "in.lj", "-log", "none"] + lmp_vars, parse_lammps))
        configs.append((cores, "LAMMPS lj/cut/opt", mpi + [lmp, "-sf", "opt", "-in", "in.lj", "-log", "none"] + lmp_vars, parse_lammps))
        for layout in args.layouts.split(","):
            cmd = [md, "--data", "start.data", "--steps", str(args.steps),
                   "--layout", layout, "--threads", str(cores)]
            configs.append((cores, "md " + layout, cmd, parse_md))

    best = {}
    for rep in range(args.reps):
        for cores, name, cmd, parse in configs:
            r = parse(run(cmd, work, env1))
            key = (cores, name)
            print("rep %d: %-18s %d core(s): loop %.3f s" % (rep + 1, name, cores, r["loop"]),
                  file=sys.stderr, flush=True)
            if key not in best or r["loop"] < best[key]["loop"]:
                best[key] = r
                best[key]["cmd"] = " ".join(cmd).replace(md, "md").replace(lmp, "lmp")

    print("%d atoms, %d steps, fastest of %d interleaved runs; times in seconds\n" % (atoms, args.steps, args.reps))
    print("| cores | code | loop | timesteps/s | atom-steps/s | vs lj/cut | force | neighbor | sort | integrate | comm |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for cores, name, cmd, parse in configs:
        r = best[(cores, name)]
        ref = best[(cores, "LAMMPS lj/cut")]["loop"]
        print("| %d | %s | %.3f | %.2f | %.3g | %.2fx | %.3f | %.3f | %.3f | %.3f | %.3f |" % (
            cores, name, r["loop"], args.steps / r["loop"], atoms * args.steps / r["loop"],
            ref / r["loop"], r["force"], r["neighbor"], r["sort"], r["integrate"], r["comm"]))
    print("\nvs lj/cut: LAMMPS lj/cut's loop time / this loop time (above 1: faster than LAMMPS).")
    print("\nLast thermo line of each (md starts from LAMMPS's write_data of in.lj's set-up):\n")
    for cores, name, cmd, parse in configs:
        print("    %d %-18s %s" % (cores, name, best[(cores, name)]["thermo"]))
    print("\nCommands (in a directory holding bench/md/in.lj and start.data from `lmp -in in.start`,"
          " in.start = in.lj with `run 100` replaced by `write_data start.data`; OMP_NUM_THREADS=1):\n")
    for cores, name, cmd, parse in configs:
        print("    " + best[(cores, name)]["cmd"])
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
