#!/usr/bin/env bash
# Session i, second round (4 GPUs of one host, issue 30): where MD's 4-GPU weak-scaling loss
# comes from. Round a showed the force kernels 8.5% slower on 4 ranks than on 1 even without
# the overlap (min = max over the ranks): is it the code (what each rank holds) or the machine
# (4 GPUs busy at once)? md_mpi_gpu at 2,048,000 atoms: 1 rank on each GPU alone, then 4
# independent 1-rank runs at once (a GPU each), then the 4-rank run, twice; 2000 steps (2.7 s
# loops), so that the runs started together overlap.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-i4; S=${S:-/tmp/steps-i-b}
source scripts/device_steps.sh
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON
step 300 build cmake --build $B -j "$(nproc)" --target md_mpi_gpu -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -x NCCL_NVLS_ENABLE)
md=(--lattice fcc 0.8442 --steps 2000 --thermo 2000 --layout soa --device gpu)
summary() { echo "$(grep -h '^Performance' $S/$1.txt | cut -c1-60)"; grep -hE '^(Force|Neighbor|Comm|Integrate) ' $S/$1.txt | tee -a $S/log.txt; }
for rep in 1 2; do
  for g in 0 1 2 3; do
    CUDA_VISIBLE_DEVICES=$g step 60 alone_gpu${g}_$rep "${mpi[@]}" -np 1 $(exe md_mpi_gpu) "${md[@]}" --cells 80 80 80
    log "np1 alone on GPU $g: $(summary alone_gpu${g}_$rep)"
  done
  for g in 0 1 2 3; do
    CUDA_VISIBLE_DEVICES=$g timeout -s KILL 60 "${mpi[@]}" -np 1 $(exe md_mpi_gpu) "${md[@]}" --cells 80 80 80 \
      > $S/together_gpu${g}_$rep.txt 2>&1 &
  done
  wait
  for g in 0 1 2 3; do log "np1 on GPU $g, 4 at once: $(summary together_gpu${g}_$rep)"; done
  step 60 np4_$rep "${mpi[@]}" -np 4 $(exe md_mpi_gpu) "${md[@]}" --cells 160 160 80
  log "np4 (ipc): $(summary np4_$rep)"
done
save
