#!/usr/bin/env bash
# Session t, round c (one H200, the session's last device minutes): initcheck over the tests of
# the algorithms that hand a block to the container, which ran past call 1's 90 s as whole
# programs: gpu_algorithms_test's sort_by_key and bin_by_key cases, gpu_algorithms_compact_test's
# remove_if cases.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-t; S=${S:-/tmp/steps-t-c}
source scripts/device_steps.sh
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=OFF
step 150 build cmake --build $B -j 16 --target gpu_algorithms_test gpu_algorithms_compact_test
ic=(compute-sanitizer --tool initcheck --error-exitcode 99)
step 90 initcheck_sort_bin "${ic[@]}" $(exe gpu_algorithms_test) \
  --gtest_filter='*sort_by_key*:*bin_by_key*:-*large*' --gtest_brief=1
grep -E "ERROR SUMMARY|PASSED|FAILED|tests ran" $S/initcheck_sort_bin.txt | head -4 | tee -a $S/log.txt
step 60 initcheck_remove_if "${ic[@]}" $(exe gpu_algorithms_compact_test) \
  --gtest_filter='*remove_if*' --gtest_brief=1
grep -E "ERROR SUMMARY|PASSED|FAILED|tests ran" $S/initcheck_remove_if.txt | head -4 | tee -a $S/log.txt
save
