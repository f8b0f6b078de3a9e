#!/usr/bin/env bash
# One round on the H100 machine, inside one 10-minute call (the device tool runs it from the
# repository root): build the GPU targets, run the GPU tests, the particles example (main job),
# SASS comparison, the transpose and gather_scatter examples, the time loop, append/compaction
# (append_compact_gpu, its table in log.txt), the PIC step (pic_step_gpu), the MD app with and
# without CUDA graphs (md_graphs.txt) and the GPU benchmarks. scripts/device_sanitize.sh runs
# compute-sanitizer over the same build afterwards.
# Every step has a time limit and writes to $OUT as it goes, so a slow step costs its own
# result only. Files in $OUT (at most 8 come back): log.txt, particles.txt, sass.txt,
# time_loop.txt, pic_step.txt, md_graphs.txt, bench.png (BENCH=1) and results.tgz (every step's
# output and the benchmark JSON).
#   OUT=/some/dir REV=$(git rev-parse --short HEAD) bash scripts/device_round.sh
# BENCH=0 leaves out the Google Benchmark suites. ONLY_BUILD=1 BUILD_LIMIT=550 only builds (the
# whole build can take longer than one call allows with the rest; run again while it is warm). REV names the commit in the log (the device
# machine's copy of .git may be stale).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT="${OUT:-$PWD/out}"
BUILD="${BUILD:-/tmp/build}"
RES=/tmp/results
MIN_TIME="${BENCH_MIN_TIME:-0.1s}"
mkdir -p "$OUT" "$RES" "$BUILD"
exec > >(tee -a "$OUT/log.txt") 2>&1
status=0
run() { # run LIMIT NAME COMMAND...: a step with a time limit; its output goes to $RES/NAME.txt
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
targets=(particles_gpu transpose gather_scatter_gpu copy_gpu drift_gpu one_field_gpu most_fields_gpu
         convert_gpu gather_gpu scatter_gpu view_kernel_gpu per_thread_gpu time_loop_gpu md_gpu
         md_compare_thermo mpi_gpu_device_test mpi_gpu_nccl_device_test mpi_gpu_device_migration_test
         mpi_gpu_device_halo_test
         append_compact_gpu pic_step_gpu)
run 60 configure cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON \
    -DLAYOUT_BUILD_BENCHMARKS=ON
# Every GPU test executable and README block the build has, beside the targets above.
targets+=($(cmake --build "$BUILD" --target help | grep -oE '^(gpu_[a-z_]+|readme_0[0-9]_[a-z_]+)' | sort -u))
run "${BUILD_LIMIT:-300}" build cmake --build "$BUILD" -j "$(nproc)" --target "${targets[@]}" -- -k 0 ||
    grep -E "error|FAILED" "$RES/build.txt" | head -30
if [[ "${ONLY_BUILD:-0}" != 0 ]]; then # a first call builds, the next (machine still warm) runs
    echo "== built, status $status"
    exit $status
fi
exe() { find "$BUILD" -type f -name "$1" -perm -u+x -print -quit; }

run 180 gpu_tests ctest --test-dir "$BUILD" -L gpu --output-on-failure
grep -E "tests passed|tests failed|Failed|Passed" "$RES/gpu_tests.txt"
run 180 particles "$(exe particles_gpu)"
cp "$RES/particles.txt" "$OUT/"
tail -12 "$RES/particles.txt"
python3 bench/sass_compare.py "$(exe particles_gpu)" -o "$OUT/sass.txt" && grep -E "of [0-9]+ library" "$OUT/sass.txt"
run 30 transpose "$(exe transpose)"
run 90 gather_scatter "$(exe gather_scatter_gpu)"
tail -14 "$RES/gather_scatter.txt"
run 120 time_loop "$(exe time_loop_gpu)"
cp "$RES/time_loop.txt" "$OUT/"
cat "$RES/time_loop.txt"
run 120 append_compact "$(exe append_compact_gpu)"
cat "$RES/append_compact.txt"
run 120 pic_step "$(exe pic_step_gpu)"
cp "$RES/pic_step.txt" "$OUT/"
sed -n '/^version/,$p' "$RES/pic_step.txt"
# The MD app's 32,000-atom run with and without CUDA graphs, in one process (#29).
run 120 md_graphs "$(exe md_gpu)" --lattice fcc 0.8442 --cells 20 20 20 --device gpu --steps 2000 \
    --graph-compare 3 --layout soa
cp "$RES/md_graphs.txt" "$OUT/"
tail -5 "$RES/md_graphs.txt"
if [[ "${BENCH:-1}" != 0 ]]; then
    for b in copy_gpu drift_gpu one_field_gpu most_fields_gpu convert_gpu gather_gpu scatter_gpu \
             view_kernel_gpu per_thread_gpu; do
        run 90 "$b" "$(exe $b)" --benchmark_format=json --benchmark_out="$RES/$b.json" \
            --benchmark_out_format=json --benchmark_min_time="$MIN_TIME"
    done
    python3 bench/plot.py "$RES"/copy_gpu.json "$RES"/drift_gpu.json "$RES"/one_field_gpu.json \
        "$RES"/most_fields_gpu.json -o "$OUT/bench.png"
fi
tar czf "$OUT/results.tgz" -C "$RES" .
echo "== done, status $status"
exit $status
