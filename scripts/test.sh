#!/usr/bin/env bash
# Builds everything (CUDA targets too when nvcc is found) and runs every test: host tests,
# must-not-compile tests, header tests; GPU tests skip where there is no GPU.
# Optimized (-Og: g++'s optimization level for debugging, which inlines and optimizes but compiles
# the tests in about 45% of -O2's time: vector_model_test.cpp 41 against 92 CPU seconds, the first
# build 1267 against 1589), and without NDEBUG: asserts and layout's bounds checks stay on.
# Then a second build, build/clang: the tests again (no examples, benchmarks or CUDA), compiled
# by clang++ (clang 14 on Debian 12, which rejects some code that g++ accepts), unoptimized,
# under AddressSanitizer + UndefinedBehaviorSanitizer with leak checks on: the tests run there
# (host tests, the differential fuzz tests on a smaller budget, must-not-compile tests with
# clang's wording, the headers in one unit, README tests), but for those whose result does not
# depend on the compiler, which run in the first build only (below). tests/host's executables
# run only there: the first build compiles them with g++ -fsyntax-only (LAYOUT_HOST_TESTS below).
# One build serves both checks because clang compiles the instrumented tests in about 40% of
# g++'s time (iterator_test.cpp: 66 against 171 s).
# Then a third build, build/tsan: the two tests of the threaded host paths (for_each_index
# under exec::parallel; copies and conversions, gather/scatter/permute, sort_by_key and
# bin_by_key) under ThreadSanitizer, built by clang++ with OpenMP (libomp, whose Archer tool
# tells TSan about OpenMP's synchronization), run on 4 threads.
# The second and third builds run while the first build's tests do, and the ThreadSanitizer tests
# while the ASan ones do (in the background, their output printed after), so that the cores stay
# busy; the time of each stage is printed at the end.
#   bash scripts/test.sh [extra ctest arguments for the first build, e.g. -L host]
#   LAYOUT_CLANG=0 bash scripts/test.sh    skips the clang + sanitizer build
#   LAYOUT_TSAN=0 bash scripts/test.sh     skips the ThreadSanitizer build
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh
# clang is optional to install-deps.sh (a failed install is a warning): say so now, not after
# the first build.
if [[ "${LAYOUT_CLANG:-1}" != 0 || "${LAYOUT_TSAN:-1}" != 0 ]] && ! command -v clang++ >/dev/null 2>&1; then
    echo "test.sh: no clang++ (scripts/install-deps.sh could not install Debian's clang);" \
         "LAYOUT_CLANG=0 LAYOUT_TSAN=0 skip the clang and ThreadSanitizer builds" >&2
    exit 1
fi

jobs="${LAYOUT_JOBS:-$(nproc 2>/dev/null || echo 2)}"
# OpenMP's threads wait for the next parallel region asleep, not spinning (libomp spins 200 ms):
# the cores are shared by two tests at a time and a background build, and a spinning thread took
# them from those. The threaded tests under ThreadSanitizer: 54 -> 30 CPU seconds; under ASan,
# host_execution_test 32 -> 16.
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"

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

