#!/usr/bin/env bash
# Session j, first round (4 GPUs of one host, issue 30): what session i left unrun on 4 GPUs, the
# 16-byte column starts of ipc_transport's gathered messages (e9ff45e): the plans' tests on 2 and
# 4 ranks, memcheck over both on 2, device_migrate_bench_gpu on 4 GPUs twice.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-j; S=${S:-/tmp/steps-j-a}
source scripts/device_steps.sh
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON
step 300 build cmake --build $B -j "$(nproc)" --target mpi_gpu_device_migration_test \
  mpi_gpu_device_halo_test device_migrate_bench_gpu -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader -x NCCL_NVLS_ENABLE)
for t in halo migration; do
  for np in 2 4; do
    step 90 ${t}_np$np "${mpi[@]}" -np $np $(exe mpi_gpu_device_${t}_test)
    grep -E "PASSED|FAILED|tests ran" $S/${t}_np$np.txt | sort | uniq -c | tee -a $S/log.txt
  done
done
for rep in 1 2; do
  step 90 bench_np4_$rep "${mpi[@]}" -np 4 $(exe device_migrate_bench_gpu) --n=4000000 --steps=20
  grep -v "^$" $S/bench_np4_$rep.txt | tee -a $S/log.txt
done
for t in halo migration; do
  step 150 memcheck_$t "${mpi[@]}" -np 2 compute-sanitizer --tool memcheck --error-exitcode 3 \
    $(exe mpi_gpu_device_${t}_test)
  grep -E "ERROR SUMMARY|PASSED|FAILED" $S/memcheck_$t.txt | sort | uniq -c | tee -a $S/log.txt
done
save
