/// \file scratch.hpp
/// A temporary block for n elements of T in a layout, from any memory resource, freed on scope
/// exit in the order of its stream. Its elements are uninitialized: write before reading.
///
///     layout::scratch<P, layout::policy::soa> tmp(n, layout::host_memory::default_resource());
///     layout::copy(src, tmp.view());              // tmp.view().size() == n
#pragma once

#include "config.hpp"
#include "memory.hpp"
#include "memory_resource.hpp"
#include "policies.hpp"
#include "view.hpp"

#include <cstddef>

namespace layout {

template <class T, class Layout, memory_space Memory = host_memory>
class scratch {
    static_assert(layout_policy<Layout, T>,
                  "layout: scratch's second parameter is not a layout: it must satisfy "
                  "layout::layout_policy (layouts/concept.hpp lists what a layout provides)");

public:
    /// Allocates (and may throw, as the resource does) before anything else happens.
    scratch(std::size_t n, resource_ref resource, stream_ref stream = {})
        : n_(n), capacity_(whole_blocks(n)), bytes_(mapping<T, Layout>::bytes(capacity_)),
          resource_(resource), stream_(stream),
          block_(resource.allocate(bytes_, block_alignment, stream)) {}
    scratch(const scratch&) = delete;
    scratch& operator=(const scratch&) = delete;
    ~scratch() { resource_.deallocate(block_, bytes_, block_alignment, stream_); }

    layout::view<T, Layout, Memory> view() const noexcept {
        using view_type = layout::view<T, Layout, Memory>;
        return view_type(view_type::storage_type::from_block(block_, capacity_), n_);
    }

private:
    static std::size_t whole_blocks(std::size_t n) noexcept { // the last AoSoA block is whole
        return mapping<T, Layout>::rounded_capacity(n);
    }

    std::size_t n_, capacity_, bytes_;
    resource_ref resource_;
    stream_ref stream_;
    void* block_;
};

} // namespace layout
