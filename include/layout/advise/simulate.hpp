/// \file advise/simulate.hpp
/// The memory traffic of a trace under one layout, simulated on its geometry: the accesses a
/// call makes (one per leaf, or whole elements in vector chunks), the granules (sectors, DRAM
/// atoms, CPU lines) they move over a window of consecutive elements, and the sectors and
/// 128-byte lines each warp instruction touches. advise/cost.hpp sums them into a layout_cost.
///
///     moved_bytes(t, units_of(t, g, m), g, 32, 0, false)   // sector bytes read per element
///     touch_of(t, unit, g, m, seen).sectors                 // L1 sectors per thread of one access
#pragma once

#include "../config.hpp"
#include "access.hpp"
#include "geometry.hpp"
#include "machine.hpp"
#include "shadow.hpp"
#include "sort_runs.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace layout::advisor::detail {

/// Granules [first, last] that bytes [offset, offset + size) cover. The lists are sets (counted
/// by count_granules, searched sorted): a granule the last call added already is not added again
/// (consecutive elements of a stream share one; a fraction of the list to sort).
inline void add_granules(std::vector<std::uint64_t>& out, std::size_t offset, std::size_t size,
                         std::size_t granule) {
    for (std::size_t g = offset / granule; g <= (offset + size - 1) / granule; ++g)
        if (out.empty() || out.back() != g) out.push_back(g);
}

/// Distinct granules, and the runs of consecutive ones they form.
struct granule_count {
    std::size_t granules = 0, runs = 0;
};
inline granule_count count_granules(std::vector<std::uint64_t>& g) {
    sort_runs(g);
    g.erase(std::unique(g.begin(), g.end()), g.end());
    granule_count c{g.size(), 0};
    for (std::size_t k = 0; k < g.size(); ++k) c.runs += k == 0 || g[k] != g[k - 1] + 1;
    return c;
}

inline std::size_t random_element(std::size_t k, std::size_t salt, std::size_t capacity) {
    return static_cast<std::size_t>(mix(k * 0x2545f4914f6cdd1dull + salt) % capacity);
}

/// One memory instruction of a call (per thread), as nvcc emits it: one leaf; adjacent leaves
/// of one element merged into one 8- or 16-byte access (merge_accesses); or
/// (gpu_model::vector_bytes) a chunk of a whole element. A unit loads (reads > 0) or stores
/// (writes > 0); a chunk may do both.
struct access_unit {
    advisor::pattern pattern = pattern::self;
    std::ptrdiff_t offset = 0;
    std::size_t slot = 0;
    std::size_t leaf = 0; ///< the first leaf it covers
    bool chunk = false;   ///< bytes [byte, byte + size) of the element, not from leaf `leaf`
    std::size_t byte = 0;
    std::size_t size = 0; ///< bytes moved from leaf `leaf`'s address (from `byte`: a chunk)
    double reads = 0, writes = 0;
    std::size_t leaves = 1; ///< leaves it covers (the CPU, which the model does not merge)
    double useful = 0;      ///< bytes of those leaves (a load may also cover a gap's)
    std::size_t at(const layout_geometry& g, std::size_t e) const {
        return chunk ? g.offset(e, 0, g.capacity) - g.leaves[0].offset + byte
                     : g.offset(e, leaf, g.capacity);
    }
};

/// One access merged from adjacent leaves of one element: `count` leaves from `first` (in
/// address order), `bytes` moved from the first one's address, of which `useful` are theirs.
struct merged_access {
    std::size_t first = 0, count = 0, bytes = 0, useful = 0;
};

