// expected-error: layout: the container's third parameter is not a memory space
// A user's memory space without default_resource() is refused where it enters.
#include <layout/layout.hpp>

struct P {
    float x, y;
};

struct my_memory {
    static constexpr bool host_accessible = true;
    static constexpr bool device_accessible = false;
};

int main() {
    layout::vector<P, layout::policy::soa, my_memory> v;
    return static_cast<int>(v.size());
}
