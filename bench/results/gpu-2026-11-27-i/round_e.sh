#!/usr/bin/env bash
# Session i, fifth round (4 GPUs of one host, issue 30): md_mpi_gpu's lists interleaved as
# md_gpu's (round d: md_gpu, interleaved, was as fast at one thread an atom as md_mpi_gpu at two,
# and md_mpi_gpu's one-lane forces 1.27x slower: its lists were kept atom by atom). md_mpi_gpu's
# tests against LAMMPS; weak scaling at 2,048,000 atoms a GPU on 1 and 4 ranks (default lanes;
# and 2 lanes), twice, through IPC and once through NCCL; strong scaling of 16,384,000 atoms on
# 1, 2 and 4 GPUs. Every mpirun --bind-to none.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-i4; S=${S:-/tmp/steps-i-e}
source scripts/device_steps.sh
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON
step 300 build cmake --build $B -j "$(nproc)" --target md_mpi_gpu md_compare_thermo -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
step 200 md_tests ctest --test-dir $B -R '^md_mpi_gpu\.' --output-on-failure
grep -E "Test +#|tests passed|tests failed" $S/md_tests.txt | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader -x NCCL_NVLS_ENABLE)
md=(--lattice fcc 0.8442 --steps 1000 --thermo 1000 --layout soa --device gpu)
summary() { echo "$(grep -h '^Performance' $S/$1.txt | cut -c1-60)"; grep -hE '^(Force|Neighbor|Comm|Integrate) ' $S/$1.txt | tee -a $S/log.txt; }
for rep in 1 2; do
  step 60 np1_$rep "${mpi[@]}" -np 1 $(exe md_mpi_gpu) "${md[@]}" --cells 80 80 80
  log "np1: $(summary np1_$rep)"
  step 60 np4_$rep "${mpi[@]}" -np 4 $(exe md_mpi_gpu) "${md[@]}" --cells 160 160 80
  log "np4 (ipc): $(summary np4_$rep)"
done
step 60 np1_lanes2 "${mpi[@]}" -np 1 $(exe md_mpi_gpu) "${md[@]}" --cells 80 80 80 --force-lanes 2
log "np1 --force-lanes 2: $(summary np1_lanes2)"
step 60 np4_lanes2 "${mpi[@]}" -np 4 $(exe md_mpi_gpu) "${md[@]}" --cells 160 160 80 --force-lanes 2
log "np4 --force-lanes 2: $(summary np4_lanes2)"
step 60 np4_nccl "${mpi[@]}" -np 4 $(exe md_mpi_gpu) "${md[@]}" --cells 160 160 80 --transport nccl
log "np4 (nccl): $(summary np4_nccl)"
strong=(--lattice fcc 0.8442 --steps 200 --thermo 200 --layout soa --device gpu --cells 160 160 160)
for np in 1 2 4; do
  step 120 strong_np$np "${mpi[@]}" -np $np $(exe md_mpi_gpu) "${strong[@]}"
  log "strong np$np: $(summary strong_np$np)"
done
save
