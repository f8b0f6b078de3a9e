#!/usr/bin/env bash
# Checks the layout advisor's predictions against an H100, in one call of under 10 minutes on the
# GPU machine (the device tool runs it from the repository root):
#   1. builds particles_gpu and particles_advice (examples/advise);
#   2. particles_advice: the predicted time ratios and sectors per element of every particles kernel
#      under aos, soa, aosoa32 and split (particles::split_of<T>, the split particles_gpu runs);
#   3. particles_gpu: the measured times (its table: vs_soa = time / library SoA time);
#   4. ncu on the library kernels (layout::cuda::detail::for_each_index_kernel, matched on
#      ncu's default name base, the bare function name), one timed launch each: L1 sectors
#      loaded and stored (what the model predicts exactly) and DRAM bytes read and written;
#   5. bench/advise/compare.py: predicted beside measured, with the error of each prediction.
# Every step has a time limit and writes to $OUT as it goes, so a slow step costs only its own
# result. Files in $OUT: log.txt predicted.txt particles.txt ncu.csv ncu_launches.txt compare.txt
# (six: the device returns at most 8 files, all of them came back on 2026-11-26; a step added here
# that writes more goes into a results.tgz, as validate_md_on_gpu.sh does).
# About 5 minutes (2026-11-24: build 26 s, particles 76 s, ncu 76 s for 30 launches; split adds
# 10 launches). BUILD is shared with validate_md_on_gpu.sh (same configuration): run one after the
# other, the second builds only its own targets.
#   OUT=/some/dir bash bench/advise/validate_on_gpu.sh
# N is particles_gpu's element count and NCU_N ncu's (both 33554432 by default: the arrays are
# 20-40x the 50 MB L2, so that what is still dirty in L2 when a kernel ends, and so not counted
# in dram__bytes_write, is at most 1.5 bytes per element; at 8388608 it was up to 6).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
OUT="${OUT:-$PWD/out}"
BUILD="${BUILD:-/tmp/build-advise}"
N="${N:-33554432}"
NCU_N="${NCU_N:-33554432}"
mkdir -p "$OUT" "$BUILD"
exec > >(tee -a "$OUT/log.txt") 2>&1
status=0
step() { # step LIMIT NAME OUTFILE COMMAND...: a step with a time limit, its output in OUTFILE
    local limit=$1 name=$2 file=$3; shift 3
    local start=$SECONDS
    timeout "$limit" "$@" > "$file" 2>&1
    local rc=$?
    echo "[$name] rc=$rc $((SECONDS - start))s"
    [[ $rc -ne 0 ]] && status=1
    return $rc
}

echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) commit ${REV:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}," \
     "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
step 90 configure "$BUILD/configure.txt" cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DLAYOUT_BUILD_TESTS=OFF -DLAYOUT_BUILD_EXAMPLES=ON \
    -DLAYOUT_BUILD_BENCHMARKS=ON || tail -20 "$BUILD/configure.txt"
step 300 build "$BUILD/build.txt" cmake --build "$BUILD" -j "$(nproc)" \
    --target particles_gpu particles_advice -- -k 0 || tail -30 "$BUILD/build.txt"
exe() { find "$BUILD" -type f -name "$1" -perm -u+x -print -quit; }
gpu=$(exe particles_gpu)
advice=$(exe particles_advice)

step 60 predict "$OUT/predicted.txt" "$advice" --n "$N"
grep -A6 "^kernel " "$OUT/predicted.txt"
step 200 particles "$OUT/particles.txt" "$gpu" --n "$N" --reps 10
grep -E "^(kernel|drift|one_field|wide_drift|most_fields) " "$OUT/particles.txt" | grep -v raw-

# One timed launch per variant (plus its verification run): 5 kernels x 4 layouts x 2 = 40
# library launches; --launch-count leaves room for more rather than cut the last kernels off.
metrics=l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
metrics+=,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
step 240 ncu "$OUT/ncu.csv" ncu --clock-control none --csv --metrics "$metrics" \
    --kernel-name regex:for_each_index_kernel --launch-count 80 \
    "$gpu" --n "$NCU_N" --reps 1 --warmup 0
python3 bench/advise/validation.py "$OUT/ncu.csv" > "$OUT/ncu_launches.txt"
head -1 "$OUT/ncu_launches.txt"

step 60 compare "$OUT/compare.txt" python3 bench/advise/compare.py --predicted "$OUT/predicted.txt" \
    --measured "$OUT/particles.txt" --ncu "$OUT/ncu.csv" --ncu-n "$NCU_N"
cat "$OUT/compare.txt"
echo "== done, status $status"
exit $status
