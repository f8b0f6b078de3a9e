#!/usr/bin/env bash
# Session j, eighth round (2 GPUs of one host, issue 30 item 1): device_halo_plan with neighbours
# named (counts point to point; shared with the host plans as peer_ranks), scatter_add across two
# GPUs; the plans' tests on 2 ranks, memcheck over the new halo tests.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-j; S=${S:-/tmp/steps-j-h}
source scripts/device_steps.sh
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON
step 300 build cmake --build $B -j "$(nproc)" --target mpi_gpu_device_halo_test mpi_gpu_device_migration_test -- -k 0
grep -E "error|FAILED" $S/build.txt | head -20 | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader -x NCCL_NVLS_ENABLE)
for t in halo migration; do
  step 120 ${t}_np2 "${mpi[@]}" -np 2 $(exe mpi_gpu_device_${t}_test)
  grep -E "PASSED|FAILED|tests ran|Failure|element" $S/${t}_np2.txt | head -30 | tee -a $S/log.txt
done
step 150 memcheck_halo "${mpi[@]}" -np 2 compute-sanitizer --tool memcheck \
  $(exe mpi_gpu_device_halo_test) --gtest_filter='*scatter_add*:*neighbours*'
grep -E "ERROR SUMMARY|PASSED|FAILED|Invalid|out of bounds" $S/memcheck_halo.txt | sort | uniq -c | tee -a $S/log.txt
save
