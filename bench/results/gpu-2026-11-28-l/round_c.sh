#!/usr/bin/env bash
# Session l, round c (4 GPUs, issue 30): the receive copies now wait in their own blocks (round
# b's experiment 1, kept; no wait kernel). Two experiments of ipc_state.hpp (since removed), by
# LAYOUT_IPC_EXPERIMENT: 2, the copy kernel's threads keep 4 loads in flight (batched); 3, that
# and the receive blocks fence at device scope instead of system scope. Bench alternating
# 0 / 2 / 3 twice, then 0 and 2 with LAYOUT_IPC_PHASES=1; the plans' tests with 3; MD weak
# scaling with 0 and 3.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-l; S=${S:-/tmp/steps-l-c}
source scripts/device_steps.sh
G=$(nvidia-smi -L | wc -l)
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON
step 330 build cmake --build $B -j 16 --target mpi_gpu_device_migration_test \
  mpi_gpu_device_halo_test device_migrate_bench_gpu md_mpi_gpu -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader -x NCCL_NVLS_ENABLE
     -x LAYOUT_IPC_EXPERIMENT -x LAYOUT_IPC_PHASES)
export LAYOUT_IPC_EXPERIMENT=3 LAYOUT_IPC_PHASES=0
for t in halo migration; do
  step 90 ${t}_np$G "${mpi[@]}" -np $G $(exe mpi_gpu_device_${t}_test)
  grep -E "PASSED|FAILED|tests ran" $S/${t}_np$G.txt | sort | uniq -c | tee -a $S/log.txt
done
for run in 0_a 2_a 3_a 0_b 2_b 3_b 0_ph 2_ph; do
  export LAYOUT_IPC_EXPERIMENT=${run%_*} LAYOUT_IPC_PHASES=0
  [ ${run#*_} = ph ] && export LAYOUT_IPC_PHASES=1
  step 90 bench_$run "${mpi[@]}" -np $G $(exe device_migrate_bench_gpu) --n=4000000 --steps=20
  log "-- experiment $run"
  grep -E "\(ipc\)|ipc_transport alone|ipc phases" $S/bench_$run.txt | tee -a $S/log.txt
done
md=(--lattice fcc 0.8442 --steps 1000 --thermo 1000 --layout soa --device gpu)
cells=(160 160 80); [ "$G" = 2 ] && cells=(160 80 80)
export LAYOUT_IPC_PHASES=0
step 60 md_np1 "${mpi[@]}" -np 1 $(exe md_mpi_gpu) "${md[@]}" --cells 80 80 80
log "np1: $(grep -h '^Performance' $S/md_np1.txt | cut -c1-60)"
for e in 0 3 0 3; do
  export LAYOUT_IPC_EXPERIMENT=$e
  step 60 md_np${G}_$e "${mpi[@]}" -np $G $(exe md_mpi_gpu) "${md[@]}" --cells "${cells[@]}"
  log "np$G (ipc, experiment $e): $(grep -h '^Performance' $S/md_np${G}_$e.txt | cut -c1-60)"
done
save
