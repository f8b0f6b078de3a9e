// The MD mini-app with CUDA: --device gpu runs the kernels of kernels.hpp through
// layout::cuda::for_each_index on device containers, --device cpu the host path of md.cpp.
//   md_gpu --data FILE --device gpu [--layout aos|soa|aosoa32|split] [--precision double|float] ...
//   md_gpu --lattice fcc 0.8442 --cells 20 20 20 --device gpu --steps 10000 --thermo 1000
//   md_gpu ... --device gpu --compare-raw [REPS]   the library force kernel against a
//                                                  hand-written one on the same neighbor list
//
// Full neighbor list on the GPU: one thread per atom writes only its own force, so no atomics
// and no races; computing each pair twice costs less than the atomic f[j] updates of a half
// list would (arithmetic is cheap next to the gathers of neighbor positions).
#include "host_backend.hpp"

#include <layout/cuda/algorithms.hpp>
#include <layout/cuda/error.hpp>
#include <layout/cuda/for_each.hpp>
#include <layout/cuda/vector.hpp>

#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

namespace md {

struct max_of {
    __host__ __device__ index_t operator()(index_t a, index_t b) const { return a > b ? a : b; }
};

struct device_backend {
    template <class T, class Layout>
    using atoms = layout::vector<T, Layout, layout::cuda::device_memory>;
    template <class T>
    using array = layout::cuda::aos_vector<T>;
    static constexpr bool half_list = false;
    static constexpr bool interleaved_list = true;
    static constexpr int cells_per_reach = 1; // 27 cells: fewer, longer runs of a warp's loads

    template <class T>
    static T* ptr(array<T>& a) {
        return a.view().data();
    }
    template <class T>
    static void zeros(array<T>& a, std::size_t n) {
        a = array<T>();  // free first: the neighbor list can be large
        a = array<T>(n); // n value-initialized (zero) elements
    }
    template <class T>
    static array<T> to_device(const std::vector<T>& h) {
        return array<T>(layout::aos_vector<T>(h.begin(), h.end()));
    }
    /// One element a thread, not the default's several: the force and neighbor kernels loop
    /// over neighbours, and several atoms a thread cost them registers and so resident threads
    /// (loads in flight): the force kernel ran 1.48x slower at the default's 2 per thread under
    /// SoA at 2,048,000 atoms (60 registers, 4 blocks an SM, against 48 and 5).
    template <class View, class F>
    void for_each(const View& v, const F& f) const {
        layout::cuda::for_each_index<1>(v, f);
        layout::cuda::check(cudaGetLastError(), "md kernel launch");
    }
    template <class View, class F>
    void half_forces(const View&, const F&) const {} // never called: the GPU's list is full

