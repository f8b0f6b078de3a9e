#!/usr/bin/env bash
# Session g, fifth round (4 GPUs of one host): the plans' tests on 2 and 4 ranks after the
# packs-into-peers experiment was taken out again (ipc_transport as in rounds b and c), with the
# test whose messages outgrow the transport's blocks.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-g; S=/tmp/steps-g5; mkdir -p $S $OUT
export NCCL_NVLS_ENABLE=0
log() { echo "$*" | tee -a $S/log.txt; }
save() { tar czf $OUT/steps.tgz -C $S . ; cp $S/log.txt $OUT/log.txt; }
step() { local limit=$1 name=$2; shift 2; local start=$SECONDS
  timeout -s KILL $limit "$@" > $S/$name.txt 2>&1; local rc=$?
  log "[$name] rc=$rc $((SECONDS-start))s"; save; return $rc; }
exe() { find $B -type f -name "$1" -perm -u+x -print -quit; }
log "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | xargs)"
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=OFF -DLAYOUT_BUILD_BENCHMARKS=OFF
step 200 build cmake --build $B -j "$(nproc)" --target mpi_gpu_device_migration_test \
  mpi_gpu_device_halo_test -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -x NCCL_NVLS_ENABLE)
for np in 2 4; do
  for t in migration halo; do
    step 90 ${t}_np$np "${mpi[@]}" -np $np $(exe mpi_gpu_device_${t}_test)
    grep -E "PASSED|FAILED|tests ran" $S/${t}_np$np.txt | sort | uniq -c | tee -a $S/log.txt
  done
done
CUDA_VISIBLE_DEVICES=0 step 90 migration_np2_one_gpu "${mpi[@]}" -np 2 $(exe mpi_gpu_device_migration_test)
grep -E "PASSED|FAILED|tests ran" $S/migration_np2_one_gpu.txt | sort | uniq -c | tee -a $S/log.txt
save
