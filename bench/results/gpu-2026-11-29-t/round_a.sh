#!/usr/bin/env bash
# Session t, round a (one H200): the workspace's element block prepared as a container's own
# (padding zeroed). The tests of every algorithm that hands a block to the container, the new
# test, initcheck over the program whose initcheck failed before the fix (and the new test), then
# the new test against the header without the fix (it must fail there).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-t; S=${S:-/tmp/steps-t-a}
source scripts/device_steps.sh
step 90 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON
step 300 build cmake --build $B -j 16 --target gpu_workspace_test gpu_allocation_failure_test \
  gpu_algorithms_test gpu_algorithms_compact_test gpu_vector_test mpi_gpu_device_migration_test -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
for t in gpu_workspace_test gpu_allocation_failure_test gpu_algorithms_test \
         gpu_algorithms_compact_test gpu_vector_test; do
  step 120 $t $(exe $t) --gtest_brief=1
  grep -E "PASSED|FAILED|tests ran" $S/$t.txt | sort | uniq -c | tee -a $S/log.txt
done
step 120 migration ctest --test-dir $B -R 'device_migration' --output-on-failure
grep -E "tests passed|tests failed|Failed|Passed" $S/migration.txt | tail -12 | tee -a $S/log.txt
ic=(compute-sanitizer --tool initcheck --error-exitcode 99)
step 150 initcheck_allocation_failure "${ic[@]}" --report-api-errors no \
  $(exe gpu_allocation_failure_test) --gtest_brief=1
grep -E "ERROR SUMMARY|PASSED|FAILED" $S/initcheck_allocation_failure.txt | head -4 | tee -a $S/log.txt
step 90 initcheck_element_block "${ic[@]}" $(exe gpu_workspace_test) \
  --gtest_filter='element_block*:*steady_state*' --gtest_brief=1
grep -E "ERROR SUMMARY|PASSED|FAILED" $S/initcheck_element_block.txt | head -4 | tee -a $S/log.txt
# The new test against the header without the fix: the prepare call removed, rebuilt, run.
python3 - <<'PY'
import re
p = 'include/layout/cuda/workspace.hpp'
s = open(p).read()
s2 = re.sub(r'layout::detail::transfer_prepare_block\(\s*typename C::view_type\([^;]*\);', '', s)
assert s2 != s
open(p, 'w').write(s2)
PY
step 200 build_unfixed cmake --build $B -j 16 --target gpu_workspace_test
step 60 unfixed $(exe gpu_workspace_test) --gtest_filter='element_block*' --gtest_brief=1
grep -E "PASSED|FAILED|Failure|byte" $S/unfixed.txt | head -6 | tee -a $S/log.txt
git checkout include/layout/cuda/workspace.hpp 2>/dev/null || true
save
