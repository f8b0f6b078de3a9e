/// \file distributed_gpu.hpp
/// The time loop of md_mpi_gpu: distributed.hpp's steps with a GPU per rank, everything
/// per atom on the GPU and only counts through the host.
///
///   every step      halo.gather<&atom::x>           device_halo_plan: owners' positions to ghosts,
///                                                   while the interior atoms' forces run
///                   forces of the boundary atoms    after the halo: their lists hold ghosts
///   every rebuild   kernel: each atom's owner        device_migration_plan::migrate (the atoms
///                                                   to the rank whose sub-box holds them)
///                   kernels: exports (atom, rank)    device_halo_plan::update + gather: new ghosts
///                   bin_by_key, neighbour kernel     the lists, as on one rank
///   thermo steps    CUB sums, MPI_Allreduce          kinetic energy, E_pair and virial
///
/// Overlap: an owned atom out of reach of every neighbour rank's sub-box (interior: all but a few
/// percent) has no ghost in its list, so it needs no position from another rank. At each rebuild
/// the owned atoms are sorted by (boundary, cell): the interior ones first, the boundary ones
/// (those the halo exports: within reach of a neighbour) last, each part by cell. Between
/// rebuilds the interior range's forces run on a second, low-priority stream while the halo
/// exchange (pack, NCCL, unpack, on the simulation's high-priority stream) writes the ghosts;
/// then the boundary range's, ordered after the exchange: two plain ranges, no index list. Each
/// rebuild checks that no interior atom's list holds a ghost. The atoms' order, lists and
/// arithmetic are those of the sequential loop (--no-overlap), so is the thermo, bit for bit.
///
/// The kernels are those of the host version (kernels.hpp's functors, build_local_neighbors,
/// domain_grid), run through layout::cuda::for_each_index on a stream of the simulation's own;
/// the exports come out in the host version's order (atom by atom, neighbours in order), so
/// ghosts and lists are the same and so is the thermo, to rounding. The transport is the
/// plans' (NCCL with a GPU per rank, else through pinned host memory).
#pragma once

#if !defined(__CUDACC__)
#  error "distributed_gpu.hpp needs a CUDA compiler (nvcc)"
#endif

#include "distributed.hpp"
#include "gpu_forces.hpp"

#include <layout/cuda/algorithms.hpp>
#include <layout/cuda/workspace.hpp>
#include <layout/layout.hpp>
#include <layout/mpi/device_halo.hpp>
#include <layout/mpi/device_migration.hpp>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>
#include <mpi.h>

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace md {
namespace gpu {

inline void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess)
        throw std::runtime_error(std::string("md_mpi_gpu: ") + what + ": " + cudaGetErrorString(e));
}

/// dest[i]: the rank whose sub-box holds atom i.
template <class Real>
struct owner_of {
    domain_grid grid;
    int* dest;
    template <class View>
    LAYOUT_HOST_DEVICE void operator()(const View& a, std::size_t i) const {
        const vec3<Real> p = layout::get<0>(a[i]);
        const double x[3] = {double(p.x), double(p.y), double(p.z)};
        dest[i] = grid.owner(x);
    }
};

/// count[i]: how many of the neighbour ranks atom i is within reach of (a ghost on each).
template <class Real>
struct count_exports {
    domain_grid grid;
    const int* neighbours;
    int neighbour_count;
    std::uint32_t* count;
    template <class View>
    LAYOUT_HOST_DEVICE void operator()(const View& a, std::size_t i) const {
        const vec3<Real> p = layout::get<0>(a[i]);
        const double x[3] = {double(p.x), double(p.y), double(p.z)};
        std::uint32_t k = 0;
        for (int r = 0; r < neighbour_count; ++r) k += grid.near(x, neighbours[r]) ? 1 : 0;
        count[i] = k;
    }
};

/// The exports of atom i at offset[i]: (i, r) for each neighbour rank r it is near, in the
/// neighbours' order (the host version's loop order).
template <class Real>
struct write_exports {
    domain_grid grid;
    const int* neighbours;
    int neighbour_count;
    const std::uint32_t* offset;
    std::uint32_t* index;
    int* rank;
    template <class View>
    LAYOUT_HOST_DEVICE void operator()(const View& a, std::size_t i) const {
        const vec3<Real> p = layout::get<0>(a[i]);
        const double x[3] = {double(p.x), double(p.y), double(p.z)};
        std::uint32_t at = offset[i];
        for (int r = 0; r < neighbour_count; ++r)
            if (grid.near(x, neighbours[r])) {
                index[at] = static_cast<std::uint32_t>(i);
                rank[at] = neighbours[r];
                ++at;
            }
    }
};

