#!/usr/bin/env bash
# Session f, second round (4 GPUs of one host): the side stream moved into the workspace (plans'
# tests on 2 ranks), the staged selection copy (gpu_selection_test, memcheck of its test,
# pic_step_gpu), MD weak scaling with the halo queued before or after the interior forces
# (MD_HALO_FIRST, alternating), then hdf5_bench (host only) in a build of its own.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-mpi; S=/tmp/steps-b; mkdir -p $S $OUT
export NCCL_NVLS_ENABLE=0
log() { echo "$*" | tee -a $S/log.txt; }
save() { tar czf $OUT/steps.tgz -C $S . ; cp $S/log.txt $OUT/log.txt; }
step() { # step LIMIT NAME CMD...
  local limit=$1 name=$2; shift 2; local start=$SECONDS
  timeout -s KILL $limit "$@" > $S/$name.txt 2>&1; local rc=$?
  log "[$name] rc=$rc $((SECONDS-start))s"; save; return $rc; }
exe() { find $B -type f -name "$1" -perm -u+x -print -quit; }
mpi=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -x NCCL_NVLS_ENABLE -np)
log "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | xargs)"
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON
step 300 build cmake --build $B -j "$(nproc)" --target mpi_gpu_device_migration_test \
  mpi_gpu_device_halo_test md_mpi_gpu gpu_selection_test gpu_workspace_test pic_step_gpu -- -k 0
grep -E "error|FAILED" $S/build.txt | head -20 | tee -a $S/log.txt
for t in device_migration_test device_halo_test; do
  step 120 ${t}_np2 "${mpi[@]}" 2 $(exe mpi_gpu_$t); grep -E "^\S*\[  (PASSED|FAILED)" $S/${t}_np2.txt | sort | uniq -c | tee -a $S/log.txt
done
for t in gpu_selection_test gpu_workspace_test; do
  CUDA_VISIBLE_DEVICES=0 step 120 $t $(exe $t); grep -E "\[  (PASSED|FAILED)" $S/$t.txt | tee -a $S/log.txt
done
CUDA_VISIBLE_DEVICES=0 step 200 memcheck_selection compute-sanitizer --tool memcheck --error-exitcode 3 \
  $(exe gpu_selection_test) --gtest_filter='*through_a_workspace*'
grep -E "ERROR SUMMARY|PASSED|FAILED" $S/memcheck_selection.txt | tee -a $S/log.txt
md=(--lattice fcc 0.8442 --steps 100 --thermo 100 --layout soa --device gpu)
for rep in 1 2; do
  for np in 1 2 4; do
    case $np in 1) c="80 80 80";; 2) c="160 80 80";; 4) c="160 160 80";; esac
    for mode in after first; do
      [[ $np == 1 && $mode == first ]] && continue
      env=(); [[ $mode == first ]] && env=(-x MD_HALO_FIRST=1)
      name=md_weak_np${np}_halo_${mode}_$rep
      step 120 $name mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -x NCCL_NVLS_ENABLE "${env[@]}" -np $np $(exe md_mpi_gpu) "${md[@]}" --cells $c
      log "$name: $(grep -h -E '^Performance' $S/$name.txt | cut -c1-70) | $(grep -E '^(Force|Neighbor|Comm) ' $S/$name.txt | xargs)"
    done
  done
done
CUDA_VISIBLE_DEVICES=0 step 150 pic_step $(exe pic_step_gpu)
sed -n '/^version/,$p' $S/pic_step.txt | tee -a $S/log.txt
# hdf5_bench: host only, Ubuntu's serial HDF5.
h5=/usr/lib/x86_64-linux-gnu/hdf5/serial
step 60 io_configure cmake -S . -B /tmp/build-io -G Ninja -DCMAKE_BUILD_TYPE=Release -DLAYOUT_ENABLE_CUDA=OFF \
  -DLAYOUT_BUILD_EXAMPLES=OFF -DLAYOUT_BUILD_TESTS=OFF -DLAYOUT_BUILD_BENCHMARKS=ON \
  -DHDF5_ROOT=$h5 -DHDF5_C_INCLUDE_DIR=/usr/include/hdf5/serial -DHDF5_hdf5_LIBRARY_RELEASE=$h5/libhdf5.so
step 120 io_build cmake --build /tmp/build-io -j "$(nproc)" --target hdf5_bench
step 200 hdf5_bench /tmp/build-io/bench/io/hdf5_bench --repeats=5 --dir=/tmp
tail -25 $S/hdf5_bench.txt | tee -a $S/log.txt
df -h /tmp | tee -a $S/log.txt; nproc | tee -a $S/log.txt
save
