/// \file layout.hpp
/// The whole library. CUDA memory spaces and GPU algorithms are added by <layout/cuda.hpp>
/// when compiling with nvcc.
#pragma once

#include "config.hpp"
#include "copy.hpp"
#include "element_ref.hpp"
#include "iterator.hpp"
#include "memory.hpp"
#include "policies.hpp"
#include "reflect.hpp"
#include "vector.hpp"
#include "view.hpp"