/// The accesses nvcc makes for the leaves `leaves` of one element (all loaded, or all stored,
/// equally often) under layout g: its load/store vectorizer chains leaves that are adjacent in
/// memory and of one size, gives each the alignment it knows for it (layout_geometry::
/// known_alignment), or the one the chain's first leaf implies at its distance, if more; then
/// from the first leaf on takes the longest piece that makes one aligned vector access of at
/// most 16 bytes and 4 values, and a single leaf where none does. A load may read a piece's
/// tail up to the next power of two (3 floats from a 16-aligned address: one 16-byte load; the
/// extra bytes lie in the same aligned 16 bytes); a store may not. Checked against the PTX of
/// nvcc 13 (-O3, sm_90) for the particles and MD kernels: WideParticle (64 B) most_fields reads
/// bytes 0-47, 52-63: ld.v4 [0], [16], [32], ld.u32 [52], ld.v2 [56]; writes 0-35, 44-47,
/// 56-63: st.v4 [0], [16], st.f32 [32], [44], st.v2 [56]; the 80-byte MD atom's v (24-47, of
/// which v.y and v.z are only 8-aligned, see known_alignment) stays scalar, x (0-23) is
/// ld.v2 [0] and ld.f64 [16], and x and v together are three v2 from 0.
inline std::vector<merged_access> merge_accesses(std::vector<std::size_t> leaves,
                                                 const layout_geometry& g, bool loads) {
    constexpr std::size_t e = std::size_t{1} << 20; // any element: offsets differ by a stride
    auto at = [&](std::size_t l) { return g.offset(e, l, g.capacity); };
    std::sort(leaves.begin(), leaves.end(),
              [&](std::size_t a, std::size_t b) { return at(a) < at(b); });
    std::vector<merged_access> out;
    for (std::size_t c0 = 0; c0 < leaves.size();) {
        // The chain: leaves adjacent in memory and of the first one's size.
        const std::size_t size = g.leaves[leaves[c0]].size;
        std::size_t c1 = c0 + 1;
        while (c1 < leaves.size() && g.leaves[leaves[c1]].size == size &&
               at(leaves[c1]) == at(leaves[c1 - 1]) + size)
            ++c1;
        const std::size_t lead = g.known_alignment.empty() ? size : g.known_alignment[leaves[c0]];
        const std::size_t most = std::min(widest_access, 4 * size);
        for (std::size_t k = c0; k < c1;) {
            std::size_t align = g.known_alignment.empty() ? size : g.known_alignment[leaves[k]];
            align = std::max(align, common_alignment(lead, at(leaves[k]) - at(leaves[c0])));
            merged_access m{leaves[k], 1, size, size};
            for (std::size_t end = c1; end-- > k + 1;) {
                const std::size_t span = at(leaves[end]) + size - at(leaves[k]);
                std::size_t bytes = span;
                if (loads)
                    while (bytes & (bytes - 1)) bytes += bytes & (~bytes + 1); // next power of 2
                if (bytes > most || (bytes & (bytes - 1)) || align % bytes != 0) continue;
                m = {leaves[k], end - k + 1, bytes, span};
                break;
            }
            out.push_back(m);
            k += m.count;
        }
        c0 = c1;
    }
    // ptxas: loads in one aligned window of at most 16 bytes, where it sees the element's
    // alignment (layout_geometry::address_alignment), become one load of the window.
    const std::size_t window = g.address_alignment;
    if (!loads || window < 2 || out.size() < 2) return out;
    const std::size_t base = g.offset(e, 0, g.capacity) - g.leaves[0].offset;
    std::vector<merged_access> merged{out.front()};
    for (std::size_t k = 1; k < out.size(); ++k) {
        merged_access& a = merged.back();
        const merged_access& b = out[k];
        const std::size_t from = at(a.first) - base, to = at(b.first) - base + b.bytes;
        std::size_t w = 1;
        while (w <= window && from / w != (to - 1) / w) w *= 2;
        if (w > window) {
            merged.push_back(b);
            continue;
        }
        a = {a.first, a.count + b.count, from / w * w + w - from, a.useful + b.useful};
    }
    return merged;
}

