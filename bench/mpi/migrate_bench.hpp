/// \file migrate_bench.hpp
/// Migration benchmark: every step, 10% of each rank's N particles (chosen at random) leave for
/// the other ranks, spread evenly so that every rank keeps N. Timed per step (the slowest rank's
/// time; median of the steps, after one warm-up step):
///   raw_alltoallv   hand-written: count by destination, MPI_Alltoall of counts, pack AoS
///                   structs by destination, MPI_Alltoallv of bytes (self included)
///   aos, soa, aosoa32   layout::mpi::migration_plan: update(destinations) + migrate(container)
///   soa xyz         the same plan, only x, y, z travelling (into a separate container)
/// and the bytes on the wire per migrated element. Device mode (migrate_bench_gpu.cu): the same
/// with layout::cuda containers, CUDA-aware and staged, the raw baseline gathering AoS structs
/// with a hand-written kernel.
///
///     mpirun -np 4 ./migrate_bench --n=1000000 --steps=20
#pragma once

#include <layout/layout.hpp>
#include <layout/mpi/mpi.hpp>

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace mpi_bench {

struct Particle {
    float x, y, z, vx, vy, vz, mass, charge;
};

struct options {
    std::size_t n = 200000;
    int steps = 20;
    double fraction = 0.1;
};

inline options parse(int argc, char** argv) {
    options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a.rfind("--n=", 0) == 0)
            o.n = std::stoull(a.substr(4));
        else if (a.rfind("--steps=", 0) == 0)
            o.steps = std::stoi(a.substr(8));
        else if (a.rfind("--fraction=", 0) == 0)
            o.fraction = std::stod(a.substr(11));
    }
    return o;
}

/// Destinations of one step: `fraction` of the elements, chosen at random, go round-robin to the
/// other ranks (so that every rank sends and receives the same number); the rest stay.
inline std::vector<int> destinations(std::size_t n, double fraction, int rank, int size,
                                     std::uint64_t seed) {
    std::vector<int> d(n, rank);
    if (size == 1) return d;
    std::mt19937_64 rng(seed * 7919 + static_cast<std::uint64_t>(rank));
    std::vector<std::size_t> idx(n);
    std::iota(idx.begin(), idx.end(), std::size_t{0});
    std::size_t k = static_cast<std::size_t>(static_cast<double>(n) * fraction);
    k -= k % static_cast<std::size_t>(size - 1);
    for (std::size_t i = 0; i < k; ++i) {
        std::swap(idx[i], idx[i + rng() % (n - i)]);
        d[idx[i]] = (rank + 1 + static_cast<int>(i % static_cast<std::size_t>(size - 1))) % size;
    }
    return d;
}

/// Median over steps of the slowest rank's seconds.
inline double median_of_max(std::vector<double> t) {
    MPI_Allreduce(MPI_IN_PLACE, t.data(), static_cast<int>(t.size()), MPI_DOUBLE, MPI_MAX,
                  MPI_COMM_WORLD);
    std::sort(t.begin(), t.end());
    return t.empty() ? 0 : t[t.size() / 2];
}

inline std::vector<Particle> initial(std::size_t n, int rank) {
    std::vector<Particle> p(n);
    for (std::size_t i = 0; i < n; ++i) {
        const float f = static_cast<float>(i) + 0.5f * static_cast<float>(rank);
        p[i] = {f, f + 1, f + 2, 0.1f, 0.2f, 0.3f, 1.0f, rank % 2 ? 1.0f : -1.0f};
    }
    return p;
}

