#!/usr/bin/env bash
# Session h, fourth round (2 GPUs of one host, issue 30): ipc_transport reads whole AoS elements
# where they are (exchange_gathered: the device plans pack nothing where whole elements travel
# through it). The plans' tests on 2 ranks with a GPU each and sharing one, md_mpi_gpu's ipc
# cases against LAMMPS (4 ranks on the 2 GPUs), memcheck over both plans' tests, and
# device_migrate_bench_gpu on 2 GPUs twice.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-h2; S=${S:-/tmp/steps-h-d}
source scripts/device_steps.sh
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON
step 300 build cmake --build $B -j "$(nproc)" --target mpi_gpu_device_migration_test \
  mpi_gpu_device_halo_test device_migrate_bench_gpu md_mpi_gpu md_compare_thermo -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -x NCCL_NVLS_ENABLE)
for t in migration halo; do
  step 90 ${t}_np2 "${mpi[@]}" -np 2 $(exe mpi_gpu_device_${t}_test)
  grep -E "PASSED|FAILED|tests ran" $S/${t}_np2.txt | sort | uniq -c | tee -a $S/log.txt
  CUDA_VISIBLE_DEVICES=0 step 90 ${t}_np2_one_gpu "${mpi[@]}" -np 2 $(exe mpi_gpu_device_${t}_test)
  grep -E "PASSED|FAILED|tests ran" $S/${t}_np2_one_gpu.txt | sort | uniq -c | tee -a $S/log.txt
done
step 150 md_ipc_tests ctest --test-dir $B -R '^md_mpi_gpu\..*ipc$' --output-on-failure
grep -E "Test +#|tests passed|tests failed" $S/md_ipc_tests.txt | tee -a $S/log.txt
for rep in 1 2; do
  step 90 bench_$rep "${mpi[@]}" -np 2 $(exe device_migrate_bench_gpu) --n=4000000 --steps=20
  grep -v "^$" $S/bench_$rep.txt | tee -a $S/log.txt
done
for t in migration halo; do
  step 150 memcheck_$t "${mpi[@]}" -np 2 compute-sanitizer --tool memcheck --error-exitcode 3 \
    $(exe mpi_gpu_device_${t}_test)
  grep -E "ERROR SUMMARY|PASSED|FAILED" $S/memcheck_$t.txt | sort | uniq -c | tee -a $S/log.txt
done
save
