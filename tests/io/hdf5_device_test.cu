// layout::hdf5 (io/hdf5.hpp) with containers in device memory, staged through the host on their
// streams. Each layout is written from device memory whose last writer is still queued on a
// cudaStreamNonBlocking stream (behind a kernel that spins), so that the write sees the right
// elements only if it waits for that stream; the file is read back into device containers of
// every layout, each on another such stream behind a spin and a kernel that scribbles over it
// (the read must be ordered after them), and into host containers; every leaf compared bit for
// bit with a host reference of random bits. Also: a selection and a view of device memory
// (staged on write_options::stream), an empty container, read()'s errors on malformed files with
// the device container unchanged (same elements, same block), and h5py (h5py_check.py) reading a
// file written from the GPU and writing one the library reads into device memory. Without a
// GPU every test skips and the executable exits with 77.
#include "gpu_test.hpp"
#include "io_particles.hpp"

#include <layout/io/hdf5.hpp>
#include <layout/layout.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

using io_test::expected_particles;
using io_test::Particle;
using io_test::PosId;
using io_test::random_particles;
using io_test::replace_dataset;
using io_test::run;
using io_test::same_as;
using io_test::temp_file;
using io_test::test_options;

template <class L>
using device_vector = layout::vector<Particle, L, layout::cuda::device_memory>;

using aos = layout::policy::aos;
using soa = layout::policy::soa;
using aosoa32 = layout::policy::aosoa<32>;
using split = layout::policy::split<aos, soa, &Particle::pos>; // pos as AoS, the rest SoA

// Not a multiple of 32 (a partial last AoSoA block) nor of test_options' chunk of 100 (the host
// containers read back in blocks).
constexpr std::size_t n_test = 100'003;

/// A cudaStreamNonBlocking stream: no implicit order with the default stream, so a copy on the
/// wrong stream races with the work queued here instead of waiting for it. Declared before the
/// containers that use it, so that it outlives their stream-ordered frees.
class nonblocking_stream {
public:
    nonblocking_stream() {
        check_cuda(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "cudaStreamCreate");
    }
    nonblocking_stream(const nonblocking_stream&) = delete;
    nonblocking_stream& operator=(const nonblocking_stream&) = delete;
    ~nonblocking_stream() { check_cuda(cudaStreamDestroy(s_), "cudaStreamDestroy"); }
    operator cudaStream_t() const { return s_; }
    operator layout::stream_ref() const { return s_; }

private:
    cudaStream_t s_ = nullptr;
};

/// Keeps stream s busy for about 20 ms (at 1.5-2 GHz), so that what is queued after it is
/// still to come when the host goes on.
void hold(cudaStream_t s) { layout_test::spin(s, 30'000'000); }

template <class View>
__global__ void scribble(View v) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= v.size()) return;
    Particle p{};
    p.id = 0xdeadbeef;
    v[i] = p;
}

/// v's elements overwritten on s, after what s already holds.
template <class View>
void scribble_on(const View& v, cudaStream_t s) {
    if (v.size() == 0) return;
    scribble<<<unsigned((v.size() + 255) / 256), 256, 0, s>>>(v);
    check_cuda(cudaGetLastError(), "scribble launch");
}

/// A device container's elements, on the host (the copy waits for its stream).
template <class Container>
layout::aos_vector<Particle> on_host(const Container& c) {
    return layout::aos_vector<Particle>(c);
}

/// dev's elements, set to want's by a copy queued on s behind a spin: until s gets there, dev
/// holds other elements (random bits of another seed).
template <class L>
device_vector<L> device_particles(const std::vector<Particle>& want, cudaStream_t s) {
    const layout::aos_vector<Particle> stale_host(random_particles(want.size(), 99));
    const layout::aos_vector<Particle> want_host(want.begin(), want.end());
    device_vector<L> dev(stale_host, s);
    const layout::cuda::soa_vector<Particle> truth(want_host, s);
    hold(s);
    layout::cuda::copy(truth.cview(), dev.view(), s); // truth is freed on s too, after the copy
    return dev;
}

class hdf5_device : public gpu_test {};

template <class L>
class hdf5_device_round_trip : public gpu_test {};
using layouts = ::testing::Types<aos, soa, aosoa32, split>;
TYPED_TEST_SUITE(hdf5_device_round_trip, layouts);

/// Reads species electrons of iteration 7 into a device container of layout D on a stream of its
/// own, behind a spin and a kernel that overwrites every element: right only if read() orders
/// its copy on that stream.
template <class D>
void expect_device_read(hid_t f, const std::vector<Particle>& want, const char* what) {
    nonblocking_stream s;
    device_vector<D> back(layout::aos_vector<Particle>(random_particles(want.size(), 5)), s);
    const std::size_t capacity = back.capacity();
    hold(s);
    scribble_on(back.view(), s);
    layout::hdf5::read(f, 7, "electrons", back); // the same size: into the same block
    EXPECT_EQ(back.capacity(), capacity) << what;
    EXPECT_EQ(back.stream(), layout::stream_ref(s)) << what;
    EXPECT_TRUE(same_as(on_host(back), want)) << what << ": read into a reused device block";

    device_vector<D> fresh(s); // empty: read() allocates, on s
    layout::hdf5::read(f, 7, "electrons", fresh);
    EXPECT_TRUE(same_as(on_host(fresh), want)) << what << ": read into an empty container";
}

