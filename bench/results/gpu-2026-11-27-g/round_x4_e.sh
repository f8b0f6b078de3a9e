#!/usr/bin/env bash
# Session g, fifth round (4 GPUs of one host): the plans' tests on 2 and 4 ranks after the
# packs-into-peers experiment was taken out again (ipc_transport as in rounds b and c), with the
# test whose messages outgrow the transport's blocks.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-g; S=${S:-/tmp/steps-g5}
source scripts/device_steps.sh
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=OFF -DLAYOUT_BUILD_BENCHMARKS=OFF
step 200 build cmake --build $B -j "$(nproc)" --target mpi_gpu_device_migration_test \
  mpi_gpu_device_halo_test -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -x NCCL_NVLS_ENABLE)
for np in 2 4; do
  for t in migration halo; do
    step 90 ${t}_np$np "${mpi[@]}" -np $np $(exe mpi_gpu_device_${t}_test)
    grep -E "PASSED|FAILED|tests ran" $S/${t}_np$np.txt | sort | uniq -c | tee -a $S/log.txt
  done
done
CUDA_VISIBLE_DEVICES=0 step 90 migration_np2_one_gpu "${mpi[@]}" -np 2 $(exe mpi_gpu_device_migration_test)
grep -E "PASSED|FAILED|tests ran" $S/migration_np2_one_gpu.txt | sort | uniq -c | tee -a $S/log.txt
save
