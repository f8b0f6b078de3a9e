#!/usr/bin/env bash
# One round on a machine with several GPUs of one host (the device tool's nvidia-h100-x2 or -x4
# kinds), inside one 10-minute call: build the MPI GPU tests and benchmarks, run the tests with a
# rank per GPU (staged and NCCL), compute-sanitizer memcheck over the device-planned plans' tests,
# then the device-planned migration and halo benchmark (ALSO_ENV=NAME: once more with NAME=1);
# MD=1: examples/md across the GPUs too (md_mpi_gpu's tests, weak scaling runs with the halo
# beside the interior forces and with --no-overlap, then the benchmark, then strong scaling);
# TESTS=0, SANITIZE=0, BENCH=0, STRONG=0 leave out the plans' tests, memcheck, the benchmark,
# the strong-scaling runs; MD_TESTS=REGEX picks md_mpi_gpu's tests (default: all of them);
# EXTRA_TARGETS="a b" builds more targets in the same build (for a caller's own steps).
#   OUT=/some/dir REV=$(git rev-parse --short HEAD) N=4000000 bash scripts/device_mpi_round.sh
# Files in $OUT: log.txt and steps.tgz (one .txt per step), both rewritten as each step ends, so
# that a call cut off at its limit still brings back what ran (the device tool returns 8 files). Every mpirun runs under
# `timeout -s KILL` and with NCCL_NVLS_ENABLE=0 (NVLink multicast off on shared machines).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT="${OUT:-$PWD/out}"
BUILD="${BUILD:-/tmp/build-mpi}"
N="${N:-4000000}"
STEPS=/tmp/device-mpi-steps
mkdir -p "$OUT" "$BUILD" "$STEPS"
exec > >(tee -a "$STEPS/log.txt") 2>&1
export NCCL_NVLS_ENABLE=0
gpus=$(nvidia-smi -L | wc -l)
status=0
run() { # run LIMIT NAME COMMAND...: a step with a time limit; its output goes to $STEPS/NAME.txt
    local limit=$1 name=$2; shift 2
    local start=$SECONDS
    timeout -s KILL "$limit" "$@" > "$STEPS/$name.txt" 2>&1
    local rc=$?
    echo "[$name] rc=$rc $((SECONDS - start))s"
    tar czf "$OUT/steps.tgz" -C "$STEPS" . && cp "$STEPS/log.txt" "$OUT/log.txt"
    [[ $rc -ne 0 ]] && status=1
    return $rc
}
mpi=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -np)

echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) commit ${REV:-unknown}, $gpus GPU(s):" \
     "$(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | xargs)"
run 60 configure cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON \
    -DLAYOUT_BUILD_BENCHMARKS=ON
targets=()
[[ "${TESTS:-1}" != 0 || "${SANITIZE:-1}" != 0 ]] &&
    targets+=(mpi_gpu_device_migration_test mpi_gpu_device_halo_test mpi_gpu_device_test
              mpi_gpu_nccl_device_test)
[[ "${BENCH:-1}" != 0 ]] && targets+=(device_migrate_bench_gpu migrate_bench_gpu)
[[ "${MD:-0}" != 0 ]] && targets+=(md_mpi_gpu md_compare_thermo)
targets+=(${EXTRA_TARGETS:-}) # built beside them (a caller's own steps run them)
run "${BUILD_LIMIT:-300}" build cmake --build "$BUILD" -j "$(nproc)" --target "${targets[@]}" -- -k 0 ||
    grep -E "error|FAILED" "$STEPS/build.txt" | head -30
exe() { find "$BUILD" -type f -name "$1" -perm -u+x -print -quit; }

for np in $([[ "${TESTS:-1}" != 0 ]] && echo 2) $([[ "${TESTS:-1}" != 0 && $gpus -ge 4 ]] && echo 4); do
    for t in device_migration_test device_halo_test; do
        run 150 "${t}_np$np" "${mpi[@]}" "$np" "$(exe mpi_gpu_$t)"
        grep -E "PASSED|FAILED|SKIPPED|tests ran" "$STEPS/${t}_np$np.txt" | sort | uniq -c
    done
