// drift written the way a user first writes it: a __global__ function template that takes the
// whole view by value (README "What it looks like"), next to the same drift through
// layout::cuda::for_each_index and the hand-written raw kernels, in the same run. Under SoA a
// view is a struct of column pointers, and nvcc ignores __restrict__ on struct members: the
// question is what that costs. 32-byte Particles, 32M elements; useful bytes: 24 read + 12
// written per element.
#include "gpu_bench.cuh"

namespace {

template <class View>
__global__ void drift_whole_view(View p, float dt) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= p.size()) return;
    auto&& [x, y, z, vx, vy, vz, m, q] = p[i];
    x += vx * dt;
    y += vy * dt;
    z += vz * dt;
    (void)m, (void)q;
}

} // namespace

int main(int argc, char** argv) {
    return bench::gpu_main(argc, argv, std::size_t{32} << 20, [](std::size_t n) {
        bench::add_variants<Particle>("drift", n, particles::random_particle,
                                      drift::bytes().useful_bytes(),
                                      [](std::size_t) { return particles::drift_params; });
        const auto add = [n]<class L>(L) {
            bench::add_launch<L>(std::string("drift/whole_view_") + particles::layout_name(L{}), n,
                                 particles::random_particle, drift::bytes().useful_bytes(),
                                 [](const auto& v, std::size_t) {
                                     drift_whole_view<<<particles::blocks_for(v.size()),
                                                        particles::threads_per_block>>>(
                                         v, particles::drift_params.dt);
                                 });
        };
        add(bench::aos{});
        add(bench::soa{});
        add(bench::aosoa32{});
    });
}
