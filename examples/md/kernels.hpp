/// \file kernels.hpp
/// The MD kernels: functors with a LAYOUT_HOST_DEVICE operator()(const View&, std::size_t i),
/// run by layout::for_each_index on the host and layout::cuda::for_each_index on the GPU. They
/// reach atoms only through the view, so each one serves AoS, SoA and AoSoA unchanged; arrays
/// that are not atoms (cell keys, neighbor lists, per-atom energies) are plain pointers into
/// host or device memory, whichever side runs them.
#pragma once

#include "md.hpp"

#include <layout/layout.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace md {

using index_t = std::uint32_t;

/// The box as the kernels need it, in the simulation's precision.
template <class Real>
struct kernel_box {
    Real lo[3], hi[3], prd[3], half_prd[3];
};

/// The cell grid: n[d] cells along axis d, each at least (cutoff + skin) / k wide (k cells per
/// reach: 2 on the CPU, 1 on the GPU; see make_stencil).
template <class Real>
struct cell_grid {
    Real lo[3];
    Real scale[3]; // n[d] / prd[d]
    int n[3];
};

/// Minimum image: with cutoff + skin <= half the box, the one image that can be within reach.
/// Atoms are at most a little outside the box between rebuilds, so |d| < 1.5 prd and one
/// correction suffices, where d - prd * rint(d / prd) costs a software rint on x86-64 without
/// SSE4.1. The corrections are multiplied by 0 or 1 rather than selected: g++ turns selects into
/// branches, which mispredict (exact either way: prd * 1 is prd, d - 0 is d). Even so it costs,
/// so the lists put the neighbors that need it last (neighbor_list::plain) and the rest skip it.
template <class Real>
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE Real min_image(Real d, Real prd, Real half_prd) {
    d -= prd * Real(d > half_prd);
    return d + prd * Real(d < -half_prd);
}

template <class Real>
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE int cell_axis(Real x, Real lo, Real scale, int n) {
    const int c = static_cast<int>((x - lo) * scale);
    return c < 0 ? 0 : (c >= n ? n - 1 : c);
}

// ---- integration (fix nve) ----------------------------------------------------------------------

/// First half of velocity Verlet, as LAMMPS's FixNVE::initial_integrate: v += dt/2 f/m, then
/// x += dt v.
template <class Real>
struct initial_integrate {
    const Real* dtf_over_mass; // per type (index type - 1): dt / 2 / m
    Real dt;
    template <class View>
    LAYOUT_HOST_DEVICE void operator()(const View& a, std::size_t i) const {
        auto&& [x, v, f, type, id] = a[i];
        auto&& [px, py, pz] = x;
        auto&& [vx, vy, vz] = v;
        const vec3<Real> fi = f;
        const Real dtfm = dtf_over_mass[type - 1];
        vx += dtfm * fi.x;
        vy += dtfm * fi.y;
        vz += dtfm * fi.z;
        px += dt * vx;
        py += dt * vy;
        pz += dt * vz;
    }
};

/// Second half: v += dt/2 f/m with the new forces.
template <class Real>
struct final_integrate {
    const Real* dtf_over_mass;
    template <class View>
    LAYOUT_HOST_DEVICE void operator()(const View& a, std::size_t i) const {
        auto&& [x, v, f, type, id] = a[i];
        auto&& [vx, vy, vz] = v;
        const vec3<Real> fi = f;
        const Real dtfm = dtf_over_mass[type - 1];
        vx += dtfm * fi.x;
        vy += dtfm * fi.y;
        vz += dtfm * fi.z;
    }
};

