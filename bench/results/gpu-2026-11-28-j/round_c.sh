#!/usr/bin/env bash
# Session j, third round (4 GPUs of one host, issue 30): round b's grid by chunks (1024 a block)
# made every IPC gather slower; back to bytes, measured at 8, 16 (session i's) and 64 KiB a block
# of each copy (a define of the experiment, removed after), device_migrate_bench_gpu on 4 GPUs;
# the plans' tests at 16 KiB on 4 ranks.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-j; S=${S:-/tmp/steps-j-c}
source scripts/device_steps.sh
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader -x NCCL_NVLS_ENABLE)
for kib in 16 8 64; do
  Bk=$B-$kib
  step 60 configure_$kib cmake -S . -B $Bk -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON \
    "-DCMAKE_CUDA_FLAGS=-DLAYOUT_IPC_EXPERIMENT_BLOCK_BYTES=$((kib * 1024))"
  targets=device_migrate_bench_gpu
  [ $kib = 16 ] && targets="$targets mpi_gpu_device_migration_test mpi_gpu_device_halo_test"
  step 300 build_$kib cmake --build $Bk -j "$(nproc)" --target $targets -- -k 0
  grep -E "error|FAILED" $S/build_$kib.txt | head | tee -a $S/log.txt
  if [ $kib = 16 ]; then
    for t in halo migration; do
      B=$Bk step 90 ${t}_np4 "${mpi[@]}" -np 4 $(B=$Bk exe mpi_gpu_device_${t}_test)
      grep -E "PASSED|FAILED|tests ran" $S/${t}_np4.txt | sort | uniq -c | tee -a $S/log.txt
    done
  fi
  B=$Bk step 90 bench_${kib}k "${mpi[@]}" -np 4 $(B=$Bk exe device_migrate_bench_gpu) --n=4000000 --steps=20
  log "-- ${kib} KiB a block"
  grep -E "ipc|nccl alone|hand-written" $S/bench_${kib}k.txt | tee -a $S/log.txt
done
save
