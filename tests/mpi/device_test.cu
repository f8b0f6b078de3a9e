// layout::mpi plans on device containers, under mpirun -np 2 (a GPU per rank where there are
// two, else both on one): migrations and halo exchanges of layout::cuda containers, through the
// CUDA-aware path (where the MPI library is CUDA-aware) and through pinned staging (forced),
// checked bit for bit against the same exchange of host containers (which migrate_test and
// halo_test check against the single-rank reference). Built with LAYOUT_TEST_NCCL
// (mpi_gpu_nccl_device_test), the same tests through NCCL alone, which needs a GPU per rank
// (skipped otherwise).
#include "gpu_test.hpp"
#include "mpi_test_support.hpp"

#include <layout/layout.hpp>
#include <layout/mpi/mpi.hpp>
#if defined(LAYOUT_TEST_NCCL)
#  include "nccl_world.hpp"
#endif

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <vector>

namespace {

using mpi_test::Particle;
using mpi_test::Vec3;
namespace lp = layout::policy;

template <class Layout>
using host = layout::vector<Particle, Layout>;
template <class Layout>
using device = layout::vector<Particle, Layout, layout::cuda::device_memory>;

class mpi_device : public layout_test::gpu_test {
public:
#if defined(LAYOUT_TEST_NCCL)
    void SetUp() override {
        gpu_test::SetUp();
        if (IsSkipped()) return;
        int devices = 0;
        ASSERT_EQ(cudaGetDeviceCount(&devices), cudaSuccess);
        if (devices < mpi_test::world_size())
            GTEST_SKIP() << "NCCL needs one GPU per rank: " << devices << " GPU(s) for "
                         << mpi_test::world_size() << " ranks";
    }
#endif
    /// The paths this build tests (the same on every rank): NCCL alone, or those this MPI
    /// library offers.
    static std::vector<layout::mpi::device_path> paths() {
#if defined(LAYOUT_TEST_NCCL)
        return {layout::mpi::device_path::nccl};
#else
        std::vector<layout::mpi::device_path> p{layout::mpi::device_path::staged};
        if (layout::mpi::cuda_aware_mpi()) p.push_back(layout::mpi::device_path::cuda_aware);
        return p;
#endif
    }
    static const char* name(layout::mpi::device_path p) {
        return p == layout::mpi::device_path::staged       ? "staged"
               : p == layout::mpi::device_path::cuda_aware ? "cuda-aware"
                                                           : "nccl";
    }
    /// Sends the plan's device exchanges by `path` (the deprecated run-time choice, still
    /// tested while it is there).
    template <class Plan>
    static void take(Plan& plan, layout::mpi::device_path path) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#if defined(LAYOUT_TEST_NCCL)
        if (path == layout::mpi::device_path::nccl) {
            layout::mpi::use_nccl(plan, mpi_test::nccl_world());
            return;
        }
#endif
        layout::mpi::set_device_path(plan, path);
#pragma GCC diagnostic pop
    }
};

host<lp::aos> elements(std::uint64_t seed, int rank, std::size_t n) {
    host<lp::aos> h;
    for (std::size_t i = 0; i < n; ++i) h.push_back(mpi_test::make(seed, rank, i));
    return h;
}

std::vector<int> destinations(int rank, int size, std::size_t n, std::uint64_t seed) {
    std::vector<int> d;
    for (std::size_t i = 0; i < n; ++i) {
        const auto h = mpi_test::hash(seed, static_cast<std::uint64_t>(rank), i);
        d.push_back(h % 25 == 0 ? -1
                                : static_cast<int>((h >> 8) % static_cast<std::uint64_t>(size)));
    }
    return d;
}

template <class Src, class Dst>
void migrate_both_ways(layout::mpi::device_path path, const char* what) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    const std::size_t n = 5000 + 1000 * static_cast<std::size_t>(rank);
    const auto start = elements(31, rank, n);
    const auto d = destinations(rank, size, n, 32);

    layout::mpi::migration_plan host_plan(MPI_COMM_WORLD, d);
    host<lp::aos> expected;
    host_plan.migrate(start, expected);

    layout::mpi::migration_plan plan(MPI_COMM_WORLD, d);
    mpi_device::take(plan, path);
    const layout::vector<Particle, typename Src::layout_type, layout::cuda::device_memory> src =
        start;
    Dst dst;
    plan.migrate(src, dst);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const host<lp::aos> got = dst;
    std::vector<Particle> e(expected.begin(), expected.end());
    mpi_test::expect_elements(got, e, what);

    // Twelve more in place, buffers reused after the first.
    layout::vector<Particle, typename Dst::layout_type, layout::cuda::device_memory> c = start;
    host<lp::aos> model = start;
    for (int step = 0; step < 12; ++step) {
        const auto ds =
            destinations(rank, size, model.size(), 40 + static_cast<std::uint64_t>(step));
        host_plan.update(ds);
        host_plan.migrate(model);
        plan.update(ds);
        plan.migrate(c);
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const host<lp::aos> back = c;
    mpi_test::expect_elements(back, std::vector<Particle>(model.begin(), model.end()), what);
}

