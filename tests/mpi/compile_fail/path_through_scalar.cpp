// A field path that goes on past a scalar member, in MPI's deprecated spelling (its deprecation
// warning silenced: the error checked is the path's).
// expected-error: layout: mpi::path goes through a scalar member
#include <layout/mpi/mpi.hpp>

struct P {
    float x, y;
};

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
void f(layout::mpi::migration_plan& plan, layout::soa_vector<P>& c) {
    plan.migrate<layout::mpi::select<layout::mpi::path<&P::x, 0>>>(c);
}
#pragma GCC diagnostic pop
