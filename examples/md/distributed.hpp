/// \file distributed.hpp
/// The time loop of md_mpi: the same steps as simulation.hpp on a domain (domain.hpp) of the
/// box per rank, with layout::mpi moving the atoms.
///
///   every step      halo.gather<&atom::x>          owners' positions to their ghosts
///   every rebuild   migration.migrate              atoms to the rank whose sub-box holds them
///                   halo.update + halo.gather      new ghosts: atoms within cutoff + skin of a
///                                                  neighbour's sub-box, once per neighbour
///   thermo steps    MPI_Allreduce                  kinetic energy, E_pair and virial summed
///
/// Forces come from a full neighbor list (kernels.hpp's lj_full, as on the GPU): each rank
/// computes the force on its own atoms only, from owned and ghost neighbors alike, so nothing
/// travels back. A half list would compute a pair across two sub-boxes once, on one rank, and
/// send the ghost's force back to its owner (halo.scatter_add) every step: a second exchange per
/// step and a rule for which rank takes each pair, to save half the arithmetic of the pairs.
///
/// Ghosts keep their owner's coordinates (no periodic shift): the lists and the force kernel take
/// the minimum image across the box's faces, as on one rank, so an atom near several faces of a
/// neighbour's sub-box is sent to it once, and an uncut axis needs no ghosts at all.
#pragma once

#include "domain.hpp"
#include "kernels.hpp"
#include "md.hpp"

