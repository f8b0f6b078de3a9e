/// \file advise/trace.hpp
/// Which leaves of which elements a functor reads and writes: the functor runs unchanged on the
/// host, over a sample of indices, through a tracing view.
///
///     struct drift {
///         float dt;
///         template <class V> void operator()(const V& p, std::size_t i) const {
///             auto&& [x, y, z, vx, vy, vz, m, q] = p[i];
///             x += vx * dt;  y += vy * dt;  z += vz * dt;
///         }
///     };
///     auto t = layout::advisor::trace<Particle>(drift{0.5f});
///     t.reads(0) == 1, t.reads(3) == 1, t.reads(6) == 0    // x and vx in every call, mass never
///     t.writes(0) == 1, t.writes(3) == 0                   // x written, vx not
///
/// v[i] is the library's own element proxy (layout::element_ref) over shadow elements, so
/// structured bindings, get<&P::x>, whole-element loads and stores, nested structs and
/// std::array members behave exactly as on a real view. Because its fields are real references
/// (a functor may pass them on as float&), reads and writes are found from their effects:
///   - a leaf is written when its value after the call differs from its value before, in any of
///     three runs that start from different random values;
///   - a leaf is read when giving it another starting value (a random one, or the value the call
///     left in it) changes anything the call leaves behind in the view.
/// That is the compiler's notion too: a field bound but unused (m, q above) is not loaded, and
/// neither is one whose value is overwritten before any use. What it cannot see: a read whose
/// only effect is outside the view (a sum into a captured pointer; when a functor writes nothing
/// in the view, every leaf it reaches counts as read, and the trace says so: writes_outside), and
/// an update that the functor's parameters make a no-op (vy += a * ey with ey == 0: nvcc would
/// still load and store vy, as ey is only known at run time).
///
/// Each element a call reaches is classified by its index j against the call's i: the element
/// itself (j == i), a neighbour (j - i the same in every sampled call), or indexed (anything else:
/// a gather through an index array); indexed elements are numbered by the order a call reaches
/// them.
#pragma once

#include "../config.hpp"
#include "../element_ref.hpp"
#include "../reflect.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace layout::advisor {

/// How a call reaches an element: through its own index, a fixed offset, or an index it computed.
enum class pattern { self, neighbour, indexed };

inline const char* pattern_name(pattern p) {
    return p == pattern::self ? "self" : p == pattern::neighbour ? "neighbour" : "indexed";
}

/// One leaf of one element a call reaches, and how often it is read and written.
struct leaf_access {
    std::size_t leaf = 0;
    advisor::pattern pattern = pattern::self;
    std::ptrdiff_t offset = 0; ///< neighbour: j - i
    std::size_t slot = 0;      ///< indexed: 0 for the first element a call reaches by index, ...
    double reads = 0;          ///< loads per call: 1 = every sampled call reads it
    double writes = 0;         ///< stores per call
};

/// The accesses of one functor to the elements of T, per call.
template <class T>
struct access_trace {
    std::vector<leaf_access> accesses; ///< by element (self, neighbours, indexed), then leaf
    std::size_t samples = 0;           ///< calls traced
    bool writes_outside = false;       ///< wrote nothing in the view: reached leaves count as read
    /// Traced with trace_options::first (consecutive calls first, first + 1, ...): per call, the
    /// element each indexed slot reached (indexed_j[c][slot]), so that the cost model can put 32
    /// consecutive calls in a warp and count the sectors their real indices touch. Empty
    /// otherwise (indexed elements are then taken as random).
    std::vector<std::vector<std::size_t>> indexed_j;
    std::size_t first = 0; ///< the index of the first traced call, with indexed_j

    /// Loads per call of leaf `leaf` through pattern p (summed over neighbours or indexed slots).
    double reads(std::size_t leaf, advisor::pattern p = pattern::self) const {
        double r = 0;
        for (const auto& a : accesses)
            if (a.leaf == leaf && a.pattern == p) r += a.reads;
        return r;
    }
    double writes(std::size_t leaf, advisor::pattern p = pattern::self) const {
        double w = 0;
        for (const auto& a : accesses)
            if (a.leaf == leaf && a.pattern == p) w += a.writes;
        return w;
    }
    /// Leaves of T read (or written) by some call, through any pattern.
    std::size_t leaves_read() const { return count_leaves(true); }
    std::size_t leaves_written() const { return count_leaves(false); }
    bool has(advisor::pattern p) const {
        return std::any_of(accesses.begin(), accesses.end(),
                           [&](const leaf_access& a) { return a.pattern == p; });
    }

private:
    std::size_t count_leaves(bool read) const {
        std::vector<char> used(leaf_count_v<T>, 0);
        for (const auto& a : accesses)
            if ((read ? a.reads : a.writes) > 0) used[a.leaf] = 1;
        return static_cast<std::size_t>(std::count(used.begin(), used.end(), 1));
    }
};

