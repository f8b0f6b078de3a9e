/// \file advise/cost.hpp
/// What a traced functor costs per element under one layout: bytes moved per 32-byte sector and
/// per DRAM atom (GPU), per 64-byte line (CPU), memory instructions, and the sectors and 128-byte
/// lines each warp instruction touches; then a predicted time from a two-term roofline.
///
///     one 4-byte field read and written, 32-byte struct:   aos    soa   aosoa32
///       sector bytes per element                            64      8     8
///       L1 sectors per element (ncu ld + st)                 2    0.25  0.25
///       128-byte line requests per element                 0.5  0.0625 0.0625
///
/// The accesses of a warp are simulated on the real mapping (layout::mapping<T, L>::offset):
/// 32 consecutive elements for the element itself and its neighbours, 32 random ones for an
/// indexed access. Bytes come from a window of 4096 consecutive elements, where every granule
/// (sector, atom, line) touched by any access is moved once for reading and once for writing
/// (caches keep it between the accesses of one element and its neighbours); an indexed element
/// moves the granules of its own leaves, with no reuse (random over a large array).
#pragma once

#include "../config.hpp"
#include "../policies.hpp"
#include "../reflect.hpp"
#include "trace.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace layout::advisor {

/// The GPU the predictions are for; the defaults are an H100 SXM (HBM3) as measured by
/// examples/particles (bench/results/h100-2026-11-23, -24, advise-2026-11-24). Each constant says
/// where it is from. Predicted time per element: max(DRAM time bytes / dram_bytes_per_s,
/// line requests / line_requests_per_s); per launch, elements times that plus launch_s.
struct gpu_model {
    /// A float4 device copy in the same runs: 3005-3008 GB/s, read + written.
    double dram_bytes_per_s = 3.0e12;
    /// L1/L2 sector: the unit of l1tex__t_sectors_* in ncu.
    std::size_t sector = 32;
    /// DRAM reads sector pairs: reading one 32-byte sector of each 64-byte element (one_field on
    /// WideParticle, AoS) reads 64 bytes per element from DRAM (ncu dram__bytes_read.sum).
    /// Writes are counted per sector (32 bytes), but a write to part of an atom takes
    /// the DRAM time of the whole atom: that one_field moves 96 counted bytes per element in the
    /// time of 128 (12.2-12.7x SoA, where the 32-byte Particle's 64 counted bytes take 6.3-6.9x).
    std::size_t dram_atom = 64;
    /// Each discontiguous run of atoms costs this many bytes more: AoSoA<32> one_field moves 128
    /// contiguous bytes per 1-2 KiB block and runs 1.18-1.21x the SoA time, not 1.00x.
    double run_overhead_bytes = 24;
    /// A warp instruction costs one L1 request per 128-byte line it touches (16 for a 4-byte leaf
    /// of a 64-byte struct under AoS, 1 under SoA)...
    std::size_t line = 128;
    /// ... and the GPU serves about 9.1e10 of them per second (one per 11 ps): fitted on the AoS
    /// kernels bound by them. most_fields alone gives 8.8e10 (26 scalar accesses x 16 lines / 32
    /// threads = 13 requests per element in 148 ps); drift asks for less, wide_drift for more,
    /// and 9.1e10 leaves both about 20% off. That is 0.39 requests per SM per cycle at 1.755 GHz,
    /// far below the one per cycle of a coalesced access.
    double line_requests_per_s = 9.1e10;
    std::size_t warp = 32;
    /// Per launch, whatever its size: ramp-up and tail. Fitted from one_field SoA reaching 78% of
    /// copy bandwidth in 113 us against 96% for drift in 415 us.
    double launch_s = 15e-6;
    /// Elements per launch the prediction is for (the particles benchmark's 32 Mi).
    std::size_t elements = std::size_t{1} << 25;
    /// The L1 serves at most 4 sectors (128 bytes) per cycle per SM: 132 SMs at 1.755 GHz. The
    /// third ceiling, which only gathers reach: a warp gathering 8-byte neighbour positions
    /// through a neighbor list touches 20 (SoA) to 26 (AoS) sectors per instruction, most of them
    /// hits (bench/results/advise-md-2026-11-24). Not fitted.
    double l1_sectors_per_s = 4.0 * 132 * 1.755e9;
    /// 0: one scalar access per leaf, what nvcc emits for a functor's element proxies. 16 (or 8):
    /// where a call reads (or writes) every leaf of one element and the layout stores elements
    /// whole (AoS), it moves the element in accesses of that many bytes, as layout::cuda::gather
    /// and scatter do (two LDG.128 per 32-byte Particle).
    std::size_t vector_bytes = 0;
    /// Bytes per element the kernel moves outside the view (index arrays, a neighbor list): the
    /// trace cannot see them; they cost DRAM time alike under every layout.
    double other_bytes = 0;
    /// L1 sectors per element loaded outside the view (a neighbor list's words): they count
    /// against l1_sectors_per_s alike under every layout.
    double other_sectors = 0;
};

