#!/usr/bin/env bash
# Session i, third round (G = 2 or 4 GPUs of one host, issue 30). Round b's "G runs at once" were
# bound by each mpirun to the same core (Open MPI binds a 1- or 2-rank job to cores): here every
# run is --bind-to none. md_mpi_gpu at 2,048,000 atoms a GPU: 1 rank alone on each GPU, G 1-rank
# runs at once, the G-rank run with and without the overlap; then the force kernels' lanes fixed
# (--force-lanes 1, 2, 4 for both ranges) on 1 and G ranks without the overlap: whether the force
# time G ranks add comes from the boundary range's launch.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
G=${G:-2}; B=/tmp/build-i$G; S=${S:-/tmp/steps-i-c$G}
cells=(160 160 80); [[ $G == 2 ]] && cells=(160 80 80)
gpus=$(seq 0 $((G - 1)))
source scripts/device_steps.sh
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON
step 300 build cmake --build $B -j "$(nproc)" --target md_mpi_gpu -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader -x NCCL_NVLS_ENABLE)
md=(--lattice fcc 0.8442 --steps 2000 --thermo 2000 --layout soa --device gpu)
summary() { echo "$(grep -h '^Performance' $S/$1.txt | cut -c1-60)"; grep -hE '^(Force|Neighbor|Comm|Integrate) ' $S/$1.txt | tee -a $S/log.txt; }
for g in $gpus; do
  CUDA_VISIBLE_DEVICES=$g step 60 alone_gpu$g "${mpi[@]}" -np 1 $(exe md_mpi_gpu) "${md[@]}" --cells 80 80 80
  log "np1 alone on GPU $g: $(summary alone_gpu$g)"
done
for g in $gpus; do
  CUDA_VISIBLE_DEVICES=$g timeout -s KILL 60 "${mpi[@]}" -np 1 $(exe md_mpi_gpu) "${md[@]}" --cells 80 80 80 \
    > $S/together_gpu$g.txt 2>&1 &
done
wait
for g in $gpus; do log "np1 on GPU $g, $G at once: $(summary together_gpu$g)"; done
step 60 np$G "${mpi[@]}" -np $G $(exe md_mpi_gpu) "${md[@]}" --cells ${cells[@]}
log "np$G (ipc): $(summary np$G)"
for lanes in 0 1 2 4; do
  step 60 np1_lanes$lanes "${mpi[@]}" -np 1 $(exe md_mpi_gpu) "${md[@]}" --cells 80 80 80 --no-overlap --force-lanes $lanes
  log "np1 --no-overlap --force-lanes $lanes: $(summary np1_lanes$lanes)"
  step 60 np${G}_lanes$lanes "${mpi[@]}" -np $G $(exe md_mpi_gpu) "${md[@]}" --cells ${cells[@]} --no-overlap --force-lanes $lanes
  log "np$G --no-overlap --force-lanes $lanes: $(summary np${G}_lanes$lanes)"
done
save