// Written from device memory of layout L on a stream still busy with its last writer; read back
// into every device layout and two host ones: the same bits.
TYPED_TEST(hdf5_device_round_trip, through_every_layout) {
    const auto want = random_particles(n_test, 1);
    temp_file file("device_round_trip");
    {
        nonblocking_stream s;
        const auto dev = device_particles<TypeParam>(want, s);
        auto f = layout::hdf5::create_file(file.path());
        layout::hdf5::write(f, dev, test_options()); // must wait for s's copy
        EXPECT_TRUE(same_as(on_host(dev), want)) << "the device container changed";
    }
    auto f = layout::hdf5::open_file(file.path());
    expect_device_read<aos>(f, want, "into aos");
    expect_device_read<soa>(f, want, "into soa");
    expect_device_read<aosoa32>(f, want, "into aosoa<32>");
    expect_device_read<split>(f, want, "into split");
    layout::aosoa<Particle, 32> blocks;
    layout::vector<Particle, split> parts;
    layout::hdf5::read(f, 7, "electrons", blocks);
    layout::hdf5::read(f, 7, "electrons", parts);
    EXPECT_TRUE(same_as(blocks, want)) << "into host aosoa<32>";
    EXPECT_TRUE(same_as(parts, want)) << "into host split";
}

/// A device selection's pos and id, read back into SoA PosId containers (device and host),
/// compared bit for bit with want's.
void expect_pos_id(hid_t f, const char* species, const std::vector<Particle>& want) {
    nonblocking_stream s;
    layout::cuda::soa_vector<PosId> dev(s);
    layout::hdf5::read(f, 0, species, dev);
    const layout::soa_vector<PosId> back(dev);
    layout::soa_vector<PosId> host;
    layout::hdf5::read(f, 0, species, host);
    ASSERT_EQ(back.size(), want.size());
    ASSERT_EQ(host.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        const PosId a = back[i], b = host[i];
        const auto& w = want[i];
        ASSERT_EQ(std::memcmp(&a.pos, &w.pos, sizeof w.pos), 0) << species << " " << i;
        ASSERT_EQ(a.id, w.id) << species << " " << i;
        ASSERT_EQ(std::memcmp(&b.pos, &w.pos, sizeof w.pos), 0) << species << " " << i;
        ASSERT_EQ(b.id, w.id) << species << " " << i;
    }
}

// A selection and a view of device memory know no stream: write_options::stream says which one
// they are staged on. Only the chosen fields are written.
TEST_F(hdf5_device, selection_and_view_on_a_given_stream) {
    const auto want = random_particles(n_test, 2);
    temp_file file("device_selection");
    auto f = layout::hdf5::create_file(file.path());
    {
        nonblocking_stream s;
        const auto dev = device_particles<aosoa32>(want, s);
        layout::hdf5::write(f, dev.select<&Particle::pos, &Particle::id>(),
                            {.species = "chosen", .stream = s});
    }
    {
        nonblocking_stream s;
        const auto dev = device_particles<aos>(want, s);
        layout::hdf5::write(f, dev.cview(), {.species = "all", .stream = s});
    }
    expect_pos_id(f, "chosen", want);
    expect_pos_id(f, "all", want);
    layout::soa_vector<Particle> all;
    layout::hdf5::read(f, 0, "all", all);
    EXPECT_TRUE(same_as(all, want)) << "the view";

    nonblocking_stream s;
    const auto before = random_particles(17, 3);
    device_vector<aosoa32> c(layout::aos_vector<Particle>(before.begin(), before.end()), s);
    try {
        layout::hdf5::read(f, 0, "chosen", c); // vel is not in the file
        FAIL() << "no error";
    } catch (const layout::hdf5::error& e) {
        EXPECT_NE(
            std::string(e.what()).find("/data/0/particles/chosen/vel/x (leaf vel.x): missing"),
            std::string::npos)
            << e.what();
    }
    EXPECT_TRUE(same_as(on_host(c), before));
}

TEST_F(hdf5_device, empty_container) {
    temp_file file("device_empty");
    auto f = layout::hdf5::create_file(file.path());
    nonblocking_stream s;
    const device_vector<aosoa32> none(s);
    layout::hdf5::write(f, none, {.iteration = 1, .species = "a"});
    const auto some = random_particles(40, 4);
    device_vector<split> back(layout::aos_vector<Particle>(some.begin(), some.end()), s);
    layout::hdf5::read(f, 1, "a", back);
    EXPECT_EQ(back.size(), 0u);
    layout::hdf5::write(f, none.select<&Particle::mass>(),
                        {.iteration = 1, .species = "b", .stream = s});
}