/// Back into the box, as LAMMPS's Domain::pbc (only when the lists are rebuilt: between
/// rebuilds an atom may be a little outside, which the minimum image absorbs).
template <class Real>
struct wrap_positions {
    kernel_box<Real> box;
    template <class View>
    LAYOUT_HOST_DEVICE void operator()(const View& a, std::size_t i) const {
        auto&& [x, v, f, type, id] = a[i];
        auto&& [px, py, pz] = x;
        Real* p[3] = {&px, &py, &pz};
        for (int d = 0; d < 3; ++d) {
            Real c = *p[d];
            if (c < box.lo[d]) c += box.prd[d];
            if (c >= box.hi[d]) {
                c -= box.prd[d];
                c = c > box.lo[d] ? c : box.lo[d];
            }
            *p[d] = c;
        }
    }
};

/// KE per atom: 1/2 m v^2.
template <class Real>
struct kinetic_energy {
    const Real* mass; // per type
    double* ke;
    template <class View>
    LAYOUT_HOST_DEVICE void operator()(const View& a, std::size_t i) const {
        auto&& [x, v, f, type, id] = a[i];
        const vec3<Real> vi = v;
        ke[i] = 0.5 * double(mass[type - 1]) *
                (double(vi.x) * vi.x + double(vi.y) * vi.y + double(vi.z) * vi.z);
    }
};

// ---- cells and neighbor lists --------------------------------------------------------------------

/// key[i] = the cell of atom i: (cz * ny + cy) * nx + cx.
template <class Real>
struct compute_cells {
    cell_grid<Real> grid;
    index_t* key;
    template <class View>
    LAYOUT_HOST_DEVICE void operator()(const View& a, std::size_t i) const {
        const vec3<Real> p = layout::get<0>(a[i]);
        const int cx = cell_axis(p.x, grid.lo[0], grid.scale[0], grid.n[0]);
        const int cy = cell_axis(p.y, grid.lo[1], grid.scale[1], grid.n[1]);
        const int cz = cell_axis(p.z, grid.lo[2], grid.scale[2], grid.n[2]);
        key[i] = static_cast<index_t>((cz * grid.n[1] + cy) * grid.n[0] + cx);
    }
};

/// Cell r of an axis of n cells, periodic, for -n <= r < 2n (a stencil offset is at most n - 1
/// cells away): an integer division per axis and stencil cell would cost more.
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE int wrap_cell(int r, int n) {
    return r < 0 ? r + n : (r >= n ? r - n : r);
}

/// Which neighbor cells to visit, as offsets, and which of them take only j > i. Cells are at
/// least reach / k wide (k = 1 or 2 cells per cutoff + skin); offsets run over -k..k on each
/// axis, less those whose nearest points are farther apart than the reach.
///   full list (GPU): all of them, every j != i.
///   half list (CPU): LAMMPS's half stencil: the own cell with j > i and the cells "after" it
///                    (one of each pair of opposite offsets), so each pair is found once.
/// An axis with fewer than 2k + 1 cells would reach the same cell through two offsets: there
/// every cell of the axis is visited once, and a half list takes j > i in every cell.
struct stencil {
    bool wide = false; // 2k + 1 cells or more on every axis (see build_neighbors)
    int cells = 0;
    int rows = 0; // as the kernels read it (stencil_entries)
    int offset[125][3] = {};
    bool greater_only[125] = {};
};

/// A stencil as the kernels read it, in rows: cells next to each other along x are next to each
/// other in memory, and so are their atoms (sorted by cell), so a row of them is one range of
/// atoms, one loop rather than one per cell (in.lj's half stencil: 63 cells in 13 rows; the
/// GPU's full one: 27 in 9).
/// entry[5 r .. 5 r + 4] = {dx_first, dx_last, dy, dz, greater}: row r is the cells dx_first ..
/// dx_last, dy, dz away; greater: its first cell takes only j > i (the others come after atom i's
/// cell, so all of their atoms do). In memory (host or device, as the other arrays), not in the
/// functor: a kernel parameter indexed at run time would be copied to each thread's local memory.
struct stencil_ref {
    const int* entry;
    int rows;
    bool wide;
};

