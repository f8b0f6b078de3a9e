#!/usr/bin/env bash
# Builds everything (CUDA targets too when nvcc is found) and runs every test: host tests,
# must-not-compile tests, header tests; GPU tests skip where there is no GPU.
# Release optimization, but without NDEBUG: asserts and layout's bounds checks stay on.
#   bash scripts/test.sh [extra ctest arguments, e.g. -L host]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh

build=build/test
generator=()
if command -v ninja >/dev/null 2>&1; then
    generator=(-G Ninja)
fi
if [[ -f "$build/CMakeCache.txt" ]]; then
    generator=() # keep whatever the existing build directory was made with
fi

jobs="${LAYOUT_JOBS:-$(nproc 2>/dev/null || echo 2)}"

cmake -S . -B "$build" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE=-O2 \
    -DCMAKE_CUDA_FLAGS_RELEASE=-O2 \
    -DLAYOUT_BUILD_TESTS=ON
cmake --build "$build" -j "$jobs"
ctest --test-dir "$build" --output-on-failure -j "$jobs" "$@"
