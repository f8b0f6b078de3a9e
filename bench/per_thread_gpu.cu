// drift through layout::cuda::for_each_index<PerThread>: 2, 4 or 8 consecutive elements per
// thread, which under SoA become vector accesses, beside one element per thread and the raw
// kernels, in the same run. 32-byte Particles, 32M elements; useful bytes: 24 read + 12 written
// per element.
#include "gpu_bench.cuh"

namespace {

template <std::size_t PerThread, class L>
void add_per_thread(std::size_t n) {
    bench::add_launch<L>(
        "drift/" + std::string(particles::layout_name(L{})) + "_x" + std::to_string(PerThread), n,
        particles::random_particle, drift::bytes().useful_bytes(), [](const auto& v, std::size_t) {
            layout::cuda::for_each_index<PerThread>(v, particles::drift_params);
        });
}

} // namespace

int main(int argc, char** argv) {
    return bench::gpu_main(argc, argv, std::size_t{32} << 20, [](std::size_t n) {
        bench::add_variants<Particle>("drift", n, particles::random_particle,
                                      drift::bytes().useful_bytes(),
                                      [](std::size_t) { return particles::drift_params; });
        const auto add = [n]<class L>(L) {
            add_per_thread<2, L>(n);
            add_per_thread<4, L>(n);
            add_per_thread<8, L>(n);
        };
        add(bench::aos{});
        add(bench::soa{});
        add(bench::aosoa32{});
    });
}
