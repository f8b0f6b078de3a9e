// layout::advise: the trace (reads and writes per leaf, index patterns) against counts written out
// by hand for known functors, the sector arithmetic against the canonical cases, the ranking, and
// the predicted time ratios against the H100 measurements the model was built from.
#include <layout/advise.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace {

struct Particle {
    float x, y, z, vx, vy, vz, mass, charge; // 32 bytes, leaves 0..7
};
struct Vec3 {
    float x, y, z;
};
/// 64 bytes: pos 0-2, vel 3-5, force 6-8, mass 9, charge 10, energy 11, id 12, type 13, cell 14,
/// flags 15.
struct Wide {
    Vec3 pos, vel, force;
    float mass, charge, energy;
    std::int32_t id, type, cell, flags;
};
static_assert(sizeof(Wide) == 64);
/// Nested struct and std::array members: pos 0-2, vel 3-5, id 6, pair 7-12, w 13.
struct Body {
    Vec3 pos;
    std::array<float, 3> vel;
    int id;
    std::array<Vec3, 2> pair;
    double w;
};

struct drift {
    float dt;
    template <class View>
    void operator()(const View& p, std::size_t i) const {
        auto&& [x, y, z, vx, vy, vz, m, q] = p[i];
        x += vx * dt;
        y += vy * dt;
        z += vz * dt;
    }
};

struct scale_mass {
    float c;
    template <class View>
    void operator()(const View& p, std::size_t i) const {
        using T = typename View::value_type;
        layout::get<&T::mass>(p[i]) *= c;
    }
};

struct wide_drift {
    float dt;
    template <class View>
    void operator()(const View& p, std::size_t i) const {
        auto&& [px, py, pz] = layout::get<&Wide::pos>(p[i]);
        auto&& [vx, vy, vz] = layout::get<&Wide::vel>(p[i]);
        px += vx * dt;
        py += vy * dt;
        pz += vz * dt;
    }
};

/// The particles example's integrate, trimmed: fields passed on as float& and int&, a field
/// written but never read (energy), one only compared (cell), one never touched (id).
struct most_fields {
    float dt = 1e-3f, k = 0.25f;
    static void kick(float& v, float f, float kick) { v += f * kick; }
    template <class View>
    void operator()(const View& p, std::size_t i) const {
        auto&& [pos, vel, force, mass, charge, energy, id, type, cell, flags] = p[i];
        auto&& [px, py, pz] = pos;
        auto&& [vx, vy, vz] = vel;
        auto&& [fx, fy, fz] = force;
        const std::int32_t c = static_cast<std::int32_t>(px) & 1023;
        flags = c != cell ? (flags | 1) : (flags & ~1);
        cell = c;
        const float kk = dt / mass;
        kick(vx, fx, kk);
        kick(vy, fy, kk);
        kick(vz, fz, kk);
        px += vx * dt;
        py += vy * dt;
        pz += vz * dt;
        const float s = (type & 1) ? 2 * k : k;
        fx = charge - s * px;
        fy = charge - s * py;
        fz = charge - s * pz;
        energy = 0.5f * mass * (vx * vx + vy * vy + vz * vz);
    }
};

/// Reads x, y, z of four elements found through an index array; writes its own vx, vy, vz.
struct gather_neighbours {
    const std::uint32_t* idx;
    template <class View>
    void operator()(const View& p, std::size_t i) const {
        auto&& [x, y, z, vx, vy, vz, m, q] = p[i];
        for (std::size_t k = 0; k < 4; ++k) {
            const Particle n = p[idx[4 * i + k]];
            vx += n.x - x;
            vy += n.y - y;
            vz += n.z - z;
        }
    }
};

/// Reads the next element's x (a stencil).
struct next_x {
    template <class View>
    void operator()(const View& p, std::size_t i) const {
        layout::get<&Particle::charge>(p[i]) = layout::get<&Particle::x>(p[i + 1]) - p[i].load().x;
    }
};

/// Nested struct, scalar std::array element, std::array of structs.
struct nested_access {
    template <class View>
    void operator()(const View& v, std::size_t i) const {
        auto&& [pos, vel, id, pair, w] = v[i];
        auto&& [px, py, pz] = pos;
        px += vel[0];
        auto&& [qx, qy, qz] = layout::get<1>(pair);
        qy = static_cast<float>(w);
    }
};

/// Whole-element load (only x and y used) and whole-element store (every leaf).
struct whole_element {
    template <class View>
    void operator()(const View& v, std::size_t i) const {
        const Particle p = v[i];
        v[i] = Particle{p.x + p.y, 1, 2, 3, 4, 5, 6, 7};
    }
};

/// A sum into a captured pointer: its only effect is outside the view.
struct sum_x {
    double* total;
    template <class View>
    void operator()(const View& v, std::size_t i) const {
        *total += layout::get<0>(v[i]);
    }
};

std::vector<std::uint32_t> random_indices(std::size_t count, std::size_t below) {
    std::mt19937_64 rng(7);
    std::vector<std::uint32_t> v(count);
    for (auto& x : v) x = static_cast<std::uint32_t>(rng() % below);
    return v;
}

constexpr layout::advisor::pattern self = layout::advisor::pattern::self;
constexpr layout::advisor::pattern neighbour = layout::advisor::pattern::neighbour;
constexpr layout::advisor::pattern indexed = layout::advisor::pattern::indexed;

// ---- the trace --------------------------------------------------------------------------------

