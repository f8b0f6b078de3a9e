/// \file advise/access.hpp
/// What a trace records: per leaf of each element a call reaches, how it reaches the element
/// (pattern) and how often it reads and writes the leaf; and the options of a trace.
///
///     access_trace<Particle> t = layout::advisor::trace<Particle>(drift{0.5f});
///     t.reads(0) == 1        // x loaded once per call, through the element itself
///     t.has(pattern::indexed) == false
#pragma once

#include "../names.hpp"
#include "../reflect.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
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
    /// Their names, in leaf order (names.hpp): "pos.x, pos.y, mass"; "none" where there are none.
    std::string names_read() const { return names_of(true); }
    std::string names_written() const { return names_of(false); }
    bool has(advisor::pattern p) const {
        return std::any_of(accesses.begin(), accesses.end(),
                           [&](const leaf_access& a) { return a.pattern == p; });
    }

private:
    std::string names_of(bool read) const {
        std::vector<char> used(leaf_count_v<T>, 0);
        for (const auto& a : accesses)
            if ((read ? a.reads : a.writes) > 0) used[a.leaf] = 1;
        std::string out;
        for (std::size_t l = 0; l < used.size(); ++l)
            if (used[l]) (out += out.empty() ? "" : ", ") += leaf_names<T>()[l];
        return out.empty() ? "none" : out;
    }
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

} // namespace layout::advisor
