#!/usr/bin/env bash
# On the GPU machine, in one go, for gather / scatter / permutation / sort by key:
#   builds tests/cuda/algorithms_test.cu, examples/gather_scatter and bench/{gather,scatter}_gpu.cu
#   with nvcc directly (no CMake wiring needed), runs the GPU tests, the example and both
#   benchmarks, and prints the SASS summary of the library's gather kernels next to the raw ones.
# Writes to $OUT: test.txt, gather_scatter.txt, gather_gpu.json, scatter_gpu.json, sass.txt.
# Usage: OUT=/some/dir bash bench/run_algorithms.sh
# Environment: BUILD (default /tmp/build-algorithms), BENCH_MIN_TIME (default 0.2s),
# SANITIZE=1 to also run the small GPU tests under compute-sanitizer memcheck.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

OUT="${OUT:-$PWD/out}"
BUILD="${BUILD:-/tmp/build-algorithms}"
MIN_TIME="${BENCH_MIN_TIME:-0.2s}"
mkdir -p "$OUT" "$BUILD"
status=0

echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) $(git rev-parse --short HEAD 2>/dev/null || echo no-git)" \
     "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null || echo no nvidia-smi)"

NVCC=(nvcc -std=c++20 --expt-relaxed-constexpr -arch=sm_90 -O3 -lineinfo -Iinclude)
build() { # name, then the command's arguments
    local name=$1; shift
    if ! "${NVCC[@]}" "$@" -o "$BUILD/$name" > "$BUILD/$name.log" 2>&1; then
        echo "build of $name failed:"; tail -30 "$BUILD/$name.log"; return 1
    fi
}
echo "== build (parallel)"
build algorithms_test --extended-lambda -Itests -Itests/cuda tests/cuda/algorithms_test.cu \
    tests/cuda/gpu_test_main.cu -lgtest -lpthread & p1=$!
build gather_scatter_gpu examples/gather_scatter/gather_scatter.cu & p2=$!
build gather_gpu bench/gather_gpu.cu -lbenchmark -lpthread & p3=$!
build scatter_gpu bench/scatter_gpu.cu -lbenchmark -lpthread & p4=$!
for p in $p1 $p2 $p3 $p4; do wait $p || status=1; done
grep -h "warning" "$BUILD"/*.log | head -10

echo "== GPU tests"
if [[ -x $BUILD/algorithms_test ]]; then
    "$BUILD/algorithms_test" > "$OUT/test.txt" 2>&1 || status=1
    grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|FAILED" "$OUT/test.txt" | head -20
fi

echo "== example"
if [[ -x $BUILD/gather_scatter_gpu ]]; then
    "$BUILD/gather_scatter_gpu" > "$OUT/gather_scatter.txt" 2>&1 || status=1
    tail -14 "$OUT/gather_scatter.txt"
fi

echo "== benchmarks (min time $MIN_TIME)"
for b in gather_gpu scatter_gpu; do
    [[ -x $BUILD/$b ]] || continue
    if ! "$BUILD/$b" --benchmark_out="$OUT/$b.json" --benchmark_out_format=json \
            --benchmark_min_time="$MIN_TIME" > "$OUT/$b.txt" 2>&1; then
        echo "$b failed:"; tail -20 "$OUT/$b.txt"; status=1
    fi
    python3 - "$OUT/$b.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for b in d["benchmarks"]:
    if "error_message" in b:
        print(f"{b['name']:<40} ERROR {b['error_message']}")
    else:
        print(f"{b['name']:<40} {b['real_time']:9.1f} us {b['bytes_per_second']/1e9:8.1f} GB/s")
EOF
done

echo "== SASS of the gather kernels (memory instructions per kernel)"
if command -v cuobjdump > /dev/null && [[ -x $BUILD/gather_gpu ]]; then
    cuobjdump -sass "$BUILD/gather_gpu" | awk '
        /Function :/ { if (name) printf "%-6d LDG %-3d STG %-3d  %s\n", total, ldg, stg, name;
                       name = $3; total = ldg = stg = 0; next }
        /^ +\/\*[0-9a-f]+\*\// { total++ }
        /LDG/ { ldg++ } /STG/ { stg++ }
        END { if (name) printf "%-6d LDG %-3d STG %-3d  %s\n", total, ldg, stg, name }' |
        grep -E "gather|raw|move_chunks" | c++filt | sed -E 's/algo_bench::|layout::(policy::)?//g' \
        > "$OUT/sass.txt"
    cut -c1-160 "$OUT/sass.txt"
fi
if [[ "${SANITIZE:-0}" == 1 && -x $BUILD/algorithms_test ]]; then
    echo "== compute-sanitizer memcheck and racecheck of the GPU tests (not the large ones)"
    for tool in memcheck racecheck; do
        compute-sanitizer --tool $tool --print-limit 10 "$BUILD/algorithms_test" \
            --gtest_filter="${SANITIZE_FILTER:--*large*}" > "$OUT/$tool.txt" 2>&1 || status=1
        grep -E "ERROR SUMMARY|tests ran|PASSED|FAILED" "$OUT/$tool.txt" | head -5
    done
fi
echo "== files in $OUT: $(ls "$OUT" | tr '\n' ' ')"
exit $status