/// The hand-written baseline on host AoS structs: returns seconds per step.
inline std::vector<double> raw_alltoallv(const options& o,
                                         const std::vector<std::vector<int>>& plan_steps) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<Particle> p = initial(o.n, rank), send(o.n);
    std::vector<int> counts(static_cast<std::size_t>(size)), rcounts(counts), sdispl(counts),
        rdispl(counts), next(counts);
    std::vector<double> times;
    for (int step = 0; step <= o.steps; ++step) {
        const auto& d = plan_steps[static_cast<std::size_t>(step) % plan_steps.size()];
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        std::fill(counts.begin(), counts.end(), 0);
        for (int r : d) ++counts[static_cast<std::size_t>(r)];
        MPI_Alltoall(counts.data(), 1, MPI_INT, rcounts.data(), 1, MPI_INT, MPI_COMM_WORLD);
        int s = 0, rr = 0;
        for (std::size_t r = 0; r < counts.size(); ++r) {
            sdispl[r] = s;
            next[r] = s;
            s += counts[r];
            rdispl[r] = rr;
            rr += rcounts[r];
        }
        send.resize(static_cast<std::size_t>(s));
        for (std::size_t i = 0; i < d.size(); ++i)
            send[static_cast<std::size_t>(next[static_cast<std::size_t>(d[i])]++)] = p[i];
        std::vector<int> sb(counts.size()), sd(counts.size()), rb(counts.size()), rd(counts.size());
        for (std::size_t r = 0; r < counts.size(); ++r) {
            sb[r] = counts[r] * static_cast<int>(sizeof(Particle));
            sd[r] = sdispl[r] * static_cast<int>(sizeof(Particle));
            rb[r] = rcounts[r] * static_cast<int>(sizeof(Particle));
            rd[r] = rdispl[r] * static_cast<int>(sizeof(Particle));
        }
        p.resize(static_cast<std::size_t>(rr));
        MPI_Alltoallv(send.data(), sb.data(), sd.data(), MPI_BYTE, p.data(), rb.data(), rd.data(),
                      MPI_BYTE, MPI_COMM_WORLD);
        const double t1 = MPI_Wtime();
        if (step > 0) times.push_back(t1 - t0);
    }
    return times;
}

/// The travelling fields, named with the plans' keys (none: every field), as one type that the
/// generic helpers below take: migrate / gather through a plan, and the bytes per element on the
/// wire.
template <auto... Keys>
struct fields_by_keys {
    static constexpr std::size_t wire_bytes = layout::mpi::wire_bytes_v<Particle, Keys...>;
    /// Every field: in place; a subset: into out (what does not travel would be lost in place).
    template <class Plan, class C>
    static void migrate(Plan& plan, C& c, C& out) {
        if constexpr (sizeof...(Keys) == 0) {
            plan.migrate(c);
        } else {
            plan.template migrate<Keys...>(c, out);
        }
    }
    template <class Plan, class C>
    static void gather(Plan& plan, C& c) {
        if constexpr (sizeof...(Keys) == 0) {
            plan.gather(c);
        } else {
            plan.template gather<Keys...>(c);
        }
    }
};
using all_fields = fields_by_keys<>;
using xyz = fields_by_keys<&Particle::x, &Particle::y, &Particle::z>;

/// The library on a container C: update + migrate per step. S: the travelling fields, a
/// fields_by_keys (all, or a subset into a separate container). Returns seconds per step.
template <class S, class C, class Prepare>
std::vector<double> library(const options& o, const std::vector<std::vector<int>>& plan_steps, C& c,
                            Prepare prepare, std::size_t* wire_bytes = nullptr) {
    std::vector<double> times;
    layout::mpi::migration_plan plan(MPI_COMM_WORLD, plan_steps[0]);
    prepare(plan);
    C out;
    for (int step = 0; step <= o.steps; ++step) {
        const auto& d = plan_steps[static_cast<std::size_t>(step) % plan_steps.size()];
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        plan.update(d);
        S::migrate(plan, c, out);
#if defined(__CUDACC__)
        if constexpr (!C::memory_type::host_accessible) cudaDeviceSynchronize();
#endif
        const double t1 = MPI_Wtime();
        if (step > 0) times.push_back(t1 - t0);
        if (wire_bytes) *wire_bytes = S::wire_bytes;
    }
    return times;
}

inline void print_row(const char* name, double seconds, double baseline, std::size_t n,
                      std::size_t moved, std::size_t wire) {
    std::printf("%-24s %10.3f ms/step  %6.2fx raw  %8.1f Mparticles/s  %3zu B/migrated element"
                "  %6.2f GB/s sent per rank\n",
                name, seconds * 1e3, baseline > 0 ? seconds / baseline : 0.0,
                static_cast<double>(n) / seconds / 1e6, wire,
                static_cast<double>(moved) * static_cast<double>(wire) / seconds / 1e9);
}

} // namespace mpi_bench
