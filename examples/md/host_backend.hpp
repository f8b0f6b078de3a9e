/// \file host_backend.hpp
/// The host side of simulation.hpp: layout::vector in host memory, layout::for_each_index
/// (or an OpenMP loop over the same functor with --threads N), layout::bin_by_key, and a half
/// neighbor list. Half on the CPU because a core runs one atom at a time: Newton's third law
/// halves the pair arithmetic and the neighbor storage, and the scattered f[j] -= ... writes
/// cost little when nothing else writes the same atom (one thread, or one force buffer per
/// thread with --threads N).
///
/// Checkpoint and restart (--checkpoint, --restart) are checkpoint.hpp's, shared with md_gpu;
/// run_with runs a simulation through it.
#pragma once

#include "checkpoint.hpp"
#include "simulation.hpp"

#include <layout/algorithms.hpp>
#include <layout/layout.hpp>

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <vector>

#if defined(_OPENMP)
#  include <omp.h>
#endif

namespace md {

/// Half = false runs the GPU's full list, interleaved as on the GPU, through the same kernels
/// (--neighbor full): a check of the GPU's force and list kernels on a machine without one.
template <bool Half = true>
struct host_backend {
    template <class T, class Layout>
    using atoms = layout::vector<T, Layout>;
    template <class T>
    using array = std::vector<T>;
    static constexpr bool half_list = Half;
    static constexpr bool interleaved_list = !Half;
    /// Half list: cells half the reach wide, as LAMMPS's default bins: a stencil of up to 63
    /// of them holds ~40% fewer candidates than 14 cells a reach wide (in.lj: ~145 per atom,
    /// not ~250). Full list: the GPU's cells, one reach wide, so that --neighbor full runs the
    /// GPU's configuration exactly.
    static constexpr int cells_per_reach = Half ? 2 : 1;

    explicit host_backend(int thread_count = 1) : threads(thread_count) {}

    int threads = 1;
    std::vector<double> buffer_double; // the force buffers of half_forces with several threads
    std::vector<float> buffer_float;

    template <class Real>
    std::vector<Real>& buffer() {
        if constexpr (std::is_same_v<Real, float>)
            return buffer_float;
        else
            return buffer_double;
    }

    template <class T>
    static T* ptr(array<T>& a) {
        return a.data();
    }
    template <class T>
    static void zeros(array<T>& a, std::size_t n) {
        a.assign(n, T{});
    }
    template <class T>
    static array<T> to_device(const std::vector<T>& h) {
        return h;
    }
    template <class Atoms, class Host>
    static Atoms atoms_from(const Host& h) {
        return Atoms(h);
    }

    /// f(v, i) for every i: layout::for_each_index on one thread, or on `threads` OpenMP
    /// threads (exec::parallel uses omp_get_max_threads(), so that is set first) once there
    /// are at least 1024 atoms a thread: in.lj's 32,000 on 16 threads, below the policy's
    /// default minimum (32,768), but not 864 atoms, whose per-atom loops take microseconds and
    /// would wait on starting threads (150x slower on a busy 2-core machine).
    template <class View, class F>
    void for_each(const View& v, const F& f) const {
#if defined(_OPENMP)
        if (threads > 1) {
            omp_set_num_threads(threads);
            constexpr std::size_t atoms_per_thread = 1024;
            layout::for_each_index(
                layout::exec::parallel_policy{atoms_per_thread * std::size_t(threads)}, v, f);
            return;
        }
#endif
        layout::for_each_index(layout::exec::serial, v, f); // --threads 1 means one thread
    }

    /// The half-list forces (f: an lj_half<Real, Energy, false>). One thread: a plain loop
    /// (iteration i also writes atom j, so the iterations are not independent and
    /// for_each_index, which tells the compiler they are, is not for this), forces straight
    /// into the atoms. Several threads: each adds into its own force buffer, then the buffers
    /// are summed into the atoms (as LAMMPS's OPENMP package does).
    template <class View, class Real, bool Energy>
    void half_forces(const View& v, const lj_half<Real, Energy, false>& f) {
        const std::size_t n = v.size();
#if defined(_OPENMP)
        if (threads > 1) {
            std::vector<Real>& buffers = buffer<Real>();
            buffers.resize(std::size_t(threads) * 3 * n);
            lj_half<Real, Energy, true> g{f.list, f.box, f.cut_sq, f.e, f.w, nullptr};
#  pragma omp parallel num_threads(threads) firstprivate(g)
            {
                // Each thread clears its own buffer: in parallel, and in its core's cache.
                g.fbuf = buffers.data() + std::size_t(omp_get_thread_num()) * 3 * n;
                std::fill(g.fbuf, g.fbuf + 3 * n, Real(0));
                const auto count = static_cast<std::ptrdiff_t>(n);
#  pragma omp for schedule(static)
                for (std::ptrdiff_t i = 0; i < count; ++i) g(v, static_cast<std::size_t>(i));
            }
            for_each(v, sum_force_buffers<Real>{buffers.data(), n, threads});
            return;
        }
#endif
        for_each(v, clear_forces<Real>{});
        for (std::size_t i = 0; i < n; ++i) f(v, i);
    }

    /// Sorts the atoms by cell (a stable counting sort that moves every field); returns where
    /// each cell starts. The keys come back sorted: key[i] is then the cell of atom i. In place:
    /// the spare container is not used.
    template <class Atoms>
    static array<index_t> bin(array<index_t>& keys, std::size_t cells, Atoms& a, Atoms&) {
        return layout::bin_by_key<index_t>(keys, cells, a).offsets;
    }

    static double sum(const array<double>& a, std::size_t n) {
        double s = 0;
        for (std::size_t i = 0; i < n; ++i) s += a[i];
        return s;
    }
    static std::size_t max(const array<index_t>& a, std::size_t n) {
        return n ? *std::max_element(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n)) : 0;
    }
    static void sync() {}
};

/// Runs the simulation for the options' layout and precision on backend b (with checkpoints
/// and a restart where c asks for them: HDF5 builds only; checkpoint.hpp).
template <class Backend>
int run_with(const system& s, const options& o, Backend b, const char* device,
             const checkpoint_options& c = {}) {
    auto go = [&]<class Real, class Layout>() {
        simulation<Real, Layout, Backend> sim(s, o, b);
        run_checkpointed(sim, c, o, s.box, device);
        return 0;
    };
    return with_types(o, go);
}

/// Runs the simulation on the host with the options' neighbor list.
inline int run_host(const system& s, const options& o, const checkpoint_options& c = {}) {
    if (o.neighbor == "full") return run_with(s, o, host_backend<false>{o.threads}, "cpu", c);
    return run_with(s, o, host_backend<true>{o.threads}, "cpu", c);
}

/// The start the options ask for, checked.
inline system load_start(const options& o) {
    system s = o.lattice ? make_lattice(o.density, o.cells, o.temp, o.seed) : read_data(o.data);
    check_system(s, o);
    return s;
}

} // namespace md
