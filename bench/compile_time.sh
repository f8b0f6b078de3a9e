#!/usr/bin/env bash
# Compile time of bench/compile_time_32_fields.cpp (all three layouts of a 32-field struct, every
# operation a user reaches, through <layout/layout.hpp>): targets.md asks for under 10 s per
# translation unit. Times g++ and clang++ at -O2, and, where nvcc is found, the same file as CUDA
# (the umbrella then brings the device containers and CUB's algorithms too), and where MPI is
# found, both again with the opt-in components as well (<layout/advise.hpp> and
# <layout/mpi/mpi.hpp>, MPI's include path given; the umbrella includes neither).
#   bash bench/compile_time.sh [repetitions, default 3]   prints the median of each
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
reps="${1:-3}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp bench/compile_time_32_fields.cpp "$tmp/tu.cpp"
cp bench/compile_time_32_fields.cpp "$tmp/tu.cu"
printf '#include <layout/advise.hpp>\n#include <layout/mpi/mpi.hpp>\n' |
    cat - bench/compile_time_32_fields.cpp >"$tmp/tu_components.cpp"
cp "$tmp/tu_components.cpp" "$tmp/tu_components.cu"
boost=(-I/usr/include)
mpi_include=$(mpicxx --showme:incdirs 2>/dev/null | awk '{print $1}' || true)

# time_it LABEL COMMAND...: the median wall time of reps compiles
time_it() {
    local label=$1
    shift
    local times=()
    for ((r = 0; r < reps; ++r)); do
        local start end
        start=$EPOCHREALTIME
        "$@" >/dev/null
        end=$EPOCHREALTIME
        times+=("$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')")
    done
    local median
    median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    printf '%-34s %6.2f s\n' "$label" "$median"
}

echo "compile_time_32_fields, median of $reps, $(nproc) cores, $(date -u +%Y-%m-%d)"
for cxx in g++ clang++; do
    command -v "$cxx" >/dev/null || continue
    time_it "$cxx -O2" "$cxx" -O2 -std=c++20 -Iinclude "${boost[@]}" -c "$tmp/tu.cpp" -o "$tmp/tu.o"
    [[ -n "$mpi_include" ]] &&
        time_it "$cxx -O2, + advise, mpi" "$cxx" -O2 -std=c++20 -Iinclude -I"$mpi_include" \
            -c "$tmp/tu_components.cpp" -o "$tmp/tu.o"
done
if command -v nvcc >/dev/null; then
    cuda=(nvcc -O2 -std=c++20 -arch=sm_90 --expt-relaxed-constexpr -Iinclude -c "$tmp/tu.cu"
          -o "$tmp/tu.o")
    time_it "nvcc -O2 sm_90" "${cuda[@]}"
    [[ -n "$mpi_include" ]] &&
        time_it "nvcc -O2 sm_90, + advise, mpi" nvcc -O2 -std=c++20 -arch=sm_90 \
            --expt-relaxed-constexpr -Iinclude -I"$mpi_include" -c "$tmp/tu_components.cu" \
            -o "$tmp/tu.o"
fi
