#!/usr/bin/env bash
# Session m, round c (one GPU): after error.hpp's source_location change, gpu_error_test and
# gpu_vector_test (check() on every allocation and copy) run alone and under compute-sanitizer's
# memcheck.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-m; S=${S:-/tmp/steps-m-c}
source scripts/device_steps.sh
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=OFF -DLAYOUT_BUILD_BENCHMARKS=OFF
step 300 build cmake --build $B -j 16 --target gpu_error_test gpu_vector_test -- -k 0
grep -E "error:|FAILED" $S/build.txt | head | tee -a $S/log.txt
for t in error vector; do
  step 60 ${t}_test $(exe gpu_${t}_test)
  grep -E "PASSED|FAILED" $S/${t}_test.txt | tee -a $S/log.txt
  step 200 memcheck_$t compute-sanitizer --tool memcheck $(exe gpu_${t}_test)
  grep -E "ERROR SUMMARY|PASSED|FAILED|Program hit" $S/memcheck_$t.txt | tee -a $S/log.txt
done
save