TEST(advise_trace, drift_reads_six_leaves_and_writes_three) {
    const auto t = layout::advisor::trace<Particle>(drift{0.5f});
    const std::array<double, 8> reads{1, 1, 1, 1, 1, 1, 0, 0}, writes{1, 1, 1, 0, 0, 0, 0, 0};
    for (std::size_t l = 0; l < 8; ++l) {
        EXPECT_EQ(t.reads(l), reads[l]) << "leaf " << l;
        EXPECT_EQ(t.writes(l), writes[l]) << "leaf " << l;
    }
    EXPECT_EQ(t.leaves_read(), 6u);
    EXPECT_EQ(t.leaves_written(), 3u);
    EXPECT_FALSE(t.has(neighbour));
    EXPECT_FALSE(t.has(indexed));
    EXPECT_FALSE(t.writes_outside);
}

TEST(advise_trace, tiny_time_step_still_reads_velocity) {
    // x + vx * 1e-12 rounds to x for moderate x; the baseline with zero floats still shows vx.
    const auto t = layout::advisor::trace<Particle>(drift{1e-12f});
    EXPECT_EQ(t.reads(3), 1.0);
    EXPECT_EQ(t.leaves_read(), 6u);
}

/// v += (q / m) * e: a division by a field, and a component the parameters make a no-op.
struct kick {
    float ex, ey;
    template <class View>
    void operator()(const View& p, std::size_t i) const {
        auto&& [x, y, z, vx, vy, vz, m, q] = p[i];
        vx += q / m * ex;
        vy += q / m * ey;
    }
};

TEST(advise_trace, division_by_a_field_and_a_no_op_update) {
    // No baseline starts a field at zero, so q / m stays finite and vy + (q / m) * 0 stays vy:
    // the no-op is seen as no access (documented), rather than as a write of a NaN.
    const auto t = layout::advisor::trace<Particle>(kick{0.5f, 0.0f});
    for (std::size_t l = 0; l < 8; ++l) {
        EXPECT_EQ(t.reads(l), l == 3 || l == 6 || l == 7 ? 1.0 : 0.0) << "leaf " << l;
        EXPECT_EQ(t.writes(l), l == 3 ? 1.0 : 0.0) << "leaf " << l;
    }
    const auto both = layout::advisor::trace<Particle>(kick{0.5f, 0.25f});
    EXPECT_EQ(both.reads(4), 1.0);
    EXPECT_EQ(both.writes(4), 1.0);
}

/// Looks a per-species constant up by an integer field, as MD kernels do (params[type - 1]);
/// std::array::at throws where a traced value takes the index out of range.
struct species_kick {
    std::array<float, 2> charge_over_mass;
    template <class View>
    void operator()(const View& p, std::size_t i) const {
        auto&& [pos, vel, force, mass, charge, energy, id, type, cell, flags] = p[i];
        vel.load(); // a whole-struct load, unused: no access
        layout::get<0>(vel) +=
            charge_over_mass.at(static_cast<std::size_t>(type - 1)) * force.load().x;
    }
};

TEST(advise_trace, sample_elements_keep_integer_fields_in_range) {
    std::vector<Wide> sample(16);
    for (std::size_t k = 0; k < sample.size(); ++k) {
        sample[k] = Wide{};
        sample[k].pos = {float(k), 1, 2};
        sample[k].vel = {0.5f * float(k) + 1, 0, 0};
        sample[k].force = {1.5f + float(k), 0, 0};
        sample[k].type = 1 + static_cast<std::int32_t>(k % 2); // species 1 and 2
    }
    const species_kick f{{0.5f, -2.0f}};
    const auto t = layout::advisor::trace<Wide>(f, std::span<const Wide>(sample));
    for (std::size_t l = 0; l < 16; ++l) {
        EXPECT_EQ(t.reads(l), l == 3 || l == 6 || l == 13 ? 1.0 : 0.0) << "leaf " << l;
        EXPECT_EQ(t.writes(l), l == 3 ? 1.0 : 0.0) << "leaf " << l;
    }
    const auto a = layout::advise<Wide>(f, std::span<const Wide>(sample));
    EXPECT_EQ(a.best().layout, "soa");
    EXPECT_EQ(a.costs.back().layout, "aos");
}

TEST(advise_trace, member_pointer_access_on_both_structs) {
    const auto p = layout::advisor::trace<Particle>(scale_mass{0.5f});
    EXPECT_EQ(p.reads(6), 1.0);
    EXPECT_EQ(p.writes(6), 1.0);
    EXPECT_EQ(p.leaves_read(), 1u);
    EXPECT_EQ(p.leaves_written(), 1u);
    const auto w = layout::advisor::trace<Wide>(scale_mass{0.5f});
    EXPECT_EQ(w.reads(9), 1.0);
    EXPECT_EQ(w.writes(9), 1.0);
    EXPECT_EQ(w.leaves_read(), 1u);
}

TEST(advise_trace, fields_passed_on_by_reference_as_the_compiler_sees_them) {
    // 14 loads and 12 stores: what nvcc emits for the particles example's integrate (sass.txt).
    const auto t = layout::advisor::trace<Wide>(most_fields{});
    const std::array<int, 16> reads{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1};
    const std::array<int, 16> writes{1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 1, 1};
    for (std::size_t l = 0; l < 16; ++l) {
        EXPECT_EQ(t.reads(l), reads[l]) << "leaf " << l;
        EXPECT_EQ(t.writes(l), writes[l]) << "leaf " << l;
    }
    EXPECT_EQ(t.leaves_read(), 14u);
    EXPECT_EQ(t.leaves_written(), 12u);
}

TEST(advise_trace, nested_structs_and_arrays) {
    const auto t = layout::advisor::trace<Body>(nested_access{});
    for (std::size_t l = 0; l < 14; ++l) {
        EXPECT_EQ(t.reads(l), l == 0 || l == 3 || l == 13 ? 1.0 : 0.0) << "leaf " << l;
        EXPECT_EQ(t.writes(l), l == 0 || l == 11 ? 1.0 : 0.0) << "leaf " << l;
    }
}

