// Experiment (#19): how fast can the AoS wide kernels and AoSoA<32> one_field go, written by hand?
// Variants of one kernel, same memory, same run, against the float4 copy:
//   wide_drift (WideParticle, reads bytes 0..23, writes 0..11) with scalar / vector loads and stores;
//   most_fields (integrate, 15 of 16 fields) scalar, compiler-merged vectors, whole-element
//   vectors, and staged through shared memory (coalesced float4 in and out, only changed words
//   written back);
//   one_field on AoSoA<32> blocks with 1, 4 and 8 lanes a thread.
//   nvcc -std=c++20 -O3 -arch=sm_90 --expt-relaxed-constexpr -Iinclude -Iexamples/particles \
//        bench/experiments/aos_access_widths.cu -o /tmp/aos_access_widths && /tmp/aos_access_widths
#include "kernels.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            std::printf("%s: %s\n", #x, cudaGetErrorString(e_));                                   \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

constexpr int threads = 256;

__global__ void copy4(const float4* __restrict__ s, float4* __restrict__ d, std::size_t n) {
    std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) d[i] = s[i];
}

// ---- wide_drift -------------------------------------------------------------------------------
__global__ void wd_scalar(float* __restrict__ p, std::size_t n, float dt) {
    std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float* e = p + i * 16;
    e[0] += e[3] * dt;
    e[1] += e[4] * dt;
    e[2] += e[5] * dt;
}
template <bool VecLoad, bool VecStore>
__global__ void wd_vec(float* __restrict__ p, std::size_t n, float dt) {
    std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float* e = p + i * 16;
    float x, y, z, vx, vy, vz;
    if constexpr (VecLoad) {
        float4 a = *reinterpret_cast<float4*>(e);
        float2 b = *reinterpret_cast<float2*>(e + 4);
        x = a.x, y = a.y, z = a.z, vx = a.w, vy = b.x, vz = b.y;
    } else {
        x = e[0], y = e[1], z = e[2], vx = e[3], vy = e[4], vz = e[5];
    }
    x += vx * dt, y += vy * dt, z += vz * dt;
    if constexpr (VecStore) {
        *reinterpret_cast<float2*>(e) = make_float2(x, y);
        e[2] = z;
    } else {
        e[0] = x, e[1] = y, e[2] = z;
    }
}
// the sector's 32 bytes in two float4 loads
__global__ void wd_sector(float* __restrict__ p, std::size_t n, float dt) {
    std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float* e = p + i * 16;
    float4 a = *reinterpret_cast<float4*>(e);
    float4 b = *reinterpret_cast<float4*>(e + 4);
    a.x += a.w * dt, a.y += b.x * dt, a.z += b.y * dt;
    *reinterpret_cast<float2*>(e) = make_float2(a.x, a.y);
    e[2] = a.z;
}