/// One CPU core, for the line bytes and a rough time; no measurement has checked these.
struct cpu_model {
    std::size_t line = 64;
    double dram_bytes_per_s = 19.3e9; ///< std::copy on one core of the H100 host
    std::size_t simd_bytes = 16;      ///< SSE2: the host builds have no -march=native
    double mem_ops_per_s = 2 * 3.0e9; ///< two loads or stores per cycle at about 3 GHz
};

/// Where element i's leaf l lies under one layout (bytes from the start of the allocation).
struct layout_geometry {
    std::string name;
    std::size_t lanes = 0;        ///< aosoa<N>: N; 0 otherwise
    bool contiguous_leaf = false; ///< consecutive elements' leaf values adjacent (soa, aosoa)
    std::size_t capacity = 0;
    std::size_t (*offset)(std::size_t i, std::size_t leaf, std::size_t capacity) = nullptr;
    const detail::leaf_desc* leaves = nullptr;
    std::size_t leaf_count = 0;
};

template <class L>
inline std::string policy_name() {
    return L::name();
}

template <class T, class L>
layout_geometry geometry_of() {
    layout_geometry g;
    g.name = policy_name<L>();
    constexpr std::size_t run = mapping<T, L>::leaf_run;
    g.lanes = run == layout::detail::whole_column || run == 1 ? 0 : run;
    g.contiguous_leaf = run > 1;
    g.capacity = std::size_t{1} << 24;
    g.offset = &mapping<T, L>::offset;
    g.leaves = detail::leaf_descs<T>.data();
    g.leaf_count = leaf_count_v<T>;
    return g;
}

/// Predicted costs of one functor under one layout, per element unless said otherwise.
struct layout_cost {
    std::string layout;
    double useful_bytes = 0; ///< bytes of the leaves accessed (each access counted once)
    double sector_bytes = 0; ///< moved in 32-byte sectors, reads + writes
    double dram_bytes = 0;   ///< DRAM bytes as ncu counts them: reads in atoms, writes in sectors
    double dram_time_bytes = 0; ///< what the DRAM time is worth: writes in atoms, runs' overhead
    double l1_sectors_ld =
        0; ///< what ncu's l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum / n says
    double l1_sectors_st = 0;
    double line_requests = 0; ///< 128-byte lines touched by warp instructions, / 32
    double instructions = 0;  ///< memory instructions per element (per thread): one per leaf access
    double gpu_seconds = 0;   ///< for gpu_model::elements elements, launch included
    bool request_bound = false;
    bool l1_bound = false; ///< bound by the L1's sectors per cycle (gathers with reuse)
    /// "bytes", "requests" or "L1": which ceiling sets gpu_seconds.
    const char* bound() const { return l1_bound ? "L1" : request_bound ? "requests" : "bytes"; }
    double cpu_line_bytes = 0;
    double cpu_instructions = 0;
    double cpu_seconds = 0;
};

