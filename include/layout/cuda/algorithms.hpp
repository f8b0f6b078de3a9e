/// \file cuda/algorithms.hpp
/// Gather, scatter, permutation, sorting by key and compaction on the GPU, over any layout: the
/// device versions of <layout/algorithms.hpp>, with the same names and contracts.
///
///     layout::cuda::soa_vector<Particle> src = host, dst(m);
///     layout::cuda::aos_vector<std::uint32_t> idx = host_indices;      // indices in device memory
///     layout::cuda::gather(src, idx, dst);          // dst[i] = src[idx[i]], one thread per i
///     layout::cuda::scatter(dst, idx, src);         // src[idx[i]] = dst[i]
///     auto perm = layout::cuda::sort_by_key(keys, src);            // CUB radix sort, then gather
///     auto bins = layout::cuda::bin_by_key(cells, n_cells, src);   // + bins.offsets per cell
///     auto kept = layout::cuda::remove_if(src, dead);              // CUB DeviceSelect, stable
///
/// Indices and keys live in device memory: a layout::cuda::aos_vector<I>, a view<I, aos> of
/// device memory, a std::span over device memory, or a device pointer and a count.
///
/// This header includes one header per algorithm: cuda/algorithms/gather_scatter.hpp (with the
/// kernels, and how they move elements), permute.hpp, sort_by_key.hpp (CUB), bin_by_key.hpp and
/// compact.hpp (remove_if and stable_partition, with CUB; their streams are in that file);
/// what they share is in cuda/detail/: device_ranges.hpp (indices and keys in device memory),
/// algorithm_checks.hpp (argument checks, validation on the device) and launch.hpp (grids,
/// stream-ordered temporaries). It also includes the host versions, <layout/algorithms.hpp>.
///
/// The same names without `cuda::` (layout::gather, layout::remove_if, ...) come here when an
/// argument is in device memory (backend.hpp): one name per algorithm, chosen at compile time.
///
/// Streams and synchronization: everything runs on `stream` where one is given, else on the
/// stream of the first container among the arguments (dst's, then src's: its own, c.stream()),
/// else (views only) the default stream; and returns without waiting for the GPU, like a kernel
/// launch, except where a count must reach the host (remove_if, stable_partition: one wait).
/// Temporaries and results (permutations, offsets) come from the container's resource on that
/// stream, or from a workspace the caller keeps (<layout/cuda/workspace.hpp>: then a warm step
/// allocates nothing), are never value-initialized, and nothing touches another stream or
/// synchronizes the device. With LAYOUT_CHECK_BOUNDS on (no -DNDEBUG), the index checks below
/// run a validation kernel and read a flag back, which waits for the stream: benchmark with
/// -DNDEBUG.
///
/// Errors (the same as on the host, except where said):
///  - Sizes that do not match throw std::length_error ("... size mismatch ..."), before any work.
///  - Overlapping source and destination throw std::invalid_argument.
///  - With LAYOUT_CHECK_BOUNDS on, a validation kernel runs before the copy (it reads the indices
///    once more: 4 or 8 bytes per element, against the 2 * sizeof(T) the copy moves) and an
///    out-of-range index throws std::out_of_range naming its value and its position, the first
///    such position: "layout::cuda::gather: index 12 at position 3 is out of range: the
///    source's size is 10". Nothing has been written then. permute also throws
///    std::invalid_argument for an index that appears twice; bin_by_key std::out_of_range for a
///    key not below num_bins. The checks also reject indices or views in host memory that the
///    GPU cannot reach (std::invalid_argument), which would otherwise be an illegal address.
///    With the checks off, a bad index is an illegal memory access or silent corruption.
///  - Scatter with repeated indices: the threads that name the same j race. For each leaf
///    separately, the leaf of dst[j] ends up equal to that leaf of one of the colliding source
///    elements (a leaf is one naturally aligned store, never torn), but which one is unspecified
///    and may differ from leaf to leaf: dst[j] as a whole may mix the fields of several sources.
///    (On the host, the last write wins, whole.)
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/algorithms.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../algorithms.hpp"
#include "../config.hpp"
#include "algorithms/bin_by_key.hpp"
#include "algorithms/compact.hpp"
#include "algorithms/gather_scatter.hpp"
#include "algorithms/permute.hpp"
#include "algorithms/sort_by_key.hpp"
#include "backend.hpp"