    template <class Atoms>
    static array<index_t> bin(array<index_t>& keys, std::size_t cells, Atoms& a) {
        return std::move(layout::cuda::bin_by_key<index_t>(keys, cells, a).offsets);
    }
    static double sum(array<double>& a, std::size_t n) {
        const double* p = a.view().data();
        return thrust::reduce(thrust::device, p, p + n, 0.0);
    }
    static std::size_t max(array<index_t>& a, std::size_t n) {
        const index_t* p = a.view().data();
        return thrust::reduce(thrust::device, p, p + n, index_t{0}, max_of{});
    }
    static void sync() { layout::cuda::check(cudaDeviceSynchronize(), "md step"); }
};

// ---- the hand-written baseline ------------------------------------------------------------------

/// One pair of the hand-written kernels, as lj_full's: the plain difference, or (Image) the
/// minimum image.
template <bool Image, class Real>
__device__ __forceinline__ void raw_pair(Real xi, Real yi, Real zi, Real xj, Real yj, Real zj,
                                         const kernel_box<Real>& box, Real cut_sq, Real& sx,
                                         Real& sy, Real& sz) {
    Real dx = xi - xj, dy = yi - yj, dz = zi - zj;
    if constexpr (Image) {
        dx = min_image<Real>(dx, box.prd[0], box.half_prd[0]);
        dy = min_image<Real>(dy, box.prd[1], box.half_prd[1]);
        dz = min_image<Real>(dz, box.prd[2], box.half_prd[2]);
    }
    const Real rsq = dx * dx + dy * dy + dz * dz;
    if (rsq < cut_sq) {
        Real r6inv;
        const Real fpair = lj_fpair(rsq, r6inv);
        sx += dx * fpair;
        sy += dy * fpair;
        sz += dz * fpair;
    }
}

/// The same full-list force as lj_full, written by hand over raw arrays: positions as separate
/// x, y, z arrays (what SoA stores) or as an array of the atom struct (what AoS stores).
template <class Real>
__global__ void raw_lj_soa(const Real* __restrict__ x, const Real* __restrict__ y,
                           const Real* __restrict__ z, const index_t* __restrict__ neigh,
                           const index_t* __restrict__ count, const index_t* __restrict__ plain,
                           std::size_t n, kernel_box<Real> box, Real cut_sq, Real* __restrict__ fx,
                           Real* __restrict__ fy, Real* __restrict__ fz) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const Real xi = x[i], yi = y[i], zi = z[i];
    Real sx = 0, sy = 0, sz = 0;
    const std::size_t p = plain[i], m = count[i];
    for (std::size_t k = 0; k < p; ++k) {
        const std::size_t j = neigh[i + k * n];
        raw_pair<false>(xi, yi, zi, x[j], y[j], z[j], box, cut_sq, sx, sy, sz);
    }
    for (std::size_t k = p; k < m; ++k) {
        const std::size_t j = neigh[i + k * n];
        raw_pair<true>(xi, yi, zi, x[j], y[j], z[j], box, cut_sq, sx, sy, sz);
    }
    fx[i] = sx;
    fy[i] = sy;
    fz[i] = sz;
}

/// Hand-written split: positions as an array of vec3 (what --layout split stores), forces as
/// three arrays.
template <class Real>
__global__ void raw_lj_split(const vec3<Real>* __restrict__ pos, const index_t* __restrict__ neigh,
                             const index_t* __restrict__ count, const index_t* __restrict__ plain,
                             std::size_t n, kernel_box<Real> box, Real cut_sq,
                             Real* __restrict__ fx, Real* __restrict__ fy, Real* __restrict__ fz) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const vec3<Real> pi = pos[i];
    Real sx = 0, sy = 0, sz = 0;
    const std::size_t p = plain[i], m = count[i];
    for (std::size_t k = 0; k < p; ++k) {
        const vec3<Real> pj = pos[neigh[i + k * n]];
        raw_pair<false>(pi.x, pi.y, pi.z, pj.x, pj.y, pj.z, box, cut_sq, sx, sy, sz);
    }
    for (std::size_t k = p; k < m; ++k) {
        const vec3<Real> pj = pos[neigh[i + k * n]];
        raw_pair<true>(pi.x, pi.y, pi.z, pj.x, pj.y, pj.z, box, cut_sq, sx, sy, sz);
    }
    fx[i] = sx;
    fy[i] = sy;
    fz[i] = sz;
}

template <class Real>
__global__ void raw_lj_aos(atom<Real>* __restrict__ a, const index_t* __restrict__ neigh,
                           const index_t* __restrict__ count, const index_t* __restrict__ plain,
                           std::size_t n, kernel_box<Real> box, Real cut_sq) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const Real xi = a[i].x.x, yi = a[i].x.y, zi = a[i].x.z;
    Real sx = 0, sy = 0, sz = 0;
    const std::size_t p = plain[i], m = count[i];
    for (std::size_t k = 0; k < p; ++k) {
        const std::size_t j = neigh[i + k * n];
        raw_pair<false>(xi, yi, zi, a[j].x.x, a[j].x.y, a[j].x.z, box, cut_sq, sx, sy, sz);
    }
    for (std::size_t k = p; k < m; ++k) {
        const std::size_t j = neigh[i + k * n];
        raw_pair<true>(xi, yi, zi, a[j].x.x, a[j].x.y, a[j].x.z, box, cut_sq, sx, sy, sz);
    }
    a[i].f.x = sx;
    a[i].f.y = sy;
    a[i].f.z = sz;
}

