#!/usr/bin/env bash
# Session l, round d (4 GPUs, issue 30): an exchange through ipc_transport as one kernel (sends,
# then receives, blocks taking copies by ticket) against two (sends, then receives; round c's
# tree), by LAYOUT_IPC_SPLIT (an experiment of ipc_state.hpp, since removed; 0: one kernel).
# Bench alternating on 4 ranks twice, and once each on 2 ranks (GPUs 0 and 1); the plans' tests
# on 2 and 4 ranks and memcheck over them on 2 and 4 (one kernel); MD weak scaling both ways.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-l; S=${S:-/tmp/steps-l-d}
source scripts/device_steps.sh
G=$(nvidia-smi -L | wc -l)
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON
step 330 build cmake --build $B -j 16 --target mpi_gpu_device_migration_test \
  mpi_gpu_device_halo_test device_migrate_bench_gpu md_mpi_gpu -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader -x NCCL_NVLS_ENABLE
     -x LAYOUT_IPC_SPLIT)
export LAYOUT_IPC_SPLIT=0
for t in halo migration; do
  for np in 2 4; do
    step 90 ${t}_np$np "${mpi[@]}" -np $np $(exe mpi_gpu_device_${t}_test)
    grep -E "PASSED|FAILED|tests ran" $S/${t}_np$np.txt | sort | uniq -c | tee -a $S/log.txt
  done
done
for run in 0_a 1_a 0_b 1_b; do
  export LAYOUT_IPC_SPLIT=${run%_*}
  step 90 bench_$run "${mpi[@]}" -np $G $(exe device_migrate_bench_gpu) --n=4000000 --steps=20
  log "-- split $run ($G ranks)"
  grep -E "ipc|nccl alone|hand-written" $S/bench_$run.txt | tee -a $S/log.txt
done
for run in 0_np2 1_np2; do
  export LAYOUT_IPC_SPLIT=${run%_*}
  step 90 bench_$run "${mpi[@]}" -np 2 $(exe device_migrate_bench_gpu) --n=4000000 --steps=20
  log "-- split $run (2 ranks)"
  grep -E "ipc|nccl alone|hand-written" $S/bench_$run.txt | tee -a $S/log.txt
done
md=(--lattice fcc 0.8442 --steps 1000 --thermo 1000 --layout soa --device gpu)
cells=(160 160 80); [ "$G" = 2 ] && cells=(160 80 80)
step 60 md_np1 "${mpi[@]}" -np 1 $(exe md_mpi_gpu) "${md[@]}" --cells 80 80 80
log "np1: $(grep -h '^Performance' $S/md_np1.txt | cut -c1-60)"
for e in 0 1 0 1; do
  export LAYOUT_IPC_SPLIT=$e
  step 60 md_np${G}_$e "${mpi[@]}" -np $G $(exe md_mpi_gpu) "${md[@]}" --cells "${cells[@]}"
  log "np$G (ipc, split $e): $(grep -h '^Performance' $S/md_np${G}_$e.txt | cut -c1-60)"
done
export LAYOUT_IPC_SPLIT=0
for t in halo migration; do
  for np in 2 4; do
    # No --error-exitcode: NCCL's probes would end the job before every rank's summary.
    step 150 memcheck_${t}_np$np "${mpi[@]}" -np $np compute-sanitizer --tool memcheck \
      $(exe mpi_gpu_device_${t}_test)
    grep -E "ERROR SUMMARY|PASSED|FAILED|Invalid|out of bounds" $S/memcheck_${t}_np$np.txt | sort | uniq -c | tee -a $S/log.txt
    grep -oE "Program hit [A-Za-z]+|in libnccl" $S/memcheck_${t}_np$np.txt | sort | uniq -c | tee -a $S/log.txt
  done
done
save
