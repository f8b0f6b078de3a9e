// scatter_add of a pointer leaf: ghosts' contributions are added, which a pointer cannot be.
// expected-error: layout: mpi::halo_plan::scatter_add adds the travelling leaves; select only arithmetic
#include <layout/mpi/mpi.hpp>

struct P {
    float x;
    const char* name;
};

void f(layout::mpi::halo_plan& halo, layout::soa_vector<P>& c) {
    halo.scatter_add<&P::x, &P::name>(c);
}
