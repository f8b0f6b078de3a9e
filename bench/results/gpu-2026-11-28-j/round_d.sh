#!/usr/bin/env bash
# Session j, fourth round (4 GPUs of one host, issue 30): ipc_transport spreads each launch's
# bytes over about one wave of the GPU's copy blocks (4-64 KiB a block) instead of a fixed
# 16 KiB (round c: 8 KiB won for x y z, 16 KiB for all fields). The plans' tests on 2 and 4
# ranks, memcheck over the halo's on 2, device_migrate_bench_gpu on 4 GPUs twice and on 2 once,
# MD weak scaling at 2,048,000 atoms a GPU (np1 and np4 through IPC, twice).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-j; S=${S:-/tmp/steps-j-d}
source scripts/device_steps.sh
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON
step 300 build cmake --build $B -j "$(nproc)" --target mpi_gpu_device_migration_test \
  mpi_gpu_device_halo_test device_migrate_bench_gpu md_mpi_gpu -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader -x NCCL_NVLS_ENABLE)
for t in halo migration; do
  for np in 2 4; do
    step 90 ${t}_np$np "${mpi[@]}" -np $np $(exe mpi_gpu_device_${t}_test)
    grep -E "PASSED|FAILED|tests ran" $S/${t}_np$np.txt | sort | uniq -c | tee -a $S/log.txt
  done
done
for run in np4_1 np4_2 np2_1; do
  step 90 bench_$run "${mpi[@]}" -np ${run:2:1} $(exe device_migrate_bench_gpu) --n=4000000 --steps=20
  grep -v "^$" $S/bench_$run.txt | tee -a $S/log.txt
done
md=(--lattice fcc 0.8442 --steps 1000 --thermo 1000 --layout soa --device gpu)
summary() { echo "$(grep -h '^Performance' $S/$1.txt | cut -c1-60)"; grep -hE '^(Force|Neighbor|Comm|Integrate) ' $S/$1.txt | tee -a $S/log.txt; }
for rep in 1 2; do
  step 60 md_np1_$rep "${mpi[@]}" -np 1 $(exe md_mpi_gpu) "${md[@]}" --cells 80 80 80
  log "np1: $(summary md_np1_$rep)"
  step 60 md_np4_$rep "${mpi[@]}" -np 4 $(exe md_mpi_gpu) "${md[@]}" --cells 160 160 80
  log "np4 (ipc): $(summary md_np4_$rep)"
done
step 150 memcheck_halo "${mpi[@]}" -np 2 compute-sanitizer --tool memcheck --error-exitcode 3 \
  $(exe mpi_gpu_device_halo_test)
grep -E "ERROR SUMMARY|PASSED|FAILED|Invalid|out of bounds" $S/memcheck_halo.txt | sort | uniq -c | tee -a $S/log.txt
save
