#!/usr/bin/env bash
# Session m, round a (2 GPUs, issue 30): the tree at session l's end on 2 GPUs, asked for as 2
# H100s: the plans' tests on 2 ranks, memcheck over them (the halo test's 48-leaf element takes
# the two-launch path: more copies than one launch holds), the bench twice, MD weak scaling.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-m; S=${S:-/tmp/steps-m-a}
source scripts/device_steps.sh
G=$(nvidia-smi -L | wc -l)
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON
step 330 build cmake --build $B -j 16 --target mpi_gpu_device_migration_test \
  mpi_gpu_device_halo_test device_migrate_bench_gpu md_mpi_gpu -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader -x NCCL_NVLS_ENABLE)
for t in halo migration; do
  step 90 ${t}_np$G "${mpi[@]}" -np $G $(exe mpi_gpu_device_${t}_test)
  grep -E "PASSED|FAILED|tests ran" $S/${t}_np$G.txt | sort | uniq -c | tee -a $S/log.txt
done
for k in 1 2; do
  step 90 bench$k "${mpi[@]}" -np $G $(exe device_migrate_bench_gpu) --n=4000000 --steps=20
  grep -E "ipc|nccl alone|hand-written|gpu-resident" $S/bench$k.txt | tee -a $S/log.txt
done
md=(--lattice fcc 0.8442 --steps 1000 --thermo 1000 --layout soa --device gpu)
step 60 md_np1 "${mpi[@]}" -np 1 $(exe md_mpi_gpu) "${md[@]}" --cells 80 80 80
log "np1: $(grep -h '^Performance' $S/md_np1.txt | cut -c1-60)"
step 60 md_np$G "${mpi[@]}" -np $G $(exe md_mpi_gpu) "${md[@]}" --cells 160 80 80
log "np$G (ipc): $(grep -h '^Performance' $S/md_np$G.txt | cut -c1-60)"
for t in halo migration; do
  step 150 memcheck_$t "${mpi[@]}" -np $G compute-sanitizer --tool memcheck \
    $(exe mpi_gpu_device_${t}_test)
  grep -E "ERROR SUMMARY|PASSED|FAILED|Invalid|out of bounds" $S/memcheck_$t.txt | sort | uniq -c | tee -a $S/log.txt
  grep -oE "Program hit [A-Za-z]+|in libnccl" $S/memcheck_$t.txt | sort | uniq -c | tee -a $S/log.txt
done
save
