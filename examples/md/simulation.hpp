/// \file simulation.hpp
/// The time loop, written once for both backends: host_backend (md.cpp: layout::vector,
/// layout::for_each_index, layout::bin_by_key, a half neighbor list) and device_backend (md.cu:
/// layout::cuda containers, layout::cuda::for_each_index, layout::cuda::bin_by_key, a full list).
///
/// A backend provides: atoms<T, Layout> (a container), array<T> (a buffer of scalars), ptr(a),
/// zeros(a, n), to_device(vector), atoms_from<Atoms>(host container), for_each(view, f),
/// half_forces(view, lj_half) (host only: iterations that write other atoms), bin(keys, cells,
/// atoms, spare) -> offsets (spare: a second container the backend may reorder into and swap
/// with), sum(a, n), max(a, n), sync(), and the constants half_list, interleaved_list and
/// cells_per_reach.
///
/// A backend with `graphs` (the GPU's) also has replay(key, steps, record): with --graph, the
/// steps that need no host wait (no rebuild, whose capacity check reads a count back, and no
/// thermo, which reads sums back) run as one CUDA graph per run of such steps between two that
/// do, recorded once by record() and replayed while the kernels' arguments (the key) are the
/// same. The kernels and their order are the direct run's, so the thermo is too, bit for bit.
///
/// Checkpoint and restart (checkpoint.hpp, with HDF5; md and md_gpu) go through two hooks that
/// any backend has: after_step (called at the end of every step: writes the atoms) and start_at
/// (run() continues from a step whose atoms the caller has put into atoms()).
#pragma once

#include "kernels.hpp"
#include "md.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace md {

/// Seconds per phase of the run, as LAMMPS's "MPI task timing breakdown" splits it.
struct timings {
    double force = 0;     // pair forces (and energies on thermo steps)
    double neighbor = 0;  // Verlet list build
    double sort = 0;      // wrap, cell keys, bin_by_key (atoms reordered by cell)
    double integrate = 0; // the two halves of velocity Verlet
    double other = 0;     // thermo sums and output
    double graph = 0;     // --graph: the steps replayed as CUDA graphs (forces and integration)
    double total = 0;
    long builds = 0;
};

/// Whether Backend runs full-list forces with several threads an atom (the GPU's).
template <class Backend, class View, class F>
concept lane_forces =
    requires(const Backend& b, const View& v, const F& f) { b.full_forces(v, f, 0); };

template <class Real, class Layout, class Backend>
class simulation {
public:
    using atom_t = atom<Real>;
    using atoms_t = typename Backend::template atoms<atom_t, Layout>;
    template <class T>
    using array = typename Backend::template array<T>;

    simulation(const system& s, const options& o, Backend backend = Backend())
        : backend_(std::move(backend)), opt_(o), n_(s.atoms.size()), volume_(s.box.volume()) {
        std::vector<atom_t> start(n_);
        for (std::size_t i = 0; i < n_; ++i) {
            const auto& a = s.atoms[i];
            start[i] = atom_t{{Real(a.x.x), Real(a.x.y), Real(a.x.z)},
                              {Real(a.v.x), Real(a.v.y), Real(a.v.z)},
                              {0, 0, 0},
                              a.type,
                              a.id};
        }
        atoms_ = backend_.template atoms_from<atoms_t>(
            layout::aos_vector<atom_t>(start.begin(), start.end()));

        std::vector<Real> mass, dtf;
        for (double m : s.mass) {
            mass.push_back(Real(m));
            dtf.push_back(Real(0.5 * o.dt / m));
        }
        mass_ = backend_.to_device(mass);
        dtf_ = backend_.to_device(dtf);

        double cell_size[3];
        for (int d = 0; d < 3; ++d) {
            box_.lo[d] = Real(s.box.lo[d]);
            box_.hi[d] = Real(s.box.hi[d]);
            box_.prd[d] = Real(s.box.prd(d));
            box_.half_prd[d] = Real(0.5 * s.box.prd(d));
            const double reach = o.cutoff + o.skin;
            grid_.n[d] = std::max(
                1, static_cast<int>(std::floor(s.box.prd(d) * Backend::cells_per_reach / reach)));
            cell_size[d] = s.box.prd(d) / grid_.n[d];
            grid_.lo[d] = Real(s.box.lo[d]);
            grid_.scale[d] = Real(grid_.n[d] / s.box.prd(d));
        }
        cells_ = std::size_t(grid_.n[0]) * grid_.n[1] * grid_.n[2];
        stencil_ = make_stencil(grid_.n, cell_size, o.cutoff + o.skin, Backend::cells_per_reach,
                                Backend::half_list);
        stencil_entries_ = backend_.to_device(stencil_entries(stencil_));
        cut_sq_ = Real(o.cutoff * o.cutoff);
        reach_sq_ = Real((o.cutoff + o.skin) * (o.cutoff + o.skin));

        // Neighbors within the reach at this density, with room for fluctuations.
        const double expected = double(n_) / volume_ * 4.18879 * std::pow(o.cutoff + o.skin, 3) *
                                (Backend::half_list ? 0.5 : 1.0);
        capacity_ = static_cast<std::size_t>(expected * 1.3) + 16;
        backend_.zeros(keys_, n_);
        backend_.zeros(count_, n_);
        backend_.zeros(plain_, n_);
        backend_.zeros(e_, n_);
        backend_.zeros(w_, n_);
        backend_.zeros(ke_, n_);
        backend_.zeros(neigh_, n_ * (capacity_ + 1));
    }

