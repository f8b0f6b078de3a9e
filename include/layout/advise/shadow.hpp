/// \file advise/shadow.hpp
/// The elements a traced call sees: shadow copies created on first reach, each leaf starting
/// from a known value (synthetic, or taken from sample elements), and the view the functor
/// receives over them (trace_view: v[i] is the library's own element_ref). advise/trace.hpp
/// runs a functor over them and compares the values it leaves behind.
///
///     detail::shadow_state<Particle> s(seed, 0);
///     trace_view<Particle> v(&s, 1 << 20);
///     f(v, i);                            // the functor, unchanged
///     s.elements()                        // j -> {value, initial leaf values, leaves reached}
#pragma once

#include "../config.hpp"
#include "../element_ref.hpp"
#include "../reflect.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <type_traits>
#include <utility>
#include <vector>

namespace layout::advisor {

namespace detail {

enum class leaf_kind { floating, integral, boolean, pointer, other };

struct leaf_desc {
    leaf_kind kind;
    std::size_t size, offset, alignment;
};

template <class T>
inline constexpr auto leaf_descs = []<std::size_t... L>(std::index_sequence<L...>) {
    auto kind = []<class S>(std::type_identity<S>) {
        if constexpr (std::is_same_v<S, bool>)
            return leaf_kind::boolean;
        else if constexpr (std::is_floating_point_v<S> && sizeof(S) <= 8)
            return leaf_kind::floating;
        else if constexpr (std::is_integral_v<S> || std::is_enum_v<S>)
            return leaf_kind::integral;
        else if constexpr (std::is_pointer_v<S>)
            return leaf_kind::pointer;
        else
            return leaf_kind::other;
    };
    return std::array<leaf_desc, sizeof...(L)>{leaf_desc{
        kind(std::type_identity<leaf_t<T, L>>{}), sizeof(leaf_t<T, L>),
        layout::detail::leaf_table<T>[L].offset, layout::detail::leaf_table<T>[L].alignment}...};
}(std::make_index_sequence<leaf_count_v<T>>{});

inline std::uint64_t mix(std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/// Leaf bytes, widened to 8: what the trace compares and perturbs.
using leaf_bits = std::array<unsigned char, 8>;

inline leaf_bits encode_double(double d, std::size_t size) {
    leaf_bits b{};
    if (size == sizeof(float)) {
        const float f = static_cast<float>(d);
        std::memcpy(b.data(), &f, sizeof f);
    } else {
        std::memcpy(b.data(), &d, sizeof d);
    }
    return b;
}
inline double decode_double(const leaf_bits& b, std::size_t size) {
    if (size == sizeof(float)) {
        float f;
        std::memcpy(&f, b.data(), sizeof f);
        return f;
    }
    double d;
    std::memcpy(&d, b.data(), sizeof d);
    return d;
}
inline leaf_bits encode_int(std::uint64_t v) {
    leaf_bits b{};
    std::memcpy(b.data(), &v, sizeof v); // little-endian: the low bytes land first
    return b;
}
inline std::uint64_t decode_int(const leaf_bits& b) {
    std::uint64_t v;
    std::memcpy(&v, b.data(), sizeof v);
    return v;
}

/// The first size bytes of b, the rest zero: what a leaf of that size holds of a value.
inline leaf_bits truncated(leaf_bits b, std::size_t size) {
    for (std::size_t k = size; k < b.size(); ++k) b[k] = 0;
    return b;
}

/// Starting value of a leaf in one of three baselines, where no sample elements are given:
/// floats of either sign, moderate, over six decades, and tiny (1e-20 to 1e-10); integers below
/// 16 (they may be indices into a small table: a species, a type). No float is zero, so that
/// divisions stay finite; the tiny ones make x + vx * dt depend on vx however small dt is.
inline leaf_bits initial_value(const leaf_desc& d, int baseline, std::uint64_t h) {
    const double u = static_cast<double>(h >> 11) * 0x1p-53, sign = (h & 1) ? -1.0 : 1.0;
    switch (d.kind) {
    case leaf_kind::floating:
        if (baseline == 0) return encode_double(sign * (0.5 + 1.5 * u), d.size);
        if (baseline == 1) return encode_double(sign * std::pow(10.0, -3.0 + 6.0 * u), d.size);
        return encode_double(sign * std::pow(10.0, -20.0 + 10.0 * u), d.size);
    case leaf_kind::integral:
        return encode_int(baseline == 2 ? (h >> 30) % 4 : (h >> 20) % 16);
    case leaf_kind::boolean:
        return encode_int((h >> 17) & 1);
    default: // pointers stay null; opaque leaves zero
        return leaf_bits{};
    }
}

/// Other starting values to try for a leaf whose baseline value is a, where no sample elements
/// are given (integers stay small, as above).
inline std::vector<leaf_bits> perturbations(const leaf_desc& d, const leaf_bits& a,
                                            std::uint64_t h) {
    switch (d.kind) {
    case leaf_kind::floating: {
        const double x = decode_double(a, d.size);
        return {encode_double(-2.0 * x - 1.5, d.size),
                encode_double(1.0 + static_cast<double>(h % 1000) / 7.0, d.size)};
    }
    case leaf_kind::integral: {
        const std::uint64_t x = decode_int(a);
        return {encode_int(x + 1), encode_int(x ^ 1), encode_int(x ^ 2)};
    }
    case leaf_kind::boolean:
        return {encode_int(decode_int(a) ^ 1)};
    default:
        return {};
    }
}

/// The shadow elements of one traced call, created on first reach, with the leaves reached.
template <class T>
class shadow_state {
public:
    struct element {
        T value;
        std::array<leaf_bits, leaf_count_v<T>> initial;
        std::array<bool, leaf_count_v<T>> reached{};
        std::size_t order; ///< 0 for the first element the call reached, 1 for the next...
    };

    /// sample: elements to take starting values from (whole elements, so that an element's
    /// leaves agree with each other); none: the synthetic values above.
    shadow_state(std::uint64_t seed, int baseline, const T* sample = nullptr,
                 std::size_t sample_size = 0, bool real = false)
        : seed_(seed), baseline_(baseline), sample_(sample), sample_size_(sample_size),
          real_(real) {}

    /// Starts leaf `leaf` of element j at `value` instead of its baseline value.
    void override_leaf(std::size_t j, std::size_t leaf, const leaf_bits& value) {
        override_ = {j, leaf, value, true};
    }

    template <std::size_t L>
    leaf_t<T, L>& leaf(std::size_t j) {
        element& e = at(j);
        e.reached[L] = true;
        return layout::detail::leaf_ref<L>(e.value);
    }

    element& at(std::size_t j) {
        auto it = elements_.find(j);
        if (it != elements_.end()) return it->second;
        element& e = elements_[j];
        e.order = elements_.size() - 1;
        std::memset(static_cast<void*>(&e.value), 0, sizeof(T));
        // A sample as large as the view is the view's real data: element j starts as itself.
        const T* from = !sample_size_ ? nullptr
                        : real_ && j < sample_size_
                            ? &sample_[j]
                            : &sample_[mix(seed_ ^ mix(j * 131)) % sample_size_];
        for (std::size_t l = 0; l < leaf_count_v<T>; ++l) {
            const auto& d = leaf_descs<T>[l];
            e.initial[l] = truncated(
                override_.active && override_.j == j && override_.leaf == l ? override_.value
                : from ? bits_of_value(*from, l)
                       : initial_value(d, baseline_, mix(seed_ ^ mix(j * 131 + l))),
                d.size);
            std::memcpy(reinterpret_cast<unsigned char*>(&e.value) + d.offset, e.initial[l].data(),
                        d.size);
        }
        return e;
    }

    static leaf_bits bits_of_value(const T& value, std::size_t l) {
        leaf_bits b{};
        const auto& d = leaf_descs<T>[l];
        std::memcpy(b.data(), reinterpret_cast<const unsigned char*>(&value) + d.offset, d.size);
        return b;
    }
    static leaf_bits bits_of(const element& e, std::size_t l) { return bits_of_value(e.value, l); }

    const std::map<std::size_t, element>& elements() const { return elements_; }

private:
    struct leaf_override {
        std::size_t j = 0, leaf = 0;
        leaf_bits value{};
        bool active = false;
    };
    std::uint64_t seed_;
    int baseline_;
    const T* sample_;
    std::size_t sample_size_;
    bool real_;
    leaf_override override_;
    std::map<std::size_t, element> elements_; // node-based: references stay valid in a call
};

/// What element_ref asks of a cursor: leaf<L>() as a reference, here into the shadow element.
/// Host-device in name only, like the view below: a functor's host-device operator() reaches it
/// through element_ref, but tracing only ever runs on the host (nvcc would refuse the call from
/// the device side of those functions otherwise).
template <class T>
struct trace_cursor {
    shadow_state<T>* state;
    std::size_t index;
    LAYOUT_EXEC_CHECK_DISABLE
    template <std::size_t L>
    LAYOUT_HOST_DEVICE leaf_t<T, L>& leaf() const {
        return state->template leaf<L>(index);
    }
};

} // namespace detail

/// The view a traced functor receives: v[i], v.size(), value_type, as on a real view.
template <class T>
class trace_view {
public:
    using element_type = T;
    using value_type = T;
    using size_type = std::size_t;
    using reference = element_ref<T, 0, detail::trace_cursor<T>>;

    trace_view(detail::shadow_state<T>* state, std::size_t size) : state_(state), size_(size) {}
    LAYOUT_HOST_DEVICE std::size_t size() const noexcept { return size_; }
    LAYOUT_HOST_DEVICE bool empty() const noexcept { return size_ == 0; }
    LAYOUT_HOST_DEVICE reference operator[](std::size_t j) const {
        LAYOUT_BOUNDS_CHECK(j, size_);
        return reference(detail::trace_cursor<T>{state_, j});
    }

private:
    detail::shadow_state<T>* state_;
    std::size_t size_;
};
} // namespace layout::advisor
