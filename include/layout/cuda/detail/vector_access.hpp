/// \file cuda/detail/vector_access.hpp
/// What a kernel over a view may assume about the alignment of the view's pointers, so that the
/// compiler merges a thread's neighbouring accesses into vector ones (LDG.E.64, LDG.E.128), and
/// which elements a thread takes so that there are neighbours to merge. Asked of the layout's
/// facts by name (concept.hpp), never by layout:
///
///     element_stride 32 (AoS of 8 floats), base 16-aligned   x y z vx: one LDG.E.128; vy vz: one LDG.E.64
///     leaf_run whole_column (SoA), 4 per thread              4 consecutive floats of a column: one LDG.E.128
///     leaf_run 32 (AoSoA<32>), 4 per thread, block 16-aligned   the same, inside a block's lane run
///
/// The compiler merges only accesses the code makes (nothing more is read or written) and only
/// where it can prove the alignment, so results are bit for bit those of scalar accesses. The
/// claim is checked on the host, pointer by pointer, before the kernel that makes it is chosen.
#pragma once

#if !defined(__CUDACC__)
#  error "layout/cuda/detail/vector_access.hpp needs a CUDA compiler (nvcc)"
#endif

#include "../../config.hpp"
#include "../../layouts/concept.hpp"
#include "../../reflect.hpp"
#include "../../view.hpp"

#include <cstddef>
#include <cstdint>

namespace layout::cuda::detail {

/// The widest global access of one thread (sm_90): 16 bytes.
inline constexpr std::size_t widest_access = 16;

/// The largest power of two that divides bytes, at most widest_access.
constexpr std::size_t vector_alignment(std::size_t bytes) {
    std::size_t a = 1;
    while (a < widest_access && bytes % (2 * a) == 0) a *= 2;
    return a;
}

/// Whether PerThread consecutive elements from a multiple of PerThread lie in one run of each
/// leaf (mapping::leaf_run: SoA's whole columns, AoSoA's blocks of lanes), so that a thread's
/// accesses to one leaf are adjacent.
template <class T, class Layout, std::size_t PerThread>
inline constexpr bool consecutive_v = [] {
    constexpr std::size_t run = mapping<T, Layout>::leaf_run;
    return PerThread > 1 && (run == layout::detail::whole_column || run % PerThread == 0);
}();

/// The alignment in bytes a kernel may assume for a pointer of type Pointee* among the view's
/// kernel arguments, where the host found it true (0: none worth claiming).
///   - whole elements element_stride apart (AoS): the stride's power-of-two part, so that
///     adjacent leaves of one element merge; only where that is more than alignof(T);
///   - consecutive elements, one column per pointer (SoA): PerThread elements of the column;
///   - consecutive elements in blocks (AoSoA): the block size's power-of-two part, from which
///     the compiler derives each lane run's alignment.
template <class T, class Layout, std::size_t PerThread, bool Consecutive>
struct alignment_claim {
    using map = mapping<T, Layout>;

    template <class Pointee>
    static constexpr std::size_t bytes() {
        if constexpr (requires { map::element_stride; }) {
            constexpr std::size_t a = vector_alignment(map::element_stride);
            return a > alignof(T) ? a : 0;
        } else if constexpr (!Consecutive) {
            return 0;
        } else if constexpr (layout::detail::contiguous_columns_v<layout::view<T, Layout>>) {
            return PerThread * sizeof(Pointee);
        } else if constexpr (requires { map::block_bytes; }) {
            return vector_alignment(map::block_bytes);
        } else {
            return 0;
        }
    }

    /// Whether every pointer has the alignment claimed for it.
    template <class... Pointee>
    static bool holds(Pointee*... pointers) {
        return ((bytes<Pointee>() == 0 ||
                 reinterpret_cast<std::uintptr_t>(pointers) % bytes<Pointee>() == 0) &&
                ...);
    }
    /// Whether anything is claimed at all (else the kernel is the unclaimed one).
    template <class... Pointee>
    static constexpr bool any = ((bytes<Pointee>() != 0) || ...);
};

/// p, with the compiler told that it is aligned to Bytes (nothing for 0).
template <std::size_t Bytes, class P>
__device__ LAYOUT_FORCEINLINE P* claim_aligned(P* p) noexcept {
    if constexpr (Bytes == 0)
        return p;
    else
        return static_cast<P*>(__builtin_assume_aligned(p, Bytes));
}

} // namespace layout::cuda::detail
