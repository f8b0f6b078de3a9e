#!/usr/bin/env bash
# Session f, fifth round (one H100): the MD app's force kernel with several threads an atom for
# small systems (full_forces): md_gpu's GPU tests (thermo against the committed reference,
# graphs bit for bit, restarts), then the 32,000-atom run with and without CUDA graphs, lanes
# chosen by size (8 there) and forced to 1, 2, 4.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-h100; S=/tmp/steps-e; mkdir -p $S $OUT
log() { echo "$*" | tee -a $S/log.txt; }
save() { tar czf $OUT/steps.tgz -C $S . ; cp $S/log.txt $OUT/log.txt; }
step() { local limit=$1 name=$2; shift 2; local start=$SECONDS
  timeout -s KILL $limit "$@" > $S/$name.txt 2>&1; local rc=$?
  log "[$name] rc=$rc $((SECONDS-start))s"; save; return $rc; }
exe() { find $B -type f -name "$1" -perm -u+x -print -quit; }
log "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
h5=/usr/lib/x86_64-linux-gnu/hdf5/serial
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON \
  -DHDF5_ROOT=$h5 -DHDF5_C_INCLUDE_DIR=/usr/include/hdf5/serial -DHDF5_hdf5_LIBRARY_RELEASE=$h5/libhdf5.so
step 300 build cmake --build $B -j "$(nproc)" --target md_gpu md md_compare_thermo md_compare_checkpoint -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
step 200 md_gpu_tests ctest --test-dir $B -R '^md\.gpu' --output-on-failure --timeout 100
grep -E "tests passed|tests failed|Failed|\*\*\*" $S/md_gpu_tests.txt | head -20 | tee -a $S/log.txt
md=($(exe md_gpu) --lattice fcc 0.8442 --cells 20 20 20 --device gpu --steps 2000 --layout soa)
for lanes in 0 1 2 4 8 0; do
  step 60 graphs_lanes$lanes "${md[@]}" --graph-compare 3 --force-lanes $lanes
  log "lanes $lanes: $(grep -E 'graphs  |direct  |timed|Graph speedup' $S/graphs_lanes$lanes.txt | xargs)"
done
save
