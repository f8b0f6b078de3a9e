// md_mpi with --device gpu (distributed_gpu.hpp): md_mpi.cpp built by nvcc.
#define MD_MPI_GPU 1
#include "md_mpi.cpp"
