#!/usr/bin/env python3
"""The MD mini-app (examples/md) against LAMMPS on in.lj, on this machine's CPU.

    python3 bench/md/run.py --md build/bench/examples/md/md [--reps 5] [--cores 1,2]
                            [--cells 20] [--steps 100] [--no-rt]

For each core count: LAMMPS with pair_style lj/cut and with -sf opt (lj/cut/opt), on 1 core as
`lmp`, on N as `mpirun -np N lmp` (Debian's LAMMPS has no OPENMP package); the mini-app with
--layout aos, soa, aosoa32 and --threads N (OpenMP). Both run the same number of steps from the
same start (LAMMPS's write_data after in.lj's set-up), with energies computed at the first and
last step only (LAMMPS's thermo 0; the app's --thermo STEPS). Every configuration runs --reps
times, interleaved (a burst of load from elsewhere hits all of them alike); the median counts,
and the fastest is shown too. Prints a Markdown table: loop time, timesteps/s, atom-steps/s, the
ratios to lj/cut and lj/cut/opt on as many cores, and the time split into force, neighbor build,
sorting (md only: wrap + bin_by_key) and integration (LAMMPS: Modify, fix nve).

Real-time priority (the default, where `chrt` works, i.e. as root): every run, LAMMPS's and the
app's alike, runs under `chrt -f 10`. On a machine whose cores are shared with niced builds, a
run on every core otherwise measures the scheduler: a rank or thread that waits a time slice
for its core stalls the others at the next barrier (in.lj on 2 cores took 3 to 4 s instead of
0.3 to 0.5 s). --no-rt runs at normal priority.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SECTIONS = ("force", "neighbor", "sort", "integrate", "comm")


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


def median_run(runs):
    """The run with the median loop time (the lower middle one for an even count), so that its
    sections add up to its loop time."""
    ordered = sorted(runs, key=lambda r: r["loop"])
    return ordered[(len(ordered) - 1) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--md", required=True, help="the md binary (examples/md, built with OpenMP)")
    ap.add_argument("--lmp", default="lmp")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--cores", default="1,2")
    ap.add_argument("--cells", type=int, default=20, help="20: 32,000 atoms; 80: 2,048,000")
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--layouts", default="aos,soa,aosoa32")
    ap.add_argument("--no-rt", action="store_true", help="normal priority, not chrt -f 10")
    args = ap.parse_args()

    md = os.path.abspath(args.md)
    lmp = shutil.which(args.lmp)
    if not lmp:
        sys.exit("lmp not found (Debian: apt-get install lammps)")
    rt = [] if args.no_rt else ["chrt", "-f", "10"]
    if rt and subprocess.run(rt + ["true"]).returncode != 0:
        sys.exit("chrt -f 10 failed (needs root or CAP_SYS_NICE); --no-rt runs at normal priority")
    work = tempfile.mkdtemp(prefix="md_bench_")
    shutil.copy(os.path.join(HERE, "in.lj"), work)
    scale = args.cells // 20
    if scale * 20 != args.cells:
        sys.exit("--cells must be a multiple of 20 (in.lj's -var x/y/z scale 20 unit cells)")
    atoms = 4 * args.cells ** 3
    lmp_vars = ["-var", "x", str(scale), "-var", "y", str(scale), "-var", "z", str(scale),
                "-var", "steps", str(args.steps)]
    env1 = dict(os.environ, OMP_NUM_THREADS="1")
    # The mini-app starts from LAMMPS's own start (write_data after in.lj's set-up), so both
    # follow the same trajectory and their thermo can be compared too.
    with open(os.path.join(work, "in.lj")) as f:
        start = f.read().replace("run\t\t${steps}", "write_data\tstart.data")
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
            cmd = [md, "--data", "start.data", "--steps", str(args.steps), "--thermo", str(args.steps),
                   "--layout", layout, "--threads", str(cores)]
            configs.append((cores, "md " + layout, cmd, parse_md))

    runs = {}
    for rep in range(args.reps):
        for cores, name, cmd, parse in configs:
            r = parse(run(rt + cmd, work, env1))
            runs.setdefault((cores, name), []).append(r)
            print("rep %d: %-18s %d core(s): loop %.3f s" % (rep + 1, name, cores, r["loop"]),
                  file=sys.stderr, flush=True)

    med = {key: median_run(rs) for key, rs in runs.items()}
    print("%d atoms, %d steps, median of %d interleaved runs%s; times in seconds\n" % (
        atoms, args.steps, args.reps, "" if args.no_rt else " under chrt -f 10"))
    print("| cores | code | loop (median) | loop (fastest) | timesteps/s | atom-steps/s | vs lj/cut | vs lj/cut/opt | force | neighbor | sort | integrate | comm |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for cores, name, cmd, parse in configs:
        r = med[(cores, name)]
        fastest = min(x["loop"] for x in runs[(cores, name)])
        ref = med[(cores, "LAMMPS lj/cut")]["loop"]
        ref_opt = med[(cores, "LAMMPS lj/cut/opt")]["loop"]
        print("| %d | %s | %.3f | %.3f | %.2f | %.3g | %.2fx | %.2fx | %s |" % (
            cores, name, r["loop"], fastest, args.steps / r["loop"], atoms * args.steps / r["loop"],
            ref / r["loop"], ref_opt / r["loop"], " | ".join("%.3f" % r[s] for s in SECTIONS)))
    print("\nvs lj/cut, vs lj/cut/opt: LAMMPS's median loop time on as many cores / this median loop"
          " time (above 1: faster than LAMMPS). Sections: those of the median run.")
    print("\nLoop times of every run, in order:\n")
    for cores, name, cmd, parse in configs:
        print("    %d %-18s %s" % (cores, name, " ".join("%.3f" % x["loop"] for x in runs[(cores, name)])))
    print("\nLast thermo line of each (md starts from LAMMPS's write_data of in.lj's set-up):\n")
    for cores, name, cmd, parse in configs:
        print("    %d %-18s %s" % (cores, name, med[(cores, name)]["thermo"]))
    print("\nCommands (in a directory holding bench/md/in.lj and start.data from `lmp -in in.start %s`,"
          " in.start = in.lj with `run ${steps}` replaced by `write_data start.data`; OMP_NUM_THREADS=1%s):\n"
          % (" ".join(lmp_vars), "" if args.no_rt else "; each under chrt -f 10"))
    for cores, name, cmd, parse in configs:
        print("    " + " ".join(cmd).replace(md, "md").replace(lmp, "lmp"))
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
