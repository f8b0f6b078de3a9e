#!/usr/bin/env bash
# Session n, round a (one GPU): the build changes of this session on the GPU machine (CMake 4,
# g++ 13 as nvcc's host compiler): the header tests (the C++ units, all_headers.cu compiled whole,
# layout/cuda's units to PTX), the transpose example (cuda_std_20 now) run, the consumer tests
# (their builds get this build's Release flags now), and a few GPU tests.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-n; S=${S:-/tmp/steps-n-a}
source scripts/device_steps.sh
step 90 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=OFF
grep -c "std=c++17" $B/build.ninja | xargs echo "std=c++17 in build.ninja:" | tee -a $S/log.txt
step 400 build cmake --build $B -j 16 --target layout_header_tests layout_cuda_header_tests \
  transpose gpu_error_test gpu_vector_test gpu_copy_test -- -k 0
grep -E "error:|FAILED" $S/build.txt | head | tee -a $S/log.txt
step 60 transpose $(exe transpose)
tail -3 $S/transpose.txt | tee -a $S/log.txt
step 120 gpu_tests ctest --test-dir $B -R "^gpu_(error|vector|copy)_test$" --output-on-failure
grep -E "tests passed|Passed|Failed|Skipped" $S/gpu_tests.txt | tee -a $S/log.txt
step 240 consumer ctest --test-dir $B -L consumer --output-on-failure -j 4
grep -E "tests passed|Passed|Failed" $S/consumer.txt | tee -a $S/log.txt
save