#include <layout/algorithms.hpp>
#include <layout/layout.hpp>
#include <layout/mpi/mpi.hpp>

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace md {

/// The stencil cell by cell: entry[4 k .. 4 k + 3] = {dx, dy, dz, greater} of cell k. (The
/// single-rank kernels read it in rows of cells, stencil_ref: a rank's ghosts come after its own
/// atoms, outside the cells' sorted order, so cells are visited one at a time here.)
struct cell_stencil {
    std::vector<int> entry;
    int count = 0;
    bool wide = false;

    explicit cell_stencil(const stencil& s) : count(s.cells), wide(s.wide) {
        for (int k = 0; k < s.cells; ++k) {
            entry.insert(entry.end(), {s.offset[k][0], s.offset[k][1], s.offset[k][2]});
            entry.push_back(s.greater_only[k] ? 1 : 0);
        }
    }
};

/// The Verlet list of owned atom i, from cells that hold owned atoms and ghosts in no particular
/// order: cell c's atoms are cell_atoms[offsets[c] .. offsets[c + 1]) (layout::bin_by_key's
/// permutation), since the ghosts must stay after the owned atoms in the container. Full list
/// (every j != i); neighbors [0, plain) are within the box's faces, [plain, count) across them.
template <class Real>
struct build_local_neighbors {
    cell_grid<Real> grid;
    kernel_box<Real> box;
    const int* stencil; // cell_stencil::entry (host or device memory, as the atoms)
    int stencil_cells;
    bool wide;
    const index_t* cell_of;    // per atom
    const index_t* offsets;    // per cell
    const index_t* cell_atoms; // atoms by cell
    neighbor_list list;
    Real reach_sq;

    template <class View>
    LAYOUT_HOST_DEVICE void operator()(const View& a, std::size_t i) const {
        const vec3<Real> pi = layout::get<0>(a[i]);
        const int n[3] = {grid.n[0], grid.n[1], grid.n[2]};
        const int c = static_cast<int>(cell_of[i]);
        const int home[3] = {c % n[0], (c / n[0]) % n[1], c / (n[0] * n[1])};
        std::size_t found = 0;
        for (int across = 0; across < 2; ++across) {
            for (int s = 0; s < stencil_cells; ++s) {
                int r[3];
                bool crosses = !wide;
                for (int d = 0; d < 3; ++d) {
                    r[d] = home[d] + stencil[4 * std::size_t(s) + d];
                    crosses = crosses || r[d] < 0 || r[d] >= n[d];
                    r[d] = (r[d] + n[d]) % n[d];
                }
                if (crosses != (across == 1)) continue;
                const index_t cell = static_cast<index_t>((r[2] * n[1] + r[1]) * n[0] + r[0]);
                for (index_t m = offsets[cell]; m < offsets[cell + 1]; ++m) {
                    const std::size_t j = cell_atoms[m];
                    if (j == i) continue;
                    const vec3<Real> pj = layout::get<0>(a[j]);
                    Real dx = pi.x - pj.x, dy = pi.y - pj.y, dz = pi.z - pj.z;
                    if (crosses) {
                        dx = min_image<Real>(dx, box.prd[0], box.half_prd[0]);
                        dy = min_image<Real>(dy, box.prd[1], box.half_prd[1]);
                        dz = min_image<Real>(dz, box.prd[2], box.half_prd[2]);
                    }
                    if (dx * dx + dy * dy + dz * dz >= reach_sq) continue;
                    if (found < list.capacity)
                        list.neigh[i * list.stride_i + found * list.stride_k] = index_t(j);
                    ++found;
                }
            }
            if (across == 0) list.plain[i] = static_cast<index_t>(found);
        }
        list.count[i] = static_cast<index_t>(found);
    }
};

/// Seconds per phase, as simulation.hpp's timings, with the exchanges apart.
struct mpi_timings {
    double force = 0, neighbor = 0, comm = 0, integrate = 0, total = 0;
};

/// What the host and the GPU versions of the distributed time loop share: the loop itself, the
/// box, the cells, the stencil, this rank's atoms of the start, the timings and the thermo's
/// reduction. Derived provides for_owned(f), dtf() (the masses' dt/2m where f runs),
/// reneighbor(), gather_ghosts(), force(energy), measure(step) and wait() (its work done), and
/// may replace gather_ghosts_and_force(energy) (the GPU version overlaps the two).
template <class Real, class Derived>
class distributed_loop {
public:
    using atom_t = atom<Real>;

    /// Runs opt.steps steps; rank 0 prints the thermo lines. Collective.
    std::vector<thermo> run() {
        Derived& self = static_cast<Derived&>(*this);
        std::vector<thermo> out;
        self.reneighbor();
        self.force(true);
        if (rank_ == 0) print_thermo_header();
        out.push_back(self.measure(0));
        t_ = mpi_timings{};
        const auto start = clock::now();
        for (long step = 1; step <= opt_.steps; ++step) {
            timed(t_.integrate, [&] {
                self.for_owned(initial_integrate<Real>{self.dtf(), Real(opt_.dt)});
            });
            const bool thermo_step = step % opt_.thermo == 0 || step == opt_.steps;
            if (step % opt_.every == 0) {
                self.reneighbor();
                self.force(thermo_step);
            } else {
                self.gather_ghosts_and_force(thermo_step);
            }
            timed(t_.integrate, [&] { self.for_owned(final_integrate<Real>{self.dtf()}); });
            if (thermo_step) out.push_back(self.measure(step));
        }
        self.wait();
        t_.total = seconds(clock::now() - start);
        return out;
    }

    /// Rank 0 prints LAMMPS's summary lines: the loop time is the slowest rank's, each section's
    /// time the fastest, average and slowest rank's (as LAMMPS's table: the spread is what the
    /// ranks wait for each other). Collective.
    void report(int ranks) {
        constexpr int sections = 5;
        double mine[sections] = {t_.total, t_.force, t_.neighbor, t_.comm, t_.integrate};
        double low[sections], sum[sections], high[sections];
        MPI_Allreduce(mine, low, sections, MPI_DOUBLE, MPI_MIN, comm_);
        MPI_Allreduce(mine, sum, sections, MPI_DOUBLE, MPI_SUM, comm_);
        MPI_Allreduce(mine, high, sections, MPI_DOUBLE, MPI_MAX, comm_);
        if (rank_ != 0) return;
        const auto [px, py, pz] = dom_.grid();
        std::printf("Loop time of %g on %d procs for %ld steps with %zu atoms\n\n", high[0], ranks,
                    opt_.steps, n_total_);
        std::printf("Performance: %.3f timesteps/s, %.4g atom-steps/s (%d x %d x %d ranks, "
                    "layout %s, %s, full neighbor list%s)\n",
                    double(opt_.steps) / high[0], double(opt_.steps) * double(n_total_) / high[0],
                    px, py, pz, opt_.layout.c_str(), opt_.precision.c_str(), how_.c_str());
        std::printf("Section   |  max time  |  min time  |  avg time\n");
        const char* names[sections] = {"", "Force", "Neighbor", "Comm", "Integrate"};
        for (int k = 1; k < sections; ++k)
            std::printf("%-9s | %10.6f | %10.6f | %10.6f\n", names[k], high[k], low[k],
                        sum[k] / ranks);
    }

protected:
    using clock = std::chrono::steady_clock;

    /// Collective over comm. Every rank holds the whole start s.
    distributed_loop(MPI_Comm comm, const system& s, const options& o, const domain& dom)
        : comm_(comm), opt_(o), dom_(dom), n_total_(s.atoms.size()), volume_(s.box.volume()),
          rank_(rank_of(comm)), neighbours_(dom.neighbours(rank_)) {
        for (const auto& a : s.atoms) {
            const double x[3] = {a.x.x, a.x.y, a.x.z};
            if (dom_.owner(x) != rank_) continue;
            mine_.push_back(atom_t{{Real(a.x.x), Real(a.x.y), Real(a.x.z)},
                                   {Real(a.v.x), Real(a.v.y), Real(a.v.z)},
                                   {0, 0, 0},
                                   a.type,
                                   a.id});
        }
        for (double m : s.mass) {
            mass_.push_back(Real(m));
            dtf_.push_back(Real(0.5 * o.dt / m));
        }
        const double reach = o.cutoff + o.skin;
        double cell_size[3];
        for (int d = 0; d < 3; ++d) {
            box_.lo[d] = Real(s.box.lo[d]);
            box_.hi[d] = Real(s.box.hi[d]);
            box_.prd[d] = Real(s.box.prd(d));
            box_.half_prd[d] = Real(0.5 * s.box.prd(d));
            // Cells one reach wide over the whole box (27-cell stencil): a rank's cells are
            // those its atoms and ghosts fall in; the others stay empty.
            grid_.n[d] = std::max(1, static_cast<int>(std::floor(s.box.prd(d) / reach)));
            cell_size[d] = s.box.prd(d) / grid_.n[d];
            grid_.lo[d] = Real(s.box.lo[d]);
            grid_.scale[d] = Real(grid_.n[d] / s.box.prd(d));
        }
        cells_ = std::size_t(grid_.n[0]) * grid_.n[1] * grid_.n[2];
        stencil_ = make_stencil(grid_.n, cell_size, reach, 1, false);
        cells_stencil_.emplace(stencil_);
        cut_sq_ = Real(o.cutoff * o.cutoff);
        reach_sq_ = Real(reach * reach);
        capacity_ = static_cast<std::size_t>(double(n_total_) / volume_ * 4.18879 *
                                             std::pow(reach, 3) * 1.3) +
                    16;
    }

    /// A step between rebuilds: the ghosts' new positions, then the forces.
    void gather_ghosts_and_force(bool energy) {
        Derived& self = static_cast<Derived&>(*this);
        timed(t_.comm, [&] { self.gather_ghosts(); });
        self.force(energy);
    }

    static double seconds(clock::duration d) { return std::chrono::duration<double>(d).count(); }
    static int rank_of(MPI_Comm comm) {
        int r = 0;
        MPI_Comm_rank(comm, &r);
        return r;
    }
    /// Runs f and adds its time to `into` (the GPU version waits for its work first).
    template <class F>
    void timed(double& into, F&& f) {
        const auto t0 = clock::now();
        f();
        static_cast<Derived&>(*this).wait();
        into += seconds(clock::now() - t0);
    }

    /// The thermo of the whole system from this rank's sums {kinetic, E_pair, virial, atoms}:
    /// added over the ranks, checked, printed by rank 0. Collective.
    thermo reduce_thermo(long step, double sums[4]) {
        MPI_Allreduce(MPI_IN_PLACE, sums, 4, MPI_DOUBLE, MPI_SUM, comm_);
        if (sums[3] != double(n_total_))
            throw std::runtime_error("md_mpi: the ranks hold " + std::to_string(sums[3]) +
                                     " atoms, the start had " + std::to_string(n_total_));
        const thermo t = make_thermo(step, sums[0], sums[1], sums[2], n_total_, volume_);
        if (rank_ == 0) {
            print_thermo(t, opt_.digits);
            std::fflush(stdout);
        }
        return t;
    }

    MPI_Comm comm_;
    options opt_;
    domain dom_;
    std::size_t n_total_;
    double volume_;
    int rank_ = 0;
    std::vector<int> neighbours_;
    std::vector<atom_t> mine_; // this rank's atoms of the start
    std::vector<Real> mass_, dtf_;
    kernel_box<Real> box_{};
    cell_grid<Real> grid_{};
    std::size_t cells_ = 0;
    stencil stencil_;
    std::optional<cell_stencil> cells_stencil_;
    Real cut_sq_ = 0, reach_sq_ = 0;
    std::size_t capacity_ = 0;
    mpi_timings t_;
    std::string how_; // the report's words for how Derived runs the loop
};

template <class Real, class Layout>
class distributed : public distributed_loop<Real, distributed<Real, Layout>> {
    using base = distributed_loop<Real, distributed<Real, Layout>>;
    friend base;
    using base::box_, base::capacity_, base::cells_, base::cells_stencil_, base::comm_,
        base::cut_sq_, base::dom_, base::dtf_, base::grid_, base::mass_, base::neighbours_,
        base::opt_, base::rank_, base::reach_sq_, base::t_, base::timed;

public:
    using atom_t = atom<Real>;
    using atoms_t = layout::vector<atom_t, Layout>;

    /// Collective over comm. Every rank holds the whole start s and keeps its own atoms.
    distributed(MPI_Comm comm, const system& s, const options& o, const domain& dom)
        : base(comm, s, o, dom), migration_(comm, std::vector<int>{}, neighbours_),
          halo_(comm, 0, std::vector<std::size_t>{}, std::vector<int>{}, neighbours_) {
        atoms_ = atoms_t(layout::aos_vector<atom_t>(this->mine_.begin(), this->mine_.end()));
        owned_ = atoms_.size();
    }

private:
    /// f(view of the owned atoms, i) for each owned atom (the ghosts are only read).
    template <class F>
    void for_owned(const F& f) {
        const typename atoms_t::view_type all = atoms_.view();
        layout::for_each_index(layout::exec::serial,
                               typename atoms_t::view_type(all.storage(), owned_), f);
    }
    const Real* dtf() const { return dtf_.data(); }
    void gather_ghosts() { halo_.template gather<&atom_t::x>(atoms_); }
    void wait() {}

    neighbor_list list() {
        return {neigh_.data(), count_.data(), plain_.data(), capacity_, capacity_, 1};
    }

    /// Wrap, migrate, sort by cell, new ghosts, new lists.
    void reneighbor() {
        timed(t_.comm, [&] {
            atoms_.resize(owned_); // the ghosts go; the owned atoms are first
            for_owned(wrap_positions<Real>{box_});
            destinations_.resize(owned_);
            const auto v = atoms_.view();
            for (std::size_t i = 0; i < owned_; ++i) {
                const vec3<Real> p = layout::get<0>(v[i]);
                const double x[3] = {double(p.x), double(p.y), double(p.z)};
                destinations_[i] = dom_.owner(x);
            }
            migration_.update(destinations_);
            migration_.migrate(atoms_);
            owned_ = atoms_.size();
        });
        timed(t_.neighbor, [&] {
            // Owned atoms sorted by cell: neighbors near each other in memory.
            cell_of_.resize(owned_);
            for_owned(compute_cells<Real>{grid_, cell_of_.data()});
            layout::bin_by_key<index_t>(cell_of_, cells_, atoms_);
        });
        timed(t_.comm, [&] {
            export_index_.clear();
            export_rank_.clear();
            const auto v = atoms_.view();
            for (std::size_t i = 0; i < owned_; ++i) {
                const vec3<Real> p = layout::get<0>(v[i]);
                const double x[3] = {double(p.x), double(p.y), double(p.z)};
                for (int r : neighbours_)
                    if (dom_.near(x, r)) {
                        export_index_.push_back(i);
                        export_rank_.push_back(r);
                    }
            }
            halo_.update(owned_, export_index_, export_rank_);
            halo_.template gather<&atom_t::x>(atoms_);
        });
        timed(t_.neighbor, [&] {
            const std::size_t local = atoms_.size();
            cell_of_.resize(local);
            layout::for_each_index(layout::exec::serial, atoms_.view(),
                                   compute_cells<Real>{grid_, cell_of_.data()});
            sorted_keys_ = cell_of_;
            auto bins = layout::bin_by_key<index_t>(sorted_keys_, cells_);
            count_.assign(owned_, 0);
            plain_.assign(owned_, 0);
            for (;;) {
                neigh_.assign(owned_ * capacity_, 0);
                const build_local_neighbors<Real> build{grid_,
                                                        box_,
                                                        cells_stencil_->entry.data(),
                                                        cells_stencil_->count,
                                                        cells_stencil_->wide,
                                                        cell_of_.data(),
                                                        bins.offsets.data(),
                                                        bins.permutation.data(),
                                                        list(),
                                                        reach_sq_};
                const auto all = atoms_.view();
                for (std::size_t i = 0; i < owned_; ++i) build(all, i);
                const std::size_t most =
                    owned_ ? *std::max_element(count_.begin(), count_.end()) : 0;
                if (most <= capacity_) break;
                capacity_ = most + most / 4 + 8;
            }
        });
    }

    void force(bool energy) {
        timed(t_.force, [&] {
            e_.assign(owned_, 0.0);
            w_.assign(owned_, 0.0);
            const auto all = atoms_.view();
            if (energy) {
                const lj_full<Real, true> f{list(), box_, cut_sq_, e_.data(), w_.data()};
                for (std::size_t i = 0; i < owned_; ++i) f(all, i);
            } else {
                const lj_full<Real, false> f{list(), box_, cut_sq_, nullptr, nullptr};
                for (std::size_t i = 0; i < owned_; ++i) f(all, i);
            }
        });
    }

    /// The thermo of the whole system: this rank's sums, added over the ranks.
    thermo measure(long step) {
        ke_.assign(owned_, 0.0);
        for_owned(kinetic_energy<Real>{mass_.data(), ke_.data()});
        double sums[4] = {0, 0, 0, double(owned_)};
        for (std::size_t i = 0; i < owned_; ++i) {
            sums[0] += ke_[i];
            sums[1] += e_[i];
            sums[2] += w_[i];
        }
        return this->reduce_thermo(step, sums);
    }

    layout::mpi::migration_plan migration_;
    layout::mpi::halo_plan halo_;
    atoms_t atoms_;
    std::size_t owned_ = 0;
    std::vector<int> destinations_;
    std::vector<std::size_t> export_index_;
    std::vector<int> export_rank_;
    std::vector<index_t> cell_of_, sorted_keys_, neigh_, count_, plain_;
    std::vector<double> e_, w_, ke_;
};

} // namespace md
