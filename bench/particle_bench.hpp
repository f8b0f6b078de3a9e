/// \file particle_bench.hpp
/// What the particle benchmarks on the host (cpu_bench.hpp) and on the GPU (gpu_bench.cuh) share:
/// their input, random with the example's fixed seed, in the three layouts, and the names of
/// their six variants.
///
///     auto& in = bench::inputs<Particle, layout::host_memory>(n, particles::random_particle);
///     in.get<bench::soa>()            // layout::vector<Particle, soa>, built on the first call
///     bench::for_each_variant("drift", add);   // add("drift/raw_aos", true, aos{}), ...
#pragma once

#include "common.hpp"

#include <layout/layout.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace bench {

using particles::aos;
using particles::aosoa32;
using particles::soa;

/// The input in the three layouts, in Memory (layout::host_memory or a device memory).
template <class T, class Memory>
struct layout_inputs {
    layout::vector<T, aos, Memory> in_aos;
    layout::vector<T, soa, Memory> in_soa;
    layout::vector<T, aosoa32, Memory> in_aosoa32;

    template <class L>
    layout::vector<T, L, Memory>& get() {
        if constexpr (std::is_same_v<L, aos>)
            return in_aos;
        else if constexpr (std::is_same_v<L, soa>)
            return in_soa;
        else
            return in_aosoa32;
    }
};

/// Built on first use (so that --benchmark_filter allocates only what it runs), kept after.
template <class T, class Memory>
layout_inputs<T, Memory>& inputs(std::size_t n, T (*make)(std::uint64_t, std::size_t)) {
    static std::unique_ptr<layout_inputs<T, Memory>> built;
    if (!built) {
        std::vector<T> input(n);
        particles::parallel_for(n, [&](std::size_t b, std::size_t e) {
            for (std::size_t i = b; i < e; ++i) input[i] = make(particles::default_seed, i);
        });
        built = std::make_unique<layout_inputs<T, Memory>>();
        built->in_aos = particles::to_layout<T, aos>(input);
        built->in_soa = particles::to_layout<T, soa>(input);
        built->in_aosoa32 = particles::to_layout<T, aosoa32>(input);
    }
    return *built;
}

/// Calls add(name, raw, L{}) for the six variants of a kernel, in this order: the hand-written
/// "<kernel>/raw_aos", "<kernel>/raw_soa", "<kernel>/raw_aosoa32", then the library's
/// "<kernel>/aos", "<kernel>/soa", "<kernel>/aosoa32".
template <class Add>
void for_each_variant(const std::string& kernel, Add&& add) {
    auto one = [&]<class L>(bool raw, L) {
        add(kernel + "/" + (raw ? "raw_" : "") + particles::layout_name(L{}), raw, L{});
    };
    for (bool raw : {true, false}) {
        one(raw, aos{});
        one(raw, soa{});
        one(raw, aosoa32{});
    }
}

} // namespace bench
