#!/usr/bin/env bash
# This session's x2 round (not committed): builds, quick checks, then device_mpi_round.sh.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
B=/tmp/build-mpi; S=/tmp/steps-extra; mkdir -p $S $OUT
py=$(command -v python3); pyb=$($py -m pybind11 --cmakedir 2>/dev/null)
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON \
  -DPython3_EXECUTABLE=$py -Dpybind11_DIR=$pyb > $S/configure.txt 2>&1
( cmake -S ${SNAP:-.snap} -B /tmp/build-before -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON > $S/before_configure.txt 2>&1 &&
  nice cmake --build /tmp/build-before -j 8 --target mpi_gpu_device_test > $S/before_build.txt 2>&1 ) &
start=$SECONDS
cmake --build $B -j 28 --target mpi_gpu_device_migration_test mpi_gpu_device_halo_test mpi_gpu_device_test \
  mpi_gpu_nccl_device_test md_mpi_gpu md_compare_thermo gpu_algorithms_compact_test layout_columns \
  > $S/build.txt 2>&1; echo "[build] rc=$? $((SECONDS-start))s" | tee $S/log.txt
wait; echo "[before build] $(tail -1 $S/before_build.txt)" | tee -a $S/log.txt
export NCCL_NVLS_ENABLE=0
CUDA_VISIBLE_DEVICES=0 timeout 120 $B/tests/cuda/gpu_algorithms_compact_test > $S/compact.txt 2>&1
echo "[gpu_algorithms_compact_test] rc=$? $(grep -E 'PASSED|FAILED' $S/compact.txt | head -3 | xargs)" | tee -a $S/log.txt
timeout 120 ctest --test-dir $B -R 'python.columns' -V > $S/python.txt 2>&1
echo "[python] rc=$?" | tee -a $S/log.txt; grep -E "python.columns|Passed|Failed|SegFault" $S/python.txt | tail -12 | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -np 2)
timeout 120 "${mpi[@]}" /tmp/build-before/tests/mpi/mpi_gpu_device_test --gtest_filter='*run_on_its_stream*' > $S/before_test.txt 2>&1
echo "[stream test at 98811b6 (before the fix)] rc=$? $(grep -cE 'Failure|wrong' $S/before_test.txt) failure lines" | tee -a $S/log.txt
grep -E "wrong|Failure|PASSED|FAILED" $S/before_test.txt | head -8 | tee -a $S/log.txt
tar czf $OUT/extra.tgz -C $S .
BUILD=$B bash scripts/device_mpi_round.sh
