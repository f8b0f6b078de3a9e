#!/usr/bin/env bash
# Session g, third round (the same warm machine as round_x4_b.sh, its build directory): the whole
# build and every GPU test on one GPU (the MPI ones with both ranks on it: IPC between two
# processes of one GPU), then compute-sanitizer memcheck over the IPC plans' tests on 2 GPUs.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-g; S=${S:-/tmp/steps-g3}
source scripts/device_steps.sh
step 330 build_all cmake --build $B -j "$(nproc)" -- -k 0
grep -E "error|FAILED" $S/build_all.txt | head -20 | tee -a $S/log.txt
CUDA_VISIBLE_DEVICES=0 step 180 gpu_tests ctest --test-dir $B -L gpu --timeout 120 --output-on-failure
grep -E "tests passed|tests failed|Failed|\*\*\*" $S/gpu_tests.txt | head -30 | tee -a $S/log.txt
mpi=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -x NCCL_NVLS_ENABLE)
step 60 memcheck_halo "${mpi[@]}" -np 2 compute-sanitizer --tool memcheck --error-exitcode 3 \
  $(exe mpi_gpu_device_halo_test)
grep -E "ERROR SUMMARY|PASSED|FAILED" $S/memcheck_halo.txt | sort | uniq -c | tee -a $S/log.txt
save