/// cell[i] += cells for the atoms with exports (within reach of a neighbour rank): sorted by
/// these keys, the interior atoms come first and the boundary ones last, each part by cell.
struct boundary_last {
    const std::uint32_t* exports;
    index_t cells;
    index_t* cell;
    template <class View>
    LAYOUT_HOST_DEVICE void operator()(const View&, std::size_t i) const {
        if (exports[i] != 0) cell[i] += cells;
    }
};

/// ghost[i]: whether owned atom i's list holds a ghost (an atom at or past `owned`).
struct lists_ghost {
    neighbor_list list;
    std::size_t owned;
    std::uint8_t* ghost;
    template <class View>
    LAYOUT_HOST_DEVICE void operator()(const View&, std::size_t i) const {
        const index_t* neigh = list.neigh + i * list.stride_i;
        bool any = false;
        for (index_t k = 0; k < list.count[i]; ++k) any = any || neigh[k * list.stride_k] >= owned;
        ghost[i] = any ? 1 : 0;
    }
};

} // namespace gpu

template <class Real, class Layout, layout::mpi::device_transport Transport>
class distributed_gpu : public distributed_loop<Real, distributed_gpu<Real, Layout, Transport>> {
    using base = distributed_loop<Real, distributed_gpu<Real, Layout, Transport>>;
    friend base;
    using base::box_, base::capacity_, base::cells_, base::cells_stencil_, base::cut_sq_,
        base::dom_, base::grid_, base::neighbours_, base::opt_, base::reach_sq_, base::t_,
        base::timed;

public:
    using atom_t = atom<Real>;
    using atoms_t = layout::vector<atom_t, Layout, layout::cuda::device_memory>;
    template <class T>
    using array = layout::cuda::aos_vector<T>;

