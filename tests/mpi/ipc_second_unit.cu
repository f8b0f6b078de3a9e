// A second translation unit of mpi_gpu_device_halo_test that includes <layout/mpi/ipc.hpp> and
// runs its code, as a user's program with two .cu files does: a kernel or function the header
// defined outside a template or without `inline` would be defined twice, and the test would
// not link.
#include <layout/mpi/ipc.hpp>

#include <mpi.h>

#include <cstddef>

namespace mpi_test {

/// An exchange of nothing through a new ipc_transport (collective over comm).
void exchange_nothing_through_ipc(MPI_Comm comm, cudaStream_t stream) {
    layout::mpi::ipc_transport transport(comm);
    std::byte* none = nullptr;
    transport.exchange(none, {}, none, {}, stream);
}

} // namespace mpi_test
