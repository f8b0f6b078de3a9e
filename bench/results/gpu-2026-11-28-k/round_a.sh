#!/usr/bin/env bash
# Session k, first round (2 or 4 GPUs of one host, issue 30): two landing slots a peer in
# ipc_transport (message n in slot n % 2, so a send waits for the peer to consume message n - 2,
# not n - 1), against one slot in the same run (LAYOUT_IPC_EXPERIMENT_SLOTS, an environment
# variable of the experiment only), device_migrate_bench_gpu a rank a GPU alternating 1, 2, 1, 2;
# the plans' tests on 2 and 4 ranks (two a GPU where there are 2) (the migration plan with neighbours is new; the shared
# binary search and queue_message are refactors of GPU code); memcheck over both tests on 2 and
# 4 ranks; MD weak scaling at 2,048,000 atoms a GPU (np1 and a rank a GPU through IPC).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-k; S=${S:-/tmp/steps-k-a}
source scripts/device_steps.sh
G=$(nvidia-smi -L | wc -l)
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON
step 300 build cmake --build $B -j "$(nproc)" --target mpi_gpu_device_migration_test \
  mpi_gpu_device_halo_test device_migrate_bench_gpu md_mpi_gpu -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader -x NCCL_NVLS_ENABLE -x LAYOUT_IPC_EXPERIMENT_SLOTS)
export LAYOUT_IPC_EXPERIMENT_SLOTS=2
for t in halo migration; do
  for np in 2 4; do
    step 90 ${t}_np$np "${mpi[@]}" -np $np $(exe mpi_gpu_device_${t}_test)
    grep -E "PASSED|FAILED|tests ran" $S/${t}_np$np.txt | sort | uniq -c | tee -a $S/log.txt
  done
done
for run in ${RUNS:-1_a 2_a 1_b 2_b}; do
  export LAYOUT_IPC_EXPERIMENT_SLOTS=${run:0:1}
  step 90 bench_slots$run "${mpi[@]}" -np $G $(exe device_migrate_bench_gpu) --n=4000000 --steps=20
  log "-- landing slots: ${run:0:1}"
  grep -E "ipc|nccl alone|hand-written" $S/bench_slots$run.txt | tee -a $S/log.txt
done
export LAYOUT_IPC_EXPERIMENT_SLOTS=2
md=(--lattice fcc 0.8442 --steps 1000 --thermo 1000 --layout soa --device gpu)
summary() { echo "$(grep -h '^Performance' $S/$1.txt | cut -c1-60)"; }
step 60 md_np1 "${mpi[@]}" -np 1 $(exe md_mpi_gpu) "${md[@]}" --cells 80 80 80
log "np1: $(summary md_np1)"
cells=(160 160 80); [ "$G" = 2 ] && cells=(160 80 80)
step 60 md_np$G "${mpi[@]}" -np $G $(exe md_mpi_gpu) "${md[@]}" --cells "${cells[@]}"
log "np$G (ipc): $(summary md_np$G)"
for t in halo migration; do
  for np in 2 4; do
    step 150 memcheck_${t}_np$np "${mpi[@]}" -np $np compute-sanitizer --tool memcheck \
      --error-exitcode 3 $(exe mpi_gpu_device_${t}_test)
    grep -E "ERROR SUMMARY|PASSED|FAILED|Invalid|out of bounds" $S/memcheck_${t}_np$np.txt | sort | uniq -c | tee -a $S/log.txt
  done
done
save
