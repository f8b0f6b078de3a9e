#!/usr/bin/env bash
# Session h, first H100 round (issue 29): layout::cuda::tabulate (gpu_for_each_test, and
# memcheck, racecheck and synccheck over its tests), pic_step_gpu twice with the inject phase
# through tabulate and once through the user's kernel (--inject kernel), Nsight Compute on the
# inject kernels of every version.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-h100; S=${S:-/tmp/steps-h-a}
source scripts/device_steps.sh
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=OFF -DLAYOUT_BUILD_BENCHMARKS=ON
step 300 build cmake --build $B -j "$(nproc)" --target pic_step_gpu gpu_for_each_test -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
step 60 for_each $(exe gpu_for_each_test); grep -E "\[  (PASSED|FAILED)" $S/for_each.txt | tee -a $S/log.txt
for tool in memcheck racecheck synccheck; do
  step 200 $tool compute-sanitizer --tool $tool --error-exitcode 3 $(exe gpu_for_each_test) \
    --gtest_filter='*tabulate*'
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $S/$tool.txt | tee -a $S/log.txt
done
for rep in 1 2; do
  step 120 pic_step_$rep $(exe pic_step_gpu); sed -n '/^version/,$p' $S/pic_step_$rep.txt | tee -a $S/log.txt
done
step 120 pic_step_kernel $(exe pic_step_gpu) --inject kernel
sed -n '/^version/,$p' $S/pic_step_kernel.txt | tee -a $S/log.txt
step 150 ncu_inject ncu --csv --page raw --metrics gpu__time_duration.sum,launch__registers_per_thread,launch__grid_size \
  --kernel-name regex:'inject|tabulate' --launch-skip 0 --launch-count 200 $(exe pic_step_gpu) --steps 20 --warmup 2
save
