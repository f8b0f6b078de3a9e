#!/usr/bin/env bash
# Session l, round a (4 GPUs of one host, issue 30): session k's open A/B. The bench alternating
# session j's last commit (c484192, unpacked beforehand with
# `mkdir old_tree && git archive c484192 | tar -x -C old_tree`, carried, never committed) and
# this tree, three times each, on a GPU a rank; the GPUs' topology and clocks; the plans' tests on
# 2 and 4 ranks and the sort tests (radix_sort.hpp: one CUB sort helper for sort_by_key,
# bin_by_key and both device plans), memcheck over the plans' tests on 2 ranks.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-l; S=${S:-/tmp/steps-l-a}
source scripts/device_steps.sh
G=$(nvidia-smi -L | wc -l)
nvidia-smi topo -m >> $S/log.txt 2>&1
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,clocks.mem,power.limit,pstate \
  --format=csv >> $S/log.txt 2>&1
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON
step 60 configure_old cmake -S old_tree -B /tmp/build-l-old -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DLAYOUT_BUILD_TESTS=OFF -DLAYOUT_BUILD_EXAMPLES=OFF -DLAYOUT_BUILD_BENCHMARKS=ON
cmake --build /tmp/build-l-old -j 4 --target device_migrate_bench_gpu > $S/build_old.txt 2>&1 &
step 330 build cmake --build $B -j 14 --target mpi_gpu_device_migration_test \
  mpi_gpu_device_halo_test device_migrate_bench_gpu gpu_algorithms_test gpu_workspace_test -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
wait
old=$(find /tmp/build-l-old -type f -name device_migrate_bench_gpu -perm -u+x -print -quit 2>/dev/null)
log "old bench: ${old:-none}"
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader -x NCCL_NVLS_ENABLE)
for t in algorithms workspace; do
  step 120 gpu_$t $(exe gpu_${t}_test)
  grep -E "PASSED|FAILED|tests ran" $S/gpu_$t.txt | sort | uniq -c | tee -a $S/log.txt
done
for t in halo migration; do
  for np in 2 4; do
    step 90 ${t}_np$np "${mpi[@]}" -np $np $(exe mpi_gpu_device_${t}_test)
    grep -E "PASSED|FAILED|tests ran" $S/${t}_np$np.txt | sort | uniq -c | tee -a $S/log.txt
  done
done
runs="new_a"; [ -n "$old" ] && runs="old_a new_a old_b new_b old_c new_c"
for run in $runs; do
  bin=$(exe device_migrate_bench_gpu); [ ${run%_*} = old ] && bin=$old
  step 90 bench_$run "${mpi[@]}" -np $G $bin --n=4000000 --steps=20
  log "-- $run"
  grep -E "ipc|nccl alone|hand-written" $S/bench_$run.txt | tee -a $S/log.txt
done
for t in halo migration; do
  # No --error-exitcode: NCCL's probes would end the job before every rank's summary.
  step 120 memcheck_${t}_np2 "${mpi[@]}" -np 2 compute-sanitizer --tool memcheck \
    $(exe mpi_gpu_device_${t}_test)
  grep -E "ERROR SUMMARY|PASSED|FAILED|Invalid|out of bounds" $S/memcheck_${t}_np2.txt | sort | uniq -c | tee -a $S/log.txt
  grep -oE "Program hit [A-Za-z]+|in libnccl" $S/memcheck_${t}_np2.txt | sort | uniq -c | tee -a $S/log.txt
done
save