/// The accesses of trace t under layout g: per element a call reaches, its loads and its stores
/// merged as nvcc merges them (merge_accesses), or whole elements in chunks (vector_bytes).
template <class T>
std::vector<access_unit> units_of(const access_trace<T>& t, const layout_geometry& g,
                                  const gpu_model& m) {
    std::vector<access_unit> out;
    const std::size_t vb = m.vector_bytes;
    const bool vectors =
        vb > 0 && g.whole_elements && sizeof(T) % vb == 0 && g.leaves[0].offset == 0;
    auto same_element = [](const leaf_access& a, const leaf_access& b) {
        return a.pattern == b.pattern && a.offset == b.offset && a.slot == b.slot;
    };
    for (std::size_t k = 0; k < t.accesses.size(); ++k) {
        const leaf_access& a = t.accesses[k];
        bool first = true; // each element once, at its first access
        for (std::size_t q = 0; q < k; ++q) first = first && !same_element(t.accesses[q], a);
        if (!first) continue;
        std::vector<const leaf_access*> element;
        for (const auto& b : t.accesses)
            if (same_element(a, b)) element.push_back(&b);
        // All its leaves read (written), whole elements in chunks: the chunks, for those.
        std::size_t reads = 0, writes = 0;
        double rmin = 1e300, wmin = 1e300;
        for (const leaf_access* b : element) {
            if (b->reads > 0) ++reads, rmin = std::min(rmin, b->reads);
            if (b->writes > 0) ++writes, wmin = std::min(wmin, b->writes);
        }
        const bool vread = vectors && reads == g.leaf_count,
                   vwrite = vectors && writes == g.leaf_count;
        if (vread || vwrite)
            for (std::size_t b = 0; b < sizeof(T); b += vb)
                out.push_back({a.pattern, a.offset, a.slot, 0, true, b, vb, vread ? rmin : 0,
                               vwrite ? wmin : 0, 0, double(vb)});
        // The rest: loads, then stores, merged among leaves accessed equally often.
        for (int store = 0; store < 2; ++store) {
            if (store ? vwrite : vread) continue;
            std::vector<double> done;
            for (const leaf_access* b : element) {
                const double f = store ? b->writes : b->reads;
                if (f <= 0 || std::find(done.begin(), done.end(), f) != done.end()) continue;
                done.push_back(f);
                std::vector<std::size_t> leaves;
                for (const leaf_access* c : element)
                    if ((store ? c->writes : c->reads) == f) leaves.push_back(c->leaf);
                for (const merged_access& x : merge_accesses(leaves, g, !store))
                    out.push_back({a.pattern, a.offset, a.slot, x.first, false, 0, x.bytes,
                                   store ? 0 : f, store ? f : 0, x.count, double(x.useful)});
            }
        }
    }
    return out;
}

/// The element slot s of traced call c reached by index; false where it reached fewer.
template <class T>
bool traced_j(const access_trace<T>& t, std::size_t c, std::size_t s, std::size_t& j) {
    if (c >= t.indexed_j.size() || s >= t.indexed_j[c].size()) return false;
    j = t.indexed_j[c][s];
    return true;
}

