/// \file nccl_world.hpp
/// The NCCL communicator of a whole MPI GPU test run (tests built with LAYOUT_TEST_NCCL): made
/// by the first test that takes the NCCL path (on every rank together), ended before
/// MPI_Finalize. A run that never takes that path (one GPU for two ranks) never makes one.
#pragma once

#include <layout/mpi/nccl.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <memory>

namespace mpi_test {

inline std::unique_ptr<layout::mpi::nccl_communicator>& nccl_storage() {
    static std::unique_ptr<layout::mpi::nccl_communicator> c;
    return c;
}
/// Collective the first time.
inline layout::mpi::nccl_communicator& nccl_world() {
    auto& c = nccl_storage();
    if (!c) c = std::make_unique<layout::mpi::nccl_communicator>(MPI_COMM_WORLD);
    return *c;
}
struct nccl_ends_before_finalize : ::testing::Environment {
    void TearDown() override { nccl_storage().reset(); }
};
inline const auto* const nccl_environment =
    ::testing::AddGlobalTestEnvironment(new nccl_ends_before_finalize);

} // namespace mpi_test
