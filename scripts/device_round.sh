#!/usr/bin/env bash
# One round on the H100 machine (the device tool runs it from the repository root):
#   bash scripts/device_round.sh tests   build everything, GPU tests, compute-sanitizer
#   bash scripts/device_round.sh bench   examples, benchmarks, chart, SASS comparison
#   bash scripts/device_round.sh all     both
# Results go to $OUT (at most 8 files come back): summary.txt, the key tables, and results.tgz
# with every log and JSON. BUILD (default /tmp/build) is reused when the machine is still warm.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
phase="${1:-all}"
OUT="${OUT:-$PWD/out}"
BUILD="${BUILD:-/tmp/build}"
RES=/tmp/results
mkdir -p "$OUT" "$RES" "$BUILD"
summary="$RES/summary.txt"
status=0
note() { echo "$*" | tee -a "$summary"; }

note "== $(date -u +%Y-%m-%dT%H:%M:%SZ) phase=$phase commit=$(git rev-parse --short HEAD 2>/dev/null || echo ?)"
note "== $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>&1)"

if ! { cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
         -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON &&
       cmake --build "$BUILD" -j "$(nproc)"; } > "$RES/build.log" 2>&1; then
    tail -40 "$RES/build.log"
    note "build FAILED"
    cp "$RES/build.log" "$OUT/"
    exit 1
fi
note "build ok ($(grep -c warning "$RES/build.log") warning lines)"
exe() { find "$BUILD" -type f -name "$1" -perm -u+x -print -quit; }

if [[ "$phase" == tests || "$phase" == all ]]; then
    ctest --test-dir "$BUILD" -L gpu --output-on-failure > "$RES/gpu_tests.txt" 2>&1 || status=1
    note "$(grep -E 'tests passed|tests failed' "$RES/gpu_tests.txt")"
    ctest --test-dir "$BUILD" -LE gpu -j "$(nproc)" > "$RES/host_tests.txt" 2>&1 || status=1
    note "host: $(grep -E 'tests passed|tests failed' "$RES/host_tests.txt")"
    for t in $(find "$BUILD/tests" -maxdepth 1 -type f -name 'gpu_*_test' -perm -u+x | sort); do
        for tool in memcheck racecheck initcheck; do
            log="$RES/sanitizer_$(basename "$t")_$tool.txt"
            timeout 240 compute-sanitizer --tool "$tool" --error-exitcode 99 "$t" > "$log" 2>&1
            rc=$?
            note "compute-sanitizer $tool $(basename "$t"): rc=$rc $(grep -E 'ERROR SUMMARY' "$log" | tail -1)"
            [[ $rc -ne 0 ]] && status=1
        done
    done
fi

if [[ "$phase" == bench || "$phase" == all ]]; then
    for ex in transpose gather_scatter_gpu; do
        e=$(exe "$ex")
        if [[ -n "$e" ]]; then
            "$e" > "$RES/$ex.txt" 2>&1 || { status=1; note "$ex FAILED"; }
            note "$ex: $(tail -1 "$RES/$ex.txt")"
        fi
    done
    OUT="$RES" BUILD="$BUILD" bash bench/run_h100.sh > "$RES/run_h100.log" 2>&1 || status=1
    note "run_h100: $(tail -1 "$RES/run_h100.log")"
    for b in convert_gpu gather_gpu scatter_gpu; do
        e=$(exe "$b")
        [[ -z "$e" ]] && continue
        "$e" --benchmark_format=json --benchmark_out="$RES/$b.json" --benchmark_out_format=json \
            --benchmark_min_time=0.2s > "$RES/$b.txt" 2>&1 || { status=1; note "$b FAILED"; }
    done
    cp "$RES/particles.txt" "$RES/sass.txt" "$RES/bench.png" "$OUT/" 2>/dev/null
    cp "$RES/transpose.txt" "$OUT/" 2>/dev/null
fi

tar czf "$OUT/results.tgz" -C "$RES" .
cp "$summary" "$OUT/summary.txt"
cat "$summary"
exit $status
