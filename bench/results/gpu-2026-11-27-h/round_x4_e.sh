#!/usr/bin/env bash
# Session h, fifth round (4 GPUs of one host, issue 30): ipc_transport reading whole AoS elements
# where they are, on 4 GPUs: the plans' tests on 4 ranks, device_migrate_bench_gpu; md_mpi_gpu
# with its new default (ipc_transport where every rank is on one node): every md_mpi_gpu test
# case (the .nccl ones through NCCL, a GPU each), MD weak scaling at 2,048,000 atoms a GPU
# through the default and through NCCL.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-h4; S=${S:-/tmp/steps-h-e}
source scripts/device_steps.sh
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON
step 300 build cmake --build $B -j "$(nproc)" --target mpi_gpu_device_migration_test \
  mpi_gpu_device_halo_test device_migrate_bench_gpu md_mpi_gpu md_compare_thermo -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -x NCCL_NVLS_ENABLE)
for t in migration halo; do
  step 90 ${t}_np4 "${mpi[@]}" -np 4 $(exe mpi_gpu_device_${t}_test)
  grep -E "PASSED|FAILED|tests ran" $S/${t}_np4.txt | sort | uniq -c | tee -a $S/log.txt
done
step 200 md_tests ctest --test-dir $B -R '^md_mpi_gpu\.' --output-on-failure
grep -E "Test +#|tests passed|tests failed" $S/md_tests.txt | tee -a $S/log.txt
step 90 bench_np4 "${mpi[@]}" -np 4 $(exe device_migrate_bench_gpu) --n=4000000 --steps=20
grep -v "^$" $S/bench_np4.txt | tee -a $S/log.txt
md=(--lattice fcc 0.8442 --steps 100 --thermo 100 --layout soa --device gpu)
summary() { echo "$(grep -h '^Performance' $S/$1.txt | cut -c1-60) | $(grep -E '^(Force|Neighbor|Comm) ' $S/$1.txt | xargs)"; }
step 60 weak_np1 "${mpi[@]}" -np 1 $(exe md_mpi_gpu) "${md[@]}" --cells 80 80 80
log "np1: $(summary weak_np1)"
for rep in 1 2; do
  step 60 weak_np4_default_$rep "${mpi[@]}" -np 4 $(exe md_mpi_gpu) "${md[@]}" --cells 160 160 80
  log "np4 default (ipc): $(summary weak_np4_default_$rep)"
done
step 60 weak_np4_nccl "${mpi[@]}" -np 4 $(exe md_mpi_gpu) "${md[@]}" --cells 160 160 80 --transport nccl
log "np4 nccl: $(summary weak_np4_nccl)"
step 60 weak_np1_b "${mpi[@]}" -np 1 $(exe md_mpi_gpu) "${md[@]}" --cells 80 80 80
log "np1: $(summary weak_np1_b)"
save
