/// \file layout.hpp
/// The whole library. Compiled by nvcc, it also brings the CUDA memory spaces and resources, device
/// containers, layout::cuda::copy and layout::cuda::for_each_index. Separate headers: <layout/span.hpp>
/// (columns as std::span and ranges), <layout/cuda/algorithms.hpp> (device gather/scatter/sort;
/// pulls in CUB) and <layout/cuda/interop.hpp> (cuda::std::span and mdspan of columns; its
/// column_span overloads would compete with span.hpp's if both came in through this header).
#pragma once

#include "config.hpp"
#include "algorithms.hpp"
#include "copy.hpp"
#include "element_ref.hpp"
#include "for_each.hpp"
#include "iterator.hpp"
#include "memory.hpp"
#include "memory_resource.hpp"
#include "policies.hpp"
#include "reflect.hpp"
#include "scratch.hpp"
#include "transfer.hpp"
#include "vector.hpp"
#include "view.hpp"

#if defined(__CUDACC__)
#  include "cuda/error.hpp"
#  include "cuda/convert.hpp"
#  include "cuda/copy.hpp"
#  include "cuda/for_each.hpp"
#  include "cuda/memory.hpp"
#  include "cuda/memory_resource.hpp"
#  include "cuda/transfer.hpp"
#  include "cuda/vector.hpp"
#endif
