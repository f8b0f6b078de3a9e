#!/usr/bin/env bash
# Session i, fourth round (G = 2 or 4 GPUs of one host, issue 30): the force kernel's default is
# now two threads an atom at least (gpu_forces.hpp lanes_for; round c: at 2,048,000 atoms two
# lanes took 0.79x one lane's time). md_gpu's and md_mpi_gpu's tests against LAMMPS with the new
# default; md_gpu at 2,048,000 atoms, 500 steps, lanes 1, 2, 4 and the default, SoA and AoS,
# double and float; md_mpi_gpu weak scaling, 1 and G ranks (the default lanes), twice.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
G=${G:-2}; B=/tmp/build-i$G; S=${S:-/tmp/steps-i-d$G}
cells=(160 160 80); [[ $G == 2 ]] && cells=(160 80 80)
source scripts/device_steps.sh
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON
step 300 build cmake --build $B -j "$(nproc)" --target md_gpu md_mpi_gpu md_compare_thermo -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
step 300 md_tests ctest --test-dir $B -R '^(md\.gpu|md_mpi_gpu)\.' --output-on-failure -j 4
grep -E "tests passed|tests failed|Failed|\*\*\*" $S/md_tests.txt | tee -a $S/log.txt
for prec in double float; do
  for l in soa aos; do
    for lanes in 1 2 4 0; do
      step 60 md_gpu_${l}_${prec}_$lanes $(exe md_gpu) --lattice fcc 0.8442 --cells 80 80 80 --device gpu \
        --steps 500 --thermo 500 --layout $l --precision $prec --force-lanes $lanes
      log "md_gpu $l $prec lanes $lanes: $(grep -h '^Performance' $S/md_gpu_${l}_${prec}_$lanes.txt | cut -c1-50) | $(grep -h '^Pair\|^Force' $S/md_gpu_${l}_${prec}_$lanes.txt | head -1)"
    done
  done
done
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader -x NCCL_NVLS_ENABLE)
md=(--lattice fcc 0.8442 --steps 2000 --thermo 2000 --layout soa --device gpu)
summary() { echo "$(grep -h '^Performance' $S/$1.txt | cut -c1-60)"; grep -hE '^(Force|Neighbor|Comm|Integrate) ' $S/$1.txt | tee -a $S/log.txt; }
for rep in 1 2; do
  step 60 np1_$rep "${mpi[@]}" -np 1 $(exe md_mpi_gpu) "${md[@]}" --cells 80 80 80
  log "np1: $(summary np1_$rep)"
  step 60 np${G}_$rep "${mpi[@]}" -np $G $(exe md_mpi_gpu) "${md[@]}" --cells ${cells[@]}
  log "np$G (ipc): $(summary np${G}_$rep)"
done
save
