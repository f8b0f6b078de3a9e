/// \file io_particles.hpp
/// What the HDF5 tests share (hdf5_test.cpp on the host, hdf5_device_test.cu on the GPU): the
/// particle whose leaves cover every kind of dataset (float, uint64, std::array<double, 2>,
/// bool, int16), element i by the formulas h5py_check.py also computes, random particles, a
/// leafwise bit-for-bit comparison, the write options h5py_check.py checks, temporary files and
/// running a command.
///
///     const auto want = io_test::expected_particles(1001);
///     layout::aosoa<io_test::Particle, 32> p(want.begin(), want.end());
///     EXPECT_TRUE(io_test::same_as(p, want));   // any host container
#pragma once

#include <layout/io/hdf5.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace io_test {

struct Vec3 {
    float x, y, z;
};
struct Particle {
    Vec3 pos;
    Vec3 vel;
    float mass;
    std::uint64_t id;
    std::array<double, 2> w;
    bool alive;
    std::int16_t kind;
};
struct PosId { // what a selection of pos and id reads back into
    Vec3 pos;
    std::uint64_t id;
};

inline auto tie(const Particle& p) {
    return std::tie(p.pos.x, p.pos.y, p.pos.z, p.vel.x, p.vel.y, p.vel.z, p.mass, p.id, p.w[0],
                    p.w[1], p.alive, p.kind);
}

/// Element i, by the formulas h5py_check.py computes too (IEEE arithmetic on both sides).
inline Particle expected_particle(std::size_t i) {
    const float f = static_cast<float>(i);
    Particle p;
    p.pos = {f * 0.25f, -f, static_cast<float>(i % 7)};
    p.vel = {f * 0.5f, 1.0f / static_cast<float>(i + 1), 0.0f};
    p.mass = 1.0f + f / 1024.0f;
    p.id = static_cast<std::uint64_t>(i) * 2654435761u + (std::uint64_t{1} << 40);
    p.w = {static_cast<double>(i) / 3.0, static_cast<double>(i) * 1e-3 - 7.0};
    p.alive = i % 3 == 0;
    p.kind = static_cast<std::int16_t>(static_cast<long>(i * 37 % 65536) - 32768);
    return p;
}
inline std::vector<Particle> expected_particles(std::size_t n) {
    std::vector<Particle> v;
    for (std::size_t i = 0; i < n; ++i) v.push_back(expected_particle(i));
    return v;
}

/// n particles of random bits: any float or double pattern may come (NaNs with payloads,
/// infinities, -0, subnormals), so only copies that move bits, never values, compare equal.
inline std::vector<Particle> random_particles(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 random(seed);
    auto bits = [&](auto& leaf) {
        const std::uint64_t r = random();
        std::memcpy(&leaf, &r, sizeof leaf);
    };
    std::vector<Particle> v(n);
    for (Particle& p : v) {
        std::apply([&](auto&... leaf) { (bits(leaf), ...); },
                   std::tie(p.pos.x, p.pos.y, p.pos.z, p.vel.x, p.vel.y, p.vel.z, p.mass, p.id,
                            p.w[0], p.w[1], p.kind));
        p.alive = (random() & 1) != 0; // a bool holds 0 or 1, nothing else
    }
    return v;
}

/// Leafwise, bit for bit (memcmp of each leaf: -0.0 and NaN payloads count), for any host
/// container or view.
template <class C>
::testing::AssertionResult same_as(const C& c, const std::vector<Particle>& want) {
    if (c.size() != want.size())
        return ::testing::AssertionFailure() << "size " << c.size() << ", want " << want.size();
    for (std::size_t i = 0; i < want.size(); ++i) {
        const Particle got = c[i];
        bool same = true;
        std::apply(
            [&](const auto&... g) {
                std::apply(
                    [&](const auto&... w) {
                        ((same = same && std::memcmp(&g, &w, sizeof(g)) == 0), ...);
                    },
                    tie(want[i]));
            },
            tie(got));
        if (!same) return ::testing::AssertionFailure() << "element " << i << " differs";
    }
    return ::testing::AssertionSuccess();
}

class temp_file {
public:
    explicit temp_file(const std::string& stem)
        : path_((std::filesystem::temp_directory_path() /
                 ("layout_io_" + stem + "_" + std::to_string(::getpid()) + ".h5"))
                    .string()) {}
    temp_file(const temp_file&) = delete;
    temp_file& operator=(const temp_file&) = delete;
    ~temp_file() { std::filesystem::remove(path_); }
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

/// What h5py_check.py's check expects of the iteration and the records.
inline layout::hdf5::write_options test_options() {
    layout::hdf5::write_options o;
    o.iteration = 7;
    o.species = "electrons";
    o.time = 2.5;
    o.dt = 0.5;
    o.time_unit_si = 1e-15;
    o.units["pos"] = {1e-6, {1, 0, 0, 0, 0, 0, 0}};
    o.units["mass"] = {1.0, {0, 1, 0, 0, 0, 0, 0}};
    o.chunk_elements = 100; // several blocks per leaf in the transposing layouts
    return o;
}

/// Runs a command, returning its exit status and what it printed.
inline std::pair<int, std::string> run(const std::string& command) {
    std::string out;
    FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
    if (!pipe) return {-1, out};
    char buffer[4096];
    std::size_t got;
    while ((got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, got);
    const int status = ::pclose(pipe);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

/// Replaces dataset name under group by one of type and length n, filled with zeros.
inline void replace_dataset(hid_t group, const char* name, hid_t type, hsize_t n) {
    H5Ldelete(group, name, H5P_DEFAULT);
    layout::hdf5::handle space(H5Screate_simple(1, &n, nullptr));
    layout::hdf5::handle d(
        H5Dcreate2(group, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    std::vector<std::byte> zeros(n * H5Tget_size(type));
    H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, zeros.data());
}

} // namespace io_test