# Without a GPU the CUDA code is compiled to check it, not to run it (LAYOUT_CUDA_CHECK_ONLY,
# cmake/cuda_check_only.cmake): nvcc's front end sees every line, host and device, and device
# code goes as far as NVVM IR (where calls from device code to host functions are refused),
# unoptimized; no PTX, no pass of the host compiler over nvcc's output, no link (each CUDA
# executable is a script that exits 77: skipped); the sources of a directory's executables with
# the same settings are checked several in one nvcc run (cmake/check_groups.cmake). A machine
# with a GPU builds for sm_90 at -O2, every unit on its own, and runs the GPU tests.
# There, clang++ is nvcc's host compiler too, which then only preprocesses: a small unit in 0.91x
# the time with g++ (bench/results/local-2026-11-28-p/ci.md). g++ stays nvcc's host compiler for
# the checks through nvcc (must-(not-)compile), the CMake consumer builds and on a GPU machine.
# Passed as CUDAHOSTCXX to the first configure only (CMake 3.25's check_language(CUDA) drops
# -DCMAKE_CUDA_HOST_COMPILER).
cuda=(-DCMAKE_CUDA_FLAGS_RELEASE=-O2)
cuda_host=
if ! nvidia-smi -L >/dev/null 2>&1; then
    # LAYOUT_CUDA_BENCH_FLAGS emptied: the GPU examples' and benchmarks' -O3 too.
    cuda=(-DCMAKE_CUDA_FLAGS_RELEASE="-O0 -Xcicc -O0" -DCMAKE_CUDA_ARCHITECTURES=90-virtual
          -DLAYOUT_CUDA_BENCH_FLAGS= -DLAYOUT_CUDA_CHECK_ONLY=ON)
    if [[ "${LAYOUT_CLANG:-1}" != 0 ]]; then
        cuda_host="$(command -v clang++)"
    fi
fi
build=build/test
# The host benchmarks and particles_cpu are only compiled here, not run: -Og for them too
# (LAYOUT_HOST_BENCH_FLAGS, -O3 by default: 25 against 15 CPU seconds).
# The differential fuzz tests apply 3M container operations here, not the default 6M, over the
# six tests; where the sanitizer build runs, its three tests in failing memory run there only
# (-DLAYOUT_FUZZ_FAILING_MEMORY=OFF here: their unit is g++'s largest, 64 CPU seconds, and they
# check frees and the state after a failed allocation, which ASan checks there too), so that
# the first build applies 1.5M, in host memory; the sanitizer build applies 100k under ASan.
first=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-Og -DLAYOUT_HOST_BENCH_FLAGS=-Og
       -DLAYOUT_FUZZ_OPS=3000000 "${cuda[@]}" -DLAYOUT_BUILD_TESTS=ON)
# tests/host's executables run in build/clang (below), under ASan and UBSan: where that build is
# on, g++ only compiles them here, -fsyntax-only (LAYOUT_HOST_TESTS=syntax_only: g++ must accept
# every line and instantiation; code generation was 0.7x of their compile time), several sources
# in one run where they can be (cmake/check_groups.cmake).
if [[ "${LAYOUT_CLANG:-1}" != 0 ]]; then
    first+=(-DLAYOUT_HOST_TESTS=syntax_only -DLAYOUT_FUZZ_FAILING_MEMORY=OFF)
else
    first+=(-DLAYOUT_HOST_TESTS=run -DLAYOUT_FUZZ_FAILING_MEMORY=ON)
fi
if [[ -n "$cuda_host" ]]; then
    CUDAHOSTCXX="$cuda_host" configure "$build" "${first[@]}"
else
    configure "$build" "${first[@]}"
fi
cmake --build "$build" -j "$jobs"
built="first build ${SECONDS} s"

# The second and third builds: the tests only (no examples, benchmarks or CUDA), with a smaller
# differential fuzz budget and a smaller large size in the conversion tests (10007 elements
# against 100003).
# Debug info: none in build/clang (-g0): line tables made its build 451 CPU seconds against 369
# (vector_model_test.cpp 39 against 29 under ASan). Its reports still name the failing TEST (the
# GoogleTest output) and the functions of each stack frame, and UBSan's the file:line:col of the
# check (built into the instrumentation); only ASan's frames lose their file:line. To read them,
# build build/clang again with -DCMAKE_CXX_FLAGS_DEBUG=-gline-tables-only and rerun the test.
# build/tsan keeps line tables (a race report is hard to read without them; its two units cost
# 15 CPU seconds).
# Each GoogleTest executable is one CTest test there, its TESTs in one process
# (LAYOUT_GTEST_TESTS=together; the first build runs each TEST in a process of its own): the
# same test code under the same sanitizers, without starting 1800 sanitized processes (the host
# tests under ASan + UBSan took 150 CPU seconds that way, 111 in one process per executable).
tests_only=(-DLAYOUT_ENABLE_CUDA=OFF -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=OFF
            -DLAYOUT_BUILD_BENCHMARKS=OFF -DLAYOUT_FUZZ_OPS=100000 -DLAYOUT_FUZZ_MAX_SIZE=120
            -DLAYOUT_TEST_LARGE_SIZE=10007 -DLAYOUT_GTEST_TESTS=together)
