#!/usr/bin/env bash
# Issue #19 on the H100, in one device call (under 10 minutes): builds what the vector accesses
# and the default elements per thread touch, runs the for_each GPU test (and memcheck on it), the
# particles example (library rows with one and with the default elements per thread, raw and
# LLAMA-style AoS kernels, the targets under the table), the SASS comparison with load/store
# widths per kernel, the per-thread benchmark and the MD force kernel against its raw twin at
# 32,000 and 2,048,000 atoms (the default must not slow it down). Writes to $OUT:
#   log.txt, particles.txt, sass.txt, per_thread_gpu.json, md.txt, results.tgz (every step's
#   output)
#   OUT=/some/dir REV=$(git rev-parse --short HEAD) bash scripts/device_vec.sh
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT="${OUT:-$PWD/out}"
BUILD="${BUILD:-/tmp/build-vec}"
RES=/tmp/results-vec
mkdir -p "$OUT" "$BUILD" "$RES"
exec > >(tee -a "$OUT/log.txt") 2>&1
status=0
run() { # run LIMIT NAME COMMAND...: one step with a time limit, its output in $RES/NAME.txt
    local limit=$1 name=$2; shift 2
    local start=$SECONDS
    timeout "$limit" "$@" > "$RES/$name.txt" 2>&1
    local rc=$?
    echo "[$name] rc=$rc $((SECONDS - start))s"
    [[ $rc -ne 0 ]] && status=1
    return $rc
}

echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) commit ${REV:-unknown}," \
     "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
run 60 configure cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON \
    -DLAYOUT_BUILD_BENCHMARKS=ON
run 300 build cmake --build "$BUILD" -j "$(nproc)" --target gpu_for_each_test particles_gpu \
    per_thread_gpu md_gpu gather_scatter_gpu time_loop_gpu || tail -30 "$RES/build.txt"
exe() { find "$BUILD" -type f -name "$1" -perm -u+x -print -quit; }

run 60 for_each_test "$(exe gpu_for_each_test)"
tail -3 "$RES/for_each_test.txt"
run 120 memcheck compute-sanitizer --tool memcheck --error-exitcode 1 \
    "$(exe gpu_for_each_test)" --gtest_brief=1
tail -2 "$RES/memcheck.txt"
run 150 particles "$(exe particles_gpu)" --reps 10
cp "$RES/particles.txt" "$OUT/"
sed -n '/^kernel /,$p' "$OUT/particles.txt"
python3 bench/sass_compare.py "$(exe particles_gpu)" -o "$OUT/sass.txt" > /dev/null &&
    grep -E "of [0-9]+ library|drift|integrate" "$OUT/sass.txt" | grep -E "library|LDG" | head -40
run 120 per_thread_gpu "$(exe per_thread_gpu)" --benchmark_format=json \
    --benchmark_out="$OUT/per_thread_gpu.json" --benchmark_out_format=json \
    --benchmark_min_time=0.05s
grep -E "^(drift|one_field|most_fields)" "$RES/per_thread_gpu.txt" | awk '{print $1, $2}'
# Kernels that take the new default and touch memory outside the view by i (compare with
# bench/results/h100-2026-11-24 and h100-2026-11-23).
run 90 gather_scatter "$(exe gather_scatter_gpu)"
tail -14 "$RES/gather_scatter.txt"
run 120 time_loop "$(exe time_loop_gpu)"
tail -12 "$RES/time_loop.txt"
md="$(exe md_gpu)"
{
    for cells in 20 80; do
        for l in soa aos aosoa32; do
            echo "== md_gpu --cells $cells --layout $l"
            timeout 60 "$md" --lattice fcc 0.8442 --cells $cells $cells $cells --device gpu \
                --layout $l --steps 20 --compare-raw 20 2>&1 | grep -E "Performance|Force kernel|library|raw (SoA|AoS)"
        done
    done
} > "$OUT/md.txt" 2>&1
cat "$OUT/md.txt"
tar czf "$OUT/results.tgz" -C "$RES" .
echo "== done, status $status"
exit $status
