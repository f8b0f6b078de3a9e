#!/usr/bin/env bash
# Session t, round b (one H200): round a's new test rewritten (AoSoA block gaps, which only the
# element block's preparation zeroes; round a's AoS version could not fail, AoS copies carry a
# source's padding): the workspace tests, initcheck over them, then the new test against the
# header without the fix (it must fail there).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-t; S=${S:-/tmp/steps-t-b}
source scripts/device_steps.sh
step 90 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=OFF
step 200 build cmake --build $B -j 16 --target gpu_workspace_test
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
step 60 gpu_workspace_test $(exe gpu_workspace_test) --gtest_brief=1
grep -E "PASSED|FAILED|tests ran" $S/gpu_workspace_test.txt | sort | uniq -c | tee -a $S/log.txt
step 120 initcheck compute-sanitizer --tool initcheck --error-exitcode 99 \
  $(exe gpu_workspace_test) --gtest_brief=1
grep -E "ERROR SUMMARY|PASSED|FAILED" $S/initcheck.txt | head -4 | tee -a $S/log.txt
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
grep -E "PASSED|FAILED|Failure|block [0-9]" $S/unfixed.txt | head -6 | tee -a $S/log.txt
git checkout include/layout/cuda/workspace.hpp 2>/dev/null || true
save
