// Needs --expt-relaxed-constexpr and C++20, which layout::layout passes to nvcc itself.
#include <layout/view.hpp>

struct P {
    float x, y;
};

__global__ void add(layout::view<P, layout::policy::soa> v) {
    auto&& [x, y] = v[threadIdx.x];
    x += y;
}

int main() { return 0; }