TEST(advise_trace, whole_element_load_and_store) {
    const auto t = layout::advisor::trace<Particle>(whole_element{});
    for (std::size_t l = 0; l < 8; ++l) {
        EXPECT_EQ(t.reads(l), l < 2 ? 1.0 : 0.0) << "leaf " << l;
        EXPECT_EQ(t.writes(l), 1.0) << "leaf " << l;
    }
}

TEST(advise_trace, gather_through_an_index_array_is_indexed) {
    const std::size_t n = 4096;
    const auto idx = random_indices(4 * n, n);
    layout::advisor::trace_options opt;
    opt.size = n;
    const auto t = layout::advisor::trace<Particle>(gather_neighbours{idx.data()}, opt);
    EXPECT_TRUE(t.has(indexed));
    EXPECT_FALSE(t.has(neighbour));
    for (std::size_t l = 0; l < 8; ++l) {
        // four gathered elements per call (an index may repeat i itself: allow for it)
        EXPECT_NEAR(t.reads(l, indexed), l < 3 ? 4.0 : 0.0, 0.2) << "leaf " << l;
        EXPECT_EQ(t.writes(l, indexed), 0.0) << "leaf " << l;
        EXPECT_EQ(t.reads(l, self), l < 6 ? 1.0 : 0.0) << "leaf " << l;
        EXPECT_EQ(t.writes(l, self), l >= 3 && l < 6 ? 1.0 : 0.0) << "leaf " << l;
    }
}

TEST(advise_trace, fixed_offset_is_a_neighbour) {
    const auto t = layout::advisor::trace<Particle>(next_x{});
    ASSERT_TRUE(t.has(neighbour));
    EXPECT_FALSE(t.has(indexed));
    for (const auto& a : t.accesses)
        if (a.pattern == neighbour) {
            EXPECT_EQ(a.offset, 1);
            EXPECT_EQ(a.leaf, 0u);
            EXPECT_EQ(a.reads, 1.0);
        }
    EXPECT_EQ(t.reads(0, self), 1.0);
    EXPECT_EQ(t.writes(7, self), 1.0);
}

TEST(advise_trace, writes_outside_the_view_count_what_was_reached) {
    double total = 0;
    const auto t = layout::advisor::trace<Particle>(sum_x{&total});
    EXPECT_TRUE(t.writes_outside);
    EXPECT_EQ(t.reads(0), 1.0);
    EXPECT_EQ(t.leaves_read(), 1u);
}

// ---- the costs ----------------------------------------------------------------------------------

TEST(advise_cost, granule_lists_sort_as_std_sort_does) {
    // The simulation's lists arrive as ascending runs, one per access; sort_runs merges them.
    // Against std::sort: runs of random lengths (empty, one, many, equal values across runs),
    // pairs (the written masks), and lists in no order at all.
    std::mt19937_64 rng(11);
    for (int round = 0; round < 300; ++round) {
        const std::size_t runs = round % 40, spread = 1 + round % 7;
        std::vector<std::uint64_t> v;
        std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs;
        for (std::size_t r = 0; r < runs; ++r) {
            std::uint64_t at = rng() % 1000;
            for (std::size_t k = rng() % 50; k > 0; --k, at += rng() % spread) {
                v.push_back(at);
                pairs.push_back({at / 2, rng() % 4});
            }
        }
        if (round % 5 == 4) std::shuffle(v.begin(), v.end(), rng);
        auto expected = v;
        std::sort(expected.begin(), expected.end());
        layout::advisor::detail::sort_runs(v);
        EXPECT_EQ(v, expected) << "round " << round;
        auto expected_pairs = pairs;
        std::sort(expected_pairs.begin(), expected_pairs.end());
        layout::advisor::detail::sort_runs(pairs);
        EXPECT_EQ(pairs, expected_pairs) << "round " << round;
    }
}

TEST(advise_cost, one_four_byte_field_of_a_32_byte_struct_moves_8x_under_aos) {
    const auto a = layout::advise<Particle>(scale_mass{0.5f});
    EXPECT_DOUBLE_EQ(a["aos"].sector_bytes, 64.0); // one sector in, one out
    EXPECT_DOUBLE_EQ(a["soa"].sector_bytes, 8.0);
    EXPECT_DOUBLE_EQ(a["aosoa32"].sector_bytes, 8.0);
    EXPECT_DOUBLE_EQ(a["aos"].sector_bytes / a["soa"].sector_bytes, 8.0);
    // what ncu counts: a warp's 4-byte loads 32 bytes apart touch 32 sectors, coalesced 4
    EXPECT_DOUBLE_EQ(a["aos"].l1_sectors_ld, 1.0);
    EXPECT_DOUBLE_EQ(a["aos"].l1_sectors_st, 1.0);
    EXPECT_DOUBLE_EQ(a["soa"].l1_sectors_ld, 0.125);
    EXPECT_DOUBLE_EQ(a["soa"].l1_sectors_st, 0.125);
    EXPECT_DOUBLE_EQ(a["aos"].instructions, 2.0);
    EXPECT_DOUBLE_EQ(a["soa"].instructions, 2.0);
    EXPECT_DOUBLE_EQ(a["aos"].cpu_line_bytes, 64.0); // two elements per line, both used
}

TEST(advise_cost, a_64_byte_struct_reads_its_unused_half_too_from_dram) {
    const auto a = layout::advise<Wide>(scale_mass{0.5f});
    EXPECT_DOUBLE_EQ(a["aos"].sector_bytes, 64.0); // sectors: still one in, one out
    // DRAM reads 64-byte atoms (the whole element), writes 32-byte sectors: 96 as ncu counts them,
    // in the time of 128 (the written sector's atom is only half written)
    EXPECT_DOUBLE_EQ(a["aos"].dram_bytes, 96.0);
    EXPECT_NEAR(a["aos"].dram_time_bytes, 128.0, 0.1);
    const auto p = layout::advise<Particle>(scale_mass{0.5f});
    EXPECT_DOUBLE_EQ(p["aos"].dram_bytes, 64.0); // every sector touched: nothing more to read
    EXPECT_DOUBLE_EQ(a["aos"].cpu_line_bytes, 128.0);
    EXPECT_DOUBLE_EQ(a["soa"].sector_bytes, 8.0);
}

