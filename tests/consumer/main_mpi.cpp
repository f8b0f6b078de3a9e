// Built where MPI is found, not run (that takes mpirun): the MPI plans are an opt-in component,
// <layout/mpi/mpi.hpp> through the target layout::mpi, which defines LAYOUT_WITH_MPI and puts
// <mpi.h> on the include path.
#include <layout/layout.hpp>
#include <layout/mpi/mpi.hpp>

#ifndef LAYOUT_WITH_MPI
#  error "layout::mpi did not define LAYOUT_WITH_MPI"
#endif

#include <mpi.h>

#include <vector>

struct P {
    float x, y;
};

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    layout::soa_vector<P> p(4, P{1, 2});
    const std::vector<int> destinations(p.size(), rank); // every element stays
    layout::mpi::migration_plan plan(MPI_COMM_WORLD, destinations);
    plan.migrate(p);
    MPI_Finalize();
    return p.size() == 4 ? 0 : 1;
}
