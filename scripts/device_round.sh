#!/usr/bin/env bash
# One round on the H100 machine, inside one 10-minute call (the device tool runs it from the
# repository root): build the GPU targets, run the GPU tests, the particles example (main job),
# SASS comparison, the transpose and gather_scatter examples, the time loop, append/compaction
# (append_compact_gpu, its table in log.txt), the PIC step (pic_step_gpu), the MD app with and
# without CUDA graphs (md_graphs.txt), the HDF5 and Python tests (io.txt, in results.tgz: the
# host and GPU tests of <layout/io/hdf5.hpp>, python.columns with NumPy and python.columns_gpu
# with CuPy and PyTorch) and the GPU benchmarks. scripts/device_sanitize.sh runs
# compute-sanitizer over the same build afterwards.
# Every step has a time limit and writes to $OUT as it goes, so a slow step costs its own
# result only. Files in $OUT (at most 8 come back): log.txt, particles.txt, sass.txt,
# time_loop.txt, pic_step.txt, md_graphs.txt, bench.png (BENCH=1) and results.tgz (every step's
# output and the benchmark JSON).
#   OUT=/some/dir REV=$(git rev-parse --short HEAD) bash scripts/device_round.sh
# BENCH=0 leaves out the Google Benchmark suites. ONLY_BUILD=1 BUILD_LIMIT=550 only builds (the
# whole build can take longer than one call allows with the rest; run again while it is warm). REV names the commit in the log (the device
# machine's copy of .git may be stale).
# ONLY=io builds and runs the HDF5 and Python tests alone (about 3 minutes from a cold machine):
# log.txt and io.txt (their whole output) come back, with results.tgz.
#   OUT=/some/dir ONLY=io bash scripts/device_round.sh
# ONLY=host builds tests/host with the machine's g++ (CI compiles them with g++ -fsyntax-only and
# runs them built by clang under ASan + UBSan only) and runs them, and the must-(not-)compile
# checks (label compile-fail: g++ and nvcc, the latter in batches): log.txt and host.txt come
# back, with results.tgz.
#   OUT=/some/dir ONLY=host bash scripts/device_round.sh
# The python3 on the PATH is the tests' interpreter (there, a venv with NumPy, h5py, CuPy,
# PyTorch and pip's pybind11, whose CMake files are passed when it has them); where FindHDF5
# finds no HDF5 (no h5cc on the PATH and nothing in the default paths), Ubuntu's serial HDF5 is
# named to it.
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
# md (and md_compare_checkpoint, with HDF5): the md.gpu.restart tests (labelled gpu) run them;
# md_mpi_gpu: the md_mpi_gpu.* tests (gpu; their ranks share the one GPU).
targets=(particles_gpu transpose gather_scatter_gpu copy_gpu drift_gpu one_field_gpu most_fields_gpu
         convert_gpu gather_gpu scatter_gpu view_kernel_gpu per_thread_gpu time_loop_gpu md_gpu
         md md_compare_thermo md_mpi_gpu mpi_gpu_device_test mpi_gpu_nccl_device_test
         mpi_gpu_device_migration_test mpi_gpu_device_halo_test
         append_compact_gpu pic_step_gpu)
config=()
python=$(command -v python3 || true)
if [[ -n "$python" ]]; then
    config+=(-DPython3_EXECUTABLE="$python")
    if pybind11_dir=$("$python" -m pybind11 --cmakedir 2>/dev/null) && [[ -d "$pybind11_dir" ]]; then
        config+=(-Dpybind11_DIR="$pybind11_dir")
    fi
fi
configure() {
    run 90 configure cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CUDA_ARCHITECTURES=90 -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON \
        -DLAYOUT_BUILD_BENCHMARKS=ON "${config[@]}" "$@"
}
configure
h5=/usr/lib/x86_64-linux-gnu/hdf5/serial
if ! grep -q "layout: HDF5 .* found" "$RES/configure.txt" && [[ -e $h5/libhdf5.so ]]; then
    echo "== FindHDF5 found nothing: again with Ubuntu's serial HDF5 named"
    configure -DHDF5_ROOT=$h5 -DHDF5_C_INCLUDE_DIR=/usr/include/hdf5/serial \
        -DHDF5_hdf5_LIBRARY_RELEASE=$h5/libhdf5.so
