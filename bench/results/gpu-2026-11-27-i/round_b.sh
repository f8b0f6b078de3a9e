#!/usr/bin/env bash
# Session i, second round (G = 4 or 2 GPUs of one host, issue 30): where MD's 4-GPU weak-scaling loss
# comes from. Round a showed the force kernels 8.5% slower on 4 ranks than on 1 even without
# the overlap (min = max over the ranks): is it the code (what each rank holds) or the machine
# (G GPUs busy at once)? md_mpi_gpu at 2,048,000 atoms a GPU: 1 rank on each GPU alone, then G
# independent 1-rank runs at once (a GPU each), then the G-rank run (and without the overlap), twice; 2000 steps (2.7 s
# loops), so that the runs started together overlap.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
G=${G:-4}; B=/tmp/build-i$G; S=${S:-/tmp/steps-i-b$G}
cells=(160 160 80); [[ $G == 2 ]] && cells=(160 80 80)
gpus=$(seq 0 $((G - 1)))
source scripts/device_steps.sh
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON
step 300 build cmake --build $B -j "$(nproc)" --target md_mpi_gpu -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -x NCCL_NVLS_ENABLE)
md=(--lattice fcc 0.8442 --steps 2000 --thermo 2000 --layout soa --device gpu)
summary() { echo "$(grep -h '^Performance' $S/$1.txt | cut -c1-60)"; grep -hE '^(Force|Neighbor|Comm|Integrate) ' $S/$1.txt | tee -a $S/log.txt; }
for rep in 1 2; do
  for g in $gpus; do
    CUDA_VISIBLE_DEVICES=$g step 60 alone_gpu${g}_$rep "${mpi[@]}" -np 1 $(exe md_mpi_gpu) "${md[@]}" --cells 80 80 80
    log "np1 alone on GPU $g: $(summary alone_gpu${g}_$rep)"
  done
  for g in $gpus; do
    CUDA_VISIBLE_DEVICES=$g timeout -s KILL 60 "${mpi[@]}" -np 1 $(exe md_mpi_gpu) "${md[@]}" --cells 80 80 80 \
      > $S/together_gpu${g}_$rep.txt 2>&1 &
  done
  wait
  for g in $gpus; do log "np1 on GPU $g, $G at once: $(summary together_gpu${g}_$rep)"; done
  step 60 np${G}_$rep "${mpi[@]}" -np $G $(exe md_mpi_gpu) "${md[@]}" --cells ${cells[@]}
  log "np$G (ipc): $(summary np${G}_$rep)"
  step 60 np${G}_sequential_$rep "${mpi[@]}" -np $G $(exe md_mpi_gpu) "${md[@]}" --cells ${cells[@]} --no-overlap
  log "np$G (ipc) --no-overlap: $(summary np${G}_sequential_$rep)"
done
save