/// The rows of stencil s. Cells are merged only on a wide grid: on a short axis a row could
/// reach a cell twice around the box, and every cell is visited on its own (see build_neighbors).
inline std::vector<int> stencil_entries(const stencil& s) {
    std::vector<int> e;
    for (int k = 0; k < s.cells; ++k) {
        const int* o = s.offset[k];
        const std::size_t r = e.size();
        if (s.wide && r && !s.greater_only[k] && e[r - 3] == o[1] && e[r - 2] == o[2] &&
            e[r - 4] + 1 == o[0])
            e[r - 4] = o[0];
        else
            e.insert(e.end(), {o[0], o[0], o[1], o[2], s.greater_only[k] ? 1 : 0});
    }
    return e;
}

inline stencil make_stencil(const int n[3], const double size[3], double reach, int k, bool half) {
    stencil s;
    int first[3], last[3];
    bool wide = true; // every axis has 2k + 1 cells or more
    for (int d = 0; d < 3; ++d) {
        if (n[d] >= 2 * k + 1) {
            first[d] = -k;
            last[d] = k;
        } else {
            first[d] = 0;
            last[d] = n[d] - 1;
            wide = false;
        }
    }
    auto gap = [&](int d, int o) { // nearest distance along axis d between cells o apart
        const int a = o < 0 ? -o : o;
        return wide && a > 1 ? (a - 1) * size[d] : 0.0;
    };
    s.wide = wide;
    const bool half_stencil = half && wide;
    for (int dz = first[2]; dz <= last[2]; ++dz)
        for (int dy = first[1]; dy <= last[1]; ++dy)
            for (int dx = first[0]; dx <= last[0]; ++dx) {
                const double gx = gap(0, dx), gy = gap(1, dy), gz = gap(2, dz);
                if (gx * gx + gy * gy + gz * gz >= reach * reach) continue;
                const bool self = dx == 0 && dy == 0 && dz == 0;
                const bool after = dz > 0 || (dz == 0 && (dy > 0 || (dy == 0 && dx > 0)));
                if (half_stencil && !self && !after) continue;
                s.offset[s.cells][0] = dx;
                s.offset[s.cells][1] = dy;
                s.offset[s.cells][2] = dz;
                s.greater_only[s.cells] = half && (self || !half_stencil);
                ++s.cells;
            }
    s.rows = static_cast<int>(stencil_entries(s).size() / 5);
    return s;
}

/// Where neighbor k of atom i is stored: neigh[i * stride_i + k * stride_k], k < capacity + 1
/// (slot `capacity` is spare: see build_neighbors). The CPU keeps an atom's neighbors together
/// (stride_i = capacity + 1, stride_k = 1); the GPU interleaves them (stride_i = 1,
/// stride_k = n) so that a warp's 32 atoms read neighbor k in one transaction.
struct neighbor_list {
    index_t* neigh;
    index_t* count; // per atom; may exceed capacity, which the caller checks and rebuilds
    index_t* plain; // per atom: neighbors [0, plain) need no periodic image, [plain, count) may
    std::size_t capacity;
    std::size_t stride_i, stride_k;
};

/// The Verlet list of atom i: atoms within cutoff + skin, from the cells of the stencil. The
/// atoms are sorted by cell (bin_by_key), so cell c is atoms [offsets[c], offsets[c + 1]) and
/// key[i] is atom i's cell.
template <class Real>
struct build_neighbors {
    cell_grid<Real> grid;
    kernel_box<Real> box;
    stencil_ref st;
    const index_t* key;
    const index_t* offsets;
    neighbor_list list;
    Real reach_sq; // (cutoff + skin)^2