TEST_F(mpi_device, migrations_of_device_containers_match_the_host) {
    for (const auto path : paths()) {
        migrate_both_ways<host<lp::soa>, device<lp::aos>>(path, name(path));
        migrate_both_ways<host<lp::aos>, device<lp::aosoa<32>>>(path, name(path));
        migrate_both_ways<host<lp::aosoa<32>>, device<lp::soa>>(path, name(path));
    }
}

// Views know their memory: a view of device memory is packed and unpacked on the GPU (it went
// through the host transport, which read device memory on the host, before views carried it).
TEST_F(mpi_device, views_of_device_memory_take_the_device_path) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    const std::size_t n = 4000 + 500 * static_cast<std::size_t>(rank);
    const auto start = elements(35, rank, n);
    const auto d = destinations(rank, size, n, 36);
    layout::mpi::migration_plan host_plan(MPI_COMM_WORLD, d);
    host<lp::aos> expected;
    host_plan.migrate(start, expected);
    for (const auto path : paths()) {
        layout::mpi::migration_plan plan(MPI_COMM_WORLD, d);
        mpi_device::take(plan, path);
        const device<lp::soa> src = start;
        device<lp::aosoa<32>> dst(plan.destination_size());
        static_assert(
            std::is_same_v<decltype(dst.view())::memory_type, layout::cuda::device_memory>);
        plan.migrate(src.view(), dst.view());
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        const host<lp::aos> got = dst;
        mpi_test::expect_elements(got, std::vector<Particle>(expected.begin(), expected.end()),
                                  name(path));
    }
}

TEST_F(mpi_device, a_subset_of_fields_travels_from_and_to_the_device) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    const std::size_t n = 3000;
    const auto start = elements(33, rank, n);
    const auto d = destinations(rank, size, n, 34);
    for (const auto path : paths()) {
        layout::mpi::migration_plan host_plan(MPI_COMM_WORLD, d);
        host<lp::soa> expected;
        host_plan.migrate<&Particle::pos, &Particle::tag>(start, expected);
        layout::mpi::migration_plan plan(MPI_COMM_WORLD, d);
        mpi_device::take(plan, path);
        const device<lp::aos> src = start;
        device<lp::soa> dst;
        plan.migrate<&Particle::pos, &Particle::tag>(src, dst);
        const host<lp::aos> got = dst;
        mpi_test::expect_elements(got, std::vector<Particle>(expected.begin(), expected.end()),
                                  name(path));
    }
}

/// Every element's mass and tag rewritten from its index (the values an exchange must carry).
struct rewrite {
    std::uint64_t salt;
    template <class View>
    __device__ void operator()(const View& v, std::size_t i) const {
        auto p = v[i].load();
        p.mass = static_cast<double>(i) + static_cast<double>(salt);
        p.tag = salt * 1000003u + i;
        v[i] = p;
    }
};

/// The same rewrite on the host model.
template <class C>
void rewrite_host(C& c, std::uint64_t salt) {
    for (std::size_t i = 0; i < c.size(); ++i) {
        Particle p = c[i];
        p.mass = static_cast<double>(i) + static_cast<double>(salt);
        p.tag = salt * 1000003u + i;
        c[i] = p;
    }
}

