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
/// The machines are in advise/machine.hpp, the layouts' geometry in advise/geometry.hpp, the
/// simulation of sectors, atoms and lines in advise/simulate.hpp.
#pragma once

#include "access.hpp"
#include "geometry.hpp"
#include "machine.hpp"
#include "simulate.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace layout::advisor {

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
    double instructions = 0;  ///< memory instructions per element (per thread), merged as nvcc
                              ///< merges an element's adjacent leaves (advise/simulate.hpp)
    double gpu_seconds = 0;   ///< for gpu_model::elements elements, launch included
    bool request_bound = false;
    bool l1_bound = false; ///< bound by the L1's sectors per cycle (gathers with reuse)
    /// "bytes", "requests" or "L1": which ceiling sets gpu_seconds.
    const char* bound() const { return l1_bound ? "L1" : request_bound ? "requests" : "bytes"; }
    double cpu_line_bytes = 0;
    double cpu_instructions = 0;
    double cpu_seconds = 0;
};

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
        r.useful_bytes += (a.reads + a.writes) * a.useful;
        const detail::warp_touch w = detail::touch_of(t, a, g, m, seen);
        // With real indices, the lanes that take part already say how often a call makes it.
        const bool per_lane = real && a.pattern == pattern::indexed;
        const double rd = per_lane ? (a.reads > 0) : a.reads,
                     wr = per_lane ? (a.writes > 0) : a.writes;
        r.l1_sectors_ld += rd * w.sectors;
        r.l1_sectors_st += wr * w.sectors;
        r.line_requests += (rd + wr) * w.lines;
        r.instructions += a.reads + a.writes;
        // CPU: a loop over consecutive elements vectorizes where a leaf's values are adjacent
        // (a whole SIMD register per instruction); strided and indexed accesses stay scalar,
        // one per leaf (the host compilers' merging of an element's leaves is not modelled).
        const std::size_t run = a.chunk ? 1 : g.runs[a.leaf];
        const double leaf_size = a.useful / double(a.leaves);
        const bool vector =
            run > 1 && a.pattern != pattern::indexed &&
            (run == layout::detail::whole_column || run * leaf_size >= c.simd_bytes);
        r.cpu_instructions +=
            (a.reads + a.writes) * (vector ? leaf_size / double(c.simd_bytes) : double(a.leaves));
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
    const double l1_s = (r.l1_sectors_ld + r.l1_sectors_st + m.other_sectors) / m.l1_sectors_per_s;
    r.l1_bound = l1_s > bytes_s && l1_s > requests_s;
    r.request_bound = !r.l1_bound && requests_s > bytes_s;
    r.gpu_seconds = double(m.elements) * std::max({bytes_s, requests_s, l1_s}) + m.launch_s;
    r.cpu_seconds =
        std::max(r.cpu_line_bytes / c.dram_bytes_per_s, r.cpu_instructions / c.mem_ops_per_s);
    return r;
}

} // namespace layout::advisor
