#!/usr/bin/env bash
# Session g, review round (2 GPUs of one host): after ipc_transport's kernels moved to
# mpi/detail/ipc_kernels.hpp as templates (two translation units of one program may include the
# header: mpi_gpu_device_halo_test now links a second one) and its waits became the last
# exchange's event instead of cudaDeviceSynchronize: the plans' tests on 2 ranks, a GPU each and
# sharing one.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-g; S=${S:-/tmp/steps-g8}
source scripts/device_steps.sh
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=OFF -DLAYOUT_BUILD_BENCHMARKS=OFF
step 120 build cmake --build $B -j "$(nproc)" --target mpi_gpu_device_migration_test \
  mpi_gpu_device_halo_test -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -x NCCL_NVLS_ENABLE)
for t in migration halo; do
  step 60 ${t}_np2 "${mpi[@]}" -np 2 $(exe mpi_gpu_device_${t}_test)
  grep -E "PASSED|FAILED|tests ran" $S/${t}_np2.txt | sort | uniq -c | tee -a $S/log.txt
done
CUDA_VISIBLE_DEVICES=0 step 60 migration_np2_one_gpu "${mpi[@]}" -np 2 $(exe mpi_gpu_device_migration_test)
grep -E "PASSED|FAILED|tests ran" $S/migration_np2_one_gpu.txt | sort | uniq -c | tee -a $S/log.txt
save
