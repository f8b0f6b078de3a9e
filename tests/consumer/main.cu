// Needs --expt-relaxed-constexpr and C++20, which layout::layout passes to nvcc itself. Built,
// not run: the consumer tests must pass on machines without a GPU.
#include <layout/layout.hpp>

#include <cstddef>

struct P {
    float x, y;
};

__global__ void add(layout::view<P, layout::policy::soa, layout::cuda::device_memory> v) {
    auto&& [x, y] = v[threadIdx.x];
    x += y;
}

template <class Mdspan>
__global__ void twice(Mdspan m) {
    if (threadIdx.x < m.extent(0)) m(threadIdx.x) *= 2;
}

int main() {
    layout::aos_vector<P> host = {{1, 2}, {3, 4}};
    layout::cuda::aosoa<P, 32> dev = host; // converted on the GPU
    add<<<1, 2>>>(layout::cuda::soa_vector<P>(dev).view());
    twice<<<1, 32>>>(dev.column<&P::y>().mdspan()); // custom AoSoA mdspan mapping
    host = dev;
    return 0;
}
