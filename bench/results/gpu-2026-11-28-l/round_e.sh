#!/usr/bin/env bash
# Session l, round e (4 GPUs, issue 30): the final tree (receives join the sends' launch where
# all of an exchange's copies fit in one, else launch after them): the plans' tests on 2 and 4
# ranks, the bench once on 4 ranks, MD weak scaling.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-l; S=${S:-/tmp/steps-l-e}
source scripts/device_steps.sh
G=$(nvidia-smi -L | wc -l)
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON
step 330 build cmake --build $B -j 16 --target mpi_gpu_device_migration_test \
  mpi_gpu_device_halo_test device_migrate_bench_gpu md_mpi_gpu -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader -x NCCL_NVLS_ENABLE)
for t in halo migration; do
  for np in 2 4; do
    step 90 ${t}_np$np "${mpi[@]}" -np $np $(exe mpi_gpu_device_${t}_test)
    grep -E "PASSED|FAILED|tests ran" $S/${t}_np$np.txt | sort | uniq -c | tee -a $S/log.txt
  done
done
step 90 bench "${mpi[@]}" -np $G $(exe device_migrate_bench_gpu) --n=4000000 --steps=20
grep -E "ipc|nccl alone|hand-written" $S/bench.txt | tee -a $S/log.txt
md=(--lattice fcc 0.8442 --steps 1000 --thermo 1000 --layout soa --device gpu)
cells=(160 160 80); [ "$G" = 2 ] && cells=(160 80 80)
step 60 md_np1 "${mpi[@]}" -np 1 $(exe md_mpi_gpu) "${md[@]}" --cells 80 80 80
log "np1: $(grep -h '^Performance' $S/md_np1.txt | cut -c1-60)"
step 60 md_np$G "${mpi[@]}" -np $G $(exe md_mpi_gpu) "${md[@]}" --cells "${cells[@]}"
log "np$G (ipc): $(grep -h '^Performance' $S/md_np$G.txt | cut -c1-60)"
save
