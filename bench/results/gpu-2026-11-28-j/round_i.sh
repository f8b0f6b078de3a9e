#!/usr/bin/env bash
# Session j, last round (4 GPUs of one host, issue 30): the final tree (ipc_transport's grow()
# returning before it allocates when nothing outgrows; device halo with neighbours, whose
# not-a-neighbour error needs 4 ranks): the plans' tests on 3 and 4 ranks.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-j; S=${S:-/tmp/steps-j-i}
source scripts/device_steps.sh
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON
step 200 build cmake --build $B -j "$(nproc)" --target mpi_gpu_device_halo_test mpi_gpu_device_migration_test -- -k 0
grep -E "error|FAILED" $S/build.txt | head -20 | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader -x NCCL_NVLS_ENABLE)
for run in halo_np4 halo_np3 migration_np4; do
  t=${run%_np*}; np=${run#*_np}
  step 60 $run "${mpi[@]}" -np $np $(exe mpi_gpu_device_${t}_test)
  grep -E "PASSED|FAILED|tests ran|Failure" $S/$run.txt | sort | uniq -c | head -20 | tee -a $S/log.txt
done
save
