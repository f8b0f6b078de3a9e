/// \file extension.hpp
/// The extension surface: the core's building blocks that a component built on top of it needs,
/// published under layout::extension. layout::mpi stands on these names alone (no layout::detail);
/// a component of your own (a transport, a file format) may too. layout::detail may change in any
/// commit; a name here changes only with a note in the README, and is deprecated for a release
/// first. Not part of <layout/layout.hpp>: components include it themselves.
///
///     namespace ext = layout::extension;
///     template <ext::viewable C>                        // a view or a layout::vector
///     void send(C& c) {
///         const auto v = ext::as_view(c);               // c.view(), or c itself
///         using T = typename ext::view_of_t<C>::value_type;
///         for (const auto& leaf : ext::leaf_table<T>)   // {size, alignment, offset} per leaf
///             ...;
///     }
///     // struct P { float x; std::array<double, 2> d; }:
///     //     leaf_table<P> == {{4, 4, 0}, {8, 8, 8}, {8, 8, 16}}
///
/// Under nvcc also layout::extension::cuda: the block and grid sizes of the library's kernels and
/// its device gather.
#pragma once

#include "algorithms/detail/algorithm_arguments.hpp"
#include "algorithms/gather_scatter.hpp"
#include "config.hpp"
#include "layouts/concept.hpp"
#include "path.hpp"
#include "reflect.hpp"

#if defined(__CUDACC__)
#  include "cuda/algorithms/gather_scatter.hpp"
#  include "cuda/detail/launch.hpp"
#endif

namespace layout::extension {

// ---- What the algorithms accept: views, containers, index ranges ------------------------------

/// A layout::view, or a layout::vector (which stands for its view()).
using layout::detail::viewable;
/// The view of a viewable x: x itself, or x.view() (read-only for a const container).
using layout::detail::as_view;
/// The type as_view gives for an argument of type X: view_of_t<const soa_vector<P>&> is
/// view<const P, policy::soa>.
using layout::detail::view_of_t;
/// Whether X is a layout::vector: a container, which may be resized (a view may not).
using layout::detail::is_vector_v;
/// A contiguous, sized range of integers other than bool: indices, ranks, destinations.
using layout::detail::index_range;
/// An index_range as std::span<const I>: index_span(std::vector<int>{...}) is a span<const int>.
using layout::detail::index_span;

// ---- A struct's fields and leaves --------------------------------------------------------------

/// Whether T is a single leaf (a scalar, or a type the reflection keeps whole).
using layout::detail::is_leaf_v;
/// The type of T's I-th direct member: field_t<P, 1> is std::array<double, 2> for the P above.
using layout::detail::field_t;
/// first_leaf<T>[I]: the index of field I's first leaf; one more entry holds the leaf count
/// (first_leaf<P> == {0, 1, 3} for the P above).
using layout::detail::first_leaf;
/// leaf_table<T>[l]: leaf l's size, alignment and byte offset inside T, in leaf order.
using layout::detail::leaf_table;
/// The field index a key names: field_key_index<P, &P::d>() == 1, field_key_index<P, 1>() == 1.
using layout::detail::field_key_index;

// ---- Storage and element copies ----------------------------------------------------------------

/// What a view of E under Layout holds (view::storage()): at(i) gives element i's cursor, whose
/// leaf<L>() is a reference to leaf L. storage<E, policy::soa> is the columns' pointers.
using layout::detail::storage;
/// To, const where From is: copy_const_t<const P, std::byte> is const std::byte.
using layout::detail::copy_const_t;
/// Whether every leaf of view type V is one contiguous column (SoA): storage::leaf_data<L>().
using layout::detail::contiguous_columns_v;
/// Whether a view of T under Layout stores whole elements one after another, as T lies in
/// memory (AoS): storage::data points at element 0, and elements can move as whole bytes.
using layout::detail::packed_elements_v;
/// The mapping::leaf_run of a layout whose columns run unbroken from first element to last.
using layout::detail::whole_column;
/// copy_leaves(d, s, std::index_sequence<L...>{}): leaves L... of cursor s to cursor d
/// (__host__ __device__; the gather kernels' element copy).
using layout::detail::copy_leaves;
/// copy_leaf_column<L>(d, s, n, to, from): leaf L of d.at(to(i)) = s.at(from(i)) for i in
/// [0, n), one column at a time (the host gather's loop for SoA).
using layout::detail::copy_leaf_column;

} // namespace layout::extension

#if defined(__CUDACC__)
namespace layout::extension::cuda {

/// Threads a block in every kernel of the library.
using layout::cuda::detail::block_size;
/// grid_size(n, block_size, function): blocks for n threads, one an element; std::length_error
/// naming function past one grid.
using layout::cuda::detail::grid_size;
/// launch_gather(dst, src, indices, n, stream, function): dst[i] = src[indices[i]] for i in
/// [0, n) on stream, the kernel layout::cuda::gather launches (no checks, no synchronization).
using layout::cuda::detail::launch_gather;

} // namespace layout::extension::cuda
#endif
