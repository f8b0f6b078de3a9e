// Elements per thread in layout::cuda::for_each_index: drift, one field and most fields under
// every layout with 1, 2 and 4 elements per thread and with the default (per_thread_auto, which
// picks from the layout), beside the raw kernels, in the same run. Under aligned SoA a thread's
// elements are consecutive and become vector accesses; under AoS and AoSoA they are a block
// apart. 32M elements; useful bytes as in the kernels' own benchmarks.
#include "gpu_bench.cuh"

namespace {

template <std::size_t PerThread, class L, class T, class F>
void add_per_thread(const std::string& kernel, std::size_t n, T (*make)(std::uint64_t, std::size_t),
                    std::size_t useful_bytes, F functor) {
    const std::string count =
        PerThread == layout::cuda::per_thread_auto ? "auto" : "x" + std::to_string(PerThread);
    bench::add_launch<L>(kernel + "/" + std::string(particles::layout_name(L{})) + "_" + count, n,
                         make, useful_bytes, [=](const auto& v, std::size_t k) {
                             layout::cuda::for_each_index<PerThread>(v, functor(k));
                         });
}

template <class T, class F>
void add_kernel(const std::string& kernel, std::size_t n, T (*make)(std::uint64_t, std::size_t),
                std::size_t useful_bytes, F functor) {
    bench::add_variants<T>(kernel, n, make, useful_bytes, functor);
    const auto add = [&]<class L>(L) {
        add_per_thread<2, L>(kernel, n, make, useful_bytes, functor);
        add_per_thread<4, L>(kernel, n, make, useful_bytes, functor);
        add_per_thread<layout::cuda::per_thread_auto, L>(kernel, n, make, useful_bytes, functor);
    };
    add(bench::aos{});
    add(bench::soa{});
    add(bench::aosoa32{});
}

} // namespace

int main(int argc, char** argv) {
    return bench::gpu_main(argc, argv, std::size_t{32} << 20, [](std::size_t n) {
        add_kernel<Particle>("drift", n, particles::random_particle, drift::bytes().useful_bytes(),
                             [](std::size_t) { return particles::drift_params; });
        auto c = [](std::size_t k) { return scale_mass{k % 2 ? 0.5f : 2.0f}; };
        add_kernel<Particle>("one_field_p32", n, particles::random_particle,
                             scale_mass::bytes<Particle>().useful_bytes(), c);
        add_kernel<WideParticle>("most_fields", n, particles::random_wide_particle,
                                 integrate::bytes().useful_bytes(),
                                 [](std::size_t) { return particles::integrate_params; });
    });
}
