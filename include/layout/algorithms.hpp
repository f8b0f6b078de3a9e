/// \file algorithms.hpp
/// Gather, scatter, permutation, sorting by key and compaction over any layout, in host memory.
///
///     // src = {a, b, c, d}, indices = {2, 0, 3}
///     layout::gather(src, indices, dst3);     // dst3[i] = src[indices[i]]:    {c, a, d}
///     layout::scatter(src3, indices, dst);    // dst[indices[i]] = src3[i]:    {s1, _, s0, s2}
///     layout::permute(src, perm, dst);        // gather with a permutation (checked in debug)
///     layout::permute_in_place(particles, perm);
///     auto perm = layout::sort_by_key(keys, particles);        // stable; keys end up sorted too
///     auto bins = layout::bin_by_key(cells, n_cells, particles);
///     // particles of cell c: [bins.offsets[c], bins.offsets[c + 1]); bins.permutation as above
///     auto kept = layout::remove_if(particles, dead);          // stable; resized to kept
///     auto k = layout::stable_partition(particles, alive);     // [0, k) alive, both in order
///
/// Views and containers of any layout go in (a container stands for its view(); source and
/// destination may have different layouts); indices are any contiguous range of an integral
/// type (std::vector<std::uint32_t>, std::span<const long>, ...). The GPU versions, same names
/// and contracts, are in <layout/cuda/algorithms.hpp>.
///
/// This header includes one header per algorithm: algorithms/gather_scatter.hpp, permute.hpp,
/// sort_by_key.hpp, bin_by_key.hpp and compact.hpp (remove_if, stable_partition, whose
/// contracts are in that file); what they share (the arguments they accept, their checks)
/// is in algorithms/detail/algorithm_arguments.hpp and algorithm_checks.hpp.
///
/// Contracts, the same on the host and the device:
///  - Every element is copied leaf by leaf; per leaf, the destination's writes run in index order
///    (contiguous under SoA for gather, which is what makes the device gather coalesced). On the
///    host, a SoA source (gather) or destination (scatter) is walked one column at a time, any
///    other layout element by element: whichever keeps fewer random streams live.
///  - Sizes: gather needs dst.size() == indices.size(), scatter src.size() == indices.size(),
///    permute and sort all three equal; otherwise std::length_error ("... size mismatch ...")
///    is thrown before anything is written.
///  - Source and destination must not share memory: overlapping views throw
///    std::invalid_argument (use permute_in_place to reorder in place).
///  - sort_by_key and bin_by_key accept keys that are one of x's own columns (sort by a field of
///    the element: soa.column<&P::cell>().span(), or any span whose key i is leaf l of
///    x[i]); reordering x sorts them. Keys that share other bytes with x throw
///    std::invalid_argument before anything is written.
///  - Strong guarantee: if an allocation fails (std::bad_alloc), sort_by_key and bin_by_key leave
///    keys and x as they were (everything is allocated before the first write).
///  - Indices are validated when LAYOUT_CHECK_BOUNDS is on (debug builds), on the host and on
///    the device alike: the first index out of range throws std::out_of_range
///    ("layout::gather: index 12 at position 3 is out of range: the source's size is 10"), and
///    permute's first repeated index std::invalid_argument ("layout::permute: not a
///    permutation: index 4 at position 2 appeared before, at position 0"), before anything is
///    written. Always-on checks would cost the device a kernel and a synchronizing read-back per
///    call. With the checks off an out-of-range index is undefined behaviour, as with operator[].
///  - Scatter with repeated indices: on the host the last write wins (dst[j] is the source
///    element with the largest i among those with indices[i] == j, whole). On the device see
///    <layout/cuda/algorithms.hpp>: per leaf, one of the colliding values.
#pragma once

#include "config.hpp"

#include "algorithms/bin_by_key.hpp"
#include "algorithms/compact.hpp"
#include "algorithms/gather_scatter.hpp"
#include "algorithms/permute.hpp"
#include "algorithms/sort_by_key.hpp"
