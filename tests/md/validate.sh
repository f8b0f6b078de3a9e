#!/usr/bin/env bash
# The MD mini-app against LAMMPS's thermo (tests/md/CMakeLists.txt registers the cases).
#
#   validate.sh lammps    MD COMPARE DATA_DIR WORK_DIR [md options...]
#       LAMMPS (lmp) writes a start (DATA_DIR/in.start) and runs it (DATA_DIR/in.reference) in
#       WORK_DIR; md runs the same start; md_compare_thermo compares every thermo value.
#       Exits 77 (skipped) if lmp is not installed (Debian: apt-get install lammps, which
#       scripts/install-deps.sh does).
#   validate.sh committed MD COMPARE DATA_DIR WORK_DIR [md options...]
#       The same against the committed start.data and reference.log (no LAMMPS needed: the GPU
#       machine has none). Exits 77 if md says there is no CUDA device (--device gpu).
#   validate.sh conserved MD COMPARE DATA_DIR WORK_DIR [md options...]
#       No reference: md builds its own start (--lattice ...), and the total energy of its last
#       thermo row is within MD_DRIFT (relative, default 0.01) of step 0's: atoms corrupted at a
#       rebuild (a race) drift far more. Meant with MD_SAME_WITH (below).
#
# Tolerances: MD_TOL0 (step 0, default 1e-6) and MD_TOL (later steps, default 1e-4).
# MD_LMP_VARS: extra arguments for LAMMPS's in.reference (e.g. "-var cut 4.0"); MD_REFERENCE:
# the committed reference to compare with (default reference.log). MD_LAUNCH and MD_LMP_LAUNCH:
# a launcher before md and before lmp (e.g. "mpirun -np 4"; md_mpi's tests set them).
# MD_SAME_WITH: options for a second run of md whose thermo must equal the first's digit for
# digit (md_mpi_gpu's --no-overlap: the same arithmetic, the streams in another order).
set -euo pipefail

mode=$1 md=$2 compare=$3 data=$4 work=$5
shift 5
tol0=${MD_TOL0:-1e-6}
tol=${MD_TOL:-1e-4}

rm -rf "$work"
mkdir -p "$work"
cd "$work"

case "$mode" in
lammps)
    if ! command -v lmp >/dev/null 2>&1; then
        echo "lmp not found: LAMMPS validation skipped (install Debian's lammps package:" \
             "scripts/install-deps.sh does)"
        exit 77
    fi
    cp "$data/in.start" "$data/in.reference" .
    lmp -in in.start -log none -screen none
    # shellcheck disable=SC2086 # MD_LMP_VARS is a list of arguments
    # shellcheck disable=SC2086 # MD_LMP_LAUNCH is a command and its arguments
    ${MD_LMP_LAUNCH:-} lmp -in in.reference -log reference.log -screen none ${MD_LMP_VARS:-}
    ;;
committed)
    cp "$data/start.data" .
    cp "$data/${MD_REFERENCE:-reference.log}" reference.log
    ;;
conserved) ;;
*)
    echo "validate.sh: mode is lammps, committed or conserved, not '$mode'" >&2
    exit 2
    ;;
esac

start=(--data start.data)
[[ "$mode" == conserved ]] && start=()
set +e
# shellcheck disable=SC2086 # MD_LAUNCH is a command and its arguments
${MD_LAUNCH:-} "$md" "${start[@]}" --digits 15 "$@" >md.out 2>&1
rc=$?
set -e
cat md.out
if [[ $rc -ne 0 ]]; then
    if grep -q "no CUDA device" md.out; then
        echo "no CUDA device: GPU validation skipped"
        exit 77
    fi
    if grep -q "transport nccl: needs NCCL (built with it) and a GPU per rank" md.out; then
        echo "no NCCL build or fewer GPUs than ranks: NCCL validation skipped"
        exit 77
    fi
    echo "md exited with $rc"
    exit 1
fi
thermo_rows() { grep -E '^ *[0-9]+ +[-0-9]' "$1" || true; }
if [[ "$mode" == conserved ]]; then
    # Columns: Step Temp E_pair E_mol TotEng Press.
    thermo_rows md.out | awk -v drift="${MD_DRIFT:-0.01}" '
        NR == 1 { first = $5 } { last = $5; rows = NR }
        END {
            if (rows < 2) { print "fewer than 2 thermo rows"; exit 1 }
            d = (last - first) / (first < 0 ? -first : first); if (d < 0) d = -d
            printf "total energy %s at the start, %s at the end: relative drift %.3g (at most %s)\n", first, last, d, drift
            exit d <= drift ? 0 : 1
        }'
else
    "$compare" reference.log md.out --tol0 "$tol0" --tol "$tol"
fi

if [[ -n "${MD_SAME_WITH:-}" ]]; then
    set +e
    # shellcheck disable=SC2086 # MD_LAUNCH and MD_SAME_WITH are lists of arguments
    ${MD_LAUNCH:-} "$md" "${start[@]}" --digits 15 "$@" ${MD_SAME_WITH} >md_same.out 2>&1
    rc=$?
    set -e
    if [[ $rc -ne 0 ]]; then
        cat md_same.out
        echo "md with ${MD_SAME_WITH} exited with $rc"
        exit 1
    fi
    if [[ -z "$(thermo_rows md.out)" ]]; then
        echo "no thermo rows in md's output"
        exit 1
    fi
    if ! diff <(thermo_rows md.out) <(thermo_rows md_same.out); then
        echo "the thermo differs with ${MD_SAME_WITH}"
        exit 1
    fi
    echo "thermo identical with ${MD_SAME_WITH} ($(thermo_rows md.out | wc -l) rows)"
fi
