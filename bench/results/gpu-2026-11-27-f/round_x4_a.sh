#!/usr/bin/env bash
# Session f, first round (4 GPUs of one host): what never ran on a GPU (9067043, 39418ab, 45dba14)
# through device_mpi_round.sh (the plans' tests on 2 and 4 ranks, md_mpi_gpu's tests, MD weak
# scaling, the migration/halo benchmark with the stay-after experiment and the hand-written halo),
# then Nsight Compute on the MD force and neighbour kernels at 1 and 4 ranks (the same atoms a
# rank), then the one-GPU workspace/algorithms tests and pic_step_gpu on GPU 0.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-mpi; S=/tmp/steps-extra; mkdir -p $S $OUT
export NCCL_NVLS_ENABLE=0
log() { echo "$*" | tee -a $S/log.txt; }
save() { tar czf $OUT/extra.tgz -C $S .; }
BUILD=$B MD=1 SANITIZE=0 STRONG=0 ALSO_ENV=LAYOUT_STAY_AFTER \
  EXTRA_TARGETS="gpu_workspace_test gpu_algorithms_test pic_step_gpu" \
  bash scripts/device_mpi_round.sh
exe() { find $B -type f -name "$1" -perm -u+x -print -quit; }
md=$(exe md_mpi_gpu)
args=(--lattice fcc 0.8442 --steps 30 --thermo 100 --layout soa --device gpu --no-overlap)
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,sm__throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size,smsp__warps_issue_stalled_long_scoreboard_per_issue_active.ratio,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
prof=(ncu --csv --page raw --metrics $metrics --kernel-name regex:'for_range|build_local' --launch-skip 6 --launch-count 6)
start=$SECONDS
timeout -s KILL 150 mpirun --allow-run-as-root -np 1 "${prof[@]}" $md "${args[@]}" --cells 80 80 80 > $S/ncu_np1.csv 2>&1
log "[ncu np1] rc=$? $((SECONDS-start))s"; save
start=$SECONDS
timeout -s KILL 200 mpirun --allow-run-as-root --oversubscribe -np 4 -x NCCL_NVLS_ENABLE bash -c \
  'if [ "$OMPI_COMM_WORLD_RANK" = 0 ]; then exec "$@"; else shift $0; exec "$@"; fi' \
  "$(( ${#prof[@]} ))" "${prof[@]}" $md "${args[@]}" --cells 160 160 80 > $S/ncu_np4.csv 2>&1
log "[ncu np4] rc=$? $((SECONDS-start))s"; save
for t in gpu_workspace_test gpu_algorithms_test; do
  start=$SECONDS
  CUDA_VISIBLE_DEVICES=0 timeout -s KILL 120 $(exe $t) > $S/$t.txt 2>&1
  log "[$t] rc=$? $((SECONDS-start))s $(grep -E '^\[  (PASSED|FAILED)' $S/$t.txt | xargs)"
done
save
start=$SECONDS
CUDA_VISIBLE_DEVICES=0 timeout -s KILL 150 $(exe pic_step_gpu) > $S/pic_step.txt 2>&1
log "[pic_step] rc=$? $((SECONDS-start))s"; cat $S/pic_step.txt | tail -14 | tee -a $S/log.txt
save
