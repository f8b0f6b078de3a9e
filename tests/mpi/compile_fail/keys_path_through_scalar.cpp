// The core's keys on a plan: a layout::path that goes on past a scalar member.
// expected-error: layout: column<...> or path<...>: the path goes on past a scalar member
#include <layout/mpi/mpi.hpp>

struct P {
    float x, y;
};

void f(layout::mpi::migration_plan& plan, layout::soa_vector<P>& c) {
    plan.migrate<layout::path<&P::x, 0>>(c);
}
