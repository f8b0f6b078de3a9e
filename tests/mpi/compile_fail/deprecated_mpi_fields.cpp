// MPI's own field vocabulary is deprecated (opt-in warning this release): the warning names
// the core's spelling that replaces it.
// expected-error: layout::mpi::fields is deprecated: pass the keys to the plan
#define LAYOUT_MPI_WARN_DEPRECATED
#include <layout/mpi/mpi.hpp>

#pragma GCC diagnostic error "-Wdeprecated-declarations"

struct P {
    float x, y;
    int id;
};

void f(layout::mpi::halo_plan& halo, layout::soa_vector<P>& c) {
    halo.gather<layout::mpi::fields<&P::x>>(c);
}
