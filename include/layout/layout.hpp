/// \file layout.hpp
/// The core library, as far as the compiler can take it: everything that compiles on the host;
/// compiled by nvcc, also the CUDA memory spaces and resources, device containers,
/// layout::cuda::copy, for_each_index, for_each_element, appender, the device algorithms and
/// column::mdspan(). The same for every build: the opt-in components are included by name,
///
///     #include <layout/advise.hpp>    // layout::advise, the cost model (CMake: layout::advise)
///     #include <layout/mpi/mpi.hpp>   // the MPI plans (CMake: layout::mpi)
///     #include <layout/mpi/nccl.hpp>  // their NCCL transport, under nvcc (CMake: layout::nccl)
#pragma once

#include "algorithms.hpp"
#include "column.hpp"
#include "config.hpp"
#include "copy.hpp"
#include "element_ref.hpp"
#include "for_each.hpp"
#include "iterator.hpp"
#include "memory.hpp"
#include "memory_resource.hpp"
#include "policies.hpp"
#include "reflect.hpp"
#include "scratch.hpp"
#include "strided_span.hpp"
#include "transfer.hpp"
#include "vector.hpp"
#include "view.hpp"

#if defined(__CUDACC__)
#  include "cuda/algorithms.hpp"
#  include "cuda/append.hpp"
#  include "cuda/columns.hpp"
#  include "cuda/copy.hpp"
#  include "cuda/error.hpp"
#  include "cuda/for_each.hpp"
#  include "cuda/for_each_element.hpp"
#  include "cuda/memory.hpp"
#  include "cuda/memory_resource.hpp"
#  include "cuda/tabulate.hpp"
#  include "cuda/transfer.hpp"
#  include "cuda/vector.hpp"
#endif
