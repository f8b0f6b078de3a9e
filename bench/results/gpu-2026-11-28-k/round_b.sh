#!/usr/bin/env bash
# Session k, second round (2 or 4 GPUs of one host, issue 30): AoS field subsets through IPC
# as runs of leaves next to each other in the element (receive_mode::element_runs: x, y, z as
# one 12-byte column) against a column a leaf in the same run (LAYOUT_IPC_EXPERIMENT_NO_RUNS, an
# environment variable of the experiment only), device_migrate_bench_gpu a rank a GPU
# alternating; the halo tests on 2 and 4 ranks (AoS subsets: pos, pos + mass, 45 floats), the
# migration tests on 2; memcheck over the halo's on 2 ranks.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-k; S=${S:-/tmp/steps-k-b}
source scripts/device_steps.sh
G=$(nvidia-smi -L | wc -l)
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON
step 300 build cmake --build $B -j "$(nproc)" --target mpi_gpu_device_migration_test \
  mpi_gpu_device_halo_test device_migrate_bench_gpu -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader -x NCCL_NVLS_ENABLE)
for np in 2 4; do
  step 90 halo_np$np "${mpi[@]}" -np $np $(exe mpi_gpu_device_halo_test)
  grep -E "PASSED|FAILED|tests ran" $S/halo_np$np.txt | sort | uniq -c | tee -a $S/log.txt
done
step 90 migration_np2 "${mpi[@]}" -np 2 $(exe mpi_gpu_device_migration_test)
grep -E "PASSED|FAILED|tests ran" $S/migration_np2.txt | sort | uniq -c | tee -a $S/log.txt
for run in leaves_a runs_a leaves_b runs_b; do
  export LAYOUT_IPC_EXPERIMENT_NO_RUNS=0; [ ${run%_*} = leaves ] && export LAYOUT_IPC_EXPERIMENT_NO_RUNS=1
  step 90 bench_$run "${mpi[@]}" -x LAYOUT_IPC_EXPERIMENT_NO_RUNS -np $G $(exe device_migrate_bench_gpu) --n=4000000 --steps=20
  log "-- AoS subsets as: ${run%_*}"
  grep -E "halo .*ipc|nccl alone|hand-written AoS halo" $S/bench_$run.txt | tee -a $S/log.txt
done
export LAYOUT_IPC_EXPERIMENT_NO_RUNS=0
step 150 memcheck_halo_np2 "${mpi[@]}" -np 2 compute-sanitizer --tool memcheck --error-exitcode 3 \
  $(exe mpi_gpu_device_halo_test)
grep -E "ERROR SUMMARY|PASSED|FAILED|Invalid|out of bounds" $S/memcheck_halo_np2.txt | sort | uniq -c | tee -a $S/log.txt
save