    /// Collective over comm. `migration` and `halo`: the two plans' transports. `overlap`: the
    /// halo exchange beside the interior forces (else one after the other).
    distributed_gpu(MPI_Comm comm, const system& s, const options& o, const domain& dom,
                    Transport migration, Transport halo, bool overlap = true)
        : base(comm, s, o, dom), overlap_(overlap),
          migration_(comm, std::move(migration), layout::stream_ref(stream_)),
          halo_(comm, std::move(halo), layout::stream_ref(stream_)),
          ws_(layout::stream_ref(stream_)),
          atoms_(layout::aos_vector<atom_t>(this->mine_.begin(), this->mine_.end()),
                 layout::stream_ref(stream_)),
          mass_on_gpu_(to_device(base::mass_)), dtf_on_gpu_(to_device(base::dtf_)),
          stencil_(to_device(cells_stencil_->entry)), neighbour_ranks_(to_device(neighbours_)) {
        owned_ = atoms_.size();
        this->how_ = overlap ? ", a GPU per rank, halo beside the interior forces (in Force)"
                             : ", a GPU per rank, halo then forces";
    }
    distributed_gpu(const distributed_gpu&) = delete;
    distributed_gpu& operator=(const distributed_gpu&) = delete;

private:
    /// A stream of the simulation's, with a priority: the simulation's own (the exchanges' and
    /// everything else's, high) is created first and destroyed last, after every member that
    /// frees memory in its order; the interior forces' is low, so that the exchange's kernels
    /// get SMs as soon as any frees.
    struct owned_stream {
        cudaStream_t s = nullptr;
        explicit owned_stream(bool high) {
            int least = 0, greatest = 0;
            gpu::check(cudaDeviceGetStreamPriorityRange(&least, &greatest),
                       "cudaDeviceGetStreamPriorityRange");
            gpu::check(
                cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, high ? greatest : least),
                "cudaStreamCreateWithPriority");
        }
        owned_stream(const owned_stream&) = delete;
        owned_stream& operator=(const owned_stream&) = delete;
        ~owned_stream() {
            cudaStreamSynchronize(s);
            cudaStreamDestroy(s);
        }
    };
    struct owned_event {
        cudaEvent_t e = nullptr;
        owned_event() {
            gpu::check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
        }
        owned_event(const owned_event&) = delete;
        owned_event& operator=(const owned_event&) = delete;
        ~owned_event() { cudaEventDestroy(e); }
    };

    layout::stream_ref on_stream() const noexcept { return layout::stream_ref(stream_); }
    template <class T>
    array<T> to_device(const std::vector<T>& h) const {
        return array<T>(layout::aos_vector<T>(h.begin(), h.end()), layout::stream_ref(stream_));
    }
    template <class T>
    static T* ptr(array<T>& a) {
        return a.data();
    }
    /// a holds at least n elements (contents not kept: nothing copied when it grows).
    template <class T>
    void fit(array<T>& a, std::size_t n) {
        if (a.size() >= n) return;
        a.clear();
        a.resize(n, layout::for_overwrite);
    }

    /// f(view of the owned atoms, i) for each owned atom, on the simulation's stream.
    template <class F>
    void for_owned(const F& f) {
        if (owned_ == 0) return;
        const typename atoms_t::view_type all = atoms_.view();
        layout::cuda::for_each_index(typename atoms_t::view_type(all.storage(), owned_), f,
                                     layout::stream_ref(stream_));
    }
    const Real* dtf() { return ptr(dtf_on_gpu_); }
    void gather_ghosts() { halo_.template gather<&atom_t::x>(atoms_); }

    /// The forces f of the owned atoms [first, last), on stream s (gpu_forces.hpp: `a` views
    /// every local atom, ghosts included), with --force-lanes threads an atom, or as many as
    /// give the GPU the threads it holds at once for that range (the boundary range is small).
    template <class F>
    void for_range(const F& f, std::size_t first, std::size_t last, cudaStream_t s) {
        gpu::full_forces(atoms_.view(), f, first, last, opt_.force_lanes, s);
    }

    /// The forces f of the interior atoms [0, interior_) on `interior` and of the boundary atoms
    /// [interior_, owned_) on the simulation's stream, after `between` there (the halo exchange,
    /// or nothing). The two streams fork before and join after, also when `between` throws.
    template <class F, class Between>
    void forces(const F& f, cudaStream_t interior, Between&& between) {
        if (interior != stream_) {
            gpu::check(cudaEventRecord(fork_.e, stream_), "cudaEventRecord");
            gpu::check(cudaStreamWaitEvent(interior, fork_.e), "cudaStreamWaitEvent");
        }
        struct join {
            cudaStream_t from, into;
            cudaEvent_t e;
            ~join() {
                if (from == into) return;
                cudaEventRecord(e, from);
                cudaStreamWaitEvent(into, e);
            }
        } joined{interior, stream_, join_.e};
        for_range(f, 0, interior_, interior);
        between();
        for_range(f, interior_, owned_, stream_);
    }
    template <class Between>
    void forces(bool energy, cudaStream_t interior, Between&& between) {
        fit(e_, owned_);
        fit(w_, owned_);
        if (energy)
            forces(lj_full<Real, true>{list(), box_, cut_sq_, ptr(e_), ptr(w_)}, interior, between);
        else
            forces(lj_full<Real, false>{list(), box_, cut_sq_, nullptr, nullptr}, interior,
                   between);
    }

    /// A step between rebuilds: the halo exchange beside the interior forces (overlap_), else
    /// one after the other, timed apart.
    void gather_ghosts_and_force(bool energy) {
        if (!overlap_) return base::gather_ghosts_and_force(energy);
        timed(t_.force, [&] { forces(energy, interior_stream_.s, [&] { gather_ghosts(); }); });
    }
    void wait() { gpu::check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

    /// The lists interleaved, as md_gpu's (kernels.hpp): neighbour k of a warp's atoms in one
    /// transaction. (Kept atom by atom, as on the host, the force kernel took 1.27x the time at
    /// one thread an atom: 2,048,000 atoms on an H200, bench/results/gpu-2026-11-27-i.)
    neighbor_list list() { return {ptr(neigh_), ptr(count_), ptr(plain_), capacity_, 1, owned_}; }

    /// Wrap, migrate, sort by cell, new ghosts, new lists.
    void reneighbor() {
        const domain_grid g = dom_.grid_of();
        timed(t_.comm, [&] {
            atoms_.resize(owned_); // the ghosts go; the owned atoms are first
            for_owned(wrap_positions<Real>{box_});
            fit(destinations_, owned_);
            for_owned(gpu::owner_of<Real>{g, ptr(destinations_)});
            migration_.migrate(atoms_, std::span<const int>(ptr(destinations_), owned_));
            owned_ = atoms_.size();
        });
        timed(t_.neighbor, [&] {
            // Owned atoms sorted by cell, interior ones first: neighbours near each other in
            // memory, and the atoms whose lists may hold ghosts in one range at the end.
            fit(cell_of_, owned_);
            for_owned(compute_cells<Real>{grid_, ptr(cell_of_)});
            fit(export_count_, owned_ + 1);
            for_owned(gpu::count_exports<Real>{g, ptr(neighbour_ranks_),
                                               static_cast<int>(neighbours_.size()),
                                               ptr(export_count_)});
            const auto cells = static_cast<index_t>(cells_);
            for_owned(gpu::boundary_last{ptr(export_count_), cells, ptr(cell_of_)});
            const auto parts =
                layout::cuda::bin_by_key<index_t>(std::span<index_t>(ptr(cell_of_), owned_),
                                                  2 * cells_, atoms_, layout::stream_ref(stream_));
            index_t interior = 0;
            gpu::check(cudaMemcpyAsync(&interior, parts.offsets.data() + cells_, sizeof interior,
                                       cudaMemcpyDeviceToHost, stream_),
                       "cudaMemcpyAsync");
            wait();
            interior_ = interior;
        });
        timed(t_.comm, [&] {
            const int nn = static_cast<int>(neighbours_.size());
            fit(export_count_, owned_ + 1);
            for_owned(gpu::count_exports<Real>{g, ptr(neighbour_ranks_), nn, ptr(export_count_)});
            const std::size_t exports = exclusive_sum(ptr(export_count_), owned_);
            fit(export_index_, exports);
            fit(export_rank_, exports);
            for_owned(gpu::write_exports<Real>{g, ptr(neighbour_ranks_), nn, ptr(export_count_),
                                               ptr(export_index_), ptr(export_rank_)});
            halo_.update(owned_, std::span<const std::uint32_t>(ptr(export_index_), exports),
                         std::span<const int>(ptr(export_rank_), exports));
            halo_.template gather<&atom_t::x>(atoms_);
        });
        timed(t_.neighbor, [&] {
            const std::size_t local = atoms_.size();
            fit(cell_of_, local);
            fit(sorted_keys_, local);
            if (local != 0)
                layout::cuda::for_each_index(atoms_.view(),
                                             compute_cells<Real>{grid_, ptr(cell_of_)},
                                             layout::stream_ref(stream_));
            gpu::check(cudaMemcpyAsync(ptr(sorted_keys_), ptr(cell_of_), local * sizeof(index_t),
                                       cudaMemcpyDeviceToDevice, stream_),
                       "cudaMemcpyAsync");
            auto bins = layout::cuda::bin_by_key<index_t>(
                std::span<index_t>(ptr(sorted_keys_), local), cells_, layout::stream_ref(stream_));
            fit(count_, owned_);
            fit(plain_, owned_);
            for (;;) {
                fit(neigh_, owned_ * capacity_);
                for_owned(build_local_neighbors<Real>{grid_, box_, ptr(stencil_),
                                                      cells_stencil_->count, cells_stencil_->wide,
                                                      ptr(cell_of_), bins.offsets.data(),
                                                      bins.permutation.data(), list(), reach_sq_});
                const std::size_t most = owned_ ? max(ptr(count_), owned_) : 0;
                if (most <= capacity_) break;
                capacity_ = most + most / 4 + 8;
            }
            // The overlap's premise: no interior atom's list holds a ghost (else its force would
            // read a position the halo exchange is writing).
            fit(ghost_, owned_);
            for_owned(gpu::lists_ghost{list(), owned_, ptr(ghost_)});
            if (interior_ != 0 && max(ptr(ghost_), interior_) != 0)
                throw std::logic_error("md_mpi_gpu: an interior atom (out of reach of every "
                                       "neighbour rank) has a ghost in its list");
        });
    }

    void force(bool energy) {
        timed(t_.force, [&] { forces(energy, stream_, [] {}); });
    }

    /// The thermo of the whole system: this rank's sums (on the GPU), added over the ranks.
    thermo measure(long step) {
        fit(ke_, owned_);
        for_owned(kinetic_energy<Real>{ptr(mass_on_gpu_), ptr(ke_)});
        double sums[4] = {sum(ptr(ke_), owned_), sum(ptr(e_), owned_), sum(ptr(w_), owned_),
                          double(owned_)};
        return this->reduce_thermo(step, sums);
    }

    // ---- reductions on the stream, CUB's storage in the workspace; each reads its result back --

    template <class T, class Run>
    T reduce(Run run) {
        using slot = layout::cuda::workspace::slot;
        std::size_t bytes = 0;
        gpu::check(run(nullptr, bytes, static_cast<T*>(nullptr)), "cub (storage)");
        T* out = ws_.template get<T>(slot::counter, 1);
        gpu::check(run(ws_.bytes(slot::temp, bytes), bytes, out), "cub");
        T host{};
        gpu::check(cudaMemcpyAsync(&host, out, sizeof(T), cudaMemcpyDeviceToHost, stream_),
                   "cudaMemcpyAsync");
        wait();
        return host;
    }
    double sum(const double* in, std::size_t n) {
        return reduce<double>([&](void* temp, std::size_t& bytes, double* out) {
            return cub::DeviceReduce::Sum(temp, bytes, in, out, n, stream_);
        });
    }
    template <class T>
    T max(const T* in, std::size_t n) {
        return reduce<T>([&](void* temp, std::size_t& bytes, T* out) {
            return cub::DeviceReduce::Max(temp, bytes, in, out, n, stream_);
        });
    }
    /// counts[0, n) become their exclusive prefix sums; returns the total (counts[n]).
    std::size_t exclusive_sum(std::uint32_t* counts, std::size_t n) {
        return reduce<std::uint32_t>([&](void* temp, std::size_t& bytes, std::uint32_t* out) {
            if (temp == nullptr)
                return cub::DeviceScan::ExclusiveSum(temp, bytes, counts, counts, n + 1, stream_);
            // counts[n] is 0 before the scan, the total after it.
            cudaError_t e = cudaMemsetAsync(counts + n, 0, sizeof(std::uint32_t), stream_);
            if (e == cudaSuccess)
                e = cub::DeviceScan::ExclusiveSum(temp, bytes, counts, counts, n + 1, stream_);
            if (e == cudaSuccess)
                e = cudaMemcpyAsync(out, counts + n, sizeof(std::uint32_t),
                                    cudaMemcpyDeviceToDevice, stream_);
            return e;
        });
    }

    bool overlap_;
    owned_stream owned_stream_{true};
    cudaStream_t stream_ = owned_stream_.s;
    owned_stream interior_stream_{false};
    owned_event fork_, join_;
    layout::mpi::device_migration_plan<Transport> migration_;
    layout::mpi::device_halo_plan<Transport> halo_;
    layout::cuda::workspace ws_;
    atoms_t atoms_;
    std::size_t owned_ = 0;
    // Every buffer on the simulation's stream: one on the default stream (a default-constructed
    // vector's) would grow there, unordered with the kernels that use it on stream_ (a
    // non-blocking stream): the race that corrupted atoms at rebuilds of millions of atoms.
    array<Real> mass_on_gpu_, dtf_on_gpu_;
    array<int> stencil_, neighbour_ranks_;
    array<int> destinations_{on_stream()}, export_rank_{on_stream()};
    array<std::uint32_t> export_count_{on_stream()}, export_index_{on_stream()};
    array<index_t> cell_of_{on_stream()}, sorted_keys_{on_stream()}, neigh_{on_stream()},
        count_{on_stream()}, plain_{on_stream()};
    array<std::uint8_t> ghost_{on_stream()}; // per owned atom: its list holds a ghost
    std::size_t interior_ = 0; // owned atoms [0, interior_) are out of reach of every neighbour
    array<double> e_{on_stream()}, w_{on_stream()}, ke_{on_stream()};
};

} // namespace md
