#!/usr/bin/env bash
# Session g, fourth round (4 GPUs of one host): ipc_transport packs straight into the peers'
# memory (the plans' pack kernels write the peers' landing blocks: no send buffer, no copy of
# it); a new test whose messages outgrow the blocks. The plans' tests on 2 and 4 ranks, the
# migration and halo benchmark, md_mpi_gpu's ipc tests, MD weak scaling through NCCL and IPC,
# then memcheck over the migration test on 2 GPUs. (The experiment's code is gone: run today,
# this measures the transport as it is.)
# round_x4_a.sh's steps, then memcheck.
set -uo pipefail
here="$(dirname "${BASH_SOURCE[0]}")"
S=/tmp/steps-g4 bash "$here/round_x4_a.sh"
cd "$here/../../.."
B=/tmp/build-g; S=/tmp/steps-g4
source scripts/device_steps.sh
mpi=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -x NCCL_NVLS_ENABLE)
step 120 memcheck_migration "${mpi[@]}" -np 2 compute-sanitizer --tool memcheck --error-exitcode 3 \
  $(exe mpi_gpu_device_migration_test)
grep -E "ERROR SUMMARY|PASSED|FAILED|Program hit" $S/memcheck_migration.txt | sort | uniq -c | tee -a $S/log.txt
save