    template <class View>
    LAYOUT_HOST_DEVICE void operator()(const View& a, std::size_t i) const {
        const vec3<Real> pi = layout::get<0>(a[i]);
        const int c = static_cast<int>(key[i]);
        const int nx = grid.n[0], ny = grid.n[1], nz = grid.n[2];
        const int cx = c % nx, cy = (c / nx) % ny, cz = c / (nx * ny);
        std::size_t found = 0;
        // Atoms [first, last) within reach go to the list; Image: through the minimum image.
        auto scan = [&](std::size_t first, std::size_t last, bool image) {
            for (std::size_t j = first; j < last; ++j) {
                if (j == i) continue;
                const vec3<Real> pj = layout::get<0>(a[j]);
                Real dx = pi.x - pj.x, dy = pi.y - pj.y, dz = pi.z - pj.z;
                if (image) {
                    dx = min_image<Real>(dx, box.prd[0], box.half_prd[0]);
                    dy = min_image<Real>(dy, box.prd[1], box.half_prd[1]);
                    dz = min_image<Real>(dz, box.prd[2], box.half_prd[2]);
                }
                const bool in = dx * dx + dy * dy + dz * dz < reach_sq;
#if defined(__CUDA_ARCH__)
                if (in) {
                    if (found < list.capacity)
                        list.neigh[i * list.stride_i + found * list.stride_k] =
                            static_cast<index_t>(j);
                    ++found;
                }
#else
                // Every candidate is stored, and kept only if within reach: about a quarter
                // are, at random, so a branch on it would mispredict often (the store is
                // cheaper). Slot `capacity` takes the candidates past a full list.
                const std::size_t slot = found < list.capacity ? found : list.capacity;
                list.neigh[i * list.stride_i + slot * list.stride_k] = static_cast<index_t>(j);
                found += in;
#endif
            }
        };
        auto cell = [&](int x, int y, int z) {
            return static_cast<std::size_t>((z * ny + y) * nx + x);
        };
        // Pass 0: cells reached without crossing the box's faces, where every pair within
        // reach is at its plain difference (each pair within reach has one offset in -k..k on
        // a wide grid, so its cell is reached only through that offset): the part of each row
        // inside the box, one range of atoms. Pass 1: the cells across a face (all cells, when
        // an axis is too short for that argument), one by one, which need the minimum image,
        // now and until the next rebuild.
        for (int r = 0; r < st.rows; ++r) {
            const int* e = st.entry + 5 * r;
            const int x0 = cx + e[0], x1 = cx + e[1], y = cy + e[2], z = cz + e[3];
            if (!st.wide || y < 0 || y >= ny || z < 0 || z >= nz) continue;
            const int lo = x0 < 0 ? 0 : x0, hi = x1 >= nx ? nx - 1 : x1;
            if (lo > hi) continue;
            const std::size_t start = offsets[cell(lo, y, z)];
            // A greater row starts at atom i's own cell, which is always inside the box.
            scan(e[4] && i + 1 > start ? i + 1 : start, offsets[cell(hi, y, z) + 1], false);
        }
        list.plain[i] = static_cast<index_t>(found);
        for (int r = 0; r < st.rows; ++r) {
            const int* e = st.entry + 5 * r;
            const int y = cy + e[2], z = cz + e[3];
            const bool yz_across = !st.wide || y < 0 || y >= ny || z < 0 || z >= nz;
            for (int dx = e[0]; dx <= e[1]; ++dx) {
                const int x = cx + dx;
                if (!yz_across && x >= 0 && x < nx) continue; // in pass 0
                const std::size_t w = cell(wrap_cell(x, nx), wrap_cell(y, ny), wrap_cell(z, nz));
                const std::size_t start = offsets[w];
                scan(e[4] && dx == e[0] && i + 1 > start ? i + 1 : start, offsets[w + 1], true);
            }
        }
        list.count[i] = static_cast<index_t>(found);
    }
};

// ---- forces -------------------------------------------------------------------------------------

