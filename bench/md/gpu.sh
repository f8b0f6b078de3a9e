#!/usr/bin/env bash
# The MD mini-app on the GPU machine, one command from the repository root (about 5 minutes,
# most of it the build):
#   OUT=/some/dir bash bench/md/gpu.sh
# Builds md_gpu and md_compare_thermo, runs the GPU validation against the committed LAMMPS
# reference (ctest -R '^md\.gpu'), in.lj with 32,000 and 2,048,000 atoms under each layout with
# the library force kernel timed against the hand-written ones (--compare-raw), and 10,000 steps
# for energy conservation. Everything goes to $OUT/md_gpu.txt.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
OUT="${OUT:-$PWD/out}"
BUILD="${BUILD:-/tmp/build-md}"
mkdir -p "$OUT"
exec > >(tee -a "$OUT/md_gpu.txt") 2>&1
status=0
step() { # step LIMIT COMMAND...
    local limit=$1; shift
    echo "== $*"
    timeout "$limit" "$@" || { echo "== rc=$? for: $*"; status=1; }
}
echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
step 120 cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=OFF
step 400 cmake --build "$BUILD" -j "$(nproc)" --target md_gpu md md_compare_thermo
md_gpu="$BUILD/examples/md/md_gpu"
step 120 ctest --test-dir "$BUILD" -R '^md\.gpu' --output-on-failure
for layout in aos soa aosoa32; do
    step 120 "$md_gpu" --lattice fcc 0.8442 --cells 20 20 20 --device gpu --layout "$layout" --compare-raw 50
done
# Without the per-phase synchronizations of the timing breakdown: the loop time alone.
for layout in aos soa aosoa32; do
    step 120 "$md_gpu" --lattice fcc 0.8442 --cells 20 20 20 --device gpu --layout "$layout" --no-timing
    step 200 "$md_gpu" --lattice fcc 0.8442 --cells 80 80 80 --device gpu --layout "$layout" --no-timing
done
for layout in aos soa aosoa32; do
    step 200 "$md_gpu" --lattice fcc 0.8442 --cells 80 80 80 --device gpu --layout "$layout" --compare-raw 20
done
step 300 "$md_gpu" --lattice fcc 0.8442 --cells 20 20 20 --device gpu --layout soa --steps 10000 --thermo 1000
# The host path of the same build, for the CPU of the GPU machine (16 cores).
step 200 "$BUILD/examples/md/md" --lattice fcc 0.8442 --cells 20 20 20 --layout soa --threads "$(nproc)"
exit $status