/// The block of N atoms that aosoa<N> stores, written by hand: each leaf's N values in a row,
/// leaves in declaration order.
template <class Real, std::size_t N>
struct raw_block {
    Real x[N], y[N], z[N], vx[N], vy[N], vz[N], fx[N], fy[N], fz[N];
    int type[N], id[N];
};

template <class Real, std::size_t N>
__global__ void raw_lj_aosoa(raw_block<Real, N>* __restrict__ b, const index_t* __restrict__ neigh,
                             const index_t* __restrict__ count, const index_t* __restrict__ plain,
                             std::size_t n, kernel_box<Real> box, Real cut_sq) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    raw_block<Real, N>& bi = b[i / N];
    const std::size_t li = i % N;
    const Real xi = bi.x[li], yi = bi.y[li], zi = bi.z[li];
    Real sx = 0, sy = 0, sz = 0;
    const std::size_t p = plain[i], m = count[i];
    for (std::size_t k = 0; k < p; ++k) {
        const std::size_t j = neigh[i + k * n];
        const raw_block<Real, N>& bj = b[j / N];
        raw_pair<false>(xi, yi, zi, bj.x[j % N], bj.y[j % N], bj.z[j % N], box, cut_sq, sx, sy, sz);
    }
    for (std::size_t k = p; k < m; ++k) {
        const std::size_t j = neigh[i + k * n];
        const raw_block<Real, N>& bj = b[j / N];
        raw_pair<true>(xi, yi, zi, bj.x[j % N], bj.y[j % N], bj.z[j % N], box, cut_sq, sx, sy, sz);
    }
    bi.fx[li] = sx;
    bi.fy[li] = sy;
    bi.fz[li] = sz;
}

class event_timer {
public:
    event_timer() {
        layout::cuda::check(cudaEventCreate(&start_), "cudaEventCreate");
        layout::cuda::check(cudaEventCreate(&stop_), "cudaEventCreate");
    }
    ~event_timer() {
        cudaEventDestroy(start_);
        cudaEventDestroy(stop_);
    }
    event_timer(const event_timer&) = delete;
    event_timer& operator=(const event_timer&) = delete;
    /// Median milliseconds of reps runs of f.
    template <class F>
    double median_ms(int reps, F&& f) {
        std::vector<double> t;
        for (int r = 0; r < reps; ++r) {
            layout::cuda::check(cudaEventRecord(start_), "cudaEventRecord");
            f();
            layout::cuda::check(cudaEventRecord(stop_), "cudaEventRecord");
            layout::cuda::check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
            float ms = 0;
            layout::cuda::check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
            t.push_back(ms);
        }
        std::sort(t.begin(), t.end());
        return t[t.size() / 2];
    }

private:
    cudaEvent_t start_{}, stop_{};
};

