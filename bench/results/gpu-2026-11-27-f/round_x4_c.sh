#!/usr/bin/env bash
# Session f, third round (4 GPUs of one host): the migration benchmark with the hand-written SoA
# migration beside the hand-written AoS one (2 and 4 ranks), then the whole build and every GPU
# test (label gpu, one GPU), after the staged selection copy and the side stream's move.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-all; S=/tmp/steps-c; mkdir -p $S $OUT
export NCCL_NVLS_ENABLE=0
log() { echo "$*" | tee -a $S/log.txt; }
save() { tar czf $OUT/steps.tgz -C $S . ; cp $S/log.txt $OUT/log.txt; }
step() { local limit=$1 name=$2; shift 2; local start=$SECONDS
  timeout -s KILL $limit "$@" > $S/$name.txt 2>&1; local rc=$?
  log "[$name] rc=$rc $((SECONDS-start))s"; save; return $rc; }
exe() { find $B -type f -name "$1" -perm -u+x -print -quit; }
log "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | xargs)"
py=$(command -v python3); pyb=$($py -m pybind11 --cmakedir 2>/dev/null)
h5=/usr/lib/x86_64-linux-gnu/hdf5/serial
step 90 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON \
  -DPython3_EXECUTABLE=$py -Dpybind11_DIR=$pyb \
  -DHDF5_ROOT=$h5 -DHDF5_C_INCLUDE_DIR=/usr/include/hdf5/serial -DHDF5_hdf5_LIBRARY_RELEASE=$h5/libhdf5.so
step 200 build_bench cmake --build $B -j "$(nproc)" --target device_migrate_bench_gpu
for np in 2 4; do
  step 120 migrate_np$np mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -x NCCL_NVLS_ENABLE \
    -np $np $(exe device_migrate_bench_gpu) --n=4000000 --steps=20
  sed -n '1,12p' $S/migrate_np$np.txt | tee -a $S/log.txt
done
step 360 build_all cmake --build $B -j "$(nproc)" -- -k 0
grep -E "error|FAILED" $S/build_all.txt | head -20 | tee -a $S/log.txt
CUDA_VISIBLE_DEVICES=0 step 200 gpu_tests ctest --test-dir $B -L gpu --timeout 120 --output-on-failure
grep -E "tests passed|tests failed|Failed|\*\*\*" $S/gpu_tests.txt | head -30 | tee -a $S/log.txt
save