    /// Runs opt.steps steps (after start_at(s): steps s + 1 to s + opt.steps), printing thermo
    /// every opt.thermo steps (of the step number) and at the last one.
    std::vector<thermo> run() {
        if (atoms_.size() != n_)
            throw std::logic_error("simulation::run: " + std::to_string(atoms_.size()) +
                                   " atoms, but the simulation was made for " + std::to_string(n_));
        std::vector<thermo> out;
        // Set-up (first lists, forces and thermo) is outside the loop time, as LAMMPS's "Loop
        // time" leaves out its setup. A restart does the same set-up at its step: where that
        // step rebuilt the lists in the run that wrote it (a multiple of opt.every), the lists,
        // the order of the atoms and so the forces are those of that run, bit for bit.
        reneighbor();
        force(true);
        if (print) print_thermo_header();
        out.push_back(measure(first_step_));
        if (print) print_thermo(out.back(), opt_.digits);
        std::fflush(stdout);
        t_ = timings{};
        const long last = first_step_ + opt_.steps;
        const auto start = clock::now();
        for (long step = first_step_ + 1; step <= last;) {
            if constexpr (graphs) {
                // after_step runs host code between steps (a checkpoint): no graph then.
                const long plain = opt_.graph && !after_step ? plain_steps(step, last) : 0;
                if (plain > 0) {
                    timed(t_.graph, [&] {
                        backend_.replay(graph_key(plain), plain, [&] {
                            for (long k = 0; k < plain; ++k) plain_step();
                        });
                    });
                    step += plain;
                    continue;
                }
            }
            timed(t_.integrate, [&] {
                backend_.for_each(atoms_.view(),
                                  initial_integrate<Real>{backend_.ptr(dtf_), Real(opt_.dt)});
            });
            if (step % opt_.every == 0) reneighbor();
            const bool thermo_step = is_thermo_step(step, last);
            force(thermo_step);
            timed(t_.integrate, [&] {
                backend_.for_each(atoms_.view(), final_integrate<Real>{backend_.ptr(dtf_)});
            });
            if (thermo_step) {
                out.push_back(measure(step));
                if (print) print_thermo(out.back(), opt_.digits);
                std::fflush(stdout);
            }
            if (after_step) timed(t_.other, [&] { after_step(step); });
            ++step;
        }
        backend_.sync();
        t_.total = seconds(clock::now() - start);
        return out;
    }

