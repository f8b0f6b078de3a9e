#!/usr/bin/env bash
# A restarted run continues to the same thermo (tests/md/CMakeLists.txt registers the cases).
#
#   restart.sh MD COMPARE_THERMO COMPARE_CHECKPOINT DATA_DIR WORK_DIR LAYOUT_A LAYOUT_B [md options]
#
# From the committed start (864 atoms), thermo every 5 steps, lists rebuilt every 10:
#   straight   40 steps under LAYOUT_A, checkpoints at 20 and 40 (straight.h5)
#   first      20 steps under LAYOUT_A, checkpoint at 20 (half.h5)
#   restarted  --restart half.h5, 20 more steps under LAYOUT_B, checkpoint at 40 (restarted.h5)
# Then, bit for bit: the restarted run's thermo at steps 20, 25, ..., 40 (17 digits) is the
# straight run's, half.h5's step 20 is straight.h5's, and restarted.h5's step 40 (positions,
# velocities, forces, types, ids of every atom) is straight.h5's.
#
# MD_RESTART_AT=S (default 20; a multiple of 5) checkpoints and restarts at step S instead. Where S is not a
# multiple of 10 the restarted run rebuilds its lists at S and the straight run does not: the
# same atoms and forces summed in another order, so the thermo is compared to MD_RESTART_TOL
# (relative; default 0, bit for bit) and the checkpoints not at all.
#
# Across binaries (md's checkpoint restarting md_gpu, and the other way round): MD_B is the
# binary of the restarted run (default MD), MD_A_OPTIONS options of the straight and first runs
# only, MD_B_OPTIONS of the restarted run only (e.g. --device gpu on md_gpu's side). Exits 77
# (skipped) where a run says that there is no CUDA device.
set -euo pipefail

md=$1 compare=$2 compare_checkpoint=$3 data=$4 work=$5 layout_a=$6 layout_b=$7
shift 7
md_b=${MD_B:-$md}
# shellcheck disable=SC2206 # lists of options, split into words
options_a=(${MD_A_OPTIONS:-})
# shellcheck disable=SC2206
options_b=(${MD_B_OPTIONS:-})
at=${MD_RESTART_AT:-20}
tol=${MD_RESTART_TOL:-0}
total=40

rm -rf "$work"
mkdir -p "$work"
cd "$work"
common=(--data "$data/start.data" --digits 17 --thermo 5 --every 10 --no-timing "$@")

run() { # name, binary, then its options; prints the output, fails with the binary
    local name=$1 binary=$2
    shift 2
    if ! "$binary" "${common[@]}" "$@" >"$name.out" 2>&1; then
        cat "$name.out"
        if grep -q "no CUDA device" "$name.out"; then
            echo "no CUDA device: GPU test skipped"
            exit 77
        fi
        echo "restart.sh: the $name run failed"
        exit 1
    fi
    echo "---- $name: $(basename "$binary") ${common[*]} $*"
    cat "$name.out"
}

run straight "$md" "${options_a[@]}" --steps $total --layout "$layout_a" \
    --checkpoint straight.h5 --checkpoint-every "$at"
run first "$md" "${options_a[@]}" --steps "$at" --layout "$layout_a" \
    --checkpoint half.h5 --checkpoint-every "$at"
run restarted "$md_b" "${options_b[@]}" --steps $((total - at)) --layout "$layout_b" \
    --restart half.h5 --checkpoint restarted.h5 --checkpoint-every "$at"

grep -q "^Restart: [0-9]* atoms of step $at from half.h5" restarted.out ||
    { echo "restart.sh: the restarted run does not say it restarted at step $at"; exit 1; }
steps=()
for s in $(seq "$at" 5 $total); do steps+=(--step "$s"); done
echo "---- thermo of the restarted run against the straight run"
"$compare" straight.out restarted.out --tol0 "$tol" --tol "$tol" "${steps[@]}"
if [[ "$tol" == 0 ]]; then
    echo "---- checkpoints"
    "$compare_checkpoint" straight.h5 half.h5 "$at"
    if [[ $((total % at)) -eq 0 ]]; then
        "$compare_checkpoint" straight.h5 restarted.h5 $total
    fi
fi
