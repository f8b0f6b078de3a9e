// main() of the MPI GPU tests: mpi_test_main.cpp, with the skip where no CUDA device exists.
#define LAYOUT_MPI_GPU_TESTS 1
#include "mpi_test_main.cpp"
