/// \file layout.hpp
/// The whole library. CUDA memory spaces and GPU algorithms are added by <layout/cuda.hpp>
/// when compiling with nvcc.
#pragma once

#include "config.hpp"
#include "algorithms.hpp"
#include "copy.hpp"
#include "element_ref.hpp"
#include "for_each.hpp"
#include "iterator.hpp"
#include "memory.hpp"
#include "policies.hpp"
#include "reflect.hpp"
#include "vector.hpp"
#include "view.hpp"

#if defined(__CUDACC__)
#  include "cuda/error.hpp"
#  include "cuda/convert.hpp"
#  include "cuda/for_each.hpp"
#  include "cuda/memory.hpp"
#endif