// ---- most_fields ------------------------------------------------------------------------------
__global__ void mf_scalar(integrate f, WideParticle* __restrict__ p, std::size_t n) {
    std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) raw::integrate(f, p, i);
}
__global__ void mf_merged(integrate f, WideParticle* __restrict__ p, std::size_t n) {
    std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) raw::integrate(f, static_cast<WideParticle*>(__builtin_assume_aligned(p, 64)), i);
}
// whole element in four float4, step on the copy, only written fields stored (merged)
__global__ void mf_whole(integrate f, WideParticle* __restrict__ p, std::size_t n) {
    std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    auto* q = static_cast<WideParticle*>(__builtin_assume_aligned(p, 64));
    const float4* s = reinterpret_cast<const float4*>(q + i);
    float4 c[4] = {s[0], s[1], s[2], s[3]};
    WideParticle e;
    std::memcpy(&e, c, 64);
    const WideParticle old = e;
    f.step(e.pos.x, e.pos.y, e.pos.z, e.vel.x, e.vel.y, e.vel.z, e.force.x, e.force.y, e.force.z,
           e.mass, e.charge, e.energy, e.type, e.cell, e.flags);
    (void)old;
    q[i].pos = e.pos;
    q[i].vel = e.vel;
    q[i].force = e.force;
    q[i].energy = e.energy;
    q[i].cell = e.cell;
    q[i].flags = e.flags;
}
// staged: the block's 256 elements (16 KiB) in and out as coalesced float4, each thread's element
// read from shared memory (swizzled: conflict-free float4 reads), only changed words written
template <bool OnlyChanged>
__global__ void mf_staged(integrate f, WideParticle* __restrict__ p, std::size_t n) {
    __shared__ float4 tile[threads * 4];
    const std::size_t first = std::size_t{blockIdx.x} * threads;
    const std::size_t count = std::min<std::size_t>(threads, n - first);
    const float4* src = reinterpret_cast<const float4*>(p + first);
    float4* dst = reinterpret_cast<float4*>(p + first);
    auto slot = [](unsigned e, unsigned k) { return e * 4 + (k ^ ((e >> 1) & 3)); };
    float4 old[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        const unsigned g = threadIdx.x + j * threads;
        if (g < count * 4) {
            old[j] = src[g];
            tile[slot(g / 4, g % 4)] = old[j];
        }
    }
    __syncthreads();
    if (threadIdx.x < count) {
        float4 c[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) c[k] = tile[slot(threadIdx.x, k)];
        WideParticle e;
        std::memcpy(&e, c, 64);
        f.step(e.pos.x, e.pos.y, e.pos.z, e.vel.x, e.vel.y, e.vel.z, e.force.x, e.force.y,
               e.force.z, e.mass, e.charge, e.energy, e.type, e.cell, e.flags);
        std::memcpy(c, &e, 64);
#pragma unroll
        for (int k = 0; k < 4; ++k) tile[slot(threadIdx.x, k)] = c[k];
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        const unsigned g = threadIdx.x + j * threads;
        if (g < count * 4) {
            const float4 v = tile[slot(g / 4, g % 4)];
            if constexpr (!OnlyChanged) {
                dst[g] = v;
            } else {
                const unsigned* a = reinterpret_cast<const unsigned*>(&v);
                const unsigned* b = reinterpret_cast<const unsigned*>(&old[j]);
                const bool c0 = a[0] != b[0], c1 = a[1] != b[1], c2 = a[2] != b[2],
                           c3 = a[3] != b[3];
                if (c0 && c1 && c2 && c3) {
                    dst[g] = v;
                } else {
                    float* w = reinterpret_cast<float*>(dst + g);
                    if (c0) w[0] = v.x;
                    if (c1) w[1] = v.y;
                    if (c2) w[2] = v.z;
                    if (c3) w[3] = v.w;
                }
            }
        }
    }
}

// ---- AoSoA<32> one_field: mass of Particle blocks (8 leaves x 32 lanes, mass leaf 6) ------------
template <int Lanes>
__global__ void of_aosoa(float* __restrict__ blocks, std::size_t n, float c) {
    const std::size_t t = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    const std::size_t i = t * Lanes;
    if (i >= n) return;
    float* m = blocks + (i / 32) * 256 + 6 * 32 + i % 32;
    if constexpr (Lanes == 1) {
        m[0] *= c;
    } else if constexpr (Lanes == 4) {
        float4 v = *reinterpret_cast<float4*>(m);
        v.x *= c, v.y *= c, v.z *= c, v.w *= c;
        *reinterpret_cast<float4*>(m) = v;
    } else {
        float4 v = *reinterpret_cast<float4*>(m);
        float4 w = *reinterpret_cast<float4*>(m + 4);
        v.x *= c, v.y *= c, v.z *= c, v.w *= c;
        w.x *= c, w.y *= c, w.z *= c, w.w *= c;
        *reinterpret_cast<float4*>(m) = v;
        *reinterpret_cast<float4*>(m + 4) = w;
    }
}
__global__ void of_soa4(float* __restrict__ m, std::size_t n, float c) {
    const std::size_t i = (std::size_t{blockIdx.x} * blockDim.x + threadIdx.x) * 4;
    if (i >= n) return;
    float4 v = *reinterpret_cast<float4*>(m + i);
    v.x *= c, v.y *= c, v.z *= c, v.w *= c;
    *reinterpret_cast<float4*>(m + i) = v;
}

