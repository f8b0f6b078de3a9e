#!/usr/bin/env bash
# On the GPU machine, in one go: configure and build the particles example and the GPU benchmarks,
# run particles_gpu, run each GPU benchmark to JSON, chart them, and compare the SASS of every
# library kernel with its hand-written twin. Writes 8 files to $OUT:
#   particles.txt  the example's output (verification and the table)
#   copy_gpu.json drift_gpu.json one_field_gpu.json most_fields_gpu.json   Google Benchmark JSON
#   convert_gpu.json   layout::cuda::convert vs naive vs memcpy (printed as a table, not charted)
#   bench.png      GB/s per kernel and layout (bench/plot.py)
#   sass.txt       library vs raw SASS (bench/sass_compare.py)
# Usage: OUT=/some/dir bash bench/run_h100.sh [particles_gpu arguments]
# BUILD (default /tmp/build) is the build directory; BENCH_MIN_TIME (default 0.3s) goes to
# --benchmark_min_time. The exit status is non-zero if the build or any verification fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

OUT="${OUT:-$PWD/out}"
BUILD="${BUILD:-/tmp/build}"
MIN_TIME="${BENCH_MIN_TIME:-0.3s}"
mkdir -p "$OUT"
status=0

echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) $(git rev-parse --short HEAD 2>/dev/null || echo no-git)" \
     "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null || echo no nvidia-smi)"

echo "== configure and build (log: $BUILD/build.log)"
mkdir -p "$BUILD"
targets=(particles_gpu drift_gpu one_field_gpu most_fields_gpu copy_gpu convert_gpu)
if ! { cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
           -DLAYOUT_BUILD_TESTS=OFF -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON &&
       cmake --build "$BUILD" -j "$(nproc)" --target "${targets[@]}"; } > "$BUILD/build.log" 2>&1; then
    tail -60 "$BUILD/build.log"
    cp "$BUILD/build.log" "$OUT/build.log"
    echo "run_h100: build failed"
    exit 1
fi
grep -E "warning" "$BUILD/build.log" | head -20 || true
find_exe() { find "$BUILD" -type f -name "$1" -perm -u+x -print -quit; }

echo "== particles_gpu $*"
particles=$(find_exe particles_gpu)
"$particles" "$@" 2>&1 | tee "$OUT/particles.txt" || status=1 # pipefail: particles_gpu's status

echo "== benchmarks (min time $MIN_TIME each)"
for b in copy_gpu drift_gpu one_field_gpu most_fields_gpu convert_gpu; do
    exe=$(find_exe "$b")
    if ! "$exe" --benchmark_format=json --benchmark_out="$OUT/$b.json" --benchmark_out_format=json \
            --benchmark_min_time="$MIN_TIME" > /dev/null 2> "$BUILD/$b.err"; then
        echo "run_h100: $b failed:"; tail -20 "$BUILD/$b.err"; status=1
    fi
done

echo "== conversion (convert_gpu.json)"
python3 - "$OUT/convert_gpu.json" <<'EOF' || status=1
import json, sys
errors = 0
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    name = b["name"].removesuffix("/manual_time")
    if b.get("error_occurred"):  # a verification mismatch, or a CUDA error
        errors += 1
        print(f"{name:<42} ERROR {b.get('error_message', '')}")
    else:
        print(f"{name:<42} {b['real_time']:9.1f} us {b['bytes_per_second'] / 1e9:8.1f} GB/s"
              f" {b.get('pct_of_memcpy', 0):6.1f} % of memcpy")
sys.exit(1 if errors else 0)
EOF

echo "== chart"
python3 bench/plot.py "$OUT"/copy_gpu.json "$OUT"/drift_gpu.json "$OUT"/one_field_gpu.json \
    "$OUT"/most_fields_gpu.json -o "$OUT/bench.png" || status=1

echo "== SASS: library vs raw"
python3 bench/sass_compare.py "$particles" -o "$OUT/sass.txt" || status=1

echo "== files in $OUT: $(ls "$OUT" | tr '\n' ' ')"
exit $status
