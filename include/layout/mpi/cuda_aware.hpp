/// \file mpi/cuda_aware.hpp
/// Whether the MPI library takes device pointers: what the host-planned plans' device path
/// (cuda.hpp) and cuda_aware_transport (device_transport.hpp) ask before giving MPI device memory.
#pragma once

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#  include <mpi-ext.h>
#endif

namespace layout::mpi {

/// Whether the MPI library takes device pointers, as it says at run time (Open MPI's
/// MPIX_Query_cuda_support(); false for a library that cannot say).
inline bool cuda_aware_mpi() {
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
    return MPIX_Query_cuda_support() == 1;
#else
    return false;
#endif
}

} // namespace layout::mpi