clang=build/clang
tsan=build/tsan
threaded=(host_for_each_test host_execution_test)

# Configures and builds build/clang and build/tsan (as enabled).
sanitizer_builds() {
    if [[ "${LAYOUT_CLANG:-1}" != 0 ]]; then
        # Debug (-O0) compiles fastest; NDEBUG is not defined: bounds checks stay on.
        # The header tests in one unit (LAYOUT_HEADER_TESTS=together): the first build checks
        # that each header compiles on its own (g++, a unit each); clang only has to accept them
        # (70 units under ASan took 19 CPU seconds, the one 0.9).
        local sanitize="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
        configure "$clang" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug \
            -DCMAKE_CXX_FLAGS="$sanitize" -DCMAKE_EXE_LINKER_FLAGS="$sanitize" "${tests_only[@]}" \
            -DLAYOUT_HEADER_TESTS=together -DCMAKE_CXX_FLAGS_DEBUG=-g0
        cmake --build "$clang" -j "$jobs"
    fi
    if [[ "${LAYOUT_TSAN:-1}" != 0 ]]; then
        # Debug (-O0), clang++ with -fopenmp (libomp): only the two threaded tests are built. The
        # build must find OpenMP, else the tests would run on one thread and prove nothing.
        # LAYOUT_IVDEP is emptied: with its `omp simd` on the loop that calls the functor
        # (flattened into it), clang's TSan reported no race in a functor that wrote one int from
        # every thread.
        configure "$tsan" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug \
            -DCMAKE_CXX_FLAGS="-fsanitize=thread -fno-omit-frame-pointer -DLAYOUT_IVDEP=" \
            -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread "${tests_only[@]}" \
            -DCMAKE_CXX_FLAGS_DEBUG=-gline-tables-only
        if ! grep -q '^OpenMP_CXX_FLAGS:STRING=.' "$tsan/CMakeCache.txt"; then
            echo "test.sh: clang++ finds no OpenMP (Debian's libomp-dev); LAYOUT_TSAN=0 skips" \
                 "the ThreadSanitizer build" >&2
            return 1
        fi
        cmake --build "$tsan" -j "$jobs" --target "${threaded[@]}"
    fi
}

# The threaded tests under ThreadSanitizer, on 4 threads. tests/host/tsan_openmp.supp hides only
# libomp's own start-up (not instrumented).
tsan_tests() {
    OMP_NUM_THREADS=4 TSAN_OPTIONS="suppressions=$PWD/tests/host/tsan_openmp.supp halt_on_error=1" \
        ctest --test-dir "$tsan" --output-on-failure -j "$jobs" \
        -R "^($(IFS='|'; echo "${threaded[*]}"))(\.|$)"
}

# The sanitizer builds run while the first build's tests do, and the ThreadSanitizer tests while
# the ASan ones do: a test run leaves the cores idle part of the time (processes starting, the
# MPI tests that run alone, the last tests), which the other work fills. Each runs in the
# background with its output in a log under build/, printed when it is waited for; it has its own
# process group (set -m), which is killed if this script stops first.
background=0
start_background() { # <log> <function>
    set -m
    "$2" >"$1" 2>&1 &
    background=$!
    set +m
}
stop_background() {
    if [[ "$background" != 0 ]] && kill -0 "$background" 2>/dev/null; then
        kill -TERM -- "-$background" 2>/dev/null || true
    fi
}
trap stop_background EXIT
trap 'exit 130' INT TERM
wait_background() { # <log> <what>
    local rc=0
    wait "$background" || rc=$?
    background=0
    echo "==== test.sh: $2 (run in the background; its output, $1) ===="
    cat "$1"
    if [[ $rc -ne 0 ]]; then
        echo "test.sh: $2 failed" >&2
        exit 1
    fi
}

