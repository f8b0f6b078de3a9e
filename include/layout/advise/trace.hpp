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
#include "../reflect.hpp"
#include "access.hpp"
#include "shadow.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace layout::advisor {

namespace detail {

/// Elements to start the shadow elements from (none: synthetic values).
template <class T>
struct sample_span {
    const T* data = nullptr;
    std::size_t size = 0;
    bool real = false; ///< the view's own data: element j starts as data[j]
};

/// Runs f(view, i) on fresh shadow elements; returns the state the call left.
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

/// The trace of f over the calls opt names: each call traced alone (trace_call), then the
/// elements other than i classified as neighbours or indexed across calls.
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
                const bool read =
                    e.read[l] || (!wrote && e.reached[l]) ||
                    (key.pattern == pattern::indexed && indexed_read[l] && e.reached[l]) ||
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