// values in [1, 2) from a hash of the index
__global__ void fill_random(float* p, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned h = static_cast<unsigned>(i) * 2654435761u;
    h ^= h >> 15;
    p[i] = 1.0f + static_cast<float>(h & 0xffffff) / 16777216.0f;
}

template <class Launch>
float time_ms(Launch launch, int reps = 21) {
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    launch();
    std::vector<float> t;
    for (int r = 0; r < reps; ++r) {
        CHECK(cudaEventRecord(a));
        launch();
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        float ms;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms);
    }
    CHECK(cudaGetLastError());
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main() {
    const std::size_t n = std::size_t{1} << 25; // 32 Mi elements
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device %s, n = %zu, %d threads a block, medians of 21\n", prop.name, n, threads);

    // float4 copy of 1 GiB: the bandwidth reference
    const std::size_t copy_bytes = std::size_t{1} << 30;
    float4 *cs, *cd;
    CHECK(cudaMalloc(&cs, copy_bytes));
    CHECK(cudaMalloc(&cd, copy_bytes));
    CHECK(cudaMemset(cs, 0, copy_bytes));
    const std::size_t n4 = copy_bytes / 16;
    const float copy_ms =
        time_ms([&] { copy4<<<(n4 + threads - 1) / threads, threads>>>(cs, cd, n4); });
    const double copy_gbs = 2.0 * copy_bytes / copy_ms / 1e6;
    std::printf("copy float4: %.3f ms, %.1f GB/s\n", copy_ms, copy_gbs);
    CHECK(cudaFree(cs));
    CHECK(cudaFree(cd));

    // wide particles, random-ish contents with valid masses and types
    std::vector<WideParticle> host(n);
    for (std::size_t i = 0; i < n; ++i) {
        const float f = float(i % 1000) * 0.001f;
        host[i] = WideParticle{{f, 2 * f, 3 * f},
                               {0.1f, 0.2f, 0.3f},
                               {0.f, 0.f, 0.f},
                               1.f + f,
                               0.5f,
                               0.f,
                               std::int32_t(i),
                               std::int32_t(i % 2),
                               0,
                               0};
    }
    WideParticle* wp;
    CHECK(cudaMalloc(&wp, n * sizeof(WideParticle)));
    auto reset = [&] {
        CHECK(cudaMemcpy(wp, host.data(), n * sizeof(WideParticle), cudaMemcpyHostToDevice));
    };
    const unsigned grid = unsigned((n + threads - 1) / threads);
    float* wf = reinterpret_cast<float*>(wp);
    const float dt = 0.001f;

    // correctness: every variant against the scalar one, bit for bit, after 3 steps
    std::vector<WideParticle> ref(n), got(n);
    auto run3 = [&](auto launch, std::vector<WideParticle>& out) {
        reset();
        for (int s = 0; s < 3; ++s) launch();
        CHECK(cudaMemcpy(out.data(), wp, n * sizeof(WideParticle), cudaMemcpyDeviceToHost));
    };
    auto same = [&](const char* name) {
        if (std::memcmp(ref.data(), got.data(), n * sizeof(WideParticle)) != 0) {
            std::printf("MISMATCH %s\n", name);
            std::exit(1);
        }
    };

    struct row {
        const char* name;
        float ms;
    };
    std::vector<row> rows;
    auto wd = [&](const char* name, auto kernel) {
        auto launch = [&] { kernel<<<grid, threads>>>(wf, n, dt); };
        run3(launch, got);
        same(name);
        rows.push_back({name, time_ms(launch)});
    };
    run3([&] { wd_scalar<<<grid, threads>>>(wf, n, dt); }, ref);
    wd("wide_drift scalar (raw)", wd_scalar);
    wd("wide_drift v4+v2 load, v2+s store (library)", wd_vec<true, true>);
    wd("wide_drift v4+v2 load, scalar store", wd_vec<true, false>);
    wd("wide_drift scalar load, v2+s store", wd_vec<false, true>);
    wd("wide_drift 2x v4 load, v2+s store", wd_sector);

    integrate f{0.001f, 1.0f, 2.0f, {0.1f, 0.2f, 0.3f}, 1.0f / 64};
    auto mf = [&](const char* name, auto kernel) {
        auto launch = [&] { kernel<<<grid, threads>>>(f, wp, n); };
        run3(launch, got);
        same(name);
        rows.push_back({name, time_ms(launch)});
    };
    run3([&] { mf_scalar<<<grid, threads>>>(f, wp, n); }, ref);
    mf("most_fields scalar (raw)", mf_scalar);
    mf("most_fields merged vectors (library)", mf_merged);
    mf("most_fields whole-element loads", mf_whole);
    mf("most_fields staged, all words out", mf_staged<false>);
    mf("most_fields staged, changed words out", mf_staged<true>);
    CHECK(cudaFree(wp));

    // AoSoA<32> Particle blocks (32 B per element) and one SoA column: zero-filled or random
    // contents, cudaMalloc or the stream-ordered pool (what the library's containers use)
    static std::string names[16];
    int name = 0;
    for (const bool random : {false, true})
        for (const bool pooled : {false, true}) {
            float *blocks, *column;
            if (pooled) {
                CHECK(cudaMallocAsync(&blocks, n * 32, 0));
                CHECK(cudaMallocAsync(&column, n * 4, 0));
            } else {
                CHECK(cudaMalloc(&blocks, n * 32));
                CHECK(cudaMalloc(&column, n * 4));
            }
            if (random) {
                fill_random<<<unsigned((n * 8 + threads - 1) / threads), threads>>>(blocks, n * 8);
                fill_random<<<unsigned((n + threads - 1) / threads), threads>>>(column, n);
            } else {
                CHECK(cudaMemset(blocks, 0, n * 32));
                CHECK(cudaMemset(column, 0, n * 4));
            }
            CHECK(cudaDeviceSynchronize());
            const std::string how =
                std::string(random ? "random" : "zeros") + (pooled ? ", pool" : ", cudaMalloc");
            auto add = [&](const char* what, float ms) {
                names[name] = std::string("one_field ") + what + " (" + how + ")";
                rows.push_back({names[name++].c_str(), ms});
            };
            add("SoA column, 4 a thread", time_ms([&] {
                    of_soa4<<<unsigned((n / 4 + threads - 1) / threads), threads>>>(column, n,
                                                                                    1.0001f);
                }));
            add("AoSoA<32>, 1 lane a thread",
                time_ms([&] { of_aosoa<1><<<grid, threads>>>(blocks, n, 1.0001f); }));
            add("AoSoA<32>, 4 lanes a thread", time_ms([&] {
                    of_aosoa<4><<<unsigned((n / 4 + threads - 1) / threads), threads>>>(blocks, n,
                                                                                        1.0001f);
                }));
            add("AoSoA<32>, 8 lanes a thread", time_ms([&] {
                    of_aosoa<8><<<unsigned((n / 8 + threads - 1) / threads), threads>>>(blocks, n,
                                                                                        1.0001f);
                }));
            CHECK(cudaFree(blocks));
            CHECK(cudaFree(column));
        }

    std::printf("%-62s %10s %10s\n", "variant", "ms", "useful%copy");
    for (const auto& r : rows) std::printf("%-62s %10.3f\n", r.name, r.ms);
    const double one_field_bytes = 8.0 * n; // 4 read + 4 written
    for (const auto& r : rows)
        if (std::strncmp(r.name, "one_field", 9) == 0)
            std::printf("%-62s %9.1f%% of copy\n", r.name,
                        100.0 * one_field_bytes / r.ms / 1e6 / copy_gbs);
}