// A container on a non-blocking stream, rewritten by a kernel queued there behind a long one,
// then exchanged without any host wait: the plan (given no stream) must pack on the container's
// stream. Packed on the legacy default stream (unordered with non-blocking streams), the
// exchange would carry the values from before the rewrite.
TEST_F(mpi_device, exchanges_of_a_container_run_on_its_stream) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    cudaStream_t stream{};
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    const long long cycles = 200'000'000; // about 0.1 s at 2 GHz
    const std::size_t n = 3000;
    for (const auto path : paths()) {
        SCOPED_TRACE(name(path));
        auto model = elements(51, rank, n);
        const auto d = destinations(rank, size, n, 52);
        device<lp::soa> c{layout::stream_ref(stream)};
        c = model;
        ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);

        layout::mpi::migration_plan host_plan(MPI_COMM_WORLD, d);
        layout::mpi::migration_plan plan(MPI_COMM_WORLD, d);
        mpi_device::take(plan, path);
        layout_test::spin(stream, cycles);
        layout::cuda::for_each_index(c.view(), rewrite{7}, layout::stream_ref(stream));
        plan.migrate(c);
        rewrite_host(model, 7);
        host_plan.migrate(model);
        ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        {
            const host<lp::aos> got = c;
            mpi_test::expect_elements(got, std::vector<Particle>(model.begin(), model.end()),
                                      "migration behind the container's stream");
        }

        std::vector<std::size_t> index;
        std::vector<int> ranks;
        for (std::size_t k = 0; k < 700; ++k) {
            const auto h = mpi_test::hash(53, static_cast<std::uint64_t>(rank), k);
            index.push_back(h % c.size());
            ranks.push_back(static_cast<int>((h >> 20) % static_cast<std::uint64_t>(size)));
        }
        // Every rank owns c.size() after the migration; ranks ask indices below their own
        // size, so the plan is built from each owner's count (the hash stays in range).
        std::size_t smallest = c.size();
        MPI_Allreduce(MPI_IN_PLACE, &smallest, 1, MPI_UNSIGNED_LONG, MPI_MIN, MPI_COMM_WORLD);
        for (auto& i : index) i %= smallest;
        layout::mpi::halo_plan host_halo(MPI_COMM_WORLD, c.size(), index, ranks);
        layout::mpi::halo_plan halo(MPI_COMM_WORLD, c.size(), index, ranks);
        mpi_device::take(halo, path);
        layout_test::spin(stream, cycles);
        layout::cuda::for_each_index(c.view(), rewrite{11}, layout::stream_ref(stream));
        halo.gather(c);
        rewrite_host(model, 11);
        host_halo.gather(model);
        ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        const host<lp::aos> got = c;
        mpi_test::expect_elements(got, std::vector<Particle>(model.begin(), model.end()),
                                  "halo gather behind the container's stream");
    }
    ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

TEST_F(mpi_device, halo_gather_and_scatter_add_of_device_containers_match_the_host) {
    const int rank = mpi_test::world_rank(), size = mpi_test::world_size();
    const std::size_t owned = 4000;
    std::vector<std::size_t> index;
    std::vector<int> ranks;
    for (std::size_t k = 0; k < 2500; ++k) { // repeats and self included
        const auto h = mpi_test::hash(35, static_cast<std::uint64_t>(rank), k);
        index.push_back(h % owned);
        ranks.push_back(static_cast<int>((h >> 20) % static_cast<std::uint64_t>(size)));
    }
    auto start = elements(36, rank, owned);
    for (std::size_t i = 0; i < owned; ++i) {
        Particle p = start[i];
        p.mass = 1.0 / static_cast<double>(i + 2);
        p.pos = {0.25f * static_cast<float>(i % 7), 1.5f, -0.5f};
        start[i] = p;
    }
    for (const auto path : paths()) {
        layout::mpi::halo_plan host_plan(MPI_COMM_WORLD, owned, index, ranks);
        host<lp::soa> expected = start;
        host_plan.gather(expected);
        // Contributions on the ghosts: inexact sums, so only the same order gives the same bits.
        for (std::size_t j = owned; j < expected.size(); ++j) {
            Particle p = expected[j];
            p.mass = 1.0 / static_cast<double>(3 * j + 1);
            p.pos = {0.1f / static_cast<float>(j), 0.2f, 0.3f};
            expected[j] = p;
        }
        const host<lp::soa> contributions = expected;
        host_plan.scatter_add<&Particle::pos, &Particle::mass>(expected);

        layout::mpi::halo_plan plan(MPI_COMM_WORLD, owned, index, ranks);
        mpi_device::take(plan, path);
        device<lp::aosoa<32>> c = start;
        plan.gather(c);
        {
            const host<lp::aos> gathered = c;
            host<lp::soa> reference = start;
            host_plan.gather(reference);
            mpi_test::expect_elements(gathered,
                                      std::vector<Particle>(reference.begin(), reference.end()),
                                      "device gather");
        }
        c = contributions;
        plan.scatter_add<&Particle::pos, &Particle::mass>(c);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        const host<lp::aos> got = c;
        mpi_test::expect_elements(got, std::vector<Particle>(expected.begin(), expected.end()),
                                  name(path));
    }
}

} // namespace