fi
grep -E "layout: (HDF5|no HDF5|examples/python|no Python)" "$RES/configure.txt"
# The HDF5 and Python tests' executables and module, where the configuration has them.
help=$(cmake --build "$BUILD" --target help)
io_targets=($(grep -oE '^(io_hdf5_test|gpu_io_hdf5_test|layout_columns|md_compare_checkpoint):' \
    <<<"$help" | tr -d :))
if [[ "${ONLY:-}" == host ]]; then
    targets=($(grep -oE '^host_[a-z0-9_]+_test' <<<"$help" | sort -u))
    BUILD_LIMIT=${BUILD_LIMIT:-360}
elif [[ "${ONLY:-}" == io ]]; then
    if [[ ${#io_targets[@]} == 0 ]]; then
        echo "== no HDF5 or Python test targets in this configuration: nothing to run"
        tar czf "$OUT/results.tgz" -C "$RES" .
        exit 1
    fi
    targets=("${io_targets[@]}")
    BUILD_LIMIT=${BUILD_LIMIT:-240} # configure, build and tests within one 10-minute call
else
    # Every GPU test executable and README block the build has, beside the targets above.
    targets+=("${io_targets[@]}"
              $(grep -oE '^(gpu_[a-z0-9_]+|readme_0[0-9]_[a-z_]+)' <<<"$help" | sort -u))
fi
run "${BUILD_LIMIT:-300}" build cmake --build "$BUILD" -j "$(nproc)" --target "${targets[@]}" -- -k 0 ||
    grep -E "error|FAILED" "$RES/build.txt" | head -30
if [[ "${ONLY_BUILD:-0}" != 0 ]]; then # a first call builds, the next (machine still warm) runs
    echo "== built, status $status"
    exit $status
fi
exe() { find "$BUILD" -type f -name "$1" -perm -u+x -print -quit; }
# HDF5 (labels io: io_hdf5_test, gpu_io_hdf5_test) and Python (label python: python.columns,
# python.columns_gpu), host and GPU, with their whole output: which readers and consumers ran.
io_tests() {
    run 240 io ctest --test-dir "$BUILD" -L '^(io|python)$' -V --timeout 200
    grep -E "Test +#[0-9]+: |tests passed|tests failed|\[  FAILED  \] [^0-9]|\[  SKIPPED \] [^ ]+$|python\.columns(_gpu)?: |SKIP:|h5py_check" \
        "$RES/io.txt" | sed -E 's/ \.{3,}/ /; s/\*\*\*/ /' | awk '!seen[$0]++' | head -80
}
if [[ "${ONLY:-}" == host ]]; then
    run 120 host ctest --test-dir "$BUILD" -L '^host$' -R '^host_' -j "$(nproc)" --output-on-failure
    run 120 compile_checks ctest --test-dir "$BUILD" -L '^compile-fail$' -j "$(nproc)" \
        --output-on-failure
    cat "$RES/compile_checks.txt" >> "$RES/host.txt"
    grep -E "tests passed|tests failed|\*\*\*Failed" "$RES/host.txt" | head -30
    cp "$RES/host.txt" "$OUT/"
    tar czf "$OUT/results.tgz" -C "$RES" .
    echo "== done, status $status"
    exit $status
fi
if [[ "${ONLY:-}" == io ]]; then
    io_tests
    cp "$RES/io.txt" "$OUT/"
    tar czf "$OUT/results.tgz" -C "$RES" .
    echo "== done, status $status"
    exit $status
fi

run 180 gpu_tests ctest --test-dir "$BUILD" -L gpu -LE '^(io|python)$' --output-on-failure
grep -E "tests passed|tests failed|Failed|Passed" "$RES/gpu_tests.txt"
io_tests
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
