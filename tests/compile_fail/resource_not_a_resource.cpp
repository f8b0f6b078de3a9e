// expected-error: layout: a container's resource needs allocate\(bytes, alignment\)
// expected-max-lines: 40
// Something that is not a memory resource (no deallocate, no accessibility) given to a container.
#include <layout/layout.hpp>

#include <cstddef>

struct P {
    float x, y;
};

struct half_a_resource {
    void* allocate(std::size_t, std::size_t) { return nullptr; }
};

int main() {
    half_a_resource r;
    layout::soa_vector<P> v(layout::stream_ref{}, r);
    return static_cast<int>(v.size());
}
