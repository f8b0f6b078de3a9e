#!/usr/bin/env bash
# Session g, last round (4 GPUs of one host): md_mpi_gpu weak scaling (2,048,000 atoms a GPU) on
# 1, 2 and 4 GPUs and strong scaling of 16,384,000 atoms on 1, 2 and 4, through NCCL and through
# ipc_transport, in the same run.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-g; S=${S:-/tmp/steps-g6}
source scripts/device_steps.sh
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=OFF -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=OFF
step 200 build cmake --build $B -j "$(nproc)" --target md_mpi_gpu -- -k 0
mpi=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -x NCCL_NVLS_ENABLE)
md=(--lattice fcc 0.8442 --steps 100 --thermo 100 --layout soa --device gpu)
run() { local name=$1 np=$2; shift 2
  step 90 $name "${mpi[@]}" -np $np $(exe md_mpi_gpu) "${md[@]}" "$@"
  log "$name: $(grep -h '^Performance' $S/$name.txt | cut -c1-62) | $(grep -E '^(Force|Neighbor|Comm) ' $S/$name.txt | xargs)"; }
run weak_np1 1 --cells 80 80 80
for tr in nccl ipc; do
  run weak_np2_$tr 2 --cells 160 80 80 --transport $tr
  run weak_np4_$tr 4 --cells 160 160 80 --transport $tr
done
run strong_np1 1 --cells 160 160 160
for tr in nccl ipc; do
  run strong_np2_$tr 2 --cells 160 160 160 --transport $tr
  run strong_np4_$tr 4 --cells 160 160 160 --transport $tr
done
save