namespace detail {

/// Granules [first, last] that bytes [offset, offset + size) cover.
inline void add_granules(std::vector<std::uint64_t>& out, std::size_t offset, std::size_t size,
                         std::size_t granule) {
    for (std::size_t g = offset / granule; g <= (offset + size - 1) / granule; ++g)
        out.push_back(g);
}

/// Distinct granules, and the runs of consecutive ones they form.
struct granule_count {
    std::size_t granules = 0, runs = 0;
};
inline granule_count count_granules(std::vector<std::uint64_t>& g) {
    std::sort(g.begin(), g.end());
    g.erase(std::unique(g.begin(), g.end()), g.end());
    granule_count c{g.size(), 0};
    for (std::size_t k = 0; k < g.size(); ++k) c.runs += k == 0 || g[k] != g[k - 1] + 1;
    return c;
}

inline std::size_t random_element(std::size_t k, std::size_t salt, std::size_t capacity) {
    return static_cast<std::size_t>(mix(k * 0x2545f4914f6cdd1dull + salt) % capacity);
}

/// One memory access of a call, as the GPU makes it: a leaf, or (gpu_model::vector_bytes) a
/// chunk of a whole element.
struct access_unit {
    advisor::pattern pattern = pattern::self;
    std::ptrdiff_t offset = 0;
    std::size_t slot = 0;
    std::size_t leaf = 0;
    bool chunk = false;    ///< bytes [byte, byte + size) of the element, not leaf `leaf`
    std::size_t byte = 0;
    std::size_t size = 0;
    double reads = 0, writes = 0;
    std::size_t at(const layout_geometry& g, std::size_t e) const {
        return chunk ? g.offset(e, 0, g.capacity) - g.leaves[0].offset + byte
                     : g.offset(e, leaf, g.capacity);
    }
};

/// The accesses of trace t under layout g: one per leaf, or whole elements in chunks.
template <class T>
std::vector<access_unit> units_of(const access_trace<T>& t, const layout_geometry& g,
                                  const gpu_model& m) {
    std::vector<access_unit> out;
    const bool whole_elements = g.lanes == 0 && !g.contiguous_leaf; // AoS
    const std::size_t vb = m.vector_bytes;
    const bool vectors = vb > 0 && whole_elements && sizeof(T) % vb == 0 && g.leaves[0].offset == 0;
    std::vector<char> done(t.accesses.size(), 0);
    for (std::size_t k = 0; k < t.accesses.size(); ++k) {
        const leaf_access& a = t.accesses[k];
        // The element (pattern, offset, slot) of access k: are all its leaves read (written)?
        std::size_t reads = 0, writes = 0;
        double rmin = 1e300, wmin = 1e300;
        for (const auto& b : t.accesses)
            if (b.pattern == a.pattern && b.offset == a.offset && b.slot == a.slot) {
                if (b.reads > 0) ++reads, rmin = std::min(rmin, b.reads);
                if (b.writes > 0) ++writes, wmin = std::min(wmin, b.writes);
            }
        const bool vread = vectors && reads == g.leaf_count, vwrite = vectors && writes == g.leaf_count;
        access_unit u{a.pattern, a.offset, a.slot, a.leaf, false, 0, g.leaves[a.leaf].size,
                      vread ? 0 : a.reads, vwrite ? 0 : a.writes};
        if (u.reads > 0 || u.writes > 0) out.push_back(u);
        bool first = true; // the element's first access adds the chunks
        for (std::size_t q = 0; q < k; ++q)
            if (t.accesses[q].pattern == a.pattern && t.accesses[q].offset == a.offset &&
                t.accesses[q].slot == a.slot)
                first = false;
        if (first && (vread || vwrite))
            for (std::size_t b = 0; b < sizeof(T); b += vb)
                out.push_back({a.pattern, a.offset, a.slot, 0, true, b, vb, vread ? rmin : 0,
                               vwrite ? wmin : 0});
        done[k] = 1;
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
        std::map<std::uint64_t, std::uint64_t> mask; // granule -> bytes written (granule <= 64)
        for (const auto& [at, size] : written)
            for (std::size_t b = at; b < at + size; ++b) mask[b / granule] |= 1ull << (b % granule);
        std::sort(read.begin(), read.end());
        const std::uint64_t full = granule >= 64 ? ~0ull : (1ull << granule) - 1;
        std::vector<std::uint64_t> out;
        for (const auto& [gr, mk] : mask)
            if (mk != full && !std::binary_search(read.begin(), read.end(), gr)) out.push_back(gr);
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

} // namespace detail

/// The costs of trace t under the layout g, on the GPU m and the CPU c.
template <class T>
layout_cost cost_of(const access_trace<T>& t, const layout_geometry& g, const gpu_model& m,
                    const cpu_model& c) {
    layout_cost r;
    r.layout = g.name;
    const std::vector<detail::access_unit> units = detail::units_of(t, g, m);
    std::vector<std::uint64_t> seen; // lines the traced calls' indexed accesses touched
    const bool real = !t.indexed_j.empty();
    for (const auto& a : units) {
        r.useful_bytes += (a.reads + a.writes) * double(a.size);
        const detail::warp_touch w = detail::touch_of(t, a, g, m, seen);
        // With real indices, the lanes that take part already say how often a call makes it.
        const bool per_lane = real && a.pattern == pattern::indexed;
        const double rd = per_lane ? (a.reads > 0) : a.reads, wr = per_lane ? (a.writes > 0) : a.writes;
        r.l1_sectors_ld += rd * w.sectors;
        r.l1_sectors_st += wr * w.sectors;
        r.line_requests += (rd + wr) * w.lines;
        r.instructions += a.reads + a.writes;
        // CPU: a loop over consecutive elements vectorizes where a leaf's values are adjacent
        // (a whole SIMD register per instruction); strided and indexed accesses stay scalar.
        const bool vector = !a.chunk && g.contiguous_leaf && a.pattern != pattern::indexed &&
                            (g.lanes == 0 || g.lanes * a.size >= c.simd_bytes);
        r.cpu_instructions +=
            (a.reads + a.writes) * (vector ? double(a.size) / double(c.simd_bytes) : 1.0);
    }
    r.sector_bytes = detail::moved_bytes(t, units, g, m.sector, 0, false) +
                     detail::moved_bytes(t, units, g, m.sector, 0, true);
    // A write to part of a DRAM atom that the kernel does not read first makes DRAM read it.
    const double rmw_atoms = detail::moved_bytes(t, units, g, m.dram_atom, 0, true, true);
    r.dram_bytes = detail::moved_bytes(t, units, g, m.dram_atom, 0, false) +
                   detail::moved_bytes(t, units, g, m.sector, 0, true) + rmw_atoms + m.other_bytes;
    r.dram_time_bytes =
        detail::moved_bytes(t, units, g, m.dram_atom, m.run_overhead_bytes, false) +
        detail::moved_bytes(t, units, g, m.dram_atom, m.run_overhead_bytes, true) +
        detail::moved_bytes(t, units, g, m.dram_atom, m.run_overhead_bytes, true, true) +
        m.other_bytes;
    r.cpu_line_bytes = detail::moved_bytes(t, units, g, c.line, 0, false) +
                       detail::moved_bytes(t, units, g, c.line, 0, true);

    const double bytes_s = r.dram_time_bytes / m.dram_bytes_per_s;
    const double requests_s = r.line_requests / m.line_requests_per_s;
    const double l1_s =
        (r.l1_sectors_ld + r.l1_sectors_st + m.other_sectors) / m.l1_sectors_per_s;
    r.l1_bound = l1_s > bytes_s && l1_s > requests_s;
    r.request_bound = !r.l1_bound && requests_s > bytes_s;
    r.gpu_seconds = double(m.elements) * std::max({bytes_s, requests_s, l1_s}) + m.launch_s;
    r.cpu_seconds =
        std::max(r.cpu_line_bytes / c.dram_bytes_per_s, r.cpu_instructions / c.mem_ops_per_s);
    return r;
}

} // namespace layout::advisor
