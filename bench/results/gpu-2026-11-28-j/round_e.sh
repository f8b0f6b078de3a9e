#!/usr/bin/env bash
# Session j, fifth round (4 GPUs of one host, issue 30 item 1): device_halo_plan::scatter_add
# (ghosts back packed; one thread an owner adds in the plan's order, grouped by owner on the GPU)
# against the host plan bit for bit, every transport and layout; the plans' tests on 1, 2, 3 and 4
# ranks; memcheck over the halo's on 2.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-j; S=${S:-/tmp/steps-j-e}
source scripts/device_steps.sh
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON
step 300 build cmake --build $B -j "$(nproc)" --target mpi_gpu_device_halo_test mpi_gpu_device_migration_test -- -k 0
grep -E "error|FAILED" $S/build.txt | head -20 | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader -x NCCL_NVLS_ENABLE)
for np in 1 2 3 4; do
  step 120 halo_np$np "${mpi[@]}" -np $np $(exe mpi_gpu_device_halo_test)
  grep -E "PASSED|FAILED|tests ran|Failure|differs" $S/halo_np$np.txt | sort | uniq -c | head -20 | tee -a $S/log.txt
done
step 90 migration_np4 "${mpi[@]}" -np 4 $(exe mpi_gpu_device_migration_test)
grep -E "PASSED|FAILED|tests ran" $S/migration_np4.txt | sort | uniq -c | tee -a $S/log.txt
step 200 memcheck_halo "${mpi[@]}" -np 2 compute-sanitizer --tool memcheck --error-exitcode 3 \
  $(exe mpi_gpu_device_halo_test)
grep -E "ERROR SUMMARY|PASSED|FAILED|Invalid|out of bounds" $S/memcheck_halo.txt | sort | uniq -c | tee -a $S/log.txt
save
