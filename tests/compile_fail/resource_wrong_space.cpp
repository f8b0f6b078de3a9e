// expected-error: layout: this resource's memory is not reachable where the container's memory space says
// expected-max-lines: 40
// A resource of device memory given to a host container: the host would dereference its blocks.
#include <layout/layout.hpp>

#include <cstddef>

struct P {
    float x, y;
};

struct device_only {
    static constexpr bool host_accessible = false;
    static constexpr bool device_accessible = true;
    void* allocate(std::size_t, std::size_t) { return nullptr; }
    void deallocate(void*, std::size_t, std::size_t) noexcept {}
    bool operator==(const device_only&) const = default;
};

int main() {
    device_only r;
    layout::soa_vector<P> v(layout::stream_ref{}, r);
    return static_cast<int>(v.size());
}