if [[ "${LAYOUT_CLANG:-1}" != 0 || "${LAYOUT_TSAN:-1}" != 0 ]]; then
    start_background build/sanitizer-builds.log sanitizer_builds
fi
ctest --test-dir "$build" --output-on-failure -j "$jobs" "$@"
stages="$built, its tests ${SECONDS} s"
if [[ "$background" != 0 ]]; then
    wait_background build/sanitizer-builds.log "the clang and ThreadSanitizer builds"
    stages+=", sanitizer builds ${SECONDS} s"
fi

if [[ "${LAYOUT_TSAN:-1}" != 0 ]]; then
    start_background build/tsan-tests.log tsan_tests
fi
if [[ "${LAYOUT_CLANG:-1}" != 0 ]]; then
    asan="strict_string_checks=1:detect_stack_use_after_return=1"
    ubsan="print_stacktrace=1:halt_on_error=1"
    # Not again here, the tests whose result does not depend on the compiler, run in the first
    # build: the consumer tests (label consumer: install, find_package, add_subdirectory,
    # FetchContent, the build tree) check CMake's packaging (with the first build's CUDA source
    # too; clang's view of the headers is the header tests', run here); the HIP compile checks
    # (label hip) are hipcc's; format.clang_format, generated.field_bindings and readme.in_sync
    # read the sources; md.lammps.* run md on the start that LAMMPS writes, which is the
    # committed one byte for byte (tests/md/data/start.data; LAMMPS's thermo is reference.log's
    # too), so under the sanitizers they repeat md.committed.* (the same binary, input and
    # options). About 18 CPU seconds here (the consumer tests took 50 s of the critical path).
    # Nor the md cases whose runs repeat others' code under the sanitizers (26 CPU seconds):
    # md.restart.<x>_to_<x> (its straight and first runs are <x>_to_<y>'s, and its restarted run
    # reads the same file, which holds leaves, not a layout, into <x> as <w>_to_<x>'s does), the
    # checks that a comparison can fail (md.restart.detects_mismatch runs between_rebuilds's
    # runs, md.compare_detects_mismatch md.committed.aos's with another time step).
    repeats='md\.lammps\..*|md\.compare_detects_mismatch'
    repeats+='|md\.restart\.(aos_to_aos|soa_to_soa|aosoa32_to_aosoa32|split_to_split|detects_mismatch)'
    ASAN_OPTIONS="detect_leaks=1:$asan" UBSAN_OPTIONS="$ubsan" \
        ctest --test-dir "$clang" --output-on-failure -j "$jobs" -LE '^(mpi|consumer|hip)$' \
        -E "^($repeats|format\\.clang_format|generated\\.field_bindings|readme\\.in_sync)\$"
fi
if [[ "$background" != 0 ]]; then
    wait_background build/tsan-tests.log "the ThreadSanitizer tests"
fi
if [[ "${LAYOUT_CLANG:-1}" != 0 ]]; then
    # Open MPI leaks its own allocations at MPI_Finalize (LeakSanitizer lists thousands, in
    # libmpi and its plug-ins): the MPI tests run under ASan and UBSan without the leak check.
    # After the ThreadSanitizer tests: the MPI tests run alone (RUN_SERIAL).
    ASAN_OPTIONS="detect_leaks=0:$asan" UBSAN_OPTIONS="$ubsan" \
        ctest --test-dir "$clang" --output-on-failure -j "$jobs" -L '^mpi$'
fi

echo "test.sh: done in ${SECONDS} s (${stages})"
