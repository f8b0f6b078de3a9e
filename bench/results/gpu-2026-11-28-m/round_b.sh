#!/usr/bin/env bash
# Session m, round b (2 GPUs): layout::cuda::check's own source_location (for host compilers
# without std's) through g++ on the GPU machine: gpu_error_test; and the MPI tests through CTest
# with the new mpirun flags (-x HWLOC_COMPONENTS=-pci), the device plans' on 2 GPUs among them.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
B=/tmp/build-m; S=${S:-/tmp/steps-m-b}
source scripts/device_steps.sh
step 60 configure cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DLAYOUT_BUILD_TESTS=ON -DLAYOUT_BUILD_EXAMPLES=OFF -DLAYOUT_BUILD_BENCHMARKS=OFF
grep -E "MPIEXEC|HWLOC" $B/CMakeCache.txt | head -3 | tee -a $S/log.txt
step 400 build cmake --build $B -j 16 --target gpu_error_test mpi_halo_test mpi_migrate_test \
  mpi_allocation_failure_test mpi_gpu_device_halo_test mpi_gpu_device_migration_test mpi_gpu_device_test mpi_gpu_nccl_device_test -- -k 0
grep -E "error|FAILED" $S/build.txt | head | tee -a $S/log.txt
step 60 error_test $(exe gpu_error_test)
grep -E "OK|FAILED|PASSED" $S/error_test.txt | tee -a $S/log.txt
step 200 ctest_mpi ctest --test-dir $B --output-on-failure -R "^mpi\.(halo|migrate|allocation_failure)_test|^mpi\.gpu_"
grep -E "Test +#|tests passed|Failed" $S/ctest_mpi.txt | sed -E 's/\.{3,}/ /' | tee -a $S/log.txt
save
