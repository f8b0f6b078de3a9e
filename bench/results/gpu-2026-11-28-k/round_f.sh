#!/usr/bin/env bash
# Session k, last round (2 or 4 GPUs of one host, issue 30): the final tree (one landing block a
# peer again: two measured no faster in rounds a, c, d; device_counts.hpp and ipc_landing.hpp split
# off; AoS field subsets as runs; the device migration plan with neighbours): the plans' tests on 2
# and 4 ranks, memcheck over both on 2 and 4, MD weak scaling (np1 and a rank a GPU), and
# device_migrate_bench_gpu: on 4 GPUs alternating with session j's last commit (c484192, unpacked
# beforehand with `mkdir old_tree && git archive c484192 | tar -x -C old_tree`, never committed;
# round d found the IPC halo on 4 H100s far below its 4-H200 figures, and nothing of session j's had
# been measured on 4 H100s), else once.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-k; S=${S:-/tmp/steps-k-f}
source scripts/device_steps.sh
G=$(nvidia-smi -L | wc -l)
nvidia-smi topo -m > $S/topo.txt 2>&1; cat $S/topo.txt >> $S/log.txt
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON
old=
if [ "$G" = 4 ] && [ -d old_tree ]; then
  step 60 configure_old cmake -S old_tree -B /tmp/build-k-old -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DLAYOUT_BUILD_TESTS=OFF -DLAYOUT_BUILD_EXAMPLES=OFF -DLAYOUT_BUILD_BENCHMARKS=ON
  cmake --build /tmp/build-k-old -j 16 --target device_migrate_bench_gpu > $S/build_old.txt 2>&1 &
fi
step 300 build cmake --build $B -j "$(nproc)" --target mpi_gpu_device_migration_test \
  mpi_gpu_device_halo_test device_migrate_bench_gpu md_mpi_gpu -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
wait
[ "$G" = 4 ] && old=$(find /tmp/build-k-old -type f -name device_migrate_bench_gpu -perm -u+x -print -quit 2>/dev/null)
log "old bench: ${old:-none}"
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader -x NCCL_NVLS_ENABLE)
for t in halo migration; do
  for np in 2 4; do
    step 90 ${t}_np$np "${mpi[@]}" -np $np $(exe mpi_gpu_device_${t}_test)
    grep -E "PASSED|FAILED|tests ran" $S/${t}_np$np.txt | sort | uniq -c | tee -a $S/log.txt
  done
done
runs="new_a"; [ -n "$old" ] && runs="old_a new_a old_b new_b"
for run in $runs; do
  bin=$(exe device_migrate_bench_gpu); [ ${run%_*} = old ] && bin=$old
  step 90 bench_$run "${mpi[@]}" -np $G $bin --n=4000000 --steps=20
  log "-- $run"
  grep -E "ipc|nccl alone|hand-written" $S/bench_$run.txt | tee -a $S/log.txt
done
md=(--lattice fcc 0.8442 --steps 1000 --thermo 1000 --layout soa --device gpu)
cells=(160 160 80); [ "$G" = 2 ] && cells=(160 80 80)
step 60 md_np1 "${mpi[@]}" -np 1 $(exe md_mpi_gpu) "${md[@]}" --cells 80 80 80
log "np1: $(grep -h '^Performance' $S/md_np1.txt | cut -c1-60)"
step 60 md_np$G "${mpi[@]}" -np $G $(exe md_mpi_gpu) "${md[@]}" --cells "${cells[@]}"
log "np$G (ipc): $(grep -h '^Performance' $S/md_np$G.txt | cut -c1-60)"
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
