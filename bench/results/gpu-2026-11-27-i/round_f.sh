#!/usr/bin/env bash
# Session i, sixth round (G = 4 or 2 GPUs of one host, issue 30): ipc_transport starts each column
# of a gathered message at 16 bytes in the landing block; the new halo test of a 48-leaf element
# (a 1-byte leaf among them; through IPC more parts than one copy launch takes), with the plans'
# other tests, on 2 and G ranks; device_migrate_bench_gpu once on G.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
G=${G:-4}; B=/tmp/build-if$G; S=${S:-/tmp/steps-i-f$G}
source scripts/device_steps.sh
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON
step 300 build cmake --build $B -j "$(nproc)" --target mpi_gpu_device_migration_test \
  mpi_gpu_device_halo_test device_migrate_bench_gpu -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader -x NCCL_NVLS_ENABLE)
for t in halo migration; do
  for np in 2 $G; do
    step 90 ${t}_np$np "${mpi[@]}" -np $np $(exe mpi_gpu_device_${t}_test)
    grep -E "PASSED|FAILED|tests ran" $S/${t}_np$np.txt | sort | uniq -c | tee -a $S/log.txt
  done
done
step 90 bench "${mpi[@]}" -np $G $(exe device_migrate_bench_gpu) --n=4000000 --steps=20
grep -v "^$" $S/bench.txt | tee -a $S/log.txt
save
