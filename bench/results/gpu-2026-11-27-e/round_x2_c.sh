#!/usr/bin/env bash
# This session's last round (2 GPUs): the PIC step and the MD graphs alone on the machine (the
# previous round ran them beside compute-sanitizer), md.gpu.restart with md_compare_checkpoint
# built (the previous round lacked it), memcheck over the tests the previous round's time limit
# cut, and the MD concurrency experiment again without Open MPI's core binding (two separate
# mpiruns each bound their rank to core 0).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
X=/tmp/extra_c; B=/tmp/build; mkdir -p $X "$OUT"
log() { echo "$*" | tee -a $X/log.txt "$OUT/log.txt"; }
py=$(command -v python3); pyb=$($py -m pybind11 --cmakedir 2>/dev/null)
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON \
  -DPython3_EXECUTABLE=$py -Dpybind11_DIR=$pyb > $X/configure.txt 2>&1
grep -E "layout: (HDF5|no HDF5)" $X/configure.txt | tee -a $X/log.txt
start=$SECONDS
cmake --build $B -j "$(nproc)" --target md_gpu md md_compare_thermo md_compare_checkpoint md_mpi_gpu \
  pic_step_gpu gpu_vector_stream_test gpu_selection_test gpu_dlpack_test readme_02_device \
  readme_06_interop readme_07_born_and_dying particles_gpu transpose > $X/build.txt 2>&1
log "[build] rc=$? $((SECONDS-start))s"; grep -E "error" $X/build.txt | head -5 | tee -a $X/log.txt
exe() { find $B -type f -name "$1" -perm -u+x -print -quit; }
export CUDA_VISIBLE_DEVICES=0
timeout 150 "$(exe pic_step_gpu)" > $OUT/pic_step.txt 2>&1; log "[pic_step] rc=$?"
sed -n '/^version/,$p' $OUT/pic_step.txt | tee -a $X/log.txt
timeout 120 "$(exe md_gpu)" --lattice fcc 0.8442 --cells 20 20 20 --device gpu --steps 2000 \
    --graph-compare 3 --layout soa > $OUT/md_graphs.txt 2>&1; log "[md_graphs] rc=$?"
tail -5 $OUT/md_graphs.txt | tee -a $X/log.txt
timeout 200 ctest --test-dir $B -R '^md\.(gpu\.restart|restart_error)' --output-on-failure > $X/md_restart.txt 2>&1
log "[md restart tests] rc=$? $(grep -E 'tests passed|tests failed' $X/md_restart.txt)"
grep -E "\(Failed\)" $X/md_restart.txt | head | tee -a $X/log.txt
for t in gpu_vector_stream_test gpu_selection_test gpu_dlpack_test readme_02_device readme_06_interop \
         readme_07_born_and_dying particles_gpu transpose; do
  a=(); [[ $t == gpu_* ]] && a=(--gtest_filter='-*operations_never_synchronize_the_device*' --gtest_brief=1)
  [[ $t == particles_gpu ]] && a=(--n 100003 --reps 1); [[ $t == transpose ]] && a=(--sizes 1000 --reps 1)
  timeout 120 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 99 "$(exe $t)" "${a[@]}" > $X/memcheck.$t.txt 2>&1
  log "memcheck $t rc=$? $(grep -E 'ERROR SUMMARY' $X/memcheck.$t.txt | tail -1)"
done
unset CUDA_VISIBLE_DEVICES
md=$(exe md_mpi_gpu)
args=(--lattice fcc 0.8442 --steps 100 --thermo 100 --layout soa --device gpu --no-overlap)
mpi=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader --bind-to none)
sec() { grep -A5 '^Performance' "$1" | grep -E "^Performance|Force|Neighbor|Comm" | sed -E 's/ atom-steps.*//' | tr -s ' ' | xargs; }
for rep in 1 2; do
  CUDA_VISIBLE_DEVICES=0 timeout -s KILL 60 "${mpi[@]}" -np 1 $md "${args[@]}" --cells 80 80 80 > $X/md_alone_$rep.txt 2>&1
  log "alone $rep: $(sec $X/md_alone_$rep.txt)"
  for g in 0 1; do
    CUDA_VISIBLE_DEVICES=$g timeout -s KILL 60 "${mpi[@]}" -np 1 $md "${args[@]}" --cells 80 80 80 > $X/md_two_${rep}_gpu$g.txt 2>&1 &
  done
  wait
  for g in 0 1; do log "two at once $rep, gpu $g: $(sec $X/md_two_${rep}_gpu$g.txt)"; done
  timeout -s KILL 60 "${mpi[@]}" -np 2 $md "${args[@]}" --cells 160 80 80 > $X/md_np2_$rep.txt 2>&1
  log "np2 weak, no binding $rep: $(sec $X/md_np2_$rep.txt)"
  timeout -s KILL 60 mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -np 2 $md "${args[@]}" --cells 160 80 80 > $X/md_np2_bound_$rep.txt 2>&1
  log "np2 weak, bound (default) $rep: $(sec $X/md_np2_bound_$rep.txt)"
done
tar czf $OUT/extra.tgz -C $X .