/// One pair of the truncated (unshifted) 12-6 potential with epsilon = sigma = 1, as LAMMPS's
/// PairLJCut::compute: fpair = 48 r^-14 - 24 r^-8 (force = fpair * d), e = 4 r^-12 - 4 r^-6.
template <class Real>
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE Real lj_fpair(Real rsq, Real& r6inv_out) {
    const Real r2inv = Real(1) / rsq;
    const Real r6inv = r2inv * r2inv * r2inv;
    r6inv_out = r6inv;
    return r6inv * (Real(48) * r6inv - Real(24)) * r2inv;
}

/// Forces from a full list (GPU): atom i sums over all its neighbors and writes only its own
/// force, so threads never write the same atom (no atomics) at the price of computing each pair
/// twice. With Energy, e[i] and w[i] get half of each pair's energy and virial.
/// operator() is one thread an atom. For few atoms (too few threads to hide the loads' latency)
/// a GPU kernel may give an atom several threads: each takes the pairs k = lane, lane + lanes,
/// ... (partial), their sums are added in a fixed order, and one of them stores them (store).
template <class Real, bool Energy>
struct lj_full {
    neighbor_list list;
    kernel_box<Real> box;
    Real cut_sq;
    double* e;
    double* w;

    struct sums {
        Real fx = 0, fy = 0, fz = 0, eng = 0, vir = 0;
    };
    template <class View>
    LAYOUT_HOST_DEVICE void operator()(const View& a, std::size_t i) const {
        store(a, i, partial(a, i, 0, 1));
    }
    template <class View>
    LAYOUT_HOST_DEVICE sums partial(const View& a, std::size_t i, unsigned lane,
                                    unsigned lanes) const {
        const vec3<Real> pi = layout::get<0>(a[i]);
        sums s;
        const index_t* neigh = list.neigh + i * list.stride_i;
        auto pair = [&]<bool Image>(std::size_t k) {
            const std::size_t j = neigh[k * list.stride_k];
            const vec3<Real> pj = layout::get<0>(a[j]);
            Real dx = pi.x - pj.x, dy = pi.y - pj.y, dz = pi.z - pj.z;
            if constexpr (Image) {
                dx = min_image<Real>(dx, box.prd[0], box.half_prd[0]);
                dy = min_image<Real>(dy, box.prd[1], box.half_prd[1]);
                dz = min_image<Real>(dz, box.prd[2], box.half_prd[2]);
            }
            const Real rsq = dx * dx + dy * dy + dz * dz;
            if (rsq < cut_sq) {
                Real r6inv;
                const Real fpair = lj_fpair(rsq, r6inv);
                s.fx += dx * fpair;
                s.fy += dy * fpair;
                s.fz += dz * fpair;
                if constexpr (Energy) {
                    s.eng += r6inv * (Real(4) * r6inv - Real(4));
                    s.vir += fpair * rsq;
                }
            }
        };
        const std::size_t plain = list.plain[i], n = list.count[i];
        std::size_t k = lane;
        for (; k < plain; k += lanes) pair.template operator()<false>(k);
        for (; k < n; k += lanes) pair.template operator()<true>(k);
        return s;
    }
    template <class View>
    LAYOUT_HOST_DEVICE void store(const View& a, std::size_t i, const sums& s) const {
        layout::get<2>(a[i]) = vec3<Real>{s.fx, s.fy, s.fz};
        if constexpr (Energy) {
            e[i] = 0.5 * double(s.eng);
            w[i] = 0.5 * double(s.vir);
        }
    }
};

