#!/usr/bin/env bash
# (Call c measured two experiments whose code is gone: LAYOUT_IPC_LANDING_BLOCKS and
# MD_BOUNDARY_LANES no longer exist, so run today this builds the same transport twice.)
# Session h, third round (2 GPUs of one host, issue 30): ipc_transport with two landing blocks a
# peer, written in turn, so that a sender's next message need not wait for the peer to copy out
# the last one. The plans' tests (new: gathers back to back, each round's ghosts checked
# afterwards) on 2 ranks with a GPU each and sharing one; device_migrate_bench_gpu on 2 GPUs,
# built as it is and with one landing block (-DLAYOUT_IPC_LANDING_BLOCKS=1: the transport as it
# was), alternating; md_mpi_gpu on 1 and 2 GPUs (2,048,000 atoms a GPU) with both, and with the
# boundary range's forces at 4 threads an atom (MD_BOUNDARY_LANES, an experiment).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-h2; B1=/tmp/build-h2-one; S=${S:-/tmp/steps-h-c}
source scripts/device_steps.sh
cfg=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DLAYOUT_BUILD_TESTS=ON
     -DLAYOUT_BUILD_EXAMPLES=ON -DLAYOUT_BUILD_BENCHMARKS=ON)
step 60 configure cmake -S . -B $B "${cfg[@]}"
step 60 configure_one cmake -S . -B $B1 "${cfg[@]}" -DCMAKE_CUDA_FLAGS=-DLAYOUT_IPC_LANDING_BLOCKS=1
targets=(device_migrate_bench_gpu md_mpi_gpu)
step 300 build bash -c "cmake --build $B -j 20 --target mpi_gpu_device_migration_test mpi_gpu_device_halo_test ${targets[*]} -- -k 0 > $S/build_two.txt 2>&1 & cmake --build $B1 -j 12 --target ${targets[*]} -- -k 0 > $S/build_one.txt 2>&1; wait"
grep -hE "error|FAILED" $S/build_two.txt $S/build_one.txt | head | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -x NCCL_NVLS_ENABLE -x MD_BOUNDARY_LANES)
export MD_BOUNDARY_LANES=0
for t in migration halo; do
  step 90 ${t}_np2 "${mpi[@]}" -np 2 $(exe mpi_gpu_device_${t}_test)
  grep -E "PASSED|FAILED|tests ran" $S/${t}_np2.txt | sort | uniq -c | tee -a $S/log.txt
done
CUDA_VISIBLE_DEVICES=0 step 90 halo_np2_one_gpu "${mpi[@]}" -np 2 $(exe mpi_gpu_device_halo_test)
grep -E "PASSED|FAILED|tests ran" $S/halo_np2_one_gpu.txt | sort | uniq -c | tee -a $S/log.txt
one() { find "$B1" -type f -name "$1" -perm -u+x -print -quit; }
for rep in 1 2; do
  step 90 bench_two_$rep "${mpi[@]}" -np 2 $(exe device_migrate_bench_gpu) --n=4000000 --steps=20
  grep -v "^$" $S/bench_two_$rep.txt | tee -a $S/log.txt
  step 90 bench_one_$rep "${mpi[@]}" -np 2 $(one device_migrate_bench_gpu) --n=4000000 --steps=20
  grep -v "^$" $S/bench_one_$rep.txt | tee -a $S/log.txt
done
md=(--lattice fcc 0.8442 --steps 100 --thermo 100 --layout soa --device gpu)
summary() { echo "$(grep -h '^Performance' $S/$1.txt | cut -c1-60) | $(grep -E '^(Force|Neighbor|Comm) ' $S/$1.txt | xargs)"; }
step 60 md_np1 "${mpi[@]}" -np 1 $(exe md_mpi_gpu) "${md[@]}" --cells 80 80 80
log "np1: $(summary md_np1)"
for rep in 1 2; do
  step 60 md_np2_two_$rep "${mpi[@]}" -np 2 $(exe md_mpi_gpu) "${md[@]}" --cells 160 80 80 --transport ipc
  log "np2 ipc two blocks: $(summary md_np2_two_$rep)"
  step 60 md_np2_one_$rep "${mpi[@]}" -np 2 $(one md_mpi_gpu) "${md[@]}" --cells 160 80 80 --transport ipc
  log "np2 ipc one block: $(summary md_np2_one_$rep)"
  MD_BOUNDARY_LANES=4 step 60 md_np2_lanes4_$rep "${mpi[@]}" -np 2 $(exe md_mpi_gpu) "${md[@]}" --cells 160 80 80 --transport ipc
  log "np2 ipc two blocks, boundary lanes 4: $(summary md_np2_lanes4_$rep)"
done
save
