#!/usr/bin/env bash
# Session j, sixth round (issue 30 item 1): round e's scatter_add test differed from the host plan
# on the same few owners in every layout and transport; its failures now print mass and position.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-j; S=${S:-/tmp/steps-j-f}
source scripts/device_steps.sh
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON
step 300 build cmake --build $B -j "$(nproc)" --target mpi_gpu_device_halo_test -- -k 0
grep -E "error|FAILED" $S/build.txt | head -20 | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader -x NCCL_NVLS_ENABLE)
for np in 1 2; do
  step 120 halo_np$np "${mpi[@]}" -np $np $(exe mpi_gpu_device_halo_test) ${FILTER:-}
  grep -E "PASSED|FAILED|tests ran|Failure|element" $S/halo_np$np.txt | head -40 | tee -a $S/log.txt
done
save
