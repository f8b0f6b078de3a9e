#!/usr/bin/env bash
# Session f, fourth round (one H100, the card issue 29's targets name): the staged selection
# copy with chunks of a quarter (gpu_selection_test, memcheck of its new test), pic_step_gpu
# twice, Nsight Compute on the inject kernels (hand-written and library, every layout), the MD
# app's 32,000-atom run with and without CUDA graphs.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-h100; S=/tmp/steps-d; mkdir -p $S $OUT
log() { echo "$*" | tee -a $S/log.txt; }
save() { tar czf $OUT/steps.tgz -C $S . ; cp $S/log.txt $OUT/log.txt; }
step() { local limit=$1 name=$2; shift 2; local start=$SECONDS
  timeout -s KILL $limit "$@" > $S/$name.txt 2>&1; local rc=$?
  log "[$name] rc=$rc $((SECONDS-start))s"; save; return $rc; }
exe() { find $B -type f -name "$1" -perm -u+x -print -quit; }
log "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON
step 300 build cmake --build $B -j "$(nproc)" --target pic_step_gpu md_gpu gpu_selection_test -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
step 60 selection $(exe gpu_selection_test); grep -E "\[  (PASSED|FAILED)" $S/selection.txt | tee -a $S/log.txt
step 120 memcheck_selection compute-sanitizer --tool memcheck --error-exitcode 3 $(exe gpu_selection_test) \
  --gtest_filter='*through_a_workspace*'
grep -E "ERROR SUMMARY|PASSED|FAILED" $S/memcheck_selection.txt | tee -a $S/log.txt
for rep in 1 2; do
  step 120 pic_step_$rep $(exe pic_step_gpu); sed -n '/^version/,$p' $S/pic_step_$rep.txt | tee -a $S/log.txt
done
step 120 md_graphs $(exe md_gpu) --lattice fcc 0.8442 --cells 20 20 20 --device gpu --steps 2000 \
  --graph-compare 3 --layout soa
tail -6 $S/md_graphs.txt | tee -a $S/log.txt
step 150 ncu_inject ncu --csv --page raw --metrics gpu__time_duration.sum,launch__registers_per_thread,launch__grid_size \
  --kernel-name regex:inject --launch-skip 0 --launch-count 200 $(exe pic_step_gpu) --steps 20 --warmup 2
save