/// Bytes per element moved in granules of `granule` bytes by the accesses with reads (or
/// writes). rmw: writes only, counting instead the granules written in part and not read by the
/// same accesses, which DRAM must read before it writes them.
template <class T>
double moved_bytes(const access_trace<T>& t, const std::vector<access_unit>& units,
                   const layout_geometry& g, std::size_t granule, double run_overhead, bool writes,
                   bool rmw = false) {
    constexpr std::size_t window = 4096, base = std::size_t{1} << 20;
    auto wants = [&](const access_unit& a) { return (writes ? a.writes : a.reads) > 0; };
    // Granules written in part, and not read: what a write there costs besides itself.
    auto partial = [&](const std::vector<std::pair<std::size_t, std::size_t>>& written,
                       std::vector<std::uint64_t> read) {
        // (granule, the bytes of it written as a bit mask: granule <= 64), or-ed into the last
        // entry where consecutive writes share a granule, sorted by granule, then each granule's
        // masks or-ed together.
        std::vector<std::pair<std::uint64_t, std::uint64_t>> masks;
        for (const auto& [at, size] : written)
            for (std::size_t gr = at / granule; gr <= (at + size - 1) / granule; ++gr) {
                const std::size_t lo = std::max(at, gr * granule) - gr * granule;
                const std::size_t n = std::min(at + size, (gr + 1) * granule) - gr * granule - lo;
                const std::uint64_t bytes = (n >= 64 ? ~0ull : (1ull << n) - 1) << lo;
                if (!masks.empty() && masks.back().first == gr)
                    masks.back().second |= bytes;
                else
                    masks.push_back({gr, bytes});
            }
        sort_runs(masks);
        sort_runs(read);
        const std::uint64_t full = granule >= 64 ? ~0ull : (1ull << granule) - 1;
        std::vector<std::uint64_t> out;
        for (std::size_t k = 0; k < masks.size();) {
            const std::uint64_t gr = masks[k].first;
            std::uint64_t mk = 0;
            for (; k < masks.size() && masks[k].first == gr; ++k) mk |= masks[k].second;
            if (mk != full && !std::binary_search(read.begin(), read.end(), gr)) out.push_back(gr);
        }
        return out;
    };
    auto count = [&](std::vector<std::uint64_t>& gs) {
        const granule_count c = count_granules(gs);
        return double(c.granules * granule) + double(c.runs) * run_overhead;
    };

    std::vector<std::uint64_t> stream, read_stream;
    std::vector<std::pair<std::size_t, std::size_t>> written;
    for (const auto& a : units) {
        if (a.pattern == pattern::indexed) continue;
        for (std::size_t e = base; e < base + window; ++e) {
            const auto target = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(e) + a.offset);
            const std::size_t at = a.at(g, target);
            if (wants(a)) {
                add_granules(stream, at, a.size, granule);
                if (rmw) written.push_back({at, a.size});
            }
            if (rmw && a.reads > 0) add_granules(read_stream, at, a.size, granule);
        }
    }
    if (rmw) stream = partial(written, read_stream);
    double bytes = count(stream) / double(window);

    std::size_t slots = 0;
    for (const auto& a : units)
        if (a.pattern == pattern::indexed) slots = std::max(slots, a.slot + 1);
    if (!t.indexed_j.empty()) {
        // Real indices of consecutive calls (a neighbor list over atoms sorted by cell): what
        // nearby calls share stays in L2 (the MD force kernel's neighbours lie within one slab
        // of cells, a few MB), so each element's indexed leaves come from DRAM once per kernel:
        // a stream over the elements, as if each call read its own.
        std::vector<std::uint64_t> gs, rs;
        std::vector<std::pair<std::size_t, std::size_t>> ws;
        std::vector<char> leaf_used(g.leaf_count, 0);
        for (const auto& a : units) {
            if (a.pattern != pattern::indexed) continue;
            if (a.chunk || leaf_used[a.leaf]) continue; // each leaf once, whatever its slots
            if (!(wants(a) || (rmw && a.reads > 0))) continue;
            leaf_used[a.leaf] = 1;
            double w = 0, r = 0;
            for (const auto& b : units)
                if (b.pattern == pattern::indexed && b.leaf == a.leaf && !b.chunk)
                    w = std::max(w, b.writes), r = std::max(r, b.reads);
            for (std::size_t e = base; e < base + window; ++e) {
                const std::size_t at = a.at(g, e);
                if (writes ? w > 0 : r > 0) {
                    add_granules(gs, at, a.size, granule);
                    if (rmw) ws.push_back({at, a.size});
                }
                if (rmw && r > 0) add_granules(rs, at, a.size, granule);
            }
        }
        if (rmw) gs = partial(ws, rs);
        return bytes + count(gs) / double(window);
    }
    // Indexed elements: each a random element of its own, its leaves' granules moved for it.
    for (std::size_t s = 0; s < slots; ++s) {
        double freq = 0;
        for (const auto& a : units)
            if (a.pattern == pattern::indexed && a.slot == s && wants(a))
                freq = std::max(freq, writes ? a.writes : a.reads);
        if (freq == 0) continue;
        constexpr std::size_t tries = 64;
        double sum = 0;
        for (std::size_t k = 0; k < tries; ++k) {
            const std::size_t e = random_element(k, s, g.capacity);
            std::vector<std::uint64_t> gs, rs;
            std::vector<std::pair<std::size_t, std::size_t>> ws;
            for (const auto& a : units) {
                if (a.pattern != pattern::indexed || a.slot != s) continue;
                const std::size_t at = a.at(g, e);
                if (wants(a)) {
                    add_granules(gs, at, a.size, granule);
                    if (rmw) ws.push_back({at, a.size});
                }
                if (rmw && a.reads > 0) add_granules(rs, at, a.size, granule);
            }
            if (rmw) gs = partial(ws, rs);
            sum += count(gs);
        }
        bytes += freq * sum / double(tries);
    }
    return bytes;
}

