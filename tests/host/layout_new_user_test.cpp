// Written the way a new user would: one include, plain structs, one generic function, and the
// layout swapped through a template parameter. The results under AoS, SoA and AoSoA<32> must be
// identical to each other and to the same code run on std::vector<T>.

#include <layout/layout.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <random>
#include <span>
#include <vector>

namespace {

struct Particle {
    float x, y, z, vx, vy, vz, mass, charge;
    friend bool operator==(const Particle&, const Particle&) = default;
};

struct Vec3 {
    double x, y, z;
    friend bool operator==(const Vec3&, const Vec3&) = default;
};

struct Atom {
    Vec3 pos;
    Vec3 vel;
    float mass;
    int kind;
    friend bool operator==(const Atom&, const Atom&) = default;
};

// ---- the user's code: one version for every container ---------------------------------------

/// The kernel: takes a view (or a std::span) by value, as a __global__ function would.
template <class View>
void drift(View particles, float dt) {
    for (std::size_t i = 0; i < particles.size(); ++i) {
        auto&& [x, y, z, vx, vy, vz, m, q] = particles[i];
        x += vx * dt;
        y += vy * dt;
        z += vz * dt;
        (void)m, (void)q;
    }
}

template <class View>
void drift_atoms(View atoms, double dt) {
    for (std::size_t i = 0; i < atoms.size(); ++i) {
        auto&& [pos, vel, mass, kind] = atoms[i];
        auto&& [x, y, z] = pos;
        auto&& [vx, vy, vz] = vel;
        x += vx * dt;
        y += vy * dt;
        z += vz * dt;
        if (kind == 2) mass *= 0.5f;
    }
}

Particle make_particle(std::mt19937& g, int id) {
    std::uniform_int_distribution<int> d(-4000, 4000);
    const auto f = [&] { return static_cast<float>(d(g)) / 8.0f; };
    return {
        f(), f(), f(), f(), f(), f(), 1.0f + static_cast<float>(id % 3), static_cast<float>(id)};
}

Atom make_atom(std::mt19937& g, int id) {
    std::uniform_int_distribution<int> d(-4000, 4000);
    const auto f = [&] { return static_cast<double>(d(g)) / 8.0; };
    return {{f(), f(), f()}, {f(), f(), f()}, 2.0f, id % 4};
}

/// std::span of a std::vector, and the view of a layout container: the kernel takes either.
template <class T>
std::span<T> view_of(std::vector<T>& v) {
    return std::span<T>(v);
}
template <class T, class L, class M>
auto view_of(layout::vector<T, L, M>& v) {
    return v.view();
}

/// The whole program, for any container of Particle: drift, sort by x, grow and shrink.
template <class Container>
Container particle_program(Container particles) {
    std::mt19937 g(42);
    for (int step = 0; step < 5; ++step) {
        drift(view_of(particles), 0.25f);
        std::sort(particles.begin(), particles.end(), [](const Particle& a, const Particle& b) {
            return a.x < b.x || (a.x == b.x && a.charge < b.charge); // charge is a unique id
        });
        for (int k = 0; k < 40; ++k) {
            particles.push_back(make_particle(g, 1000 * (step + 1) + k));
            if (k % 3 == 0)
                particles.erase(particles.begin() +
                                static_cast<std::ptrdiff_t>((7 * k + step) % particles.size()));
        }
        particles.erase(particles.begin() + 2, particles.begin() + 10);
        particles.insert(particles.begin() + 1, make_particle(g, -step));
        particles.pop_back();
    }
    return particles;
}

template <class Container>
Container particle_program_through_views(Container particles) {
    for (int step = 0; step < 3; ++step) {
        // a read-only view (or span of const) is enough to compute a total
        double total = 0;
        for (std::size_t i = 0; i < particles.size(); ++i)
            total += static_cast<Particle>(particles[i]).mass;
        drift(view_of(particles), total > 0 ? 0.5f : 0.25f);
        std::stable_sort(particles.begin(), particles.end(),
                         [](const Particle& a, const Particle& b) { return a.vx < b.vx; });
    }
    return particles;
}

template <class Container>
Container atom_program(Container atoms) {
    std::mt19937 g(7);
    for (int step = 0; step < 4; ++step) {
        drift_atoms(view_of(atoms), 0.125);
        std::stable_sort(atoms.begin(), atoms.end(),
                         [](const Atom& a, const Atom& b) { return a.pos.x < b.pos.x; });
        for (int k = 0; k < 25; ++k) {
            atoms.push_back(make_atom(g, k));
            if (k % 4 == 1) atoms.erase(atoms.begin() + static_cast<std::ptrdiff_t>(k));
        }
        atoms.erase(atoms.end() - 3, atoms.end());
        atoms.resize(atoms.size() + 2);
    }
    return atoms;
}

template <class T, class Container>
std::vector<T> to_std_vector(const Container& c) {
    std::vector<T> out;
    for (const T value : c) out.push_back(value);
    return out;
}

// ---- the tests ----------------------------------------------------------------------------------

std::vector<Particle> initial_particles() {
    std::mt19937 g(1);
    std::vector<Particle> v;
    for (int i = 0; i < 300; ++i) v.push_back(make_particle(g, i));
    return v;
}

TEST(new_user, particles_same_result_in_every_layout) {
    const std::vector<Particle> start = initial_particles();

    const std::vector<Particle> expected = particle_program(start);
    ASSERT_GT(expected.size(), 300u);

    const auto aos = particle_program(layout::aos_vector<Particle>(start.begin(), start.end()));
    const auto soa = particle_program(layout::soa_vector<Particle>(start.begin(), start.end()));
    const auto blocks = particle_program(layout::aosoa<Particle, 32>(start.begin(), start.end()));

    EXPECT_EQ(to_std_vector<Particle>(aos), expected);
    EXPECT_EQ(to_std_vector<Particle>(soa), expected);
    EXPECT_EQ(to_std_vector<Particle>(blocks), expected);
    EXPECT_TRUE(aos == soa);
    EXPECT_TRUE(soa == blocks);
    EXPECT_TRUE(std::ranges::equal(aos, expected)); // T has ==, so ranges::equal works
    EXPECT_TRUE(std::equal(blocks.begin(), blocks.end(), expected.begin(), expected.end()));
}

TEST(new_user, particles_through_views) {
    const std::vector<Particle> start = initial_particles();
    const std::vector<Particle> expected = particle_program_through_views(start);
    const auto aos =
        particle_program_through_views(layout::aos_vector<Particle>(start.begin(), start.end()));
    const auto soa =
        particle_program_through_views(layout::soa_vector<Particle>(start.begin(), start.end()));
    const auto blocks =
        particle_program_through_views(layout::aosoa<Particle, 32>(start.begin(), start.end()));
    EXPECT_EQ(to_std_vector<Particle>(aos), expected);
    EXPECT_EQ(to_std_vector<Particle>(soa), expected);
    EXPECT_EQ(to_std_vector<Particle>(blocks), expected);
}

TEST(new_user, nested_structs_same_result_in_every_layout) {
    std::mt19937 g(3);
    std::vector<Atom> start;
    for (int i = 0; i < 200; ++i) start.push_back(make_atom(g, i));

    const std::vector<Atom> expected = atom_program(start);
    const auto aos = atom_program(layout::aos_vector<Atom>(start.begin(), start.end()));
    const auto soa = atom_program(layout::soa_vector<Atom>(start.begin(), start.end()));
    const auto blocks = atom_program(layout::aosoa<Atom, 32>(start.begin(), start.end()));

    EXPECT_EQ(to_std_vector<Atom>(aos), expected);
    EXPECT_EQ(to_std_vector<Atom>(soa), expected);
    EXPECT_EQ(to_std_vector<Atom>(blocks), expected);
    EXPECT_TRUE(aos == blocks);

    // one column of the nested struct, as a user would pull it out for a plot
    const auto y = soa.view().column<&Atom::pos, &Vec3::y>();
    for (std::size_t i = 0; i < expected.size(); ++i) ASSERT_EQ(y[i], expected[i].pos.y);
    const double* contiguous = y.data(); // SoA: a plain array
    EXPECT_EQ(contiguous[5], expected[5].pos.y);
}

TEST(new_user, converting_between_layouts_keeps_everything) {
    const std::vector<Particle> start = initial_particles();
    layout::soa_vector<Particle> host(start.begin(), start.end());
    layout::aosoa<Particle, 32> chunks = host;
    layout::aos_vector<Particle> back = chunks;
    EXPECT_EQ(to_std_vector<Particle>(back), start);
    Particle p = host[7];
    p.x = 1.5f;
    host[7] = p;
    EXPECT_EQ(layout::get<&Particle::x>(host[7]), 1.5f);
    EXPECT_FALSE(host == back);
}

} // namespace
