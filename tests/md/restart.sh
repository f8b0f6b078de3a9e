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
set -euo pipefail

md=$1 compare=$2 compare_checkpoint=$3 data=$4 work=$5 layout_a=$6 layout_b=$7
shift 7
at=${MD_RESTART_AT:-20}
tol=${MD_RESTART_TOL:-0}
total=40

rm -rf "$work"
mkdir -p "$work"
cd "$work"
common=(--data "$data/start.data" --digits 17 --thermo 5 --every 10 --no-timing "$@")

run() { # name, then md's options; prints the output, fails with md
    local name=$1
    shift
    if ! "$md" "${common[@]}" "$@" >"$name.out" 2>&1; then
        cat "$name.out"
        echo "restart.sh: the $name run failed"
        exit 1
    fi
    echo "---- $name: md ${common[*]} $*"
    cat "$name.out"
}

run straight --steps $total --layout "$layout_a" --checkpoint straight.h5 --checkpoint-every "$at"
run first --steps "$at" --layout "$layout_a" --checkpoint half.h5 --checkpoint-every "$at"
run restarted --steps $((total - at)) --layout "$layout_b" --restart half.h5 \
    --checkpoint restarted.h5 --checkpoint-every "$at"

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
