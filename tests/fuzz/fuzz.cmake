# Differential fuzzing (included by tests/CMakeLists.txt; see tests/fuzz/differential.hpp).
#
#   fuzz_differential            GoogleTest program: the driver on byte streams from fixed seeds,
#                                LAYOUT_FUZZ_OPS container operations in all; each TEST is a CTest
#                                test fuzz_differential.<Suite>.<Test>, labels `host` and `fuzz`.
#                                The environment variables LAYOUT_FUZZ_OPS, LAYOUT_FUZZ_MAX_SIZE,
#                                LAYOUT_FUZZ_SECONDS and LAYOUT_FUZZ_SEED override the defaults
#                                when it runs (tests/fuzz/fuzz_runner.hpp).
#   layout_fuzzer                with LAYOUT_BUILD_FUZZER=ON (preset `fuzz`, scripts/fuzz.sh) and a
#                                clang that has libFuzzer: the same driver as a libFuzzer target,
#                                with ASan + UBSan; CTest runs it briefly as fuzz.libfuzzer_smoke.

set(LAYOUT_FUZZ_OPS 6000000 CACHE STRING
    "Container operations the fuzz_differential tests apply in all (environment LAYOUT_FUZZ_OPS overrides)")
set(LAYOUT_FUZZ_MAX_SIZE 300 CACHE STRING
    "Largest container the fuzz_differential streams grow (environment LAYOUT_FUZZ_MAX_SIZE overrides)")
option(LAYOUT_BUILD_FUZZER "Build the libFuzzer target layout_fuzzer (clang with -fsanitize=fuzzer)" OFF)

option(LAYOUT_FUZZ_FAILING_MEMORY
       "Also fuzz in memory whose allocations fail on demand (fuzz_test_failing.cpp)" ON)

# Two translation units (host memory, failing memory), so that they compile in parallel. Labels
# host and fuzz; COST: the longest tests of a run (5 to 15 s each), started first
# (tests/CMakeLists.txt). scripts/test.sh leaves the failing-memory half out of its first build
# (g++ -Og): it runs in the sanitized build, where what it checks (every block freed once, the
# containers as they were after a failed allocation) is checked by AddressSanitizer too.
set(fuzz_sources ${LAYOUT_TESTS_DIR}/fuzz/fuzz_test.cpp)
if(LAYOUT_FUZZ_FAILING_MEMORY)
    list(APPEND fuzz_sources ${LAYOUT_TESTS_DIR}/fuzz/fuzz_test_failing.cpp)
endif()
layout_host_test(fuzz_differential ${fuzz_sources} LABELS fuzz COST 10)
target_compile_definitions(fuzz_differential PRIVATE
    LAYOUT_FUZZ_OPS_DEFAULT=${LAYOUT_FUZZ_OPS} LAYOUT_FUZZ_MAX_SIZE_DEFAULT=${LAYOUT_FUZZ_MAX_SIZE})

if(LAYOUT_BUILD_FUZZER)
    include(CheckCXXSourceCompiles)
    include(CMakePushCheckState)
    cmake_push_check_state(RESET)
    set(CMAKE_REQUIRED_FLAGS -fsanitize=fuzzer,address)
    set(CMAKE_REQUIRED_LINK_OPTIONS -fsanitize=fuzzer,address)
    check_cxx_source_compiles([[
        #include <cstddef>
        #include <cstdint>
        extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }
    ]] LAYOUT_HAVE_LIBFUZZER)
    cmake_pop_check_state()
    if(LAYOUT_HAVE_LIBFUZZER)
        set(layout_fuzzer_flags -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
                                -fno-omit-frame-pointer)
        add_executable(layout_fuzzer ${LAYOUT_TESTS_DIR}/fuzz/libfuzzer_main.cpp)
        # GTest for its headers only: test_types.hpp, shared with the tests, includes gtest.h
        target_link_libraries(layout_fuzzer PRIVATE layout::layout GTest::gtest)
        target_include_directories(layout_fuzzer PRIVATE ${LAYOUT_TESTS_DIR})
        target_compile_options(layout_fuzzer PRIVATE ${layout_fuzzer_flags})
        target_link_options(layout_fuzzer PRIVATE ${layout_fuzzer_flags})
        layout_test_warnings(layout_fuzzer)
        add_test(NAME fuzz.libfuzzer_smoke COMMAND layout_fuzzer -runs=2000 -seed=1)
        set_tests_properties(fuzz.libfuzzer_smoke PROPERTIES LABELS fuzz)
    else()
        message(WARNING "layout: LAYOUT_BUILD_FUZZER is ON, but ${CMAKE_CXX_COMPILER} cannot build "
                        "with -fsanitize=fuzzer,address (it needs clang and its libFuzzer runtime, "
                        "e.g. Debian's libclang-rt-dev); layout_fuzzer is not built")
    endif()
endif()