TEST(advise_cost, gathered_leaves_share_a_sector_under_aos_only) {
    const std::size_t n = 4096;
    const auto idx = random_indices(4 * n, n);
    layout::advise_options opt;
    opt.trace.size = n;
    const auto a = layout::advise<Particle>(gather_neighbours{idx.data()}, opt);
    // x, y, z of a gathered Particle: 1 sector under AoS, 3 under SoA; four gathers per element
    const auto gathered = [&](const char* name) {
        const auto& c = a[name];
        layout::advisor::access_trace<Particle> self_only;
        for (const auto& x : a.trace.accesses)
            if (x.pattern == self) self_only.accesses.push_back(x);
        const auto g = name == std::string("aos")
                           ? layout::advisor::geometry_of<Particle, layout::policy::aos>()
                           : layout::advisor::geometry_of<Particle, layout::policy::soa>();
        return c.sector_bytes -
               layout::advisor::cost_of(self_only, g, opt.gpu, opt.cpu).sector_bytes;
    };
    EXPECT_NEAR(gathered("aos") / 32, 4.0, 0.25);
    EXPECT_NEAR(gathered("soa") / 32, 12.0, 0.75);
    // a random 4-byte load touches one sector per thread whatever the layout
    EXPECT_GT(a["soa"].l1_sectors_ld, 12.0);
}

// ---- the ranking, and the H100 measurements -----------------------------------------------------

TEST(advise_rank, soa_first_and_aos_last_for_the_particle_kernels) {
    const auto d = layout::advise<Particle>(drift{0.5f});
    EXPECT_EQ(d.best().layout, "soa");
    EXPECT_EQ(d.costs.back().layout, "aos");
    const auto o = layout::advise<Particle>(scale_mass{0.5f});
    // the proposed split keeps mass alone in its first part: a column like SoA's, as fast
    ASSERT_EQ(o.costs.size(), 4u);
    EXPECT_EQ(o.costs[0].layout, "soa");
    EXPECT_EQ(o.costs[1].layout, "split");
    EXPECT_DOUBLE_EQ(o.costs[1].gpu_seconds, o.costs[0].gpu_seconds);
    EXPECT_EQ(o.costs[2].layout, "aosoa32");
    EXPECT_EQ(o.costs[3].layout, "aos");
    const auto m = layout::advise<Wide>(most_fields{});
    EXPECT_GT(m.ratio("aos", "soa"), 1.3);
    EXPECT_GT(m.ratio("aos", "aosoa32"), 1.3);
    // by bytes AoS is hardly penalised (128 B against 104); its accesses over 16 lines each are
    // what make it slow, even merged into 9 vector ones (from 26 scalar)
    EXPECT_LT(m["aos"].dram_bytes / m["soa"].dram_bytes, 1.3);
    EXPECT_TRUE(m["aos"].request_bound);
    EXPECT_FALSE(m["soa"].request_bound);
}

TEST(advise_rank, predicted_ratios_within_25_percent_of_the_h100) {
    // bench/results/advise-2026-11-26/particles/particles.txt: library time / library SoA time,
    // one element per thread, with the AoS kernels' vector accesses (issue #19)
    struct expectation {
        double predicted, measured;
        const char* what;
    };
    const auto d = layout::advise<Particle>(drift{1e-3f});
    const auto o = layout::advise<Particle>(scale_mass{0.999f});
    const auto w = layout::advise<Wide>(wide_drift{1e-3f});
    const auto ow = layout::advise<Wide>(scale_mass{0.999f});
    const auto m = layout::advise<Wide>(most_fields{});
    const expectation cases[] = {
        {d.ratio("aos", "soa"), 1.73, "drift aos"},
        {d.ratio("aosoa32", "soa"), 0.99, "drift aosoa32"},
        {o.ratio("aos", "soa"), 6.33, "one_field aos"},
        {o.ratio("aosoa32", "soa"), 1.18, "one_field aosoa32"},
        {w.ratio("aos", "soa"), 3.46, "wide_drift aos"},
        {w.ratio("aosoa32", "soa"), 1.01, "wide_drift aosoa32"},
        {ow.ratio("aos", "soa"), 12.18, "one_field wide aos"},
        {ow.ratio("aosoa32", "soa"), 1.20, "one_field wide aosoa32"},
        {m.ratio("aos", "soa"), 1.77, "most_fields aos"},
        {m.ratio("aosoa32", "soa"), 1.00, "most_fields aosoa32"},
    };
    for (const auto& c : cases)
        EXPECT_NEAR(c.predicted / c.measured, 1.0, 0.25)
            << c.what << ": predicted " << c.predicted << ", measured " << c.measured;
}

/// What advice.print(f, name) writes.
template <class Advice>
std::string printed(const Advice& advice, const char* name) {
    char buf[8192] = {};
    std::FILE* f = fmemopen(buf, sizeof buf - 1, "w");
    if (f == nullptr) return "fmemopen failed";
    advice.print(f, name);
    std::fclose(f);
    return buf;
}

TEST(advise_print, names_the_winner_and_why) {
    const std::string out = printed(layout::advise<Wide>(most_fields{}), "most_fields");
    EXPECT_NE(out.find("recommended: soa"), std::string::npos) << out;
    EXPECT_NE(out.find("bound by memory requests"), std::string::npos) << out;
    EXPECT_NE(out.find("reads 14 leaves, writes 12"), std::string::npos) << out;
}

