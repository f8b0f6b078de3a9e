#!/usr/bin/env bash
# Session i, first round (4 GPUs of one host, issue 30): ipc_transport's gathered exchange by
# columns (SoA: each travelling leaf read from the source column and written into the destination
# column, no pack or unpack kernel, no send or incoming buffer), the plans' tests on 2 and 4
# ranks (and 2 sharing a GPU), memcheck over them on 2, md_mpi_gpu's test cases,
# device_migrate_bench_gpu on 4 GPUs twice, MD weak scaling at 2,048,000 atoms a GPU (overlapped
# and not), with each section's slowest, fastest and average rank.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-i4; S=${S:-/tmp/steps-i-a}
source scripts/device_steps.sh
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON
step 300 build cmake --build $B -j "$(nproc)" --target mpi_gpu_device_migration_test \
  mpi_gpu_device_halo_test device_migrate_bench_gpu md_mpi_gpu md_compare_thermo -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -x NCCL_NVLS_ENABLE)
for t in migration halo; do
  for np in 2 4; do
    step 90 ${t}_np$np "${mpi[@]}" -np $np $(exe mpi_gpu_device_${t}_test)
    grep -E "PASSED|FAILED|tests ran" $S/${t}_np$np.txt | sort | uniq -c | tee -a $S/log.txt
  done
  CUDA_VISIBLE_DEVICES=0 step 90 ${t}_np2_one_gpu "${mpi[@]}" -np 2 $(exe mpi_gpu_device_${t}_test)
  grep -E "PASSED|FAILED|tests ran" $S/${t}_np2_one_gpu.txt | sort | uniq -c | tee -a $S/log.txt
done
for rep in 1 2; do
  step 90 bench_np4_$rep "${mpi[@]}" -np 4 $(exe device_migrate_bench_gpu) --n=4000000 --steps=20
  grep -v "^$" $S/bench_np4_$rep.txt | tee -a $S/log.txt
done
md=(--lattice fcc 0.8442 --steps 100 --thermo 100 --layout soa --device gpu)
summary() { echo "$(grep -h '^Performance' $S/$1.txt | cut -c1-60)"; grep -hE '^(Section|Force|Neighbor|Comm|Integrate) ' $S/$1.txt | tee -a $S/log.txt; }
for rep in 1 2; do
  step 60 weak_np1_$rep "${mpi[@]}" -np 1 $(exe md_mpi_gpu) "${md[@]}" --cells 80 80 80
  log "np1: $(summary weak_np1_$rep)"
  step 60 weak_np4_$rep "${mpi[@]}" -np 4 $(exe md_mpi_gpu) "${md[@]}" --cells 160 160 80
  log "np4 (ipc): $(summary weak_np4_$rep)"
done
step 60 weak_np1_sequential "${mpi[@]}" -np 1 $(exe md_mpi_gpu) "${md[@]}" --cells 80 80 80 --no-overlap
log "np1 --no-overlap: $(summary weak_np1_sequential)"
step 60 weak_np4_sequential "${mpi[@]}" -np 4 $(exe md_mpi_gpu) "${md[@]}" --cells 160 160 80 --no-overlap
log "np4 --no-overlap: $(summary weak_np4_sequential)"
step 200 md_tests ctest --test-dir $B -R '^md_mpi_gpu\.' --output-on-failure
grep -E "Test +#|tests passed|tests failed" $S/md_tests.txt | tee -a $S/log.txt
for t in migration halo; do
  step 150 memcheck_$t "${mpi[@]}" -np 2 compute-sanitizer --tool memcheck --error-exitcode 3 \
    $(exe mpi_gpu_device_${t}_test)
  grep -E "ERROR SUMMARY|PASSED|FAILED" $S/memcheck_$t.txt | sort | uniq -c | tee -a $S/log.txt
done
save
