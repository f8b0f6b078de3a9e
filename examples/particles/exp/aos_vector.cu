// Experiment: is the AoS penalty of most_fields (4x measured, 1.23x predicted from bytes) the
// number of memory instructions (one 4-byte LDG/STG per field, 32 sectors each per warp) rather
// than DRAM bytes? Compare the scalar raw AoS kernel with one that moves each element as float4s.
#include "../gpu_kernels.cuh"
#include <cstdio>
using namespace particles;

__global__ void raw_aos_integrate_v4(integrate f, WideParticle* __restrict__ p, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4* q = reinterpret_cast<float4*>(p + i);
    float4 v[4] = {q[0], q[1], q[2], q[3]};
    WideParticle e;
    memcpy(&e, v, sizeof e);
    f.step(e.pos.x, e.pos.y, e.pos.z, e.vel.x, e.vel.y, e.vel.z, e.force.x, e.force.y, e.force.z,
           e.mass, e.charge, e.energy, e.type, e.cell, e.flags);
    memcpy(v, &e, sizeof e);
    q[0] = v[0];
    q[1] = v[1];
    q[2] = v[2];
    q[3] = v[3];
}
__global__ void raw_aos_drift_v4(float dt, Particle* __restrict__ p, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4* q = reinterpret_cast<float4*>(p + i);
    float4 a = q[0], b = q[1]; // x y z vx | vy vz m q
    a.x += a.w * dt;
    a.y += b.x * dt;
    a.z += b.y * dt;
    q[0] = a;
}
// The library's whole-element load and store: Particle e = v[i]; ...; v[i] = e;
struct integrate_whole {
    integrate f;
    template <class View>
    __device__ void operator()(const View& p, std::size_t i) const {
        WideParticle e = p[i];
        f.step(e.pos.x, e.pos.y, e.pos.z, e.vel.x, e.vel.y, e.vel.z, e.force.x, e.force.y,
               e.force.z, e.mass, e.charge, e.energy, e.type, e.cell, e.flags);
        p[i] = e;
    }
};

int main() {
    const std::size_t n = std::size_t{32} << 20;
    std::vector<WideParticle> in(n);
    std::vector<Particle> pin(n);
    parallel_for(n, [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) {
            in[i] = random_wide_particle(default_seed, i);
            pin[i] = random_particle(default_seed, i);
        }
    });
    layout::aos_vector<WideParticle> h(in.begin(), in.end());
    layout::soa_vector<WideParticle> hs = h;
    layout::aos_vector<Particle> hp(pin.begin(), pin.end());
    layout::cuda::aos_vector<WideParticle> a = h, b = h, c = h;
    layout::cuda::soa_vector<WideParticle> s = hs;
    layout::cuda::aos_vector<Particle> pa = hp, pb = hp;
    const integrate f = integrate_params;
    auto t_soa = median_us_events([&] { layout::cuda::for_each_index(s.view(), f); }, 3, 20);
    auto t_aos = median_us_events([&] { gpu_raw_runner{}(f, a.view()); }, 3, 20);
    auto t_v4 = median_us_events(
        [&] { raw_aos_integrate_v4<<<blocks_for(n), 256>>>(f, b.view().storage().data, n); }, 3,
        20);
    auto t_whole = median_us_events(
        [&] { layout::cuda::for_each_index(c.view(), integrate_whole{f}); }, 3, 20);
    layout::cuda::check(cudaDeviceSynchronize(), "sync");
    layout::aos_vector<WideParticle> ra = a, rb = b, rc = c;
    bool same = std::memcmp(ra.view().storage().data, rb.view().storage().data,
                            n * sizeof(WideParticle)) == 0;
    bool same2 = std::memcmp(ra.view().storage().data, rc.view().storage().data,
                             n * sizeof(WideParticle)) == 0;
    std::printf(
        "most_fields: lib soa %.1f us | raw aos scalar %.1f us (%.2fx) | raw aos float4 %.1f us "
        "(%.2fx, same result: %s) | lib aos whole-element %.1f us (%.2fx, same: %s)\n",
        t_soa, t_aos, t_aos / t_soa, t_v4, t_v4 / t_soa, same ? "yes" : "NO", t_whole,
        t_whole / t_soa, same2 ? "yes" : "NO");
    auto d_aos = median_us_events([&] { gpu_raw_runner{}(drift_params, pa.view()); }, 3, 20);
    auto d_v4 = median_us_events(
        [&] {
            raw_aos_drift_v4<<<blocks_for(n), 256>>>(drift_params.dt, pb.view().storage().data, n);
        },
        3, 20);
    layout::aos_vector<Particle> qa = pa, qb = pb;
    bool same3 =
        std::memcmp(qa.view().storage().data, qb.view().storage().data, n * sizeof(Particle)) == 0;
    std::printf("drift: raw aos scalar %.1f us | raw aos float4 %.1f us (same: %s)\n", d_aos, d_v4,
                same3 ? "yes" : "NO");
}
