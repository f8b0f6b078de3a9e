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

/// Bytes per element moved in granules of `granule` bytes by the accesses with reads (or writes).
template <class T>
double moved_bytes(const access_trace<T>& t, const layout_geometry& g, std::size_t granule,
                   double run_overhead, bool writes) {
    constexpr std::size_t window = 4096, base = std::size_t{1} << 20;
    auto wants = [&](const leaf_access& a) { return (writes ? a.writes : a.reads) > 0; };
    std::vector<std::uint64_t> stream;
    for (const auto& a : t.accesses) {
        if (a.pattern == pattern::indexed || !wants(a)) continue;
        const auto& d = g.leaves[a.leaf];
        for (std::size_t e = base; e < base + window; ++e) {
            const auto target = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(e) + a.offset);
            add_granules(stream, g.offset(target, a.leaf, g.capacity), d.size, granule);
        }
    }
    const granule_count s = count_granules(stream);
    double bytes = (double(s.granules * granule) + double(s.runs) * run_overhead) / double(window);

    // Indexed elements: each a random element of its own, its leaves' granules moved for it.
    std::size_t slots = 0;
    for (const auto& a : t.accesses)
        if (a.pattern == pattern::indexed) slots = std::max(slots, a.slot + 1);
    for (std::size_t s = 0; s < slots; ++s) {
        double freq = 0;
        for (const auto& a : t.accesses)
            if (a.pattern == pattern::indexed && a.slot == s && wants(a))
                freq = std::max(freq, writes ? a.writes : a.reads);
        if (freq == 0) continue;
        constexpr std::size_t tries = 64;
        double sum = 0;
        for (std::size_t k = 0; k < tries; ++k) {
            const std::size_t e = random_element(k, s, g.capacity);
            std::vector<std::uint64_t> gs;
            for (const auto& a : t.accesses)
                if (a.pattern == pattern::indexed && a.slot == s && wants(a))
                    add_granules(gs, g.offset(e, a.leaf, g.capacity), g.leaves[a.leaf].size,
                                 granule);
            const granule_count c = count_granules(gs);
            sum += double(c.granules * granule) + double(c.runs) * run_overhead;
        }
        bytes += freq * sum / double(tries);
    }
    return bytes;
}

/// Distinct sectors and lines one warp instruction of access a touches, averaged over 8 warps.
struct warp_touch {
    double sectors = 0, lines = 0;
};
inline warp_touch touch_of(const leaf_access& a, const layout_geometry& g, const gpu_model& m) {
    constexpr std::size_t warps = 8, base = std::size_t{1} << 20;
    warp_touch w;
    for (std::size_t k = 0; k < warps; ++k) {
        std::vector<std::uint64_t> sectors, lines;
        for (std::size_t t = 0; t < m.warp; ++t) {
            const std::size_t e = base + k * m.warp + t;
            const std::size_t target =
                a.pattern == pattern::indexed
                    ? random_element(e, a.slot, g.capacity)
                    : static_cast<std::size_t>(static_cast<std::ptrdiff_t>(e) + a.offset);
            const std::size_t at = g.offset(target, a.leaf, g.capacity);
            add_granules(sectors, at, g.leaves[a.leaf].size, m.sector);
            add_granules(lines, at, g.leaves[a.leaf].size, m.line);
        }
        w.sectors += double(count_granules(sectors).granules);
        w.lines += double(count_granules(lines).granules);
    }
    w.sectors /= double(warps);
    w.lines /= double(warps);
    return w;
}

} // namespace detail

/// The costs of trace t under the layout g, on the GPU m and the CPU c.
template <class T>
layout_cost cost_of(const access_trace<T>& t, const layout_geometry& g, const gpu_model& m,
                    const cpu_model& c) {
    layout_cost r;
    r.layout = g.name;
    for (const auto& a : t.accesses) {
        const std::size_t size = g.leaves[a.leaf].size;
        r.useful_bytes += (a.reads + a.writes) * double(size);
        const detail::warp_touch w = detail::touch_of(a, g, m);
        const double per_thread = 1.0 / double(m.warp);
        r.l1_sectors_ld += a.reads * w.sectors * per_thread;
        r.l1_sectors_st += a.writes * w.sectors * per_thread;
        r.line_requests += (a.reads + a.writes) * w.lines * per_thread;
        r.instructions += a.reads + a.writes;
        // CPU: a loop over consecutive elements vectorizes where a leaf's values are adjacent
        // (a whole SIMD register per instruction); strided and indexed accesses stay scalar.
        const bool vector = g.contiguous_leaf && a.pattern != pattern::indexed &&
                            (g.lanes == 0 || g.lanes * size >= c.simd_bytes);
        r.cpu_instructions +=
            (a.reads + a.writes) * (vector ? double(size) / double(c.simd_bytes) : 1.0);
    }
    r.sector_bytes = detail::moved_bytes(t, g, m.sector, 0, false) +
                     detail::moved_bytes(t, g, m.sector, 0, true);
    r.dram_bytes = detail::moved_bytes(t, g, m.dram_atom, 0, false) +
                   detail::moved_bytes(t, g, m.sector, 0, true);
    r.dram_time_bytes = detail::moved_bytes(t, g, m.dram_atom, m.run_overhead_bytes, false) +
                        detail::moved_bytes(t, g, m.dram_atom, m.run_overhead_bytes, true);
    r.cpu_line_bytes =
        detail::moved_bytes(t, g, c.line, 0, false) + detail::moved_bytes(t, g, c.line, 0, true);

    const double bytes_s = r.dram_time_bytes / m.dram_bytes_per_s;
    const double requests_s = r.line_requests / m.line_requests_per_s;
    r.request_bound = requests_s > bytes_s;
    r.gpu_seconds = double(m.elements) * std::max(bytes_s, requests_s) + m.launch_s;
    r.cpu_seconds =
        std::max(r.cpu_line_bytes / c.dram_bytes_per_s, r.cpu_instructions / c.mem_ops_per_s);
    return r;
}

} // namespace layout::advisor
