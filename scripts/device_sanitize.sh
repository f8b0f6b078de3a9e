#!/usr/bin/env bash
# compute-sanitizer memcheck, racecheck, synccheck and initcheck over every GPU test executable
# and the GPU examples, on the H100 machine, after scripts/device_round.sh has built them in
# $BUILD. TOOLS="racecheck synccheck" picks tools; SKIP_BUILD=1 builds nothing (several of these
# may then run at once on a machine with several GPUs, each with its own CUDA_VISIBLE_DEVICES,
# OUT and LOGS).
# Tests that move more than 2^31 elements are filtered out here (instrumented, they take
# minutes each); they run uninstrumented in device_round.sh. Each run has a time limit; the
# ERROR SUMMARY of every run goes to $OUT/sanitize.txt, the full logs to $OUT/sanitize.tgz.
#   OUT=/some/dir REV=$(git rev-parse --short HEAD) bash scripts/device_sanitize.sh
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT="${OUT:-$PWD/out}"
BUILD="${BUILD:-/tmp/build}"
LOGS="${LOGS:-/tmp/sanitize}"
LIMIT="${SANITIZE_LIMIT:-180}"
mkdir -p "$OUT" "$LOGS"
summary="$OUT/sanitize.txt"
exe() { find "$BUILD" -type f -name "$1" -perm -u+x -print -quit; }
large='*more_than_2_to_the_31*:*indices_beyond_32_bits*'
# The tests that show an operation never synchronizes the device hold a kernel spinning on one
# stream while the operation runs on another; the tools serialize kernels, so there the spinning
# kernel gives up (a failure of the method, not of the library): they run in device_round.sh.
serial_only='*operations_never_synchronize_the_device*'
status=0

# The device machine gets a copy of the working tree whose .git may be stale: pass REV=<commit>.
echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) commit ${REV:-unknown}," \
     "$(compute-sanitizer --version | tail -1)" | tee -a "$summary"
# Builds what is missing (nothing, right after scripts/device_round.sh on the same machine).
if [[ "${SKIP_BUILD:-0}" == 0 ]]; then
    cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON > "$LOGS/configure.txt" 2>&1 &&
        cmake --build "$BUILD" -j "$(nproc)" --target gpu_vector_test gpu_view_test \
            gpu_copy_test gpu_algorithms_test gpu_columns_test gpu_allocation_failure_test \
            gpu_for_each_test gpu_append_test gpu_algorithms_compact_test gpu_workspace_test \
            gpu_vector_stream_test gpu_selection_test gpu_dlpack_test readme_02_device \
            readme_06_interop readme_07_born_and_dying particles_gpu transpose \
            > "$LOGS/build.txt" 2>&1 ||
        { echo "build failed"; tail -30 "$LOGS/build.txt"; exit 1; }
fi
check() { # check TOOL NAME COMMAND...
    local tool=$1 name=$2; shift 2
    local extra=()
    [[ $tool == memcheck ]] && extra=(--leak-check full)
    # These two make allocations fail on purpose (a real oversized cudaMalloc, and simulated
    # failures): the failed API calls they provoke are what they test, not errors.
    [[ $name == gpu_allocation_failure_test || $name == gpu_vector_test ]] &&
        extra+=(--report-api-errors no)
    local start=$SECONDS
    timeout "$LIMIT" compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 99 "$@" \
        > "$LOGS/$tool.$name.txt" 2>&1
    local rc=$?
    local errors
    errors=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$LOGS/$tool.$name.txt" | tail -1)
    printf '%-10s %-32s rc=%-3s %4ss  %s\n' "$tool" "$name" "$rc" "$((SECONDS - start))" \
        "${errors:-no summary}" | tee -a "$summary"
    [[ $rc -ne 0 ]] && status=1
    tar czf "$OUT/sanitize.tgz" -C "$LOGS" .
}

tests=(gpu_vector_test gpu_view_test gpu_copy_test gpu_algorithms_test gpu_columns_test
       gpu_allocation_failure_test gpu_for_each_test gpu_append_test gpu_algorithms_compact_test
       gpu_workspace_test gpu_vector_stream_test gpu_selection_test gpu_dlpack_test
       readme_02_device readme_06_interop readme_07_born_and_dying)
for tool in ${TOOLS:-memcheck racecheck synccheck initcheck}; do
    for t in "${tests[@]}"; do
        path=$(exe "$t")
        [[ -z $path ]] && { echo "$t: not built" | tee -a "$summary"; status=1; continue; }
        if [[ $t == gpu_* ]]; then
            check "$tool" "$t" "$path" --gtest_filter="-$large:$serial_only" --gtest_brief=1
        else
            check "$tool" "$t" "$path"
        fi
    done
    check "$tool" particles_gpu "$(exe particles_gpu)" --n 100003 --reps 1
    check "$tool" transpose "$(exe transpose)" --sizes 1000 --reps 1
    tar czf "$OUT/sanitize.tgz" -C "$LOGS" .
done
echo "== done, status $status" | tee -a "$summary"
exit $status