done
if [[ "${TESTS:-1}" != 0 ]]; then
    run 120 device_test "${mpi[@]}" 2 "$(exe mpi_gpu_device_test)"
    grep -E "PASSED|FAILED" "$STEPS/device_test.txt" | sort | uniq -c
    run 120 nccl_device_test "${mpi[@]}" 2 "$(exe mpi_gpu_nccl_device_test)"
    grep -E "PASSED|FAILED" "$STEPS/nccl_device_test.txt" | sort | uniq -c
fi
if [[ "${SANITIZE:-1}" != 0 ]]; then
    for t in device_migration_test device_halo_test; do
        run 240 "memcheck_$t" "${mpi[@]}" 2 compute-sanitizer --tool memcheck --report-api-errors no \
            --error-exitcode 3 "$(exe mpi_gpu_$t)" --gtest_filter='*every_layout*:*field*'
        grep -E "ERROR SUMMARY|PASSED|FAILED" "$STEPS/memcheck_$t.txt" | sort | uniq -c
    done
fi
if [[ "${MD:-0}" != 0 ]]; then # examples/md across GPUs: thermo against LAMMPS's, then scaling
    run 300 md_mpi_gpu_tests ctest --test-dir "$BUILD" -R "${MD_TESTS:-^md_mpi_gpu}" --output-on-failure
    grep -E "tests passed|Passed|Failed|max rel" "$STEPS/md_mpi_gpu_tests.txt" | head -20
    md=(--lattice fcc 0.8442 --steps 100 --thermo 100 --layout soa --device gpu)
    # Weak: 2,048,000 atoms a GPU (4 * 80^3), overlapped and not, twice each, alternating.
    for np in 1 2 $([[ $gpus -ge 4 ]] && echo 4); do
        case $np in 1) weak="80 80 80" ;; 2) weak="160 80 80" ;; 4) weak="160 160 80" ;; esac
        for rep in 1 2; do
            for mode in overlap no_overlap; do
                flag=()
                [[ $mode == no_overlap ]] && flag=(--no-overlap)
                name="md_weak_np${np}_${mode}_$rep"
                # shellcheck disable=SC2086 # weak is three numbers
                run 120 "$name" "${mpi[@]}" "$np" "$(exe md_mpi_gpu)" "${md[@]}" --cells $weak "${flag[@]}"
                echo "$name: $(grep -h -E "^Performance" "$STEPS/$name.txt")"
            done
        done
    done
fi
for np in $([[ "${BENCH:-1}" != 0 ]] && echo 2) $([[ "${BENCH:-1}" != 0 && $gpus -ge 4 ]] && echo 4); do
    run 240 "device_migrate_bench_np${np}_n$N" "${mpi[@]}" "$np" "$(exe device_migrate_bench_gpu)" \
        --n="$N" --steps=20
    cat "$STEPS/device_migrate_bench_np${np}_n$N.txt"
    if [[ -n "${ALSO_ENV:-}" ]]; then # the same run with one more variable set (an experiment)
        run 240 "device_migrate_bench_np${np}_n${N}_$ALSO_ENV" env "$ALSO_ENV=1" "${mpi[@]}" "$np" \
            -x "$ALSO_ENV" "$(exe device_migrate_bench_gpu)" --n="$N" --steps=20
        cat "$STEPS/device_migrate_bench_np${np}_n${N}_$ALSO_ENV.txt"
    fi
done
if [[ "${MD:-0}" != 0 && "${STRONG:-1}" != 0 ]]; then # strong: 16,384,000 atoms (4 * 160^3)
    for np in 1 2 $([[ $gpus -ge 4 ]] && echo 4); do
        for mode in overlap $([[ $np -gt 1 ]] && echo no_overlap); do
            flag=()
            [[ $mode == no_overlap ]] && flag=(--no-overlap)
            name="md_strong_np${np}_$mode"
            run 180 "$name" "${mpi[@]}" "$np" "$(exe md_mpi_gpu)" "${md[@]}" --cells 160 160 160 "${flag[@]}"
            echo "$name: $(grep -h -E "^Performance" "$STEPS/$name.txt")"
        done
    done
fi
echo "== done, status $status"