/// Forces from a half list (CPU): each pair once, its force added to i and subtracted from j
/// (Newton's third law), half the arithmetic of a full list. The iterations are not independent
/// (iteration i writes atom j), so this runs in a plain loop, not for_each_index (whose loop
/// tells the compiler they are). Buffered = false: forces go to the atoms, which must be zero
/// before. Buffered = true (several threads): to this thread's fbuf (x, y, z per atom, zero
/// before), which sum_force_buffers then adds up into the atoms.
template <class Real, bool Energy, bool Buffered = false>
struct lj_half {
    neighbor_list list;
    kernel_box<Real> box;
    Real cut_sq;
    double* e;
    double* w;
    Real* fbuf = nullptr;
    template <class View>
    LAYOUT_HOST_DEVICE void operator()(const View& a, std::size_t i) const {
        const vec3<Real> pi = layout::get<0>(a[i]);
        Real fx = 0, fy = 0, fz = 0, eng = 0, vir = 0;
        const index_t* neigh = list.neigh + i * list.stride_i;
        auto pair = [&]<bool Image>(std::size_t k) {
            const std::size_t j = neigh[k * list.stride_k];
            const vec3<Real> pj = layout::get<0>(a[j]);
            Real dx = pi.x - pj.x, dy = pi.y - pj.y, dz = pi.z - pj.z;
            if constexpr (Image) {
                dx = min_image<Real>(dx, box.prd[0], box.half_prd[0]);
                dy = min_image<Real>(dy, box.prd[1], box.half_prd[1]);
                dz = min_image<Real>(dz, box.prd[2], box.half_prd[2]);
            }
            const Real rsq = dx * dx + dy * dy + dz * dz;
            // Pairs beyond the cutoff (a quarter to a third of the list, at random) count with
            // fpair = 0 rather than behind a branch, which would mispredict for many of them.
            const Real in = Real(rsq < cut_sq);
            Real r6inv;
            const Real fpair = lj_fpair(rsq, r6inv) * in;
            fx += dx * fpair;
            fy += dy * fpair;
            fz += dz * fpair;
            if constexpr (Buffered) {
                fbuf[3 * j] -= dx * fpair;
                fbuf[3 * j + 1] -= dy * fpair;
                fbuf[3 * j + 2] -= dz * fpair;
            } else {
                auto&& [fjx, fjy, fjz] = layout::get<2>(a[j]);
                fjx -= dx * fpair;
                fjy -= dy * fpair;
                fjz -= dz * fpair;
            }
            if constexpr (Energy) {
                eng += r6inv * (Real(4) * r6inv - Real(4)) * in;
                vir += fpair * rsq;
            }
        };
        const std::size_t plain = list.plain[i], n = list.count[i];
        for (std::size_t k = 0; k < plain; ++k) pair.template operator()<false>(k);
        for (std::size_t k = plain; k < n; ++k) pair.template operator()<true>(k);
        if constexpr (Buffered) {
            fbuf[3 * i] += fx;
            fbuf[3 * i + 1] += fy;
            fbuf[3 * i + 2] += fz;
        } else {
            auto&& [fix, fiy, fiz] = layout::get<2>(a[i]);
            fix += fx;
            fiy += fy;
            fiz += fz;
        }
        if constexpr (Energy) {
            e[i] = double(eng);
            w[i] = double(vir);
        }
    }
};

/// f[i] = the sum of the threads' force buffers (after a buffered lj_half).
template <class Real>
struct sum_force_buffers {
    const Real* fbuf; // threads buffers of 3 * n, one after the other
    std::size_t n;
    int threads;
    template <class View>
    LAYOUT_HOST_DEVICE void operator()(const View& a, std::size_t i) const {
        Real fx = 0, fy = 0, fz = 0;
        for (int t = 0; t < threads; ++t) {
            const Real* b = fbuf + std::size_t(t) * 3 * n + 3 * i;
            fx += b[0];
            fy += b[1];
            fz += b[2];
        }
        layout::get<2>(a[i]) = vec3<Real>{fx, fy, fz};
    }
};

/// f = 0 (before the half-list force loop).
template <class Real>
struct clear_forces {
    template <class View>
    LAYOUT_HOST_DEVICE void operator()(const View& a, std::size_t i) const {
        layout::get<2>(a[i]) = vec3<Real>{0, 0, 0};
    }
};

} // namespace md
