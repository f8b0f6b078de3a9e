// layout::hdf5 (io/hdf5.hpp): round trips through the layouts and a selection, read()'s errors on
// malformed files with the container unchanged, and two readers written elsewhere: h5dump and
// h5py (h5py_check.py), which also writes a file for the library to read.
#include "io_particles.hpp"

#include <layout/io/hdf5.hpp>
#include <layout/layout.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

using io_test::expected_particle;
using io_test::expected_particles;
using io_test::Particle;
using io_test::PosId;
using io_test::replace_dataset;
using io_test::run;
using io_test::same_as;
using io_test::temp_file;
using io_test::test_options;

constexpr std::size_t n_test = 1001; // not a multiple of any AoSoA width or of the chunk

// ---- Round trips ----------------------------------------------------------------------------

template <class L>
struct round_trip : ::testing::Test {};
using layouts = ::testing::Types<
    layout::policy::aos, layout::policy::soa, layout::policy::aosoa<32>, layout::policy::aosoa<3>,
    layout::policy::split<layout::policy::aos, layout::policy::soa, &Particle::pos>>;
TYPED_TEST_SUITE(round_trip, layouts);

// Written from one layout, read into every other: the same bits, whatever the layouts.
TYPED_TEST(round_trip, into_every_layout) {
    const auto want = expected_particles(n_test);
    layout::vector<Particle, TypeParam> source(want.begin(), want.end());
    temp_file file("round_trip");
    {
        auto f = layout::hdf5::create_file(file.path());
        layout::hdf5::write(f, source, test_options());
    }
    auto f = layout::hdf5::open_file(file.path());
    layout::aos_vector<Particle> aos;
    layout::soa_vector<Particle> soa(3); // replaced, whatever it held
    layout::aosoa<Particle, 32> blocks;
    layout::vector<Particle, TypeParam> same;
    layout::hdf5::read(f, 7, "electrons", aos);
    layout::hdf5::read(f, 7, "electrons", soa);
    layout::hdf5::read(f, 7, "electrons", blocks);
    layout::hdf5::read(f, 7, "electrons", same);
    EXPECT_TRUE(same_as(aos, want));
    EXPECT_TRUE(same_as(soa, want));
    EXPECT_TRUE(same_as(blocks, want));
    EXPECT_TRUE(same_as(same, want));
}

