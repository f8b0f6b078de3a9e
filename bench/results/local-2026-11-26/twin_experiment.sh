#!/usr/bin/env bash
# The hand-written loops against themselves: builds cpu_ratios with a copy of
# examples/particles in which the "library" side runs a second instantiation of the
# hand-written runner (cpu_raw_runner_twin, the same source as cpu_raw_runner: its blocks_loop
# lambdas are new types, so its AoSoA loops are new functions at other addresses) wherever a
# hand-written loop exists. lib/raw is then hand-written code against itself: what this
# machine makes of identical loops. Run from the repository root:
#   bash bench/results/local-2026-11-26/twin_experiment.sh [O2 O3]
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r examples/particles "$work/p"
python3 - "$work/p/cpu_driver.hpp" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
start = s.index("struct cpu_raw_runner {")
end = s.index("\n};\n", start) + 4
twin = s[start:end].replace("struct cpu_raw_runner {", "struct cpu_raw_runner_twin {", 1)
s = s[:end] + "\n" + twin + s[end:]
old = """        if (parallel)
            layout::for_each_index(layout::exec::parallel, v, f);
        else
            layout::for_each_index(layout::exec::serial, v, f);"""
new = """        if constexpr (std::is_invocable_v<cpu_raw_runner_twin, const F&, const View&,
                                          std::size_t, std::size_t>) {
            if (parallel) cpu_raw_runner_twin{}.parallel(f, v);
            else cpu_raw_runner_twin{}(f, v);
        } else if (parallel)
            layout::for_each_index(layout::exec::parallel, v, f);
        else
            layout::for_each_index(layout::exec::serial, v, f);"""
assert old in s
open(p, "w").write(s.replace(old, new, 1))
PY
for o in "${@:-O2 O3}"; do
    g++ -DLAYOUT_BENCH_FLAGS="\"-$o hand-written twin vs hand-written\"" -I"$work/p" -Iinclude \
        -"$o" -DNDEBUG -fopenmp -std=gnu++20 bench/cpu/ratios.cpp -o "$work/twin-$o"
    "$work/twin-$o" --n 8388608 --reps 11 --kernels drift,one_field,most_fields --threads 1
done
