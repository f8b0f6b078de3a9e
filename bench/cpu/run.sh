#!/usr/bin/env bash
# The CPU measurement of issue 13 in one command: builds particles_cpu and cpu_ratios under
# g++ -O2, g++ -O3 and clang++ -O2 (each where the compiler exists), then for each prints the
# disassembly check (vectorized yes/no per kernel and layout, bench/cpu/vector_check.py) and the
# library/raw ratio table (one thread and all OpenMP threads; useful GB/s against the copy
# bandwidth, the better of std::copy and a copy loop), then the split<aosoa<32>, soa> table
# (cpu_split_blocks), and at the end one summary table of cpu_ratios' rows.
#
#   bash bench/cpu/run.sh                       # n = 8M particles, 21 alternating runs each
#   bash bench/cpu/run.sh --n 33554432 --reps 11
#   CONFIGS="gcc-O3" bash bench/cpu/run.sh      # one configuration only
#
# Where a compiler is missing (the GPU machine has no clang) but build/cpu-bench-<config> holds
# binaries built elsewhere (and lib/libomp.so.5 for clang's OpenMP), those run.
# Arguments go to cpu_ratios (--n, --reps, --threads 1|all|both, --kernels). Build directories:
# build/cpu-bench-<config>. OMP_NUM_THREADS etc. apply as usual.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

jobs="${LAYOUT_JOBS:-$(nproc 2>/dev/null || echo 2)}"
configs="${CONFIGS:-gcc-O2 gcc-O3 clang-O2}"
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
log=$(mktemp)
trap 'rm -f "$log"' EXIT

for config in $configs; do
    case "$config" in
        gcc-*) cxx=g++ ;;
        clang-*) cxx=clang++ ;;
        *) echo "run.sh: unknown configuration $config (gcc-O2, gcc-O3, clang-O2, ...)" >&2; exit 2 ;;
    esac
    flags="-${config#*-}"
    dir="build/cpu-bench-$config"
    if command -v "$cxx" >/dev/null 2>&1; then
        mkdir -p build
        if [[ -f "$dir/CMakeCache.txt" ]]; then generator_args=(); else generator_args=("${generator[@]}"); fi
        cmake -S . -B "$dir" "${generator_args[@]}" -DCMAKE_BUILD_TYPE=Release \
            -DCMAKE_CXX_COMPILER="$cxx" -DLAYOUT_HOST_BENCH_FLAGS="$flags" \
            -DLAYOUT_BUILD_TESTS=OFF -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON \
            -DLAYOUT_ENABLE_CUDA=OFF >"$dir.configure.log" 2>&1 ||
            { cat "$dir.configure.log" >&2; exit 1; }
        cmake --build "$dir" -j "$jobs" --target particles_cpu cpu_ratios cpu_split_blocks \
            >"$dir.build.log" 2>&1 ||
            { tail -50 "$dir.build.log" >&2; exit 1; }
        "$cxx" --version | head -1 >"$dir/compiler.txt"
        # The OpenMP runtime beside the binaries, for running them on a machine without it.
        omp=$(ldd "$dir/bench/cpu/cpu_ratios" | awk '/libomp/ {print $3}')
        if [[ -n "$omp" ]]; then mkdir -p "$dir/lib" && cp -L "$omp" "$dir/lib/"; fi
        echo "==== $config: $(cat "$dir/compiler.txt"), $flags"
    elif [[ -x "$dir/bench/cpu/cpu_ratios" && -x "$dir/examples/particles/particles_cpu" ]]; then
        # Binaries built on another machine (no -march: they run on any x86-64), for a machine
        # without this compiler; its OpenMP runtime comes along in $dir/lib (libomp.so.5).
        export LD_LIBRARY_PATH="$PWD/$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
        echo "==== $config: $cxx not found here: the binaries in $dir, built elsewhere by" \
             "$(cat "$dir/compiler.txt" 2>/dev/null || echo "an unknown compiler"), $flags"
    else
        echo "==== $config: $cxx not found, skipped"
        continue
    fi
    echo
    python3 bench/cpu/vector_check.py "$dir/examples/particles/particles_cpu"
    echo
    "$dir/bench/cpu/cpu_ratios" "$@" | tee -a "$log" | sed "s/^cpu_ratios:/cpu_ratios ($config):/"
    echo "== end $config" >>"$log"
    echo
    # split<aosoa<32>, soa>: the same n and repetitions (--n, --reps only).
    if [[ -x "$dir/bench/cpu/cpu_split_blocks" ]]; then
        split_args=()
        for ((k = 1; k <= $#; k++)); do
            case "${!k}" in --n | --reps) j=$((k + 1)); split_args+=("${!k}" "${!j}") ;; esac
        done
        "$dir/bench/cpu/cpu_split_blocks" "${split_args[@]}" |
            sed "s/^cpu_split_blocks:/cpu_split_blocks ($config):/"
        echo
    fi
done

# One table: lib/raw per kernel, layout and thread count (columns), one column per configuration.
python3 - "$log" "$configs" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
configs = sys.argv[2].split()
runs = text.split("== end ")
table, order, names = {}, [], []
for run in runs[:-1]:
    name = configs[len(names)] if len(names) < len(configs) else "?"
    names.append(name)
    for m in re.finditer(r"^(\w+)\s+(\w+)\s+(aos|soa|aosoa32|split)\s+(\d+)\s+[\d.]+\s+[\d.]+\s+([\d.]+)\s+[\d.]+\s+([\d.]+)%", run, re.M):
        key = (m.group(1), m.group(2), m.group(3), m.group(4))
        if key not in table:
            order.append(key)
            table[key] = {}
        table[key][name] = (float(m.group(5)), float(m.group(6)))
print("summary: library / hand-written time (1.000 = no overhead; > 1.05 marked *), and the "
      "library's % of copy bandwidth (the better of std::copy and a copy loop) on as many threads")
print(f"{'kernel':<12} {'element':<9} {'layout':<8} {'thr':>4} " +
      " ".join(f"{n:>18}" for n in names))
worst = 0.0
for key in order:
    cells = []
    for n in names:
        if n in table[key]:
            r, pct = table[key][n]
            worst = max(worst, r)
            cells.append(f"{r:6.3f}{'*' if r > 1.05 else ' '} {pct:6.1f}%copy")
        else:
            cells.append(f"{'-':>18}")
    print(f"{key[0]:<12} {key[1]:<9} {key[2]:<8} {key[3]:>4} " + " ".join(f"{c:>18}" for c in cells))
print(f"\nworst lib/raw over all configurations: {worst:.3f}")
PY
