/// \file domain.hpp
/// The spatial decomposition of md_mpi: the periodic box cut into a px * py * pz grid of equal
/// sub-boxes, one per rank (rank = (cz * py + cy) * px + cx), and the questions the time loop
/// asks of it: which rank owns a position, which ranks are near enough to exchange atoms with,
/// and whether an atom is within reach of another rank's sub-box (then it is a ghost there).
///
///     md::domain d(box, 4, 2.8);          // 4 ranks: a 2 x 2 x 1 grid (least cut area)
///     d.owner(x)                          // the rank whose sub-box holds x
///     d.neighbours(r)                     // ranks whose sub-box is within 2.8 of r's (not r)
///     d.near(x, r)                        // x within 2.8 of r's sub-box, periodic images included
///
/// Distances are periodic: along an axis cut into p sub-boxes a position is at the shortest
/// distance over the images; along an uncut axis (p = 1) every rank spans the whole box, so the
/// distance along it is 0 (the minimum image in the kernels takes care of the periodicity there).
#pragma once

#include "md.hpp"

#include <layout/config.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

namespace md {

/// The grid's arithmetic, a plain struct the GPU can hold too (distributed_gpu.hpp's kernels ask
/// it which rank owns an atom and which ranks it is a ghost on).
struct domain_grid {
    double lo[3], prd[3]; // the box
    int p[3];             // sub-boxes along each axis
    double reach;

    /// The rank that owns a position inside the box.
    LAYOUT_HOST_DEVICE int owner(const double x[3]) const {
        int c[3];
        for (int d = 0; d < 3; ++d) {
            const int k = static_cast<int>((x[d] - lo[d]) / prd[d] * p[d]);
            c[d] = k < 0 ? 0 : (k > p[d] - 1 ? p[d] - 1 : k);
        }
        return (c[2] * p[1] + c[1]) * p[0] + c[0];
    }
    /// Whether position x (inside the box, or a little outside between rebuilds) is within the
    /// reach of rank r's sub-box, at the nearest periodic image.
    LAYOUT_HOST_DEVICE bool near(const double x[3], int r) const {
        const int c[3] = {r % p[0], (r / p[0]) % p[1], r / (p[0] * p[1])};
        double dist_sq = 0;
        for (int d = 0; d < 3; ++d) {
            if (p[d] == 1) continue;
            const double w = prd[d] / p[d], l = prd[d];
            // Position relative to the sub-box's low face, in [0, l).
            double t = std::fmod(x[d] - lo[d] - c[d] * w, l);
            if (t < 0) t += l;
            const double gap = t < w ? 0.0 : (t - w < l - t ? t - w : l - t);
            dist_sq += gap * gap;
        }
        return dist_sq < reach * reach;
    }
};

class domain {
public:
    /// The grid of `ranks` sub-boxes with the least cut area (the surface the ghosts cross), as
    /// LAMMPS's default processor grid; or the grid `procs` when it is given (product == ranks).
    domain(const box& b, int ranks, double reach, std::array<int, 3> procs = {0, 0, 0})
        : box_(b), reach_(reach) {
        if (procs[0] > 0) {
            if (procs[0] * procs[1] * procs[2] != ranks)
                throw input_error("--procs " + std::to_string(procs[0]) + " " +
                                  std::to_string(procs[1]) + " " + std::to_string(procs[2]) +
                                  " makes " + std::to_string(procs[0] * procs[1] * procs[2]) +
                                  " sub-boxes for " + std::to_string(ranks) + " ranks");
            p_ = procs;
        } else {
            double best = -1;
            for (int x = 1; x <= ranks; ++x)
                for (int y = 1; x * y <= ranks; ++y) {
                    if (ranks % (x * y) != 0) continue;
                    const int z = ranks / (x * y);
                    // Cut area: each cut along an axis adds the box's cross-section there.
                    const double area = (x - 1) * b.prd(1) * b.prd(2) +
                                        (y - 1) * b.prd(0) * b.prd(2) +
                                        (z - 1) * b.prd(0) * b.prd(1);
                    if (best < 0 || area < best) best = area, p_ = {x, y, z};
                }
        }
    }

    const std::array<int, 3>& grid() const { return p_; }
    int ranks() const { return p_[0] * p_[1] * p_[2]; }

    /// The rank that owns a position inside the box.
    int owner(const double x[3]) const { return grid_of().owner(x); }

    /// Ranks other than r whose sub-box comes within the reach of r's: the ranks r exchanges
    /// ghosts and migrating atoms with (symmetric: a is b's neighbour if b is a's).
    std::vector<int> neighbours(int r) const {
        std::vector<int> out;
        const auto a = coords(r);
        for (int s = 0; s < ranks(); ++s) {
            if (s == r) continue;
            const auto b = coords(s);
            double gap_sq = 0;
            for (int d = 0; d < 3; ++d) {
                const int apart = std::abs(a[d] - b[d]);
                const int k = std::min(apart, p_[d] - apart); // sub-boxes apart, around the ring
                const double gap = std::max(0, k - 1) * width(d);
                gap_sq += gap * gap;
            }
            if (gap_sq < reach_ * reach_) out.push_back(s);
        }
        return out;
    }

    /// Whether position x is within the reach of rank r's sub-box (domain_grid::near).
    bool near(const double x[3], int r) const { return grid_of().near(x, r); }

    /// The arithmetic of owner and near as a plain struct.
    domain_grid grid_of() const {
        domain_grid g{};
        for (int d = 0; d < 3; ++d) {
            g.lo[d] = box_.lo[d];
            g.prd[d] = box_.prd(d);
            g.p[d] = p_[d];
        }
        g.reach = reach_;
        return g;
    }

private:
    std::array<int, 3> coords(int r) const {
        return {r % p_[0], (r / p_[0]) % p_[1], r / (p_[0] * p_[1])};
    }
    double width(int d) const { return box_.prd(d) / p_[d]; }

    box box_;
    double reach_;
    std::array<int, 3> p_ = {1, 1, 1};
};

} // namespace md
