// A user's HIP kernels over layout::views: built by hipcc for gfx90a and gfx940, with and
// without NDEBUG (bounds checks on in the debug build), compiled only (-c): nothing runs here,
// there is no AMD GPU. See CMakeLists.txt in this directory.
#include <layout/layout.hpp>

#include <hip/hip_runtime.h>

namespace layout_hip_test {

struct vec2 {
    float x, y;
};
struct particle {
    vec2 pos;
    float mass;
    int id;
};

/// Element access, structured bindings (of the element and of its nested member), get<> and
/// columns, as a user's kernel would use them. The element at `source`, an index the compiler
/// cannot prove in range, keeps the bounds check's failure path (device printf and trap) in the
/// debug build; the checks of v[i] fold away after the test against v.size().
template <class View>
__global__ void drift(View v, float dt, std::size_t source) {
    const auto i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= v.size()) return;
    auto&& [pos, mass, id] = v[i];
    auto&& [x, y] = pos;
    x += dt * static_cast<float>(id);
    y += dt * mass;
    layout::get<&particle::mass>(v[i]) *= 0.5f;
    auto ids = v.template column<&particle::id>();
    ids[i] += 1;
    auto ys = v.template column<&particle::pos, &vec2::y>();
    ys[i] *= 2.f;
    particle p = v[source];
    p.pos.x -= 1.f;
    v[i] = p;
}

template <class Layout>
void launch(layout::view<particle, Layout> v) {
    drift<<<1, 64>>>(v, 0.1f, 0);
}

using split = layout::policy::split<layout::policy::aos, layout::policy::soa, &particle::pos>;

// Launches each kernel: a function with external linkage (the types are not in an anonymous
// namespace), so that the host stubs and every kernel are emitted.
void launch_all(layout::view<particle, layout::policy::aos> aos,
                layout::view<particle, layout::policy::soa> soa,
                layout::view<particle, layout::policy::aosoa<32>> aosoa,
                layout::view<particle, split> hot_cold) {
    launch(aos);
    launch(soa);
    launch(aosoa);
    launch(hot_cold);
}

} // namespace layout_hip_test
