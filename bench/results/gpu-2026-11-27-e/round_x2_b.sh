#!/usr/bin/env bash
# This session's second round, on a machine with 2 GPUs (the 4-GPU kinds went away), in two
# calls while the machine stays warm. PHASE=build: what scripts/device_round.sh builds, and
# md_mpi_gpu; an experiment (2 independent one-rank MD runs at once, one a GPU, against one
# alone: does running both GPUs at once slow a GPU's own work?). PHASE=run: device_round.sh on
# GPU 0 (GPU tests, HDF5/Python, main job, PIC step, MD graphs) while compute-sanitizer runs
# racecheck, synccheck and memcheck on GPU 1.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
X=/tmp/extra; mkdir -p $X "$OUT"
export BUILD=/tmp/build
if [[ "$PHASE" == build ]]; then
  OUT=$OUT ONLY_BUILD=1 BENCH=0 BUILD_LIMIT=480 bash scripts/device_round.sh > $X/build_round.txt 2>&1
  tail -3 $X/build_round.txt
  start=$SECONDS
  cmake --build $BUILD -j "$(nproc)" --target md_mpi_gpu > $X/build_md.txt 2>&1; echo "[md_mpi_gpu build] rc=$? $((SECONDS-start))s"
  md=$(find $BUILD -type f -name md_mpi_gpu -perm -u+x | head -1)
  args=(--lattice fcc 0.8442 --steps 100 --thermo 100 --layout soa --device gpu --cells 80 80 80 --no-overlap)
  mpi=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -np 1)
  for rep in 1 2; do
    CUDA_VISIBLE_DEVICES=0 timeout -s KILL 60 "${mpi[@]}" $md "${args[@]}" > $X/md_alone_$rep.txt 2>&1
    echo "alone $rep: $(grep -A5 '^Performance' $X/md_alone_$rep.txt | tr -s ' ' | xargs)"
    for g in 0 1; do
      CUDA_VISIBLE_DEVICES=$g timeout -s KILL 60 "${mpi[@]}" $md "${args[@]}" > $X/md_two_${rep}_gpu$g.txt 2>&1 &
    done
    wait
    for g in 0 1; do echo "two at once $rep, gpu $g: $(grep -A5 '^Performance' $X/md_two_${rep}_gpu$g.txt | tr -s ' ' | xargs)"; done
  done
  tar czf $OUT/extra_build.tgz -C $X .
  exit 0
fi
mkdir -p $X/san
(CUDA_VISIBLE_DEVICES=1 SKIP_BUILD=1 TOOLS="racecheck synccheck memcheck" SANITIZE_LIMIT=120 OUT=$X/san \
   LOGS=/tmp/sanitize timeout -s KILL 540 bash scripts/device_sanitize.sh > $X/san/console.txt 2>&1) &
CUDA_VISIBLE_DEVICES=0 OUT=$OUT BENCH=0 BUILD_LIMIT=60 timeout -s KILL 500 bash scripts/device_round.sh > $X/round.txt 2>&1
wait
cat $X/san/sanitize.txt
tar czf $OUT/extra.tgz -C $X .
