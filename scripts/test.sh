#!/usr/bin/env bash
# Builds everything (CUDA targets too when nvcc is found) and runs every test: host tests,
# must-not-compile tests, header tests; GPU tests skip where there is no GPU.
# Release optimization, but without NDEBUG: asserts and layout's bounds checks stay on.
# Then a second build, build/asan: the host tests (the differential fuzz tests included, with a
# smaller budget) under AddressSanitizer + UndefinedBehaviorSanitizer, leak checks on; only the
# tests are built there (no examples, benchmarks or CUDA), unoptimized, which compiles fastest.
# Then a third build, build/clang: the same tests (no examples, benchmarks or CUDA), unoptimized,
# compiled by clang++ (clang 14 on Debian 12), which rejects some code that g++ accepts; all of
# its tests run (host, must-not-compile with clang's wording, header, consumer, README blocks).
#   bash scripts/test.sh [extra ctest arguments for the first build, e.g. -L host]
#   LAYOUT_ASAN=0 bash scripts/test.sh     skips the sanitizer build
#   LAYOUT_CLANG=0 bash scripts/test.sh    skips the clang build
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh
# clang is optional to install-deps.sh (a failed install is a warning): say so now, not after
# the first build.
if [[ "${LAYOUT_CLANG:-1}" != 0 ]] && ! command -v clang++ >/dev/null 2>&1; then
    echo "test.sh: no clang++ (scripts/install-deps.sh could not install Debian's clang);" \
         "LAYOUT_CLANG=0 skips the clang build" >&2
    exit 1
fi

jobs="${LAYOUT_JOBS:-$(nproc 2>/dev/null || echo 2)}"

# configure <build dir> <cmake arguments...>
configure() {
    local dir="$1"
    shift
    local generator=()
    if command -v ninja >/dev/null 2>&1 && [[ ! -f "$dir/CMakeCache.txt" ]]; then
        generator=(-G Ninja) # an existing build directory keeps whatever it was made with
    fi
    cmake -S . -B "$dir" "${generator[@]}" "$@"
}

build=build/test
configure "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE=-O2 \
    -DCMAKE_CUDA_FLAGS_RELEASE=-O2 \
    -DLAYOUT_BUILD_TESTS=ON
cmake --build "$build" -j "$jobs"
ctest --test-dir "$build" --output-on-failure -j "$jobs" "$@"

# The second and third builds: the tests only (no examples, benchmarks or CUDA), with a smaller
# differential fuzz budget.
tests_only=(-DLAYOUT_ENABLE_CUDA=OFF -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=OFF
            -DLAYOUT_BUILD_BENCHMARKS=OFF -DLAYOUT_FUZZ_OPS=100000 -DLAYOUT_FUZZ_MAX_SIZE=120)

if [[ "${LAYOUT_ASAN:-1}" != 0 ]]; then
    # Debug (-O0): with ASan + UBSan, -O1 took the differential fuzz test alone from 1.5 to 8.5
    # minutes of compiling on the 2-core CI machine. NDEBUG is not defined: bounds checks stay on.
    asan=build/asan
    sanitize="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
    configure "$asan" \
        -DCMAKE_BUILD_TYPE=Debug \
        -DCMAKE_CXX_FLAGS="$sanitize" \
        -DCMAKE_EXE_LINKER_FLAGS="$sanitize" \
        "${tests_only[@]}"
    cmake --build "$asan" -j "$jobs"
    ASAN_OPTIONS="detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1" \
    UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
        ctest --test-dir "$asan" --output-on-failure -j "$jobs" -L host
fi

if [[ "${LAYOUT_CLANG:-1}" != 0 ]]; then
    # Debug (-O0) compiles fastest: about 70 s on 2 cores, the tests included.
    clang=build/clang
    configure "$clang" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug "${tests_only[@]}"
    cmake --build "$clang" -j "$jobs"
    ctest --test-dir "$clang" --output-on-failure -j "$jobs"
fi
