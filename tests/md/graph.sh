#!/usr/bin/env bash
# md_gpu's CUDA graphs (--graph) give the direct run's thermo (tests/md/CMakeLists.txt registers
# the cases).
#
#   graph.sh same     MD_GPU COMPARE DATA_DIR WORK_DIR [md options...]
#       The committed start (864 atoms) run twice, directly and with --graph, thermo at 17
#       digits: every value must be the same, bit for bit (the same kernels in the same order
#       on the same data; the graph only replays their launches), and the graph run must say
#       that it replayed steps.
#   graph.sh mismatch MD_GPU COMPARE DATA_DIR WORK_DIR [md options...]
#       The same with --dt 0.0049 in the graph run only: the comparison must fail (the check
#       can fail).
#   graph.sh compare  MD_GPU COMPARE DATA_DIR WORK_DIR [md options...]
#       md_gpu --graph-compare 2: both kinds of run in one process; it must report the thermo
#       identical and exit 0.
# Exits 77 (skipped) where md_gpu says there is no CUDA device.
set -euo pipefail

mode=$1 md=$2 compare=$3 data=$4 work=$5
shift 5

rm -rf "$work"
mkdir -p "$work"
cd "$work"
cp "$data/start.data" .
common=(--data start.data --device gpu --digits 17 "$@")

run() { # name, then md's options
    local name=$1
    shift
    set +e
    "$md" "${common[@]}" "$@" >"$name.out" 2>&1
    local rc=$?
    set -e
    echo "---- $name: md_gpu ${common[*]} $*"
    cat "$name.out"
    if [[ $rc -ne 0 ]]; then
        if grep -q "no CUDA device" "$name.out"; then
            echo "no CUDA device: GPU test skipped"
            exit 77
        fi
        echo "graph.sh: the $name run exited with $rc"
        exit 1
    fi
}

case "$mode" in
same | mismatch)
    run direct
    extra=()
    [[ "$mode" == mismatch ]] && extra=(--dt 0.0049)
    run graph --graph "${extra[@]}"
    grep -Eq "^Graphs: [1-9][0-9]* recorded .* [1-9][0-9]* of [0-9]+ steps" graph.out ||
        { echo "graph.sh: the --graph run replayed no steps"; exit 1; }
    echo "---- thermo of the graph run against the direct run, bit for bit"
    set +e
    "$compare" direct.out graph.out --tol0 0 --tol 0
    rc=$?
    set -e
    if [[ "$mode" == same ]]; then
        exit $rc
    fi
    if [[ $rc -eq 0 ]]; then
        echo "graph.sh: a run with another dt compared equal: the comparison cannot fail"
        exit 1
    fi
    echo "graph.sh: the comparison failed as it must"
    ;;
compare)
    run compare --graph-compare 2
    grep -Eq "^Graph speedup: .* thermo identical bit for bit" compare.out ||
        { echo "graph.sh: --graph-compare did not report identical thermo"; exit 1; }
    ;;
*)
    echo "graph.sh: mode is same, mismatch or compare, not '$mode'" >&2
    exit 2
    ;;
esac