    void report(const std::vector<thermo>& th, const char* device) const {
        const double steps = double(opt_.steps);
        std::printf("Loop time of %g on %d procs for %ld steps with %zu atoms\n\n", t_.total,
                    opt_.threads, opt_.steps, n_);
        if (opt_.steps == 0) return;
        std::printf("Performance: %.3f timesteps/s, %.4g atom-steps/s (%s, layout %s, %s, %s "
                    "neighbor list, %d thread(s))\n",
                    steps / t_.total, steps * double(n_) / t_.total, device, opt_.layout.c_str(),
                    opt_.precision.c_str(), Backend::half_list ? "half" : "full", opt_.threads);
        if (opt_.timing) {
            std::printf("Section   |   time (s) | %%total\n");
            const std::pair<const char*, double> rows[] = {
                {"Force", t_.force},
                {"Neighbor", t_.neighbor},
                {"Sort", t_.sort},
                {"Integrate", t_.integrate},
                {"Graph", t_.graph},
                {"Other", t_.total - t_.force - t_.neighbor - t_.sort - t_.integrate - t_.graph}};
            for (const auto& [name, time] : rows)
                if (std::string_view(name) != "Graph" || opt_.graph)
                    std::printf("%-9s | %10.6f | %6.2f\n", name, time, 100.0 * time / t_.total);
        }
        if constexpr (graphs)
            if (opt_.graph) backend_.report_graphs(opt_.steps);
        std::printf("Neighbor list builds = %ld, neighbors stored per atom <= %zu\n", t_.builds,
                    capacity_);
        if (th.size() >= 2) {
            const double e0 = th.front().tot_eng, e1 = th.back().tot_eng;
            std::printf("Energy drift: TotEng %.10g -> %.10g over %ld steps: %.3e relative\n", e0,
                        e1, opt_.steps, std::abs(e1 - e0) / std::abs(e0));
        }
    }

    /// Wraps, sorts and rebuilds the lists now (what the time loop does every `every` steps).
    void rebuild_lists() { reneighbor(); }

    /// Called at the end of every step of run(), after its thermo, with the step's number (a
    /// checkpoint writer: the atoms are those of the end of the step); none by default. On the
    /// GPU it runs after the step's kernels were queued: it syncs or copies on the stream.
    std::function<void(long step)> after_step;

    /// Whether run() prints the thermo (--graph-compare's repeated runs do not).
    bool print = true;

    /// Makes run() continue from step `step` (a restart): the caller has put the atoms of that
    /// step into atoms() (as many as the start had); run() wraps, sorts and rebuilds the lists,
    /// computes the forces and prints that step's thermo, then runs steps step + 1 onwards.
    void start_at(long step) {
        if (step < 0) throw std::invalid_argument("simulation::start_at: a negative step");
        first_step_ = step;
    }
    long first_step() const { return first_step_; }
    std::size_t size() const { return n_; }

    const timings& times() const { return t_; }
    atoms_t& atoms() { return atoms_; }
    neighbor_list list() {
        return {backend_.ptr(neigh_), backend_.ptr(count_),
                backend_.ptr(plain_), capacity_,
                stride_i(),           stride_k()};
    }
    const kernel_box<Real>& box() const { return box_; }
    Real cut_sq() const { return cut_sq_; }
    Backend& backend() { return backend_; }

private:
    using clock = std::chrono::steady_clock;
    static constexpr bool graphs = requires { Backend::graphs; };
    /// The most steps one graph holds: a run of steps between rebuilds longer than this (a
    /// large --every) replays the same graph several times rather than growing it.
    static constexpr long max_graph_steps = 64;

    bool is_thermo_step(long step, long last) const {
        return step % opt_.thermo == 0 || step == last;
    }

    /// How many steps from `step` on need no host wait: no rebuild, no thermo (at most
    /// max_graph_steps).
    long plain_steps(long step, long last) const {
        long k = 0;
        while (k < max_graph_steps && step + k <= last && (step + k) % opt_.every != 0 &&
               !is_thermo_step(step + k, last))
            ++k;
        return k;
    }

    /// One step without a rebuild or thermo, and without a wait: what a graph records.
    void plain_step() {
        backend_.for_each(atoms_.view(),
                          initial_integrate<Real>{backend_.ptr(dtf_), Real(opt_.dt)});
        force_kernels(false);
        backend_.for_each(atoms_.view(), final_integrate<Real>{backend_.ptr(dtf_)});
    }

    /// Everything plain_step's kernels take that can change between replays: the atoms'
    /// blocks (a rebuild reorders them into the spare container and swaps), the lists' blocks
    /// and capacity (a rebuild may grow them), and the step count. The rest (box, cutoff, dt,
    /// the masses' block) is fixed for the run.
    std::vector<std::uintptr_t> graph_key(long steps) {
        std::vector<std::uintptr_t> key{static_cast<std::uintptr_t>(steps)};
        atoms_.view().storage().split([&](auto*... p) {
            (key.push_back(reinterpret_cast<std::uintptr_t>(p)), ...);
            return 0;
        });
        const neighbor_list l = list();
        for (const void* p :
             {static_cast<const void*>(l.neigh), static_cast<const void*>(l.count),
              static_cast<const void*>(l.plain), static_cast<const void*>(backend_.ptr(dtf_))})
            key.push_back(reinterpret_cast<std::uintptr_t>(p));
        key.push_back(capacity_);
        return key;
    }

