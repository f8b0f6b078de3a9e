// Destinations as unsigned ranks: -1 (drop) would be out of range; the plan asks for int.
// expected-error: layout: mpi::migration_plan: destinations are signed ranks
#include <layout/mpi/mpi.hpp>

#include <vector>

void f(const std::vector<unsigned>& to) { layout::mpi::migration_plan plan(MPI_COMM_WORLD, to); }
