#!/usr/bin/env bash
# Checks the layout advisor's predictions for the MD kernels (examples/md: lj_full, initial_integrate,
# final_integrate) and for layout::cuda::gather and scatter against an H100, in one call of about
# 4 minutes on the GPU machine (from the repository root; 2026-11-24 without split: 2.5 minutes
# after the build):
#   OUT=/some/dir bash bench/advise/validate_md_on_gpu.sh
#   1. builds md_gpu, gather_gpu, scatter_gpu (Release, sm_90) and md_advice, gather_advice (host);
#   2. the predictions: md_advice (in.lj, 32,000 atoms after 100 steps, traced on the real atoms
#      and neighbor list) and gather_advice, in the background while the GPU runs;
#   3. md_gpu --compare-raw: the library's force kernel timed under each layout (aos, soa,
#      aosoa32, split: positions AoS, the rest SoA), 32,000 and 2,048,000 atoms, after 100 steps
#      of in.lj (medians of 50 and 20 launches);
#   4. ncu on md_gpu, 2,048,000 atoms, each layout: the last 12 MD kernels of the run, steps
#      97-100 and --compare-raw's lj_full<false> (L1 sectors loaded and stored, DRAM bytes,
#      duration: the integration kernels' times come from here); ncu_md_<layout>.txt lists them;
#   5. gather_gpu and scatter_gpu (32 Mi Particles, sorted and random indices, every layout,
#      library and raw kernels), Google Benchmark JSON;
#   6. ncu on the library's random gather and scatter under each layout (one launch each);
#   7. bench/advise/compare_md.py: predicted beside measured, with the errors (compare.txt).
# Each step has a time limit and writes to $RES as it goes; a failed step costs only its own
# result, and compare_md.py leaves what is missing empty.
# The device returns at most 8 files from $OUT (2026-11-26: the ncu CSVs did not come back), so
# $OUT holds three: log.txt, compare.txt and results.tgz (everything in $RES: predictions, md_gpu
# and gather/scatter outputs, ncu CSVs and their launch lists, compare.txt), packed after each
# phase. Re-compare on the host: tar xzf results.tgz -C dir; python3 bench/advise/compare_md.py --dir dir
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
OUT="${OUT:-$PWD/out}"
BUILD="${BUILD:-/tmp/build-advise}" # shared with validate_on_gpu.sh: same configuration
RES="${RES:-/tmp/advise-md-results}" # every step's output; packed into $OUT/results.tgz
rm -rf "$RES"
mkdir -p "$OUT" "$BUILD" "$RES"
pack() { tar czf "$OUT/results.tgz" -C "$RES" . ; } # after each phase: a later cut-off keeps it
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
     "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader 2>/dev/null)"
step 90 configure "$BUILD/configure.txt" cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DLAYOUT_BUILD_TESTS=OFF -DLAYOUT_BUILD_EXAMPLES=ON \
    -DLAYOUT_BUILD_BENCHMARKS=ON || tail -20 "$BUILD/configure.txt"
step 240 build "$BUILD/build.txt" cmake --build "$BUILD" -j 16 \
    --target md_gpu md_advice gather_advice gather_gpu scatter_gpu -- -k 0 || tail -30 "$BUILD/build.txt"
exe() { find "$BUILD" -type f -name "$1" -perm -u+x -print -quit; }
md_gpu=$(exe md_gpu); md_advice=$(exe md_advice); gather_advice=$(exe gather_advice)
gather_gpu=$(exe gather_gpu); scatter_gpu=$(exe scatter_gpu)

# Predictions: host only, in the background (md_advice: ~10 s, most of it 100 host steps).
( step 120 predict_md "$RES/predicted_md.txt" "$md_advice" --steps 100 --samples 512 \
      --n 32000,2048000
  step 60 predict_gather "$RES/predicted_gather.txt" "$gather_advice" --n 33554432 ) &
predict_pid=$!

for layout in aos soa aosoa32 split; do
    step 60 "md_${layout}_32000" "$RES/md_${layout}_32000.txt" "$md_gpu" --lattice fcc 0.8442 \
        --cells 20 20 20 --device gpu --layout "$layout" --no-timing --compare-raw 50
    step 90 "md_${layout}_2048000" "$RES/md_${layout}_2048000.txt" "$md_gpu" --lattice fcc 0.8442 \
        --cells 80 80 80 --device gpu --layout "$layout" --no-timing --compare-raw 20
done
grep -h "library " "$RES"/md_*_*.txt
pack

metrics=l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
metrics+=,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
# The library launches every functor as layout::cuda::detail::for_each_index_kernel<T, Layout,
# F, ...>: ncu's default name base (the bare function name, what validate_on_gpu.sh matches) is
# the same for every MD kernel. The MD functors are template arguments: only the demangled name
# holds them, matched here by regex (".*" on both sides: a search, whether ncu searches or
# matches the whole name). --launch-skip counts the launches that match the filter: the set-up's
# lj_full, 3 per step (initial_integrate, lj_full, final_integrate), compare-raw's lj_full<false>:
# 302; skipping 290 profiles steps 97-100 and compare-raw's. compare_md.py takes each kernel's
# last launch, so a count off by a few still finds step 100's.
md_filter='regex:.*for_each_index_kernel<.*(lj_full|initial_integrate|final_integrate).*'
for layout in aos soa aosoa32 split; do
    step 120 "ncu_md_${layout}" "$RES/ncu_md_${layout}.csv" ncu --clock-control none --csv \
        --metrics "$metrics" --kernel-name-base demangled --kernel-name "$md_filter" \
        --launch-skip 290 --launch-count 12 \
        "$md_gpu" --lattice fcc 0.8442 --cells 80 80 80 --device gpu --layout "$layout" \
        --no-timing --compare-raw 1
    python3 bench/advise/validation.py "$RES/ncu_md_${layout}.csv" > "$RES/ncu_md_${layout}.txt"
    head -1 "$RES/ncu_md_${layout}.txt"
done
pack

for op in gather scatter; do
    bin=$gather_gpu; [[ $op == scatter ]] && bin=$scatter_gpu
    step 90 "$op" "$RES/${op}_gpu.txt" "$bin" --benchmark_filter="$op/Particle/" \
        --benchmark_out="$RES/${op}_gpu.json" --benchmark_out_format=json
done
for op in gather scatter; do
    bin=$gather_gpu; [[ $op == scatter ]] && bin=$scatter_gpu
    for layout in aos soa aosoa32; do
        step 45 "ncu_${op}_${layout}" "$RES/ncu_${op}_${layout}.csv" ncu --clock-control none --csv \
            --metrics "$metrics" --kernel-name regex:'gather_kernel|scatter_kernel|move_chunks_kernel' \
            --launch-count 1 "$bin" --benchmark_filter="^$op/Particle/$layout/random" \
            --benchmark_min_time=0.01
    done
done

wait "$predict_pid"
step 60 compare "$OUT/compare.txt" python3 bench/advise/compare_md.py --dir "$RES"
cp "$OUT/compare.txt" "$RES/"
pack
cat "$OUT/compare.txt"
echo "== done, status $status"
exit $status