// The report names the leaves a functor reads and writes (names.hpp), in leaf order.
TEST(advise_print, names_the_leaves_read_and_written) {
    const std::string out = printed(layout::advise<Particle>(drift{0.5f}), "drift");
    EXPECT_NE(out.find("reads x, y, z, vx, vy, vz; writes x, y, z"), std::string::npos) << out;
}

} // namespace

// ---- real indices, consecutive calls (trace_options::first) ---------------------------------------

namespace {
/// p[i].x += p[nbr[i]].y: each call gathers one element through an index array of its own.
struct gather_one {
    const std::uint32_t* nbr;
    template <class View>
    void operator()(const View& p, std::size_t i) const {
        layout::get<0>(p[i]) += layout::get<1>(p[nbr[i]]);
    }
};
struct gather_all {
    const std::uint32_t* idx;
    template <class View>
    void operator()(const View& p, std::size_t i) const {
        p[i] = p[idx[i]].load();
    }
};
struct scatter_all {
    const std::uint32_t* idx;
    template <class View>
    void operator()(const View& p, std::size_t i) const {
        p[idx[i]] = p[i].load();
    }
};
} // namespace

TEST(advise_real_indices, sectors_from_the_real_j_of_a_warp) {
    // Four consecutive calls share each neighbour (nbr[i] = i / 4): a warp gathers 8 elements,
    // under SoA 8 floats in one sector, under AoS 8 sectors; random indices would touch 32.
    const std::size_t n = 4096;
    std::vector<std::uint32_t> nbr(n);
    for (std::size_t i = 0; i < n; ++i) nbr[i] = static_cast<std::uint32_t>(i / 4);
    std::vector<Particle> all(n);
    for (std::size_t i = 0; i < n; ++i) all[i] = Particle{1.f + i, 2.f + i, 3, 4, 5, 6, 7, 8};
    layout::advise_options opt;
    opt.trace.size = n;
    opt.trace.first = 1024;
    opt.trace.samples = 64;
    const auto a =
        layout::advise<Particle>(gather_one{nbr.data()}, std::span<const Particle>(all), opt);
    ASSERT_EQ(a.trace.indexed_j.size(), 64u);
    EXPECT_EQ(a.trace.indexed_j[5][0], (1024u + 5) / 4);
    EXPECT_DOUBLE_EQ(a.trace.reads(1, layout::advisor::pattern::indexed), 1.0);
    // soa: self x ld 0.125 + gathered y: 1 sector per warp / 32
    EXPECT_NEAR(a["soa"].l1_sectors_ld, 0.125 + 1.0 / 32, 1e-9);
    EXPECT_NEAR(a["aos"].l1_sectors_ld, 1.0 + 8.0 / 32, 1e-9);
    // without real indices the same functor's gather counts 32 sectors per warp
    layout::advise_options spread = opt;
    spread.trace.first = layout::advisor::trace_options::spread;
    const auto b = layout::advise<Particle>(gather_one{nbr.data()}, spread);
    EXPECT_NEAR(b["soa"].l1_sectors_ld, 0.125 + 1.0, 1e-9);
}

TEST(advise_vectors, whole_elements_move_in_16_byte_chunks_under_aos) {
    std::vector<std::uint32_t> perm(1 << 12);
    std::iota(perm.begin(), perm.end(), 0u);
    std::shuffle(perm.begin(), perm.end(), std::mt19937(7));
    layout::advise_options opt;
    opt.trace.size = perm.size();
    opt.gpu.vector_bytes = 16;
    const auto a = layout::advise<Particle>(gather_all{perm.data()}, opt);
    EXPECT_DOUBLE_EQ(a["aos"].instructions, 4.0);   // two 16-byte loads and two stores
    EXPECT_NEAR(a["aos"].l1_sectors_ld, 2.0, 1e-9); // two 16-byte loads, 32 sectors each / 32
    EXPECT_NEAR(a["soa"].l1_sectors_ld, 8.0, 1e-9); // eight 4-byte loads of random elements
    EXPECT_EQ(a.best().layout, "aos");
}

TEST(advise_rmw, partial_random_writes_read_their_atom_first) {
    std::vector<std::uint32_t> perm(1 << 12);
    std::iota(perm.begin(), perm.end(), 0u);
    std::shuffle(perm.begin(), perm.end(), std::mt19937(7));
    layout::advise_options opt;
    opt.trace.size = perm.size();
    const auto a = layout::advise<Particle>(scatter_all{perm.data()}, opt);
    // soa: 32 B read as a stream; 8 random 4-byte writes, each a 64-byte atom read and written
    EXPECT_NEAR(a["soa"].dram_bytes, 32 + 8 * 32 + 8 * 64, 1.0);
}

// ---- vector accesses: an element's adjacent leaves merged as nvcc merges them ---------------------

namespace {

struct Vec3d {
    double x, y, z;
};
/// examples/md's atom<double>: x 0-2 (bytes 0-23), v 3-5 (24-47), f 6-8 (48-71), type 9 (72),
/// id 10 (76); 80 bytes, so the library claims 16-byte alignment, which ptxas cannot see.
struct Atom {
    Vec3d x, v, f;
    int type, id;
};
static_assert(sizeof(Atom) == 80);

/// (byte offset in the element, bytes) of each access, in address order.
using access_list = std::vector<std::pair<std::size_t, std::size_t>>;

template <class T, class L = layout::policy::aos>
access_list merged(std::vector<std::size_t> leaves, bool loads) {
    const auto g = layout::advisor::geometry_of<T, L>();
    const std::size_t base = g.offset(std::size_t{1} << 20, 0, g.capacity);
    access_list out;
    for (const auto& m : layout::advisor::detail::merge_accesses(leaves, g, loads))
        out.push_back({g.offset(std::size_t{1} << 20, m.first, g.capacity) - base, m.bytes});
    return out;
}

} // namespace

