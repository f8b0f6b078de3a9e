/// \file layouts/aos.hpp
/// Array of structures: element i is a T at byte i * sizeof(T), exactly the user's struct, so a
/// std::vector<P> can be viewed with no copy.
///
///     struct P { float x; double d; };                    // leaves: x (4 B), d (8 B)
///     mapping<P, policy::aos>::offset(i, l, cap)          // i*16 + {0, 8}[l]
#pragma once

#include "../config.hpp"
#include "../reflect.hpp"
#include "concept.hpp"

#include <cstddef>
#include <string>
#include <type_traits>

namespace layout::policy {

struct aos {
    /// Deprecated (0.1), removed in the next release: only the advisor named layouts, now by
    /// layout::advisor::layout_name<L> (<layout/advise/layout_name.hpp>).
    static std::string name() { return "aos"; }

    template <class T>
    struct mapping {
        static constexpr std::size_t bytes(std::size_t capacity) { return capacity * sizeof(T); }
        static constexpr std::size_t offset(std::size_t i, std::size_t leaf,
                                            std::size_t /*capacity*/) {
            return i * sizeof(T) + detail::leaf_table<T>[leaf].offset;
        }
        static constexpr std::size_t rounded_capacity(std::size_t n) { return n; }
        /// A leaf's values are never adjacent; the elements are whole T's, sizeof(T) apart.
        static constexpr std::size_t leaf_run = 1;
        static constexpr std::size_t element_stride = sizeof(T);
    };

    /// A cursor is the element's address.
    template <class E>
    struct cursor {
        E* element;
        template <std::size_t L>
        LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE detail::copy_const_t<E, leaf_t<E, L>>&
        leaf() const noexcept {
            return detail::leaf_ref<L>(*element);
        }
    };

    /// A pointer to the first element.
    template <class E>
    struct storage {
        using cursor = aos::cursor<E>;
        E* data;

        static storage from_block(detail::copy_const_t<E, void>* block,
                                  std::size_t /*capacity*/) noexcept {
            return {static_cast<E*>(block)};
        }
        /// view(data, n) over an array of T the user owns.
        LAYOUT_HOST_DEVICE static storage from_pointer(E* data) noexcept { return {data}; }
        /// Elements [k, ...) of this storage.
        LAYOUT_HOST_DEVICE storage advanced(std::size_t k) const noexcept { return {data + k}; }

        LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE cursor at(std::size_t i) const noexcept {
            return {&detail::restrict_at(data, i)};
        }
        LAYOUT_HOST_DEVICE detail::copy_const_t<E, void>* first_byte() const noexcept {
            return data;
        }

        /// Kernel arguments: the one pointer, and back.
        template <class F>
        decltype(auto) split(F&& f) const {
            return f(data);
        }
        LAYOUT_HOST_DEVICE static storage rebuild(E* data) noexcept { return {data}; }

        template <class Mutable = E>
            requires(!std::is_const_v<Mutable>)
        LAYOUT_HOST_DEVICE operator storage<const Mutable>() const noexcept {
            return {data};
        }
    };

    /// The first n elements are one run.
    template <class T, class F, class... S>
    static void runs(std::size_t n, F&& f, const S&... s) {
        if (n) f(n * sizeof(T), detail::void_pointer(s.data)...);
    }
};

} // namespace layout::policy
