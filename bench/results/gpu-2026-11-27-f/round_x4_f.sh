#!/usr/bin/env bash
# Session f, last round (4 GPUs of one host): md_mpi_gpu's force kernels through gpu_forces.hpp
# with lanes chosen per range (the boundary range gets 2 at 4 ranks): md_mpi_gpu's np4 tests
# and md_gpu's main ones, then MD weak scaling at 4 ranks with the lanes and with
# --force-lanes 1 (the kernel before), alternating.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-f; S=/tmp/steps-f; mkdir -p $S $OUT
export NCCL_NVLS_ENABLE=0
log() { echo "$*" | tee -a $S/log.txt; }
save() { tar czf $OUT/steps.tgz -C $S . ; cp $S/log.txt $OUT/log.txt; }
step() { local limit=$1 name=$2; shift 2; local start=$SECONDS
  timeout -s KILL $limit "$@" > $S/$name.txt 2>&1; local rc=$?
  log "[$name] rc=$rc $((SECONDS-start))s"; save; return $rc; }
exe() { find $B -type f -name "$1" -perm -u+x -print -quit; }
log "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | xargs)"
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=OFF
step 200 build cmake --build $B -j "$(nproc)" --target md_mpi_gpu md_gpu md_compare_thermo -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
step 90 md_tests ctest --test-dir $B -R '^(md_mpi_gpu\..*np4.*|md\.gpu\.(aos|soa|aosoa32|cut4|graph\.split))$' --output-on-failure
grep -E "Test +#|tests passed|tests failed" $S/md_tests.txt | tee -a $S/log.txt
md=(--lattice fcc 0.8442 --steps 100 --thermo 100 --layout soa --device gpu)
mpi=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -x NCCL_NVLS_ENABLE)
step 60 weak_np1 "${mpi[@]}" -np 1 $(exe md_mpi_gpu) "${md[@]}" --cells 80 80 80
log "np1: $(grep -h '^Performance' $S/weak_np1.txt | cut -c1-60) | $(grep -E '^(Force|Neighbor|Comm) ' $S/weak_np1.txt | xargs)"
for rep in 1 2; do
  for lanes in 0 1; do
    name=weak_np4_lanes${lanes}_$rep
    step 60 $name "${mpi[@]}" -np 4 $(exe md_mpi_gpu) "${md[@]}" --cells 160 160 80 --force-lanes $lanes
    log "np4 lanes $lanes: $(grep -h '^Performance' $S/$name.txt | cut -c1-60) | $(grep -E '^(Force|Neighbor|Comm) ' $S/$name.txt | xargs)"
  done
done
save
