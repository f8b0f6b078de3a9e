// MPI's own field vocabulary is deprecated, with nothing defined to ask for the warnings (g++ and
// clang alike): each spelling's warning names the core's spelling that replaces it.
// expected-error: layout::mpi::fields is deprecated: pass the keys to the plan.*layout::mpi::path is deprecated: name the fields with the core's keys.*layout::mpi::select is deprecated: pass the keys to the plan.*layout::mpi::all_fields is deprecated: name no field.*layout::mpi::wire_bytes_per_element_v is deprecated: use layout::mpi::wire_bytes_v
#include <layout/mpi/mpi.hpp>

#pragma GCC diagnostic error "-Wdeprecated-declarations"

struct P {
    float x, y;
    int id;
};

void f(layout::mpi::halo_plan& halo, layout::soa_vector<P>& c) {
    halo.gather<layout::mpi::fields<&P::x>>(c);
}

using y_path = layout::mpi::path<&P::y>;
using selected = layout::mpi::select<y_path>;
using every = layout::mpi::all_fields;
inline constexpr std::size_t bytes = layout::mpi::wire_bytes_per_element_v<P>;
