// Positive control for the layout::mpi must-not-compile tests: the same command (with MPI's
// include path) on code that must compile, so a broken include path cannot make them pass.
// The core's keys on every plan operation compile with the deprecation warnings as errors.
// expected: compiles
#include <layout/mpi/mpi.hpp>

#pragma GCC diagnostic error "-Wdeprecated-declarations"

#include <vector>

struct P {
    float x, y;
    int id;
};

struct Q {
    P p;
    double w;
};

void f(layout::mpi::halo_plan& halo, layout::soa_vector<P>& c) {
    halo.scatter_add<&P::x, &P::id>(c);
    halo.gather<&P::x, 1>(c);
    halo.gather(c);
    halo.start_gather<&P::y>(c);
    halo.finish_gather<&P::y>(c);
}

void g(layout::mpi::migration_plan& plan, layout::aos_vector<Q>& c, layout::soa_vector<Q>& d) {
    plan.migrate<layout::path<&Q::p, &P::y>, &Q::w>(c);
    plan.migrate<&Q::p>(c, d);
    plan.start<&Q::w>(c);
    plan.finish<&Q::w>(d);
    static_assert(layout::mpi::wire_bytes_v<Q, layout::path<&Q::p, &P::y>, &Q::w> == 12);
}