/// After a run: the library's force kernel (for_each_index over the layout's view, lj_full)
/// against the hand-written kernels on the same positions and neighbor list; forces compared;
/// times against the bound set by the bytes the kernel must move at the measured copy bandwidth.
template <class Real, class Layout>
void compare_raw(simulation<Real, Layout, device_backend>& sim, const char* name, int reps) {
    auto& dev = sim.atoms();
    const std::size_t n = dev.size();
    const neighbor_list list = sim.list();
    const kernel_box<Real> box = sim.box();
    const Real cut_sq = sim.cut_sq();
    event_timer timer;
    const unsigned block = 256, grid = static_cast<unsigned>((n + block - 1) / block);

    // The same atoms as plain structs (raw AoS), as three raw position arrays (raw SoA) and as
    // an array of positions (raw split).
    const layout::aos_vector<atom<Real>> host_aos = layout::vector<atom<Real>, Layout>(dev);
    std::vector<Real> hx(n), hy(n), hz(n);
    std::vector<vec3<Real>> hpos(n);
    for (std::size_t i = 0; i < n; ++i) {
        const atom<Real> a = host_aos[i];
        hx[i] = a.x.x, hy[i] = a.x.y, hz[i] = a.x.z;
        hpos[i] = a.x;
    }
    layout::cuda::aos_vector<atom<Real>> raw_aos = host_aos;
    auto up = [](const std::vector<Real>& h) { return device_backend::to_device(h); };
    auto x = up(hx), y = up(hy), z = up(hz), fx = up(hx), fy = up(hy), fz = up(hz);
    auto gx = up(hx), gy = up(hy), gz = up(hz);
    const layout::cuda::aos_vector<vec3<Real>> pos =
        layout::aos_vector<vec3<Real>>(hpos.begin(), hpos.end());

    // Total neighbors, for the byte count.
    std::vector<index_t> cnt(n);
    layout::cuda::check(
        cudaMemcpy(cnt.data(), list.count, n * sizeof(index_t), cudaMemcpyDeviceToHost),
        "cudaMemcpy");
    double pairs = 0;
    for (index_t c : cnt) pairs += c;

    const auto lib = lj_full<Real, false>{list, box, cut_sq, nullptr, nullptr};
    device_backend b;
    const double lib_ms = timer.median_ms(reps, [&] { b.for_each(dev.view(), lib); });
    const double soa_ms = timer.median_ms(reps, [&] {
        raw_lj_soa<<<grid, block>>>(x.view().data(), y.view().data(), z.view().data(), list.neigh,
                                    list.count, list.plain, n, box, cut_sq, fx.view().data(),
                                    fy.view().data(), fz.view().data());
    });
    const double aos_ms = timer.median_ms(reps, [&] {
        raw_lj_aos<<<grid, block>>>(raw_aos.view().data(), list.neigh, list.count, list.plain, n,
                                    box, cut_sq);
    });
    // The library's forces, before the next kernel overwrites them.
    layout::cuda::check(cudaDeviceSynchronize(), "force kernels");
    const layout::aos_vector<atom<Real>> lib_f = layout::vector<atom<Real>, Layout>(dev);
    // The hand-written kernel on the library's own memory: where this runs as fast as the
    // library and the other raw kernel faster, the difference is where the bytes lie, not code.
    double own_ms = 0;
    if constexpr (std::is_same_v<Layout, layout::policy::soa>) {
        const auto v = dev.view();
        using A = atom<Real>;
        using V = vec3<Real>;
        own_ms = timer.median_ms(reps, [&] {
            raw_lj_soa<<<grid, block>>>(
                v.template column<&A::x, &V::x>().data(), v.template column<&A::x, &V::y>().data(),
                v.template column<&A::x, &V::z>().data(), list.neigh, list.count, list.plain, n,
                box, cut_sq, v.template column<&A::f, &V::x>().data(),
                v.template column<&A::f, &V::y>().data(), v.template column<&A::f, &V::z>().data());
        });
    } else if constexpr (std::is_same_v<Layout, layout::policy::aosoa<32>>) {
        using block_t = raw_block<Real, 32>;
        static_assert(sizeof(block_t) == layout::mapping<atom<Real>, Layout>::block_bytes,
                      "the hand-written block is not the library's block");
        auto* blocks = reinterpret_cast<block_t*>(dev.view().data());
        own_ms = timer.median_ms(reps, [&] {
            raw_lj_aosoa<Real, 32>
                <<<grid, block>>>(blocks, list.neigh, list.count, list.plain, n, box, cut_sq);
        });
    } else if constexpr (std::is_same_v<Layout, layout::policy::aos>) {
        own_ms = timer.median_ms(reps, [&] {
            raw_lj_aos<<<grid, block>>>(dev.view().data(), list.neigh, list.count, list.plain, n,
                                        box, cut_sq);
        });
    }
    const double split_ms = timer.median_ms(reps, [&] {
        raw_lj_split<<<grid, block>>>(pos.view().data(), list.neigh, list.count, list.plain, n, box,
                                      cut_sq, gx.view().data(), gy.view().data(), gz.view().data());
    });
    layout::cuda::check(cudaDeviceSynchronize(), "force kernels");

    // Forces: library vs both raw kernels, bit for bit (same arithmetic, same order).
    const layout::aos_vector<atom<Real>> aos_f = raw_aos;
    const layout::aos_vector<Real> sfx = fx, sfy = fy, sfz = fz, gfx = gx, gfy = gy, gfz = gz;
    std::size_t differ_soa = 0, differ_aos = 0, differ_split = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const atom<Real> l = lib_f[i], r = aos_f[i];
        differ_aos += l.f.x != r.f.x || l.f.y != r.f.y || l.f.z != r.f.z;
        differ_soa += l.f.x != Real(sfx[i]) || l.f.y != Real(sfy[i]) || l.f.z != Real(sfz[i]);
        differ_split += l.f.x != Real(gfx[i]) || l.f.y != Real(gfy[i]) || l.f.z != Real(gfz[i]);
    }

    // The bytes the kernel must move at least: each atom's count, plain count, neighbor indices
    // and position once, its force written once (neighbor positions re-read from cache are not
    // counted).
    const double bytes = double(n) * (2 * sizeof(index_t) + 3 * sizeof(Real) + 3 * sizeof(Real)) +
                         pairs * sizeof(index_t);
    layout::cuda::aos_vector<char> src(std::size_t(1) << 28), dst(std::size_t(1) << 28);
    const double copy_ms = timer.median_ms(reps, [&] {
        layout::cuda::check(cudaMemcpy(dst.view().data(), src.view().data(), std::size_t(1) << 28,
                                       cudaMemcpyDeviceToDevice),
                            "cudaMemcpy");
    });
    const double copy_gbs = 2.0 * double(std::size_t(1) << 28) / (copy_ms * 1e6);
    const double bound_ms = bytes / (copy_gbs * 1e6);
    std::printf("\nForce kernel, %zu atoms, %.1f neighbors per atom (full list), median of %d:\n",
                n, pairs / double(n), reps);
    std::printf("  library %-8s %9.4f ms  %.3fx raw SoA, %.3fx raw AoS, %.3fx raw split; %5.1f%% "
                "of the byte bound\n",
                name, lib_ms, lib_ms / soa_ms, lib_ms / aos_ms, lib_ms / split_ms,
                100.0 * bound_ms / lib_ms);
    std::printf("  raw SoA          %9.4f ms  forces differ from the library's in %zu atoms\n",
                soa_ms, differ_soa);
    std::printf("  raw AoS          %9.4f ms  forces differ from the library's in %zu atoms\n",
                aos_ms, differ_aos);
    if (own_ms > 0)
        std::printf("  raw %-8s     %9.4f ms  on the library's own memory: library %.3fx of it\n",
                    name, own_ms, lib_ms / own_ms);
    std::printf("  raw split        %9.4f ms  forces differ from the library's in %zu atoms\n",
                split_ms, differ_split);
    std::printf("  byte bound       %9.4f ms  (%.3g MB at the device copy's %.0f GB/s)\n", bound_ms,
                bytes / 1e6, copy_gbs);
}

int run_gpu(const system& s, const options& o) {
    int devices = 0;
    const cudaError_t e = cudaGetDeviceCount(&devices);
    if (e != cudaSuccess || devices == 0) {
        (void)cudaGetLastError();
        std::fprintf(stderr, "md: error: --device gpu: no CUDA device (%s)\n",
                     e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        return 1;
    }
    auto go = [&]<class Real, class Layout>() {
        simulation<Real, Layout, device_backend> sim(s, o);
        const auto th = sim.run();
        sim.report(th, "gpu");
        if (o.compare_raw) compare_raw(sim, o.layout.c_str(), o.raw_reps);
        return 0;
    };
    return with_types(o, go);
}

} // namespace md

int main(int argc, char** argv) {
    try {
        const md::options o = md::parse_options(argc, argv);
        const md::system s = md::load_start(o);
        if (o.device == "gpu") return md::run_gpu(s, o);
        return md::run_host(s, o);
    } catch (const md::input_error& e) {
        std::fprintf(stderr, "md: error: %s\n", e.what());
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "md: error: %s\n", e.what());
        return 2;
    }
}