// ---- Malformed files: the library's error, and the device container as it was --------------

/// Where a non-empty container's element 0 keeps its first leaf (the address, not read).
template <class Container>
const void* first_leaf(const Container& c) {
    return &c.cview().storage().at(0).template leaf<0>();
}

/// A file written from device memory, then changed with HDF5's C API by edit(species group).
template <class Edit>
void expect_device_read_error(const std::string& stem, Edit edit, const std::string& message) {
    temp_file file(stem);
    nonblocking_stream s;
    {
        auto f = layout::hdf5::create_file(file.path());
        const auto dev = device_particles<soa>(random_particles(50, 6), s);
        layout::hdf5::write(f, dev, {.iteration = 2, .species = "ions"});
        layout::hdf5::handle g(H5Gopen2(f, "/data/2/particles/ions", H5P_DEFAULT));
        ASSERT_TRUE(g);
        edit(g.get());
    }
    auto f = layout::hdf5::open_file(file.path());
    const auto before = random_particles(64, 7); // more than the file's 50: room to read into
    device_vector<aosoa32> c(layout::aos_vector<Particle>(before.begin(), before.end()), s);
    const void* block = first_leaf(c);
    try {
        layout::hdf5::read(f, 2, "ions", c);
        ADD_FAILURE() << stem << ": no error";
    } catch (const layout::hdf5::error& e) {
        EXPECT_NE(std::string(e.what()).find(message), std::string::npos)
            << "message: " << e.what() << "\nwant: " << message;
    }
    EXPECT_EQ(first_leaf(c), block) << stem << ": another block";
    EXPECT_TRUE(same_as(on_host(c), before)) << stem << ": the device container changed";
}

TEST_F(hdf5_device, error_missing_dataset) {
    expect_device_read_error(
        "device_missing", [](hid_t g) { H5Ldelete(g, "vel/y", H5P_DEFAULT); },
        "layout::hdf5::read: /data/2/particles/ions/vel/y (leaf vel.y): missing");
}
TEST_F(hdf5_device, error_wrong_type) {
    expect_device_read_error(
        "device_wrong_type", [](hid_t g) { replace_dataset(g, "mass", H5T_NATIVE_DOUBLE, 50); },
        "/data/2/particles/ions/mass (leaf mass): wrong type of element: the file has float64, "
        "the leaf is float32");
}
TEST_F(hdf5_device, error_truncated) {
    expect_device_read_error(
        "device_truncated", [](hid_t g) { replace_dataset(g, "w/[1]", H5T_NATIVE_DOUBLE, 49); },
        "/data/2/particles/ions/w/[1] (leaf w[1]): wrong length: 49 elements, but "
        "/data/2/particles/ions/pos/x has 50");
}
TEST_F(hdf5_device, error_missing_species) {
    expect_device_read_error(
        "device_species", [](hid_t g) { H5Ldelete(g, "/data/2/particles/ions", H5P_DEFAULT); },
        "/data/2/particles/ions: no such species");
}

// ---- h5py, a reader and writer written elsewhere --------------------------------------------

TEST_F(hdf5_device, h5py_reads_a_file_written_from_the_gpu) {
    const std::string python = LAYOUT_TEST_H5PY_PYTHON;
    if (python.empty()) GTEST_SKIP() << "no Python with h5py and NumPy found";
    constexpr std::size_t n = 1001;
    temp_file file("device_h5py_reads");
    {
        nonblocking_stream s;
        const auto dev = device_particles<aosoa32>(expected_particles(n), s);
        auto f = layout::hdf5::create_file(file.path());
        layout::hdf5::write(f, dev, test_options());
    }
    const auto [status, out] = run(python + " " + LAYOUT_TEST_H5PY_SCRIPT + " check " +
                                   file.path() + " 7 electrons " + std::to_string(n));
    EXPECT_EQ(status, 0) << out;
}

TEST_F(hdf5_device, reads_what_h5py_wrote_into_device_memory) {
    const std::string python = LAYOUT_TEST_H5PY_PYTHON;
    if (python.empty()) GTEST_SKIP() << "no Python with h5py and NumPy found";
    constexpr std::size_t n = 1001;
    temp_file file("device_h5py_writes");
    const auto [status, out] = run(python + " " + LAYOUT_TEST_H5PY_SCRIPT + " write " +
                                   file.path() + " 3 protons " + std::to_string(n));
    ASSERT_EQ(status, 0) << out;
    auto f = layout::hdf5::open_file(file.path());
    nonblocking_stream s;
    device_vector<aosoa32> blocks(s);
    device_vector<aos> structs(s);
    layout::hdf5::read(f, 3, "protons", blocks);
    layout::hdf5::read(f, 3, "protons", structs);
    const auto want = expected_particles(n);
    EXPECT_TRUE(same_as(on_host(blocks), want));
    EXPECT_TRUE(same_as(on_host(structs), want));
}

} // namespace