TEST(advise_vectors, what_nvcc_knows_of_each_leaf_alignment) {
    const auto wide = layout::advisor::geometry_of<Wide, layout::policy::aos>();
    // 64-byte stride: 16-byte claim; pos.x at 0 16-aligned, but vel.y at 16 only 4 (vel, at 12,
    // is 4-aligned: a chain from pos.x gives it 16 again, see merge_accesses)
    EXPECT_EQ(wide.known_alignment[0], 16u);
    EXPECT_EQ(wide.known_alignment[4], 4u);
    EXPECT_EQ(wide.known_alignment[1], 4u);
    EXPECT_EQ(wide.known_alignment[14], 8u); // cell at 56
    EXPECT_EQ(wide.address_alignment, 16u);
    const auto atom = layout::advisor::geometry_of<Atom, layout::policy::aos>();
    // v at 24 is 8-aligned, and so are its members, v.y at 32 included; f.x at 48 is 16-aligned
    EXPECT_EQ(atom.known_alignment[3], 8u);
    EXPECT_EQ(atom.known_alignment[4], 8u);
    EXPECT_EQ(atom.known_alignment[6], 16u);
    EXPECT_EQ(atom.known_alignment[1], 8u);
    EXPECT_EQ(atom.address_alignment, 0u); // index times 80: ptxas sees no alignment
    // soa: one leaf per column, nothing to merge: the leaf's own alignment
    const auto soa = layout::advisor::geometry_of<Wide, layout::policy::soa>();
    EXPECT_EQ(soa.known_alignment[0], 4u);
}

TEST(advise_vectors, wide_particle_integrate_as_its_sass) {
    // reads every leaf but id (12), writes pos, vel, force, energy, cell, flags. PTX: ld.v4 [0],
    // [16], [32], ld.u32 [52], ld.v2 [56]; SASS (bench/results/h100-2026-11-24-beyond/
    // sass_vector_widths.txt): LDG.E.128 x4, ptxas making one of the last two (bytes 48-63)
    const access_list loads =
        merged<Wide>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15}, true);
    EXPECT_EQ(loads, (access_list{{0, 16}, {16, 16}, {32, 16}, {52, 12}}));
    // st.v4 [0], st.v4 [16], st.f32 [32], st.f32 [44], st.v2 [56]: STG.E.128 x2, .64, .32 x2
    const access_list stores = merged<Wide>({0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 14, 15}, false);
    EXPECT_EQ(stores, (access_list{{0, 16}, {16, 16}, {32, 4}, {44, 4}, {56, 8}}));
}

TEST(advise_vectors, drift_reads_two_vectors_and_writes_one_and_a_scalar) {
    // Particle and WideParticle alike: x..vz read (0-23), x y z written (0-11)
    const access_list loads{{0, 16}, {16, 8}}, stores{{0, 8}, {8, 4}};
    EXPECT_EQ(merged<Particle>({0, 1, 2, 3, 4, 5}, true), loads);
    EXPECT_EQ(merged<Particle>({0, 1, 2}, false), stores);
    EXPECT_EQ(merged<Wide>({0, 1, 2, 3, 4, 5}, true), loads);
    // a load may read a 12-byte run's tail up to 16 aligned bytes (x y z: ld.v4 [0]), a store not
    EXPECT_EQ(merged<Particle>({0, 1, 2}, true), (access_list{{0, 16}}));
    // y..vy (4-19): PTX has y alone (4-aligned), z vx one 8-byte access, vy alone; ptxas, which
    // sees the 32-byte stride's alignment, makes y and z vx one load of bytes 0-15 (as it does
    // with integrate's bytes 52-63); stores stay as PTX has them
    EXPECT_EQ(merged<Particle>({1, 2, 3, 4}, true), (access_list{{4, 12}, {16, 4}}));
    EXPECT_EQ(merged<Particle>({1, 2, 3, 4}, false), (access_list{{4, 4}, {8, 8}, {16, 4}}));
}

TEST(advise_vectors, md_atom_integration_as_its_ptx) {
    // initial_integrate: reads x v f type, writes x v. PTX (examples/md/md.cu, nvcc 13):
    // ld.v2.f64 [0], [16], [32], [48], ld.f64 [64], ld.u32 [72]; st.v2.f64 [0], [16], [32]
    EXPECT_EQ(merged<Atom>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, true),
              (access_list{{0, 16}, {16, 16}, {32, 16}, {48, 16}, {64, 8}, {72, 4}}));
    EXPECT_EQ(merged<Atom>({0, 1, 2, 3, 4, 5}, false), (access_list{{0, 16}, {16, 16}, {32, 16}}));
    // final_integrate: reads v f type, writes v: v stays scalar (its chain starts 8-aligned, and
    // v.y is only 8-aligned), f.x f.y one v2: ld.f64 [24], [32], [40], ld.v2 [48], ld.f64 [64],
    // ld.u32 [72]; st.f64 [24], [32], [40]
    EXPECT_EQ(merged<Atom>({3, 4, 5, 6, 7, 8, 9}, true),
              (access_list{{24, 8}, {32, 8}, {40, 8}, {48, 16}, {64, 8}, {72, 4}}));
    EXPECT_EQ(merged<Atom>({3, 4, 5}, false), (access_list{{24, 8}, {32, 8}, {40, 8}}));
    // lj_full: a neighbour's x: ld.v2.f64 [0], ld.f64 [16]; the force stored: st.v2 [48], [64]
    EXPECT_EQ(merged<Atom>({0, 1, 2}, true), (access_list{{0, 16}, {16, 8}}));
    EXPECT_EQ(merged<Atom>({6, 7, 8}, false), (access_list{{48, 16}, {64, 8}}));
}

