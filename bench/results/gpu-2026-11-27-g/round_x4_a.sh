#!/usr/bin/env bash
# Session g, first round (4 GPUs of one host): ipc_transport (<layout/mpi/ipc.hpp>) in the device
# plans' tests on 2 and 4 ranks and in md_mpi_gpu's ipc tests; the migration and halo benchmark
# with the ipc rows beside NCCL's (2 and 4 ranks); MD weak scaling on 4 ranks through NCCL and
# through IPC, alternating.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-g; S=${S:-/tmp/steps-g}
source scripts/device_steps.sh
nvidia-smi topo -m > $S/topo.txt 2>&1
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON
step 280 build cmake --build $B -j "$(nproc)" --target device_migrate_bench_gpu \
  mpi_gpu_device_migration_test mpi_gpu_device_halo_test md_mpi_gpu md_compare_thermo -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -x NCCL_NVLS_ENABLE)
for t in migration halo; do
  step 90 ${t}_np4 "${mpi[@]}" -np 4 $(exe mpi_gpu_device_${t}_test)
  grep -E "PASSED|FAILED|tests ran" $S/${t}_np4.txt | sort | uniq -c | tee -a $S/log.txt
done
step 120 plan_tests_np2 ctest --test-dir $B -R 'mpi\.gpu_device_(migration|halo)_test' --output-on-failure
grep -E "Test +#|tests passed|tests failed" $S/plan_tests_np2.txt | tee -a $S/log.txt
for np in 2 4; do
  step 90 migrate_np$np "${mpi[@]}" -np $np $(exe device_migrate_bench_gpu) --n=4000000 --steps=20
  cat $S/migrate_np$np.txt | grep -v "^$" | tee -a $S/log.txt
done
step 120 md_ipc_tests ctest --test-dir $B -R '^md_mpi_gpu\..*ipc$' --output-on-failure
grep -E "Test +#|tests passed|tests failed" $S/md_ipc_tests.txt | tee -a $S/log.txt
md=(--lattice fcc 0.8442 --steps 100 --thermo 100 --layout soa --device gpu)
step 60 weak_np1 "${mpi[@]}" -np 1 $(exe md_mpi_gpu) "${md[@]}" --cells 80 80 80
log "np1: $(grep -h '^Performance' $S/weak_np1.txt | cut -c1-60) | $(grep -E '^(Force|Neighbor|Comm) ' $S/weak_np1.txt | xargs)"
for rep in 1 2; do
  for tr in nccl ipc; do
    name=weak_np4_${tr}_$rep
    step 60 $name "${mpi[@]}" -np 4 $(exe md_mpi_gpu) "${md[@]}" --cells 160 160 80 --transport $tr
    log "np4 $tr: $(grep -h '^Performance' $S/$name.txt | cut -c1-60) | $(grep -E '^(Force|Neighbor|Comm) ' $S/$name.txt | xargs)"
  done
done
save