TEST(hdf5, selection_writes_only_the_chosen_fields) {
    const auto want = expected_particles(n_test);
    layout::aosoa<Particle, 8> source(want.begin(), want.end());
    temp_file file("selection");
    auto f = layout::hdf5::create_file(file.path());
    layout::hdf5::write(f, source.select<&Particle::pos, &Particle::id>(), {.species = "some"});
    // Under SoA the chosen columns are written as they are (what a device selection's staging
    // writes from).
    const layout::soa_vector<Particle> columns(source);
    layout::hdf5::write(f, columns.select<&Particle::pos, &Particle::id>(), {.species = "cols"});
    for (const char* species : {"some", "cols"}) {
        layout::soa_vector<PosId> back;
        layout::hdf5::read(f, 0, species, back);
        ASSERT_EQ(back.size(), want.size());
        for (std::size_t i = 0; i < want.size(); ++i) {
            const PosId p = back[i];
            ASSERT_EQ(p.pos.x, want[i].pos.x) << species << " " << i;
            ASSERT_EQ(p.pos.y, want[i].pos.y) << species << " " << i;
            ASSERT_EQ(p.pos.z, want[i].pos.z) << species << " " << i;
            ASSERT_EQ(p.id, want[i].id) << species << " " << i;
        }
    }
    layout::soa_vector<Particle> all(2);
    try {
        layout::hdf5::read(f, 0, "some", all); // vel is not in the file
        FAIL() << "no error";
    } catch (const layout::hdf5::error& e) {
        EXPECT_NE(std::string(e.what()).find("/data/0/particles/some/vel/x (leaf vel.x): missing"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_EQ(all.size(), 2u);
}

TEST(hdf5, empty_container_and_several_species) {
    temp_file file("empty");
    auto f = layout::hdf5::create_file(file.path());
    layout::soa_vector<Particle> none;
    layout::hdf5::write(f, none, {.iteration = 1, .species = "a"});
    const auto want = expected_particles(5);
    layout::aos_vector<Particle> five(want.begin(), want.end());
    layout::hdf5::write(f, five, {.iteration = 1, .species = "b"});
    EXPECT_THROW(layout::hdf5::write(f, five, {.iteration = 1, .species = "b"}),
                 layout::hdf5::error); // an existing species is not overwritten
    layout::aosoa<Particle, 4> back(want.begin(), want.end());
    layout::hdf5::read(f, 1, "a", back);
    EXPECT_EQ(back.size(), 0u);
    layout::hdf5::read(f, 1, "b", back);
    EXPECT_TRUE(same_as(back, want));
}

// ---- Malformed files: a clear error naming the leaf, and the container unchanged ------------

/// A file the library wrote, then changed with HDF5's C API by edit(species group).
template <class Edit>
void expect_read_error(const std::string& stem, Edit edit, const std::string& message) {
    temp_file file(stem);
    {
        auto f = layout::hdf5::create_file(file.path());
        layout::soa_vector<Particle> p(50, expected_particle(3));
        layout::hdf5::write(f, p, {.iteration = 2, .species = "ions"});
        layout::hdf5::handle g(H5Gopen2(f, "/data/2/particles/ions", H5P_DEFAULT));
        ASSERT_TRUE(g);
        edit(g.get());
    }
    auto f = layout::hdf5::open_file(file.path());
    const auto before = expected_particles(17);
    layout::aosoa<Particle, 4> c(before.begin(), before.end());
    try {
        layout::hdf5::read(f, 2, "ions", c);
        ADD_FAILURE() << stem << ": no error";
    } catch (const layout::hdf5::error& e) {
        EXPECT_NE(std::string(e.what()).find(message), std::string::npos)
            << "message: " << e.what() << "\nwant: " << message;
    }
    EXPECT_TRUE(same_as(c, before)) << stem << ": the container changed";
}

TEST(hdf5_errors, missing_dataset) {
    expect_read_error(
        "missing", [](hid_t g) { H5Ldelete(g, "vel/y", H5P_DEFAULT); },
        "layout::hdf5::read: /data/2/particles/ions/vel/y (leaf vel.y): missing");
}
TEST(hdf5_errors, wrong_type) {
    expect_read_error(
        "wrong_type", [](hid_t g) { replace_dataset(g, "mass", H5T_NATIVE_DOUBLE, 50); },
        "/data/2/particles/ions/mass (leaf mass): wrong type of element: the file has float64, "
        "the leaf is float32");
}
TEST(hdf5_errors, wrong_sign) {
    expect_read_error(
        "wrong_sign", [](hid_t g) { replace_dataset(g, "id", H5T_NATIVE_INT64, 50); },
        "(leaf id): wrong type of element: the file has int64, the leaf is uint64");
}
TEST(hdf5_errors, truncated) {
    expect_read_error(
        "truncated", [](hid_t g) { replace_dataset(g, "w/[1]", H5T_NATIVE_DOUBLE, 49); },
        "/data/2/particles/ions/w/[1] (leaf w[1]): wrong length: 49 elements, but "
        "/data/2/particles/ions/pos/x has 50");
}
TEST(hdf5_errors, a_group_where_a_dataset_should_be) {
    expect_read_error(
        "group",
        [](hid_t g) {
            H5Ldelete(g, "kind", H5P_DEFAULT);
            layout::hdf5::handle(H5Gcreate2(g, "kind", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        },
        "(leaf kind): missing");
}
TEST(hdf5_errors, missing_species) {
    expect_read_error(
        "species", [](hid_t g) { H5Ldelete(g, "/data/2/particles/ions", H5P_DEFAULT); },
        "/data/2/particles/ions: no such species");
}

// ---- Readers no one here wrote ---------------------------------------------------------------

void write_checked_file(const std::string& path) {
    const auto want = expected_particles(n_test);
    layout::aosoa<Particle, 32> p(want.begin(), want.end());
    auto f = layout::hdf5::create_file(path);
    layout::hdf5::write(f, p, test_options());
}

TEST(hdf5_readers, h5dump_reads_names_values_attributes) {
    const std::string h5dump = LAYOUT_TEST_H5DUMP;
    if (h5dump.empty()) GTEST_SKIP() << "h5dump not found (Debian: hdf5-tools)";
    temp_file file("h5dump");
    write_checked_file(file.path());
    const auto [status, out] =
        run(h5dump + " -d /data/7/particles/electrons/pos/x -s 4 -c 3 " + file.path());
    ASSERT_EQ(status, 0) << out;
    // pos.x of elements 4, 5, 6: 1, 1.25, 1.5, as IEEE float32 little-endian.
    EXPECT_NE(out.find("H5T_IEEE_F32LE"), std::string::npos) << out;
    EXPECT_NE(out.find("(4): 1, 1.25, 1.5"), std::string::npos) << out;
    const auto [status2, attrs] = run(h5dump + " -A " + file.path());
    ASSERT_EQ(status2, 0) << attrs;
    for (const char* want :
         {"ATTRIBUTE \"openPMD\"", "\"1.1.0\"", "ATTRIBUTE \"basePath\"", "\"/data/%T/\"",
          "ATTRIBUTE \"iterationEncoding\"", "\"groupBased\"", "GROUP \"electrons\"",
          "GROUP \"pos\"", "DATASET \"x\"", "DATASET \"mass\"", "DATASET \"[1]\"",
          "ATTRIBUTE \"unitSI\"", "ATTRIBUTE \"unitDimension\"", "ATTRIBUTE \"timeOffset\"",
          "ATTRIBUTE \"timeUnitSI\"", "H5T_STD_U64LE", "H5T_STD_I16LE", "H5T_ENUM"})
        EXPECT_NE(attrs.find(want), std::string::npos) << "no " << want << " in\n" << attrs;
}

TEST(hdf5_readers, h5py_reads_what_layout_wrote) {
    const std::string python = LAYOUT_TEST_H5PY_PYTHON;
    if (python.empty()) GTEST_SKIP() << "no Python with h5py and NumPy found";
    temp_file file("h5py_reads");
    write_checked_file(file.path());
    const auto [status, out] = run(python + " " + LAYOUT_TEST_H5PY_SCRIPT + " check " +
                                   file.path() + " 7 electrons " + std::to_string(n_test));
    EXPECT_EQ(status, 0) << out;
}

TEST(hdf5_readers, layout_reads_what_h5py_wrote) {
    const std::string python = LAYOUT_TEST_H5PY_PYTHON;
    if (python.empty()) GTEST_SKIP() << "no Python with h5py and NumPy found";
    temp_file file("h5py_writes");
    const auto [status, out] = run(python + " " + LAYOUT_TEST_H5PY_SCRIPT + " write " +
                                   file.path() + " 3 protons " + std::to_string(n_test));
    ASSERT_EQ(status, 0) << out;
    auto f = layout::hdf5::open_file(file.path());
    const auto want = expected_particles(n_test);
    layout::aosoa<Particle, 32> blocks;
    layout::soa_vector<Particle> soa;
    layout::hdf5::read(f, 3, "protons", blocks);
    layout::hdf5::read(f, 3, "protons", soa);
    EXPECT_TRUE(same_as(blocks, want));
    EXPECT_TRUE(same_as(soa, want));
}

} // namespace
