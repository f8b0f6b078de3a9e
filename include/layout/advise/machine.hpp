/// \file advise/machine.hpp
/// The machines the advisor predicts for: a GPU (an H100 by default: bandwidth, sector and atom
/// sizes, request and L1 ceilings, each constant with where it is from) and one CPU core. The
/// cost model (advise/cost.hpp) turns what a trace moves into time with these.
///
///     layout::advisor::gpu_model m;          // H100 SXM
///     m.elements = 2048000;                  // the launch the prediction is for
///     m.vector_bytes = 16;                   // AoS whole elements moved as LDG.128
#pragma once

#include <cstddef>

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

} // namespace layout::advisor