struct trace_options {
    std::size_t size = std::size_t{1} << 20; ///< v.size() the functor sees; indices stay below it
    std::size_t samples = 64;                ///< calls traced, at indices spread over the middle
    std::uint64_t seed = 0x5eed;
    /// Where set: trace the consecutive calls first, first + 1, ..., first + samples - 1 (whole
    /// warps: samples is rounded up to a multiple of 32), and record the elements they reach by
    /// index (access_trace::indexed_j). For functors that gather through index data of their
    /// own (a neighbor list), traced on the real data: trace(f, all_elements, opt) with
    /// all_elements.size() == size, so that element j starts as all_elements[j].
    static constexpr std::size_t spread = static_cast<std::size_t>(-1);
    std::size_t first = spread;
};

namespace detail {

enum class leaf_kind { floating, integral, boolean, pointer, other };

struct leaf_desc {
    leaf_kind kind;
    std::size_t size, offset;
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
    return std::array<leaf_desc, sizeof...(L)>{
        leaf_desc{kind(std::type_identity<leaf_t<T, L>>{}), sizeof(leaf_t<T, L>),
                  layout::detail::leaf_table<T>[L].offset}...};
}
(std::make_index_sequence<leaf_count_v<T>>{});

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
        const T* from = !sample_size_                  ? nullptr
                        : real_ && j < sample_size_ ? &sample_[j]
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

namespace detail {

/// Runs f(view, i) on fresh shadow elements; returns the state the call left.
template <class T>
struct sample_span {
    const T* data = nullptr;
    std::size_t size = 0;
    bool real = false; ///< the view's own data: element j starts as data[j]
};

template <class T, class F>
shadow_state<T> run_traced(const F& f, std::size_t i, std::size_t size, std::uint64_t seed,
                           int baseline, sample_span<T> sample, const std::size_t* j = nullptr,
                           std::size_t leaf = 0, const leaf_bits* value = nullptr) {
    shadow_state<T> state(seed, baseline, sample.data, sample.size, sample.real);
    if (j) state.override_leaf(*j, leaf, *value);
    if constexpr (std::is_invocable_v<const F&, const trace_view<T>&, std::size_t>)
        f(trace_view<T>(&state, size), i); // (otherwise trace_with's static_assert says why)
    return state;
}

/// True when the two runs left different values (or reached different elements), leaf `skip` of
/// element `skip_j` aside.
template <class T>
bool differs(const shadow_state<T>& a, const shadow_state<T>& b, std::size_t skip_j,
             std::size_t skip_leaf, bool skip) {
    if (a.elements().size() != b.elements().size()) return true;
    for (const auto& [j, ea] : a.elements()) {
        const auto it = b.elements().find(j);
        if (it == b.elements().end()) return true;
        for (std::size_t l = 0; l < leaf_count_v<T>; ++l) {
            if (skip && j == skip_j && l == skip_leaf) continue;
            if (shadow_state<T>::bits_of(ea, l) != shadow_state<T>::bits_of(it->second, l))
                return true;
        }
    }
    return false;
}

/// Per call: the elements reached (in order of first reach), and per leaf read / written.
struct call_record {
    struct reached_element {
        std::size_t j, order;
        std::vector<char> reached, read, written;
    };
    std::vector<reached_element> elements;
};

template <class T, class F>
call_record trace_call(const F& f, std::size_t i, const trace_options& opt, sample_span<T> sample) {
    constexpr std::size_t leaves = leaf_count_v<T>;
    call_record rec;
    std::map<std::size_t, std::size_t> index_of; // j -> position in rec.elements
    // On real data the three baselines would start from the same values: one suffices.
    const int baselines = sample.real ? 1 : 3;
    for (int baseline = 0; baseline < baselines; ++baseline) {
        const std::uint64_t seed = mix(opt.seed + 977 * i + static_cast<std::uint64_t>(baseline));
        const shadow_state<T> base = run_traced<T>(f, i, opt.size, seed, baseline, sample);
        for (const auto& [j, e] : base.elements()) {
            auto [it, fresh] = index_of.try_emplace(j, rec.elements.size());
            if (fresh)
                rec.elements.push_back({j, e.order, std::vector<char>(leaves, 0),
                                        std::vector<char>(leaves, 0),
                                        std::vector<char>(leaves, 0)});
            auto& r = rec.elements[it->second];
            for (std::size_t l = 0; l < leaves; ++l) {
                if (!e.reached[l]) continue;
                r.reached[l] = 1;
                const bool written = shadow_state<T>::bits_of(e, l) != e.initial[l];
                if (written) r.written[l] = 1;
                // Read: another starting value changes what the call leaves behind. The leaf's own
                // final value counts where some run writes it (x += ...); otherwise it is just the
                // new starting value. A run from another start also shows writes that left a
                // value unchanged in the baseline (flags | moved, with the bit already set).
                // With sample elements, integers take only values the sample has (they may
                // index a table the functor holds); floats take those and synthetic ones.
                std::vector<leaf_bits> candidates;
                if (!sample.size || leaf_descs<T>[l].kind != leaf_kind::integral)
                    candidates = perturbations(leaf_descs<T>[l], e.initial[l], mix(seed ^ l));
                for (std::size_t k = 0; k < (sample.real ? 2 : 8) && sample.size; ++k)
                    candidates.push_back(shadow_state<T>::bits_of_value(
                        sample.data[mix(seed ^ mix(l * 8 + k)) % sample.size], l));
                std::vector<leaf_bits> tries;
                for (const leaf_bits& v : candidates) {
                    const leaf_bits t = truncated(v, leaf_descs<T>[l].size);
                    if (t != e.initial[l] &&
                        std::find(tries.begin(), tries.end(), t) == tries.end())
                        tries.push_back(t);
                }
                if (written) tries.push_back(shadow_state<T>::bits_of(e, l));
                for (const auto& v : tries) {
                    const std::size_t jj = j;
                    const shadow_state<T> other =
                        run_traced<T>(f, i, opt.size, seed, baseline, sample, &jj, l, &v);
                    for (const auto& [oj, oe] : other.elements()) {
                        const auto known = index_of.find(oj);
                        if (known == index_of.end()) continue;
                        for (std::size_t ol = 0; ol < leaves; ++ol)
                            if (oe.reached[ol] &&
                                shadow_state<T>::bits_of(oe, ol) != oe.initial[ol])
                                rec.elements[known->second].written[ol] = 1;
                    }
                    const auto mine = other.elements().find(j);
                    const bool own_changed = mine != other.elements().end() &&
                                             shadow_state<T>::bits_of(mine->second, l) != v;
                    if (differs(base, other, j, l, !written && !own_changed)) r.read[l] = 1;
                }
            }
        }
    }
    std::sort(rec.elements.begin(), rec.elements.end(),
              [](const auto& a, const auto& b) { return a.order < b.order; });
    return rec;
}

} // namespace detail

namespace detail {
template <class T, class F>
access_trace<T> trace_with(const F& f, const trace_options& opt, sample_span<T> sample) {
    static_assert(assert_reflectable<T>());
    static_assert(std::is_invocable_v<const F&, const trace_view<T>&, std::size_t>,
                  "layout: advise<T>(f) traces f(view, i) as layout::for_each_index calls it: give "
                  "f a const `template <class View> void operator()(const View&, std::size_t i)`, "
                  "and T the element type of the views it runs on");
    constexpr std::size_t leaves = leaf_count_v<T>;
    const bool consecutive = opt.first != trace_options::spread;
    std::size_t samples = std::max<std::size_t>(1, std::min(opt.samples, opt.size));
    if (consecutive) samples = std::min((samples + 31) / 32 * 32, opt.size - opt.first);
    // Indices over the middle half (neighbours on either side exist), stepped by an odd count so
    // that they fall on every position in a warp or an AoSoA block; or consecutive ones.
    const std::size_t first = opt.size / 4, span = std::max<std::size_t>(1, opt.size / 2);
    std::vector<std::size_t> at(samples);
    for (std::size_t k = 0; k < samples; ++k)
        at[k] = consecutive ? opt.first + k : first + (k * 37 + k / 32) % span;

    std::vector<detail::call_record> calls;
    calls.reserve(samples);
    for (std::size_t i : at) calls.push_back(detail::trace_call<T>(f, i, opt, sample));

    // Elements other than i, by their position among a call's other elements: a neighbour where
    // j - i is the same in every call that has that position, indexed otherwise.
    std::size_t positions = 0;
    for (std::size_t c = 0; c < calls.size(); ++c) {
        std::size_t others = 0;
        for (const auto& e : calls[c].elements) others += e.j != at[c];
        positions = std::max(positions, others);
    }
    std::vector<char> constant(positions, 1);
    std::vector<std::ptrdiff_t> delta(positions, 0);
    std::vector<char> seen(positions, 0);
    for (std::size_t c = 0; c < calls.size(); ++c) {
        std::size_t pos = 0;
        for (const auto& e : calls[c].elements) {
            if (e.j == at[c]) continue;
            const auto d = static_cast<std::ptrdiff_t>(e.j) - static_cast<std::ptrdiff_t>(at[c]);
            if (!seen[pos]) {
                delta[pos] = d;
                seen[pos] = 1;
            } else if (delta[pos] != d) {
                constant[pos] = 0;
            }
            ++pos;
        }
    }
    // Several indexed calls at one position but one sampled call: nothing shows it varies.
    if (samples == 1) std::fill(constant.begin(), constant.end(), 0);

    struct key_less {
        bool operator()(const leaf_access& a, const leaf_access& b) const {
            auto k = [](const leaf_access& x) {
                return std::make_tuple(static_cast<int>(x.pattern), x.offset, x.slot, x.leaf);
            };
            return k(a) < k(b);
        }
    };
    std::map<leaf_access, std::pair<std::size_t, std::size_t>, key_less> counts;
    // A leaf of an element reached by index that some call is seen to read is read by every call
    // that reaches it: the GPU loads it whatever the value (a neighbour beyond the cutoff is
    // loaded, then fails the test), though another value of it may change nothing.
    // Likewise a leaf of the element itself that a call updates (v += dt * f) and some call is
    // seen to read: an update the data make a no-op (f tiny next to v) still loads it.
    std::vector<char> indexed_read(leaves, 0), self_read(leaves, 0);
    for (std::size_t c = 0; c < calls.size(); ++c)
        for (const auto& e : calls[c].elements)
            for (std::size_t l = 0; l < leaves; ++l)
                (e.j != at[c] ? indexed_read : self_read)[l] |= e.read[l];
    access_trace<T> t;
    if (consecutive) {
        t.first = opt.first;
        t.indexed_j.resize(calls.size());
    }
    bool wrote = false;
    for (const auto& c : calls)
        for (const auto& e : c.elements)
            for (std::size_t l = 0; l < leaves; ++l) wrote = wrote || e.written[l];
    for (std::size_t c = 0; c < calls.size(); ++c) {
        std::size_t pos = 0, slot = 0;
        for (const auto& e : calls[c].elements) {
            leaf_access key;
            if (e.j == at[c]) {
                key.pattern = pattern::self;
            } else {
                if (constant[pos]) {
                    key.pattern = pattern::neighbour;
                    key.offset = delta[pos];
                } else {
                    key.pattern = pattern::indexed;
                    key.slot = slot++;
                    if (consecutive) t.indexed_j[c].push_back(e.j);
                }
                ++pos;
            }
            for (std::size_t l = 0; l < leaves; ++l) {
                key.leaf = l;
                // Writing nothing in the view, the functor's effects are elsewhere: what it
                // reached is what it may have read.
                const bool read = e.read[l] || (!wrote && e.reached[l]) ||
                                  (key.pattern == pattern::indexed && indexed_read[l] &&
                                   e.reached[l]) ||
                                  (key.pattern == pattern::self && self_read[l] && e.written[l]);
                if (!read && !e.written[l]) continue;
                auto& n = counts[key];
                n.first += read;
                n.second += e.written[l] != 0;
            }
        }
    }
    t.samples = samples;
    t.writes_outside = !wrote;
    for (const auto& [key, n] : counts) {
        leaf_access a = key;
        a.reads = static_cast<double>(n.first) / static_cast<double>(samples);
        a.writes = static_cast<double>(n.second) / static_cast<double>(samples);
        t.accesses.push_back(a);
    }
    return t;
}

} // namespace detail

/// Traces f over opt.samples calls; see the file comment for what counts as a read and a write.
/// Elements start from synthetic values; trace(f, sample) starts them from real ones.
template <class T, class F>
access_trace<T> trace(const F& f, const trace_options& opt = {}) {
    return detail::trace_with<T>(f, opt, detail::sample_span<T>{});
}

/// The same, with every element starting as one of `sample` (a copy of some of the data the
/// functor will run on): needed where a functor uses an integer field as an index into a table
/// of its own (params[type]), which synthetic values could take out of range.
template <class T, class F>
access_trace<T> trace(const F& f, std::span<const T> sample, const trace_options& opt = {}) {
    return detail::trace_with<T>(
        f, opt,
        detail::sample_span<T>{sample.data(), sample.size(),
                               opt.first != trace_options::spread && sample.size() == opt.size});
}

} // namespace layout::advisor
