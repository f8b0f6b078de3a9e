/// \file mpi/mpi.hpp
/// Scale-out over MPI: migration and halo plans for containers of any layout. Needs an MPI
/// library (the CMake target layout::mpi, which find_package(MPI) provides); the core library
/// stays MPI-free. Compiled by nvcc, this also brings the device containers' transport
/// (<layout/mpi/cuda.hpp>).
///
///     layout::mpi::migration_plan plan(MPI_COMM_WORLD, destinations);  // one rank per element
///     plan.migrate(particles);                                         // any layout
///     layout::mpi::halo_plan halo(MPI_COMM_WORLD, owned, export_indices, export_ranks);
///     halo.gather<layout::mpi::fields<&P::pos>>(particles);           // ghosts after owned
///     halo.scatter_add<layout::mpi::fields<&P::force>>(particles);     // back to the owners
#pragma once

#include "error.hpp"
#include "fields.hpp"
#include "halo.hpp"
#include "migrate.hpp"

#if defined(__CUDACC__)
#  include "cuda.hpp"
#endif
