#!/usr/bin/env bash
# Session h, last round (2 GPUs of one host): the GPU tests of the library itself (every
# tests/cuda program, the README's device blocks) built from the final
# tree and run by ctest -L gpu (the MD and MPI GPU cases ran in calls d and e).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-hf; S=${S:-/tmp/steps-h-f}
source scripts/device_steps.sh
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=OFF -DLAYOUT_BUILD_BENCHMARKS=OFF
targets=$(ls tests/cuda/*_test.cu | xargs -n1 basename | sed 's/\.cu$//; s/^/gpu_/')
readme=$(ls tests/readme/*.cu 2>/dev/null | xargs -rn1 basename | sed 's/\.cu$//; s/^/readme_/')
step 330 build cmake --build $B -j "$(nproc)" --target $targets $readme -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
step 150 gpu_tests ctest --test-dir $B -L gpu -E '^(md|mpi|gpu_io)' --output-on-failure
grep -E "Test +#|tests passed|tests failed" $S/gpu_tests.txt | tee -a $S/log.txt
save
