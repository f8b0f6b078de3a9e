#!/usr/bin/env bash
# Builds and runs the particles example: the GPU version where a GPU and the CUDA target exist,
# the CPU version otherwise. Arguments go to the example.
#   bash scripts/particles.sh [example arguments]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh

build=build/main
generator=()
if command -v ninja >/dev/null 2>&1 && [[ ! -f "$build/CMakeCache.txt" ]]; then
    generator=(-G Ninja)
fi
jobs="${LAYOUT_JOBS:-$(nproc 2>/dev/null || echo 2)}"

cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DLAYOUT_BUILD_TESTS=OFF -DLAYOUT_BUILD_BENCHMARKS=OFF -DLAYOUT_BUILD_EXAMPLES=ON >&2

has_target() { cmake --build "$build" --target help 2>/dev/null | grep -Eq "(^|[[:space:]])$1(:|[[:space:]]|$)"; }

target=particles_cpu
if nvidia-smi -L >/dev/null 2>&1 && has_target particles_gpu; then
    target=particles_gpu
fi
if ! has_target "$target"; then
    echo "particles.sh: the build has no target $target (is examples/particles there?)" >&2
    exit 1
fi

cmake --build "$build" -j "$jobs" --target "$target" >&2

binary=$(find "$build" -type f -name "$target" -perm -u+x -print -quit)
if [[ -z "$binary" ]]; then
    echo "particles.sh: built $target but cannot find its executable under $build" >&2
    exit 1
fi
echo "particles.sh: running $binary $*" >&2
exec "$binary" "$@"