/// Per call: the L1 sectors a warp instruction of access a touches, / 32 (times how often a call
/// makes it), and its 128-byte line requests. Consecutive elements for the element itself and its
/// neighbours; for indexed ones, 32 random elements, or the real ones of 32 consecutive traced
/// calls (lanes whose call reached no element in that slot sit out). With real indices a line
/// counts as a request only the first time the traced calls touch it (`seen`: the L1 keeps what
/// they share; the rest are hits, which cost sectors, not requests).
struct warp_touch {
    double sectors = 0, lines = 0;
};
template <class T>
warp_touch touch_of(const access_trace<T>& t, const access_unit& a, const layout_geometry& g,
                    const gpu_model& m, std::vector<std::uint64_t>& seen) {
    warp_touch w;
    if (a.pattern == pattern::indexed && !t.indexed_j.empty()) {
        const std::size_t calls = t.indexed_j.size();
        for (std::size_t c0 = 0; c0 + m.warp <= calls; c0 += m.warp) {
            std::vector<std::uint64_t> sectors, lines;
            for (std::size_t c = c0; c < c0 + m.warp; ++c) {
                std::size_t j;
                if (!traced_j(t, c, a.slot, j)) continue;
                const std::size_t at = a.at(g, j);
                add_granules(sectors, at, a.size, m.sector);
                add_granules(lines, at, a.size, m.line);
            }
            w.sectors += double(count_granules(sectors).granules);
            count_granules(lines);
            for (std::uint64_t l : lines) {
                const auto it = std::lower_bound(seen.begin(), seen.end(), l);
                if (it != seen.end() && *it == l) continue;
                seen.insert(it, l);
                w.lines += 1;
            }
        }
        const double per = 1.0 / double(calls / m.warp * m.warp);
        w.sectors *= per;
        w.lines *= per;
        return w;
    }
    constexpr std::size_t warps = 8, base = std::size_t{1} << 20;
    for (std::size_t k = 0; k < warps; ++k) {
        std::vector<std::uint64_t> sectors, lines;
        for (std::size_t th = 0; th < m.warp; ++th) {
            const std::size_t e = base + k * m.warp + th;
            const std::size_t target =
                a.pattern == pattern::indexed
                    ? random_element(e, a.slot, g.capacity)
                    : static_cast<std::size_t>(static_cast<std::ptrdiff_t>(e) + a.offset);
            const std::size_t at = a.at(g, target);
            add_granules(sectors, at, a.size, m.sector);
            add_granules(lines, at, a.size, m.line);
        }
        w.sectors += double(count_granules(sectors).granules);
        w.lines += double(count_granules(lines).granules);
    }
    const double per = 1.0 / double(warps * m.warp);
    w.sectors *= per;
    w.lines *= per;
    return w;
}

} // namespace layout::advisor::detail
