#!/usr/bin/env bash
# This session's last x2 round (not committed): build, quick checks, python diagnosis, then
# device_mpi_round.sh (plans' tests, md tests, the migration/halo benchmark).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
B=/tmp/build-mpi; S=/tmp/steps-extra; mkdir -p $S $OUT
log() { echo "$*" | tee -a $S/log.txt; }
py=$(command -v python3); pyb=$($py -m pybind11 --cmakedir 2>/dev/null)
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON \
  -DPython3_EXECUTABLE=$py -Dpybind11_DIR=$pyb > $S/configure.txt 2>&1
start=$SECONDS
cmake --build $B -j 30 --target mpi_gpu_device_migration_test mpi_gpu_device_halo_test mpi_gpu_device_test \
  mpi_gpu_nccl_device_test md_mpi_gpu md_compare_thermo gpu_algorithms_compact_test layout_columns \
  device_migrate_bench_gpu migrate_bench_gpu md md_gpu md_compare_checkpoint > $S/build.txt 2>&1; log "[build] rc=$? $((SECONDS-start))s"
grep -E "error|warning" $S/build.txt | head -10 | tee -a $S/log.txt
export NCCL_NVLS_ENABLE=0
compact=$(find $B -type f -name gpu_algorithms_compact_test -perm -u+x | head -1)
CUDA_VISIBLE_DEVICES=0 timeout 150 "$compact" > $S/compact.txt 2>&1
log "[gpu_algorithms_compact_test] rc=$? $(grep -E '\[  PASSED  \]|\[  FAILED  \]' $S/compact.txt | head -3 | xargs)"
P=$(dirname "$(find $B -name 'layout_columns*.so' | head -1)")
log "python: $($py -c 'import numpy; print("numpy", numpy.__version__)' 2>&1) $($py -c 'import ml_dtypes; print("ml_dtypes", ml_dtypes.__version__)' 2>&1 | tail -1)"
for code in "import cupy" "import sys; sys.path.insert(0,'$P'); import layout_columns; import cupy" \
    "import cupy; import sys; sys.path.insert(0,'$P'); import layout_columns" "import ml_dtypes" \
    "import sys; sys.path.insert(0,'$P'); import layout_columns; import ml_dtypes" \
    "import sys; sys.path.insert(0,'$P'); import layout_columns; import torch" "import torch; import cupy"; do
  (cd $P && CUDA_VISIBLE_DEVICES=0 timeout 60 $py -X faulthandler -c "$code" > $S/pyprobe.txt 2>&1); rc=$?
  log "  rc=$rc : $code : $(grep -m1 'File' $S/pyprobe.txt | xargs)"
done
CUDA_VISIBLE_DEVICES=0 timeout 120 ctest --test-dir $B -R 'python.columns' -V > $S/python.txt 2>&1
log "[python] rc=$?"; grep -E "python.columns|Passed|Failed|SegFault" $S/python.txt | tail -14 | tee -a $S/log.txt
(cd $P && CUDA_VISIBLE_DEVICES=0 timeout 120 $py -X faulthandler -c "import cupy, torch, runpy, sys; sys.argv = ['test_columns_gpu.py', '$P']; runpy.run_path('$PWD/examples/python/test_columns_gpu.py', run_name='__main__')" > $S/python_consumers_first.txt 2>&1)
log "[python, CuPy and PyTorch imported first] rc=$?"; grep -E "python.columns|Error|error|File" $S/python_consumers_first.txt | head -14 | tee -a $S/log.txt
CUDA_VISIBLE_DEVICES=0 timeout 200 ctest --test-dir $B -R '^md\.gpu\.restart' --output-on-failure > $S/md_restart.txt 2>&1
log "[md.gpu.restart*] rc=$? $(grep -E 'tests passed|tests failed' $S/md_restart.txt)"; grep -E "Failed|\*\*\*" $S/md_restart.txt | head -10 | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -np 2)
timeout 200 "${mpi[@]}" compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 3 \
  $(find $B -type f -name mpi_gpu_device_test -perm -u+x | head -1) > $S/memcheck_device_test.txt 2>&1
log "[memcheck mpi_gpu_device_test] rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $S/memcheck_device_test.txt | sort | uniq -c | xargs)"
tar czf $OUT/extra.tgz -C $S .
BUILD=$B MD=1 SANITIZE=0 STRONG=0 MD_TESTS='^md_mpi_gpu.*np[12]' bash scripts/device_mpi_round.sh