TEST(advise_vectors, a_split_claims_nothing_so_its_aos_part_stays_scalar) {
    using hot =
        layout::policy::split<layout::policy::aos, layout::policy::soa, &Particle::x, &Particle::y,
                              &Particle::z, &Particle::vx, &Particle::vy, &Particle::vz>;
    const access_list loads = merged<Particle, hot>({0, 1, 2, 3, 4, 5}, true);
    EXPECT_EQ(loads.size(), 6u);
}

TEST(advise_vectors, costs_count_merged_instructions_and_their_sectors) {
    // ncu on the H100, 2026-11-26 (bench/results/advise-2026-11-26): L1 sectors per element
    const auto w = layout::advise<Wide>(wide_drift{1e-3f});
    EXPECT_DOUBLE_EQ(w["aos"].instructions, 4.0); // 2 loads, 2 stores
    EXPECT_NEAR(w["aos"].l1_sectors_ld, 2.0, 1e-9);
    EXPECT_NEAR(w["aos"].l1_sectors_st, 2.0, 1e-9);
    EXPECT_DOUBLE_EQ(w["soa"].instructions, 9.0);   // one per leaf access, as before
    EXPECT_NEAR(w["aos"].useful_bytes, 36.0, 1e-9); // x..vz read, x y z written
    const auto d = layout::advise<Particle>(drift{1e-3f});
    EXPECT_NEAR(d["aos"].l1_sectors_ld, 2.0, 1e-9);
    EXPECT_NEAR(d["aos"].l1_sectors_st, 2.0, 1e-9);
    EXPECT_NEAR(d["split"].l1_sectors_ld, 4.5, 1e-9); // 6 scalar loads at a 24-byte stride
}

// ---- the split layout (advise/split.hpp) ----------------------------------------------------------

namespace {

using layout::policy::aos;
using layout::policy::soa;
/// Mixed sizes and alignments: a packed first part has padding of its own.
struct Mixed {
    char c;
    double d;
    short s;
    float f;
    std::int32_t i;
};

layout::advisor::split_choice choice(std::vector<char> in_first,
                                     layout::advisor::detail::part_mapping::kind first =
                                         layout::advisor::detail::part_mapping::kind::aos,
                                     layout::advisor::detail::part_mapping::kind second =
                                         layout::advisor::detail::part_mapping::kind::soa,
                                     std::size_t first_lanes = 0) {
    layout::advisor::split_choice c;
    c.in_first = std::move(in_first);
    c.first = first;
    c.second = second;
    c.first_lanes = first_lanes;
    return c;
}

/// The run-time geometry of a split against the library's mapping of the split it spells.
template <class T, class Split>
void expect_same_offsets(const layout::advisor::split_choice& c, const char* what) {
    const auto run_time = layout::advisor::geometry_of_split<T>(c);
    const auto library = layout::advisor::geometry_of<T, Split>();
    for (std::size_t capacity : {std::size_t{1000}, std::size_t{4096}, std::size_t{1} << 24})
        for (std::size_t i : {0, 1, 7, 31, 32, 33, 999})
            for (std::size_t l = 0; l < layout::leaf_count_v<T>; ++l)
                ASSERT_EQ(run_time.offset(i, l, capacity), library.offset(i, l, capacity))
                    << what << ": element " << i << " leaf " << l << " capacity " << capacity;
    EXPECT_EQ(run_time.runs, library.runs) << what;
}

} // namespace

TEST(advise_split, run_time_geometry_is_the_library_mapping) {
    using kind = layout::advisor::detail::part_mapping::kind;
    expect_same_offsets<Particle,
                        layout::policy::split<aos, soa, &Particle::x, &Particle::y, &Particle::z>>(
        choice({1, 1, 1, 0, 0, 0, 0, 0}), "Particle x y z");
    expect_same_offsets<Wide, layout::policy::split<aos, soa, &Wide::pos, &Wide::vel>>(
        choice({1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}), "Wide pos vel");
    // c, d, s packed: { char; { double; short } } = 24 bytes, d at 8, s at 16
    expect_same_offsets<Mixed, layout::policy::split<aos, soa, 0, 1, 2>>(choice({1, 1, 1, 0, 0}),
                                                                         "Mixed c d s");
    expect_same_offsets<Mixed, layout::policy::split<aos, soa, 3>>(choice({0, 0, 0, 1, 0}),
                                                                   "Mixed f alone");
    expect_same_offsets<Mixed, layout::policy::split<layout::policy::aosoa<8>, aos, 1, 4>>(
        choice({0, 1, 0, 0, 1}, kind::aosoa, kind::aos, 8), "Mixed aosoa<8> first");
    expect_same_offsets<Mixed, layout::policy::split<soa, aos, 0, 2>>(
        choice({1, 0, 1, 0, 0}, kind::soa, kind::aos), "Mixed soa first");
    expect_same_offsets<Body,
                        layout::policy::split<aos, soa, layout::path<0, 1>, layout::path<3, 1>, 4>>(
        choice({0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1}), "Body pos.y pair[1] w");
}