    static double seconds(clock::duration d) { return std::chrono::duration<double>(d).count(); }

    /// Runs f and adds its time to `into`. On the GPU that takes a synchronization after each
    /// phase (a few microseconds each); with --no-timing there is none, and only the loop time
    /// is measured.
    template <class F>
    void timed(double& into, F&& f) {
        if (!opt_.timing) {
            f();
            return;
        }
        const auto t0 = clock::now();
        f();
        backend_.sync();
        into += seconds(clock::now() - t0);
    }

    std::size_t stride_i() const { return Backend::interleaved_list ? 1 : capacity_ + 1; }
    std::size_t stride_k() const { return Backend::interleaved_list ? n_ : 1; }

    /// Wrap into the box, sort the atoms by cell, rebuild the Verlet lists.
    void reneighbor() {
        timed(t_.sort, [&] {
            backend_.for_each(atoms_.view(), wrap_positions<Real>{box_});
            backend_.for_each(atoms_.view(), compute_cells<Real>{grid_, backend_.ptr(keys_)});
            offsets_ = backend_.bin(keys_, cells_, atoms_, spare_);
        });
        timed(t_.neighbor, [&] {
            for (;;) {
                backend_.for_each(atoms_.view(),
                                  build_neighbors<Real>{grid_, box_,
                                                        stencil_ref{backend_.ptr(stencil_entries_),
                                                                    stencil_.rows, stencil_.wide},
                                                        backend_.ptr(keys_), backend_.ptr(offsets_),
                                                        list(), reach_sq_});
                const std::size_t most = backend_.max(count_, n_);
                if (most <= capacity_) break;
                capacity_ = most + most / 4 + 8; // too many neighbors: more room, build again
                backend_.zeros(neigh_, n_ * (capacity_ + 1));
            }
        });
        ++t_.builds;
    }

    void force(bool energy) {
        timed(t_.force, [&] { force_kernels(energy); });
    }

    void force_kernels(bool energy) {
        if constexpr (Backend::half_list) {
            if (energy)
                backend_.half_forces(
                    atoms_.view(),
                    lj_half<Real, true>{list(), box_, cut_sq_, backend_.ptr(e_), backend_.ptr(w_)});
            else
                backend_.half_forces(atoms_.view(),
                                     lj_half<Real, false>{list(), box_, cut_sq_, nullptr, nullptr});
        } else {
            if (energy)
                full_forces(
                    lj_full<Real, true>{list(), box_, cut_sq_, backend_.ptr(e_), backend_.ptr(w_)});
            else
                full_forces(lj_full<Real, false>{list(), box_, cut_sq_, nullptr, nullptr});
        }
    }

    /// The GPU's force kernel may give an atom several threads (its full_forces).
    template <class F>
    void full_forces(const F& f) {
        if constexpr (lane_forces<Backend, decltype(atoms_.view()), F>)
            backend_.full_forces(atoms_.view(), f, opt_.force_lanes);
        else
            backend_.for_each(atoms_.view(), f);
    }

    thermo measure(long step) {
        thermo t{};
        timed(t_.other, [&] {
            backend_.for_each(atoms_.view(),
                              kinetic_energy<Real>{backend_.ptr(mass_), backend_.ptr(ke_)});
            t = make_thermo(step, backend_.sum(ke_, n_), backend_.sum(e_, n_), backend_.sum(w_, n_),
                            n_, volume_);
        });
        return t;
    }

    Backend backend_;
    options opt_;
    std::size_t n_;
    double volume_;
    atoms_t atoms_;
    atoms_t spare_; // the backend's second block for reordering (empty where it sorts in place)
    array<Real> mass_, dtf_;
    array<index_t> keys_, offsets_, count_, plain_, neigh_;
    array<double> e_, w_, ke_;
    kernel_box<Real> box_{};
    cell_grid<Real> grid_{};
    std::size_t cells_ = 0;
    stencil stencil_;
    array<int> stencil_entries_;
    Real cut_sq_ = 0, reach_sq_ = 0;
    std::size_t capacity_ = 0;
    long first_step_ = 0;
    timings t_;
};

} // namespace md
