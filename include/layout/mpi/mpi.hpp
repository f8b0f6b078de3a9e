/// \file mpi/mpi.hpp
/// Scale-out over MPI: migration and halo plans for containers of any layout. An opt-in
/// component: <layout/layout.hpp> does not include it. Needs an MPI library: link the CMake
/// target layout::mpi (find_package(layout COMPONENTS mpi)), which adds MPI and defines
/// LAYOUT_WITH_MPI, or compile with MPI's wrapper (mpicxx), which puts <mpi.h> on the include
/// path; where neither is so, this header stops with a `layout:` #error. The core library stays
/// MPI-free. Compiled by nvcc, this also brings the device containers' transport
/// (<layout/mpi/cuda.hpp>).
///
///     layout::mpi::migration_plan plan(MPI_COMM_WORLD, destinations);  // one rank per element
///     plan.migrate(particles);                                         // any layout
///     layout::mpi::halo_plan halo(MPI_COMM_WORLD, owned, export_indices, export_ranks);
///     halo.gather<&P::pos>(particles);                                 // ghosts after owned
///     halo.scatter_add<&P::force>(particles);                          // back to the owners
#pragma once

// LAYOUT_WITH_MPI: the build linked layout::mpi. <mpi.h> reachable without it: mpicxx, or MPI's
// include path given by hand. Either will do; the #error is for a program that has neither.
#if !defined(LAYOUT_WITH_MPI) && !__has_include(<mpi.h>)
#  error "layout: <layout/mpi/mpi.hpp> needs MPI (no <mpi.h>): link layout::mpi, or use mpicxx"
#else // (the plans only where MPI is there: the #error is then the only message)

#  include "error.hpp"
#  include "fields.hpp"
#  include "halo.hpp"
#  include "migrate.hpp"

#  if defined(__CUDACC__)
#    include "cuda.hpp"
#  endif

#endif
