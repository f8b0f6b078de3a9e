// Positive control for the layout::mpi must-not-compile tests: the same command (with MPI's
// include path) on code that must compile, so a broken include path cannot make them pass.
// expected: compiles
#include <layout/mpi/mpi.hpp>

#include <vector>

struct P {
    float x, y;
    int id;
};

void f(layout::mpi::halo_plan& halo, layout::soa_vector<P>& c) {
    halo.scatter_add<layout::mpi::fields<&P::x, &P::id>>(c);
}
