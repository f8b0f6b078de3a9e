/// \file mpi_test_support.hpp
/// What the MPI tests share: an element with leaves of every size (so that the wire format's
/// alignment order and the AoS padding are exercised), values that any rank can compute for any
/// other rank's element (so that every rank can build the single-rank reference of the whole
/// exchange), and a bit-for-bit comparison leaf by leaf.
///
///     auto p = mpi_test::make(seed, rank, i);     // the same on every rank
///     EXPECT_TRUE(mpi_test::same_bits(p, q));     // every leaf's bytes equal (NaNs included)
#pragma once

#include <layout/layout.hpp>
#include <layout/mpi/mpi.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace mpi_test {

struct Vec3 {
    float x, y, z;
};

/// Leaves of 4, 8, 4, 1, 2 and 8 bytes; 48 bytes with padding under AoS (4 after pos, 1 after
/// kind, 4 after cell), 39 bytes of leaves.
struct Particle {
    Vec3 pos;
    double mass;
    std::int32_t id;
    std::uint8_t kind;
    std::array<std::int16_t, 3> cell;
    std::uint64_t tag;
};

inline std::uint64_t mix(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}
inline std::uint64_t hash(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d = 0) {
    return mix(mix(mix(mix(a) ^ b) ^ c) ^ d);
}

template <class To>
To bits(std::uint64_t h) {
    To t;
    std::memcpy(&t, &h, sizeof(To));
    return t;
}

/// Element i of rank r: random bits in every leaf (NaN patterns included), with the origin in
/// id and tag so that a failure message says where an element came from.
inline Particle make(std::uint64_t seed, int r, std::size_t i) {
    auto h = [&](std::uint64_t k) { return hash(seed, static_cast<std::uint64_t>(r), i, k); };
    Particle p{};
    p.pos = {bits<float>(h(1)), bits<float>(h(2)), bits<float>(h(3))};
    p.mass = bits<double>(h(4));
    p.id = static_cast<std::int32_t>(r * 1000000 + static_cast<int>(i));
    p.kind = bits<std::uint8_t>(h(5));
    p.cell = {bits<std::int16_t>(h(6)), bits<std::int16_t>(h(7)), bits<std::int16_t>(h(8))};
    p.tag = (static_cast<std::uint64_t>(r) << 40) | i;
    return p;
}

template <class T>
bool same_leaf(const T& a, const T& b) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// Every leaf bit for bit (the padding is not compared: it is not data).
inline bool same_bits(const Particle& a, const Particle& b) {
    return same_leaf(a.pos.x, b.pos.x) && same_leaf(a.pos.y, b.pos.y) &&
           same_leaf(a.pos.z, b.pos.z) && same_leaf(a.mass, b.mass) && same_leaf(a.id, b.id) &&
           same_leaf(a.kind, b.kind) && same_leaf(a.cell, b.cell) && same_leaf(a.tag, b.tag);
}

inline std::string describe(const Particle& p) {
    char numbers[160];
    std::snprintf(numbers, sizeof numbers, ", mass %.17g, pos %.9g %.9g %.9g, kind %d}", p.mass,
                  p.pos.x, p.pos.y, p.pos.z, int(p.kind));
    return "{id " + std::to_string(p.id) + ", tag " + std::to_string(p.tag) + numbers;
}

/// Expects container c to hold exactly the elements of expected, in order, bit for bit.
template <class C>
void expect_elements(const C& c, const std::vector<Particle>& expected, const char* what) {
    EXPECT_EQ(c.size(), expected.size()) << what;
    const std::size_t n = c.size() < expected.size() ? c.size() : expected.size();
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const Particle got = c[i];
        if (!same_bits(got, expected[i]) && wrong++ < 3)
            ADD_FAILURE() << what << ": element " << i << " is " << describe(got) << ", expected "
                          << describe(expected[i]);
    }
    EXPECT_EQ(wrong, 0u) << what;
}

inline int world_rank() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}
inline int world_size() {
    int s = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    return s;
}

/// True on every rank if it is true on every rank (so that a test decides the same way on all).
inline bool all_ranks(bool ok) {
    int v = ok ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return v == 1;
}

/// make(neighbours) builds a plan whose neighbour lists are not symmetric (rank 0 names rank 1,
/// which names no rank); every rank must throw layout::mpi::error saying so. Needs 2 ranks.
template <class Make>
void expect_one_way_neighbours_refused(Make make) {
    const std::vector<int> one_way = world_rank() == 0 ? std::vector<int>{1} : std::vector<int>{};
    try {
        make(one_way);
        ADD_FAILURE() << "rank " << world_rank() << " did not throw";
    } catch (const layout::mpi::error& e) {
        EXPECT_NE(std::string(e.what()).find("not symmetric"), std::string::npos) << e.what();
    }
}

} // namespace mpi_test
