#!/usr/bin/env bash
# This session's last call (2 GPUs, about 4 minutes of device time left): the device plans'
# tests after the receive-in-place change (md_mpi_gpu's left out: no time to build it), the migration/halo benchmark, the
# selection test and the PIC step after the column copy change. Each result goes to
# $OUT/log.txt as it comes (a call cut off keeps what ran).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build; X=/tmp/d; mkdir -p $X "$OUT"
log() { echo "$*" | tee -a "$OUT/log.txt"; }
export NCCL_NVLS_ENABLE=0
start=$SECONDS
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON > $X/configure.txt 2>&1
cmake --build $B -j "$(nproc)" --target mpi_gpu_device_migration_test mpi_gpu_device_halo_test \
  device_migrate_bench_gpu gpu_selection_test pic_step_gpu > $X/build.txt 2>&1
log "[build] rc=$? $((SECONDS-start))s"; grep -E "error" $X/build.txt | head -5 | tee -a "$OUT/log.txt"
exe() { find $B -type f -name "$1" -perm -u+x -print -quit; }
mpi=(timeout -s KILL 90 mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -np 2)
for t in device_migration_test device_halo_test; do
  "${mpi[@]}" "$(exe mpi_gpu_$t)" > $X/$t.txt 2>&1
  log "[$t np2] rc=$? $(grep -E '\[  PASSED  \]|\[  FAILED  \]' $X/$t.txt | sort | uniq -c | xargs)"
  grep -E "FAILED|Failure" $X/$t.txt | head -6 | tee -a "$OUT/log.txt"
done
"${mpi[@]}" "$(exe device_migrate_bench_gpu)" --n=4000000 --steps=20 > $X/bench.txt 2>&1
log "[device_migrate_bench np2] rc=$?"; cat $X/bench.txt >> "$OUT/log.txt"
CUDA_VISIBLE_DEVICES=0 timeout 60 "$(exe gpu_selection_test)" --gtest_brief=1 > $X/selection.txt 2>&1
log "[gpu_selection_test] rc=$? $(grep -E '\[  PASSED  \]|\[  FAILED  \]' $X/selection.txt | xargs)"
CUDA_VISIBLE_DEVICES=0 timeout 60 "$(exe pic_step_gpu)" > $X/pic_step.txt 2>&1
log "[pic_step] rc=$?"; sed -n '/^version/,$p' $X/pic_step.txt >> "$OUT/log.txt"
tar czf "$OUT/d.tgz" -C $X .