TEST(advise_split, a_gather_packs_the_leaves_it_gathers) {
    const std::size_t n = 4096;
    const auto idx = random_indices(4 * n, n);
    layout::advise_options opt;
    opt.trace.size = n;
    opt.names = {"Particle", {"x", "y", "z", "vx", "vy", "vz", "mass", "charge"}};
    const auto a = layout::advise<Particle>(gather_neighbours{idx.data()}, opt);
    ASSERT_TRUE(a.split);
    EXPECT_EQ(a.split->in_first, (std::vector<char>{1, 1, 1, 0, 0, 0, 0, 0}));
    EXPECT_EQ(a.spelling("split"),
              "layout::policy::split<layout::policy::aos, layout::policy::soa, "
              "&Particle::x, &Particle::y, &Particle::z>");
    // By hand: a gathered element's x, y, z are 12 bytes at 12 j: in one 32-byte sector unless
    // 12 j mod 32 is 24 or 28 (j mod 8 = 2 or 7): 1.25 sectors on average, against 3 under SoA
    // (three columns) and 1 under AoS (a 32-byte element, aligned). Four gathers per element.
    const auto gathered = [&](const std::string& name) {
        layout::advisor::access_trace<Particle> only;
        only.samples = a.trace.samples;
        for (const auto& x : a.trace.accesses)
            if (x.pattern == indexed) only.accesses.push_back(x);
        const auto g = name == "split"
                           ? layout::advisor::geometry_of_split<Particle>(*a.split)
                           : layout::advisor::geometry_of<Particle, layout::policy::soa>();
        return layout::advisor::cost_of(only, g, opt.gpu, opt.cpu).sector_bytes / 32 / 4;
    };
    EXPECT_NEAR(gathered("split"), 1.25, 0.15);
    EXPECT_NEAR(gathered("soa"), 3.0, 0.2);
    EXPECT_LT(a["split"].dram_time_bytes, a["soa"].dram_time_bytes);
    EXPECT_LT(a["split"].dram_time_bytes, a["aos"].dram_time_bytes);
}

TEST(advise_split, a_stream_packs_the_leaves_it_touches) {
    const auto d = layout::advise<Particle>(drift{0.5f});
    ASSERT_TRUE(d.split);
    EXPECT_EQ(d.split->in_first, (std::vector<char>{1, 1, 1, 1, 1, 1, 0, 0}));
    EXPECT_EQ(d.spelling("split"),
              "layout::policy::split<layout::policy::aos, layout::policy::soa, 0, 1, 2, 3, 4, 5>");
    // By hand: x..vz packed as 24-byte elements. Every leaf read: 24 B per element; x, y, z
    // written, 12 bytes of each 24 with gaps of 12 < 32: every sector written, 24 B more. A warp's
    // 4-byte access 24 bytes apart spans 768 bytes: 24 sectors and 6 lines, 0.75 and 0.1875 per
    // element; six loads and three stores.
    EXPECT_DOUBLE_EQ(d["split"].sector_bytes, 48.0);
    EXPECT_DOUBLE_EQ(d["split"].l1_sectors_ld, 6 * 0.75);
    EXPECT_DOUBLE_EQ(d["split"].l1_sectors_st, 3 * 0.75);
    EXPECT_DOUBLE_EQ(d["split"].line_requests, 9 * 0.1875);
    EXPECT_DOUBLE_EQ(d["soa"].sector_bytes, 36.0);
    // whole fields by index; a nested member touched in part by layout::path
    const auto w = layout::advise<Wide>(wide_drift{0.5f});
    ASSERT_TRUE(w.split);
    EXPECT_EQ(w.spelling("split"),
              "layout::policy::split<layout::policy::aos, layout::policy::soa, 0, 1>");
    const auto b = layout::advise<Body>(nested_access{});
    ASSERT_TRUE(b.split);
    EXPECT_EQ(b.spelling("split"),
              "layout::policy::split<layout::policy::aos, layout::policy::soa, layout::path<0, 0>, "
              "layout::path<1, 0>, layout::path<3, 1, 1>, 4>");
}

TEST(advise_split, none_where_every_leaf_or_none_would_be_in_one_part) {
    const auto t = layout::advisor::trace<Particle>(whole_element{}); // writes every leaf
    EXPECT_FALSE(layout::advisor::propose_split(t));
    const auto a = layout::advise<Particle>(whole_element{});
    EXPECT_FALSE(a.split);
    EXPECT_FALSE(a.has("split"));
    EXPECT_EQ(a.costs.size(), 3u);
}

TEST(advise_split, a_split_named_in_the_code_costs_as_its_library_mapping) {
    using hot_cold = layout::policy::split<aos, soa, &Particle::x, &Particle::y, &Particle::z,
                                           &Particle::vx, &Particle::vy, &Particle::vz>;
    const auto named = layout::advise<Particle, soa, hot_cold>(drift{0.5f});
    const auto proposed = layout::advise<Particle>(drift{0.5f});
    ASSERT_TRUE(named.has("split"));
    EXPECT_DOUBLE_EQ(named["split"].sector_bytes, proposed["split"].sector_bytes);
    EXPECT_DOUBLE_EQ(named["split"].l1_sectors_ld, proposed["split"].l1_sectors_ld);
    EXPECT_DOUBLE_EQ(named["split"].gpu_seconds, proposed["split"].gpu_seconds);
    // scale_mass under it: mass is in the SoA part, a column: SoA's 8 bytes, not AoS's 64
    const auto o = layout::advise<Particle, aos, soa, hot_cold>(scale_mass{0.5f});
    EXPECT_DOUBLE_EQ(o["split"].sector_bytes, 8.0);
    EXPECT_DOUBLE_EQ(o["split"].l1_sectors_ld, 0.125);
}

TEST(advise_split, print_spells_the_proposed_split) {
    layout::advise_options opt;
    opt.names = {"Particle", {"x", "y", "z", "vx", "vy", "vz", "mass", "charge"}};
    const std::string out = printed(layout::advise<Particle>(drift{0.5f}, opt), "drift");
    EXPECT_NE(out.find("split = layout::policy::split<layout::policy::aos, layout::policy::soa, "
                       "&Particle::x, &Particle::y, &Particle::z, &Particle::vx, &Particle::vy, "
                       "&Particle::vz>: the leaves it touches packed"),
              std::string::npos)
        << out;
}
