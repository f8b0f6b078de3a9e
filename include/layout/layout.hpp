/// \file layout.hpp
/// The whole library: everything that compiles on the host, and compiled by nvcc, the CUDA memory
/// spaces and resources, device containers, layout::cuda::copy, layout::cuda::for_each_index and
/// column::mdspan(). Separate: <layout/cuda/algorithms.hpp> (device gather/scatter/sort), which
/// pulls in CUB, and <layout/mpi/...> (needs MPI).
#pragma once

#include "config.hpp"
#include "advise.hpp"
#include "algorithms.hpp"
#include "column.hpp"
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
#  include "cuda/error.hpp"
#  include "cuda/columns.hpp"
#  include "cuda/convert.hpp"
#  include "cuda/copy.hpp"
#  include "cuda/for_each.hpp"
#  include "cuda/memory.hpp"
#  include "cuda/memory_resource.hpp"
#  include "cuda/transfer.hpp"
#  include "cuda/vector.hpp"
#endif
