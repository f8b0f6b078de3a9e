#!/usr/bin/env bash
# Session l, round b (4 GPUs, issue 30): where an IPC exchange's time goes, and one experiment.
# LAYOUT_IPC_PHASES=1 (an experiment of ipc_state.hpp, since removed) timed each exchange's
# send kernel, the receive side's wait and its copy with events and printed the medians (rank 0,
# at each transport's end); LAYOUT_IPC_EXPERIMENT=1 let the receive copy's blocks wait for their
# peer themselves instead of a one-block wait kernel before them (one kernel boundary less).
# Bench alternating 0 / 1 twice with phases, once each without; the plans' tests with 1; MD weak
# scaling with 0 and 1 (the halo overlapped with the interior force work).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-l; S=${S:-/tmp/steps-l-b}
source scripts/device_steps.sh
G=$(nvidia-smi -L | wc -l)
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON
step 330 build cmake --build $B -j 16 --target mpi_gpu_device_migration_test \
  mpi_gpu_device_halo_test device_migrate_bench_gpu md_mpi_gpu -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader -x NCCL_NVLS_ENABLE
     -x LAYOUT_IPC_EXPERIMENT -x LAYOUT_IPC_PHASES)
export LAYOUT_IPC_EXPERIMENT=1 LAYOUT_IPC_PHASES=0
for t in halo migration; do
  step 90 ${t}_np$G "${mpi[@]}" -np $G $(exe mpi_gpu_device_${t}_test)
  grep -E "PASSED|FAILED|tests ran" $S/${t}_np$G.txt | sort | uniq -c | tee -a $S/log.txt
done
for run in 0_a 1_a 0_b 1_b 0_np 1_np; do
  export LAYOUT_IPC_EXPERIMENT=${run%_*} LAYOUT_IPC_PHASES=1
  [ ${run#*_} = np ] && export LAYOUT_IPC_PHASES=0
  step 90 bench_$run "${mpi[@]}" -np $G $(exe device_migrate_bench_gpu) --n=4000000 --steps=20
  log "-- experiment $run"
  grep -E "\(ipc\)|ipc_transport alone|ipc phases" $S/bench_$run.txt | tee -a $S/log.txt
done
md=(--lattice fcc 0.8442 --steps 1000 --thermo 1000 --layout soa --device gpu)
cells=(160 160 80); [ "$G" = 2 ] && cells=(160 80 80)
export LAYOUT_IPC_PHASES=0
step 60 md_np1 "${mpi[@]}" -np 1 $(exe md_mpi_gpu) "${md[@]}" --cells 80 80 80
log "np1: $(grep -h '^Performance' $S/md_np1.txt | cut -c1-60)"
for e in 0 1 0 1; do
  export LAYOUT_IPC_EXPERIMENT=$e
  step 60 md_np${G}_$e "${mpi[@]}" -np $G $(exe md_mpi_gpu) "${md[@]}" --cells "${cells[@]}"
  log "np$G (ipc, experiment $e): $(grep -h '^Performance' $S/md_np${G}_$e.txt | cut -c1-60)"
done
save
