#!/usr/bin/env bash
# This session's first round, on 4 GPUs of one host: build, the Python import-order probes
# (module first, after the version script), then device_mpi_round.sh with md (np1/2/4 tests,
# weak and strong scaling, the migration/halo benchmark on 2 and 4 ranks).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-mpi; S=/tmp/steps-extra; mkdir -p $S $OUT
log() { echo "$*" | tee -a $S/log.txt; }
py=$(command -v python3); pyb=$($py -m pybind11 --cmakedir 2>/dev/null)
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON \
  -DPython3_EXECUTABLE=$py -Dpybind11_DIR=$pyb > $S/configure.txt 2>&1
start=$SECONDS
cmake --build $B -j "$(nproc)" --target mpi_gpu_device_migration_test mpi_gpu_device_halo_test \
  mpi_gpu_device_test mpi_gpu_nccl_device_test md_mpi_gpu md_compare_thermo layout_columns \
  device_migrate_bench_gpu migrate_bench_gpu > $S/build.txt 2>&1; log "[build] rc=$? $((SECONDS-start))s"
grep -E "error|warning" $S/build.txt | head -10 | tee -a $S/log.txt
P=$(dirname "$(find $B -name 'layout_columns*.so' | head -1)")
log "python: $py $($py -c 'import numpy; print("numpy", numpy.__version__)' 2>&1)"
for code in "import sys; sys.path.insert(0,'$P'); import layout_columns; import ml_dtypes" \
    "import sys; sys.path.insert(0,'$P'); import layout_columns; import torch" \
    "import sys; sys.path.insert(0,'$P'); import layout_columns; import cupy" \
    "import cupy; import sys; sys.path.insert(0,'$P'); import layout_columns"; do
  (cd $P && CUDA_VISIBLE_DEVICES=0 timeout 60 $py -X faulthandler -c "$code" > $S/pyprobe.txt 2>&1); rc=$?
  log "  rc=$rc : $code : $(grep -m1 'File' $S/pyprobe.txt | xargs)"
done
nm -D --defined-only "$(find $B -name 'layout_columns*.so' | head -1)" | wc -l | xargs echo "  exported symbols:" | tee -a $S/log.txt
CUDA_VISIBLE_DEVICES=0 timeout 120 ctest --test-dir $B -R 'python.columns' -V > $S/python.txt 2>&1
log "[python] rc=$?"; grep -E "python.columns|Passed|Failed|SegFault" $S/python.txt | tail -8 | tee -a $S/log.txt
tar czf $OUT/extra.tgz -C $S .
BUILD=$B MD=1 SANITIZE=0 bash scripts/device_mpi_round.sh
tar czf $OUT/extra.tgz -C $S .
