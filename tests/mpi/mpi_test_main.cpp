// GoogleTest main for tests run under mpirun: every rank runs every test (each test is a
// sequence of collective calls, so assertions are EXPECT_*: an ASSERT that returns early on one
// rank would leave the others waiting). Rank 0 prints the usual report; other ranks print only
// their failures, prefixed with their rank. The exit code is the same on every rank: 1 if any
// rank failed. Compiled as gpu_mpi_test_main.cu (LAYOUT_MPI_GPU_TESTS), it also exits with 77
// (CTest: skipped) where no rank has a CUDA device and no test failed, and gives each rank of a
// host its own GPU where there are as many.
#include <gtest/gtest.h>
#include <mpi.h>

#if defined(LAYOUT_MPI_GPU_TESTS)
#  include "gpu_test.hpp"
#endif

#include <cstdio>

namespace {

class failures_only : public ::testing::EmptyTestEventListener {
public:
    explicit failures_only(int rank) : rank_(rank) {}
    void OnTestPartResult(const ::testing::TestPartResult& result) override {
        if (result.failed())
            std::fprintf(stderr, "[rank %d] %s:%d: failure\n%s\n", rank_,
                         result.file_name() ? result.file_name() : "?", result.line_number(),
                         result.summary());
    }

private:
    int rank_;
};

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
#if defined(LAYOUT_MPI_GPU_TESTS)
    // A GPU per rank of this host where there are enough (NCCL needs it), else shared.
    {
        MPI_Comm host;
        int local_rank = 0, devices = 0;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
        MPI_Comm_rank(host, &local_rank);
        MPI_Comm_free(&host);
        if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0)
            cudaSetDevice(local_rank % devices);
        else
            (void)cudaGetLastError();
    }
#endif
    ::testing::InitGoogleTest(&argc, argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0) {
        auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
        delete listeners.Release(listeners.default_result_printer());
        listeners.Append(new failures_only(rank));
    }
    int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
#if defined(LAYOUT_MPI_GPU_TESTS)
    int device = layout_test::cuda_device_available() ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &device, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!failed && !device) {
        if (rank == 0)
            std::printf("no CUDA device: the GPU tests of this executable did not run\n");
        MPI_Finalize();
        return 77;
    }
#endif
    MPI_Finalize();
    return failed;
}
