// A field path that goes on past a scalar member.
// expected-error: layout: mpi::path goes through a scalar member
#include <layout/mpi/mpi.hpp>

struct P {
    float x, y;
};

void f(layout::mpi::migration_plan& plan, layout::soa_vector<P>& c) {
    plan.migrate<layout::mpi::select<layout::mpi::path<&P::x, 0>>>(c);
}
