#!/usr/bin/env bash
# This session's second round, on a machine with 4 GPUs: build what scripts/device_round.sh
# builds (and md_mpi_gpu); an experiment (4 independent one-rank MD runs at once, one a GPU,
# against one alone: does running 4 GPUs at once slow a GPU's own work?); then, at the same
# time, device_round.sh on GPU 0 (GPU tests, HDF5/Python, main job, PIC step, MD graphs) and
# compute-sanitizer memcheck, racecheck and synccheck on GPUs 1, 2 and 3.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
X=/tmp/extra; mkdir -p $X "$OUT"
export BUILD=/tmp/build
OUT=$OUT ONLY_BUILD=1 BENCH=0 BUILD_LIMIT=420 bash scripts/device_round.sh > $X/build_round.txt 2>&1
tail -3 $X/build_round.txt
start=$SECONDS
cmake --build $BUILD -j "$(nproc)" --target md_mpi_gpu > $X/build_md.txt 2>&1; echo "[md_mpi_gpu build] rc=$? $((SECONDS-start))s"
md=$(find $BUILD -type f -name md_mpi_gpu -perm -u+x | head -1)
args=(--lattice fcc 0.8442 --steps 100 --thermo 100 --layout soa --device gpu --cells 80 80 80 --no-overlap)
mpi=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -np 1)
for rep in 1 2; do
  CUDA_VISIBLE_DEVICES=0 timeout -s KILL 60 "${mpi[@]}" $md "${args[@]}" > $X/md_alone_$rep.txt 2>&1
  echo "alone $rep: $(grep -A5 '^Performance' $X/md_alone_$rep.txt | tr -s ' ' | xargs)"
  for g in 0 1 2 3; do
    CUDA_VISIBLE_DEVICES=$g timeout -s KILL 60 "${mpi[@]}" $md "${args[@]}" > $X/md_four_${rep}_gpu$g.txt 2>&1 &
  done
  wait
  for g in 0 1 2 3; do echo "four at once $rep, gpu $g: $(grep -A5 '^Performance' $X/md_four_${rep}_gpu$g.txt | tr -s ' ' | xargs)"; done
done
for pair in 1:memcheck 2:racecheck 3:synccheck; do
  g=${pair%%:*}; tool=${pair#*:}
  mkdir -p $X/san_$tool
  (CUDA_VISIBLE_DEVICES=$g SKIP_BUILD=1 TOOLS=$tool SANITIZE_LIMIT=150 OUT=$X/san_$tool \
     LOGS=/tmp/sanitize_$tool timeout -s KILL 330 bash scripts/device_sanitize.sh \
     > $X/san_$tool/console.txt 2>&1) &
done
CUDA_VISIBLE_DEVICES=0 OUT=$OUT BENCH=0 BUILD_LIMIT=60 timeout -s KILL 330 bash scripts/device_round.sh > $X/round.txt 2>&1
wait
cat $X/san_*/sanitize.txt
tar czf $OUT/extra.tgz -C $X .
