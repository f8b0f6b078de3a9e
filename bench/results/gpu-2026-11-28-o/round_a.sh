#!/usr/bin/env bash
# Session o, round a (one GPU): CI no longer runs tests/host built by g++ (it compiles them with
# -fsyntax-only and runs them under clang's ASan + UBSan), so this builds them with g++ 13 at -O2
# (the GPU machine's default configuration, where LAYOUT_HOST_TESTS=run and LAYOUT_CUDA_CHECK_ONLY
# are the defaults) and runs every one; and checks that a configuration with a GPU is untouched by
# the CI-only options: a GPU test linked and run, the MD app's graph_compare check and a README
# CUDA example run as before.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-o; S=${S:-/tmp/steps-o-a}
source scripts/device_steps.sh
step 90 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=OFF
grep -E "LAYOUT_(HOST_TESTS|CUDA_CHECK_ONLY)" $B/CMakeCache.txt | tee -a $S/log.txt
host=$(cmake --build $B --target help | grep -oE '^host_[a-z_]+_test' | sort -u)
log "host test executables: $(echo $host | wc -w)"
step 420 build cmake --build $B -j 16 --target $host gpu_copy_test gpu_for_each_test md md_gpu \
  md_compare_thermo readme_02_device -- -k 0
grep -E "error:|FAILED" $S/build.txt | head | tee -a $S/log.txt
step 240 host ctest --test-dir $B -L host -R "^host_" -j 16 --output-on-failure
grep -E "tests passed|Failed|\*\*\*" $S/host.txt | head -20 | tee -a $S/log.txt
step 120 gpu ctest --test-dir $B -R "^(gpu_copy_test|gpu_for_each_test|readme.02_device|md.gpu.restart_error.graph_compare|md.gpu.aos)$" --output-on-failure
grep -E "tests passed|Passed|Failed|Skipped" $S/gpu.txt | tee -a $S/log.txt
save
