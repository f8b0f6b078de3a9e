// A PIC-like time loop on one GPU: the library's containers and device algorithms in every
// layout, against the same step written by hand on raw pointers with CUB (SoA and AoS). Prints
// one table; every ratio is from this run. Issue 29, item 7.
//
//   pic_step_gpu [--n N] [--grid G] [--steps S] [--warmup W] [--sort-every K]
//                [--output-every M] [--seed X] [--hand-remove select|flagged]
//                [--inject tabulate|kernel]
//   (defaults: 8388608, 64, 100, 2, 10, 25, 1, select, tabulate)
//
// The particle: struct Particle { double x, y, z; float ux, uy, uz, weight, charge;
// int id, cell, species; } (56 bytes), N of them in the box [0,1)^3 over a G^3 grid of cells;
// the grid holds a float charge density and a precomputed random field E (float4 per cell:
// Ex, Ey, Ez, unused). One step:
//   deposit  rho = 0 (cudaMemsetAsync), then the user's kernel: each particle atomicAdds
//            weight * charge to rho[its cell]
//   push     u += charge * E[cell] * dtq (a gather from the grid), x += u * dt, cell recomputed;
//            a particle that left the box gets cell = -1 (about 1% a step)
//   remove   the particles with cell == -1 dropped, the others kept in order (stable); the
//            host learns the kept count: the step's one host wait, inside this phase
//   inject   N - kept new particles (position, velocity from a hash of id and step, no RNG
//            state) written after the kept ones: the size is N again
//   sort     every K steps (step % K == 0): particles binned by cell, stably
//   output   every M steps (step % M == 0): x, y, z, id copied to pinned host memory; the
//            phase ends with the data on the host
// Versions (each from the same seed, the same steps, one after the other in this process):
//   hand_soa  raw device pointers, one array per field, double buffers A/B. remove: the
//             positions of the kept particles by one cub::DeviceSelect::If over a counting
//             iterator (the predicate reads cell[i]), one gather kernel of every column A -> B
//             (it reads the count on the device), swap; or, with --hand-remove flagged, a flag
//             kernel and cub::DeviceSelect::Flagged per column A -> B. sort: an index kernel,
//             cub::DeviceRadixSort::SortPairs on (cell, index) over the bits the cell count
//             needs, the cell columns of A and B as the keys' double buffer (the sorted keys
//             are B's cell column), a gather kernel of the other 10 columns A -> B, swap.
//             output: one cudaMemcpyAsync per column into pinned arrays. All temporaries (CUB
//             storage, flags, indices, the count, pinned count) allocated once before the loop.
//   hand_aos  the same on an array of Particle: cub::DeviceSelect::If A -> B; sort: a kernel
//             writes (cell, index), SortPairs, a gather of whole structs A -> B, swap; output:
//             a pack kernel into a device staging block, one cudaMemcpyAsync into pinned memory.
//   aos, soa, aosoa32, split (x, y, z as an AoS hot part, the rest SoA): one function template,
//             run_library<L>, on a layout::vector<Particle, L, layout::cuda::device_memory>
//             whose blocks come from a counting resource (below); deposit and push are the
//             user's code (a __global__ kernel over c.view(), for_each_index with a functor);
//             inject: c.resize(n, layout::for_overwrite), then layout::cuda::tabulate of the
//             user's functor (--inject kernel: the user's kernel writing c.view()[i] instead);
//             remove_if, bin_by_key and layout::cuda::copy of a select<x, y, z, id>() are the
//             library's.
// Every version runs on one stream created with cudaStreamNonBlocking.
//
// The library calls that issue 29 adds are behind LAYOUT_PIC_NEW_API, on by default:
// layout::cuda::workspace ws(stream, resource), remove_if(c, pred, ws) and
// bin_by_key<&Particle::cell>(c, cells, ws), and the output's copy through ws (staged on the GPU
// for the layouts whose x, y, z, id are not columns). Built with -DLAYOUT_PIC_NEW_API=0 the program uses
// the calls that existed before them: remove_if(c, pred), and for binning a kernel that copies
// the cell of each particle into a layout::cuda::aos_vector<int> (allocated once) and
// bin_by_key(keys, cells, c, stream). Either way, the output's layout::cuda::copy of a selection
// into pinned memory should return with the data there (as a whole-container copy into
// host-accessible memory does); where it returns with work still queued (cudaStreamQuery), the
// benchmark counts it (the "early" note under the table) and waits itself, so that the output
// phase always ends with the data on the host, as in the hand-written steps.
//
// Correctness before timing: after each version's run, its particles are copied to the host and
// summed (x + y + z and ux + uy + uz in double, ids, cells, and an order-sensitive sum of
// (position + 1) * id), with the density grid's sum and the sum of |rho|. Every version must
// agree with hand_soa: the step is deterministic (stable removal, stable sort, the same
// arithmetic, with rounding intrinsics so that no FMA contraction differs between kernels), so
// positions and velocities must agree to 1e-12 relative (exactly, unless something differs),
// the integer sums and the number removed exactly, and the density (float atomics: the order of
// the additions differs) to 1e-4 of the sum of |rho| (charges of both signs cancel in the sum).
// PASS or FAIL per version; the exit status is 1 if any failed.
//
// Timing: W warm-up steps (step 0 sorts and outputs, so the warm-up loads every kernel and grows
// every buffer), then S timed steps with CUDA events around each phase and the whole step (the
// remove phase's end event is recorded after the host has the count, so the wait is inside it).
// Medians per phase over the steps where it ran (sort: S/K steps, output: S/M), the whole step's
// median and mean (the mean includes the sort and output steps). Allocations: the library's
// containers (and the workspace) allocate from a counting resource over their own pool; allocs
// is the number of its allocations during the timed steps (target 0); pool_MB is the peak, above
// where it started, of the memory in use in the library's default device pool and in CUDA's
// default pool during the timed steps: temporaries that did not come from the user's resource.
#include <layout/cuda/algorithms.hpp>
#include <layout/cuda/workspace.hpp>
#include <layout/layout.hpp>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <utility>
#include <vector>

// The library calls that issue 29 adds (remove_if and bin_by_key with a workspace): on unless
// built with -DLAYOUT_PIC_NEW_API=0, which gives the calls that existed before them.
#if !defined(LAYOUT_PIC_NEW_API)
#  define LAYOUT_PIC_NEW_API 1
#endif

namespace {

struct Particle {
    double x, y, z;
    float ux, uy, uz, weight, charge;
    int id, cell, species;
};
static_assert(sizeof(Particle) == 56);

using aos = layout::policy::aos;
using soa = layout::policy::soa;
using aosoa32 = layout::policy::aosoa<32>;
using split_xyz = layout::policy::split<layout::policy::aos, layout::policy::soa, &Particle::x,
                                        &Particle::y, &Particle::z>;
using pinned_particles = layout::vector<Particle, soa, layout::cuda::pinned_memory>;

constexpr unsigned block = 256;

void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "pic_step_gpu: %s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}
unsigned blocks_for(std::size_t n) { return unsigned((n + block - 1) / block); }

struct config {
    std::size_t n = std::size_t{1} << 23;
    int grid = 64;
    int steps = 100, warmup = 2, sort_every = 10, output_every = 25;
    std::uint64_t seed = 1;
    bool hand_flagged = false; // hand_soa's removal: Flagged per column (else positions + gather)
    bool inject_kernel =
        false; // the library versions inject through the user's kernel (else tabulate)
    // dt: with velocity components uniform in [-1, 1), a uniform box loses about
    // 3 * E|u| * dt = 1.5 dt of its particles a step; with the field's kicks, dt = 0.0062 loses
    // 0.90% at step 0, rising to 1.17% by step 100 (a host model of this step, 1M particles).
    double dt = 0.0062;
    float dtq = 0.005f; // velocity change per unit field and charge
    std::size_t cells() const { return std::size_t(grid) * grid * grid; }
    bool sorts(int step) const { return sort_every > 0 && step % sort_every == 0; }
    bool outputs(int step) const { return output_every > 0 && step % output_every == 0; }
};

// ---- the physics, shared by every version -------------------------------------------------------

__host__ __device__ inline std::uint64_t mix(std::uint64_t z) { // splitmix64's finalizer
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
__host__ __device__ inline double unit_double(std::uint64_t h) { // [0, 1)
    return double(h >> 11) * (1.0 / 9007199254740992.0);
}
__host__ __device__ inline float unit_float(std::uint64_t h) { // [0, 1)
    return float(h >> 40) * (1.0f / 16777216.0f);
}
__host__ __device__ inline int cell_of(double x, double y, double z, int g) {
    const auto index = [g](double u) {
        const int k = int(u * g); // u in [0, 1)
        return k < g ? k : g - 1;
    };
    return index(x) + g * (index(y) + g * index(z));
}

/// The particle with this id, born at this step: a function of (seed, id, step) alone.
__host__ __device__ inline Particle make_particle(std::uint64_t seed, int id, int step, int g) {
    const std::uint64_t key =
        mix(seed ^ (std::uint64_t(std::uint32_t(id)) << 32 | std::uint32_t(step)));
    Particle p;
    p.x = unit_double(mix(key + 1));
    p.y = unit_double(mix(key + 2));
    p.z = unit_double(mix(key + 3));
    p.ux = unit_float(mix(key + 4)) * 2.0f - 1.0f; // 2u exact: no rounding an FMA could change
    p.uy = unit_float(mix(key + 5)) * 2.0f - 1.0f;
    p.uz = unit_float(mix(key + 6)) * 2.0f - 1.0f;
    p.weight = 0.5f + unit_float(mix(key + 7));
    p.species = id & 1;
    p.charge = p.species ? 1.0f : -1.0f;
    p.id = id;
    p.cell = cell_of(p.x, p.y, p.z, g);
    return p;
}

/// One particle's push, every version: explicit rounding intrinsics, so that the hand-written
/// kernels and the library's functor compute bit-identical results whatever nvcc contracts.
__device__ inline void push_one(double& x, double& y, double& z, float& ux, float& uy, float& uz,
                                float charge, int& cell, const float4* __restrict__ field,
                                float dtq, double dt, int g) {
    // Read-only cache for the grid in every version: a functor's pointer member is not a
    // __restrict__ kernel parameter, so the compiler cannot prove it on its own there.
    const float4 e = __ldg(field + cell);
    const float k = __fmul_rn(charge, dtq);
    ux = __fadd_rn(ux, __fmul_rn(k, e.x));
    uy = __fadd_rn(uy, __fmul_rn(k, e.y));
    uz = __fadd_rn(uz, __fmul_rn(k, e.z));
    x = __dadd_rn(x, __dmul_rn(double(ux), dt));
    y = __dadd_rn(y, __dmul_rn(double(uy), dt));
    z = __dadd_rn(z, __dmul_rn(double(uz), dt));
    const bool inside = x >= 0.0 && x < 1.0 && y >= 0.0 && y < 1.0 && z >= 0.0 && z < 1.0;
    cell = inside ? cell_of(x, y, z, g) : -1;
}

__global__ void init_field(float4* field, std::size_t cells, std::uint64_t seed) {
    const std::size_t c = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (c >= cells) return;
    const std::uint64_t key = mix(seed ^ 0x5eed5eed00000000ULL ^ c);
    field[c] =
        make_float4(unit_float(mix(key + 1)) * 2.0f - 1.0f, unit_float(mix(key + 2)) * 2.0f - 1.0f,
                    unit_float(mix(key + 3)) * 2.0f - 1.0f, 0.0f);
}

/// What every version shares: the grid (field and density), the stream, the configuration.
struct world {
    config cfg;
    cudaStream_t stream;
    float4* field; // cells(), read by the push
    float* rho;    // cells(), written by the deposit
};

// ---- timing -------------------------------------------------------------------------------------

namespace ph {
enum : int { deposit, push, remove, inject, sort, output, count };
}
constexpr int phases = ph::count;
const char* const phase_names[phases] = {"deposit", "push", "remove", "inject", "sort", "output"};

/// CUDA events around each phase of each timed step; read after the loop.
class step_timer {
public:
    step_timer(int steps, cudaStream_t stream)
        : events_(std::size_t(steps) * (phases + 1)), ran_(std::size_t(steps) * phases),
          stream_(stream), steps_(steps) {
        for (cudaEvent_t& e : events_) check(cudaEventCreate(&e), "cudaEventCreate");
    }
    ~step_timer() {
        for (cudaEvent_t e : events_) cudaEventDestroy(e);
    }
    step_timer(const step_timer&) = delete;
    step_timer& operator=(const step_timer&) = delete;

    /// Starts timed step t (t < 0: a warm-up step, not timed).
    void begin(int t) {
        step_ = t;
        if (step_ >= 0) check(cudaEventRecord(event(0), stream_), "cudaEventRecord");
    }
    /// Ends phase p of the current step; ran: whether the phase did anything this step.
    void end(int p, bool ran = true) {
        if (step_ < 0) return;
        check(cudaEventRecord(event(p + 1), stream_), "cudaEventRecord");
        ran_[std::size_t(step_) * phases + p] = ran;
    }

    struct summary {
        double median[phases]; // ms, over the steps where the phase ran (NaN: never)
        double step_median, step_mean;
    };
    summary summarize() {
        check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
        summary s{};
        std::vector<double> per_phase[phases], whole;
        for (int t = 0; t < steps_; ++t) {
            step_ = t;
            for (int p = 0; p < phases; ++p)
                if (ran_[std::size_t(t) * phases + p])
                    per_phase[p].push_back(between(event(p), event(p + 1)));
            whole.push_back(between(event(0), event(phases)));
        }
        for (int p = 0; p < phases; ++p) s.median[p] = median(per_phase[p]);
        s.step_median = median(whole);
        double sum = 0;
        for (double w : whole) sum += w;
        s.step_mean = whole.empty() ? NAN : sum / double(whole.size());
        return s;
    }

private:
    cudaEvent_t& event(int k) { return events_[std::size_t(step_) * (phases + 1) + k]; }
    static double between(cudaEvent_t a, cudaEvent_t b) {
        float ms = 0;
        check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
        return ms;
    }
    static double median(std::vector<double> v) {
        if (v.empty()) return NAN;
        std::sort(v.begin(), v.end());
        return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
    }

    std::vector<cudaEvent_t> events_;
    std::vector<char> ran_;
    cudaStream_t stream_;
    int steps_, step_ = -1;
};

// ---- allocations --------------------------------------------------------------------------------

} // namespace

// (Outside the unnamed namespace: nvcc warns of its synchronous forms, which nothing calls.)
namespace pic {

/// A device resource over its own stream-ordered pool that counts what it hands out: the
/// library containers' resource (layout::vector<P, L, device_memory> c(n, v, stream, counting)).
class counting_resource {
public:
    static constexpr bool host_accessible = false;
    static constexpr bool device_accessible = true;

    void* allocate_async(std::size_t bytes, std::size_t alignment, layout::stream_ref stream) {
        ++allocations_;
        return upstream_.allocate_async(bytes, alignment, stream);
    }
    void deallocate_async(void* p, std::size_t bytes, std::size_t alignment,
                          layout::stream_ref stream) noexcept {
        upstream_.deallocate_async(p, bytes, alignment, stream);
    }
    // (The synchronous forms, which containers do not use where the async ones exist.)
    void* allocate(std::size_t bytes, std::size_t alignment) {
        ++allocations_;
        return upstream_.allocate(bytes, alignment);
    }
    void deallocate(void* p, std::size_t bytes, std::size_t alignment) noexcept {
        upstream_.deallocate(p, bytes, alignment);
    }
    friend bool operator==(const counting_resource& a, const counting_resource& b) noexcept {
        return &a == &b;
    }
    std::size_t allocations() const noexcept { return allocations_; }

private:
    layout::cuda::device_resource upstream_;
    std::size_t allocations_ = 0;
};

} // namespace pic

namespace {

using pic::counting_resource;

/// The pools that temporaries which ignore the user's resource come from: the library's default
/// device pool (device_memory's default resource) and CUDA's default pool (cudaMallocAsync).
/// Peak memory in use above where it was when watching started.
class pool_watch {
public:
    pool_watch() {
        pools_[0] = layout::cuda::device_resource::for_current_device().pool();
        int device = 0;
        check(cudaGetDevice(&device), "cudaGetDevice");
        check(cudaDeviceGetDefaultMemPool(&pools_[1], device), "cudaDeviceGetDefaultMemPool");
    }
    void start() {
        for (int k = 0; k < 2; ++k) {
            std::uint64_t zero = 0;
            check(cudaMemPoolSetAttribute(pools_[k], cudaMemPoolAttrUsedMemHigh, &zero),
                  "cudaMemPoolSetAttribute(cudaMemPoolAttrUsedMemHigh)");
            check(cudaMemPoolGetAttribute(pools_[k], cudaMemPoolAttrUsedMemCurrent, &start_[k]),
                  "cudaMemPoolGetAttribute(cudaMemPoolAttrUsedMemCurrent)");
        }
    }
    double peak_mb() const {
        std::uint64_t peak = 0;
        for (int k = 0; k < 2; ++k) {
            std::uint64_t high = 0;
            check(cudaMemPoolGetAttribute(pools_[k], cudaMemPoolAttrUsedMemHigh, &high),
                  "cudaMemPoolGetAttribute(cudaMemPoolAttrUsedMemHigh)");
            peak = std::max(peak, high > start_[k] ? high - start_[k] : 0);
        }
        return double(peak) / 1e6;
    }

private:
    cudaMemPool_t pools_[2]{};
    std::uint64_t start_[2]{};
};

// ---- what each version reports ------------------------------------------------------------------

struct checksum {
    std::size_t size = 0;
    double pos = 0, vel = 0, attr = 0; // attr: weight * charge + species
    double rho = 0, rho_abs = 0;       // rho_abs: the sum of |rho|, the scale
    long long ids = 0, cells = 0;
    unsigned long long order = 0; // sum of (i + 1) * id, wrapping: sensitive to the order
    long long removed = 0;        // particles removed over all steps
};

checksum sum_particles(const Particle* p, std::size_t n, const float* rho_host, std::size_t cells,
                       long long removed) {
    checksum s;
    s.size = n;
    for (std::size_t i = 0; i < n; ++i) {
        s.pos += p[i].x + p[i].y + p[i].z;
        s.vel += double(p[i].ux) + double(p[i].uy) + double(p[i].uz);
        s.attr += double(p[i].weight) * p[i].charge + p[i].species;
        s.ids += p[i].id;
        s.cells += p[i].cell;
        s.order += (i + 1) * (unsigned long long)(unsigned)p[i].id;
    }
    for (std::size_t c = 0; c < cells; ++c) {
        s.rho += rho_host[c];
        s.rho_abs += std::fabs(rho_host[c]);
    }
    s.removed = removed;
    return s;
}

std::vector<float> density_on_host(const world& w) {
    std::vector<float> rho(w.cfg.cells());
    check(cudaMemcpyAsync(rho.data(), w.rho, rho.size() * sizeof(float), cudaMemcpyDeviceToHost,
                          w.stream),
          "cudaMemcpyAsync(rho)");
    check(cudaStreamSynchronize(w.stream), "cudaStreamSynchronize");
    return rho;
}

struct result {
    std::string name;
    step_timer::summary t;
    checksum sum;
    long long allocations = -1; // -1: not counted (hand-written: none by construction)
    double pool_mb = 0;
    double left_percent = 0; // removed per step, % of n, over the timed steps
    double wall_ms = 0;      // host clock over the timed steps, per step
    int output_early = 0;    // library output copies that returned before the data was there
};

/// The loop every version runs: begin/end marks around step(s, timer) for warm-up + timed steps.
template <class Step>
void time_loop(const world& w, step_timer& timer, pool_watch& pools, result& r,
               long long& removed_timed, Step&& step) {
    const config& cfg = w.cfg;
    double wall = 0;
    for (int s = 0; s < cfg.warmup + cfg.steps; ++s) {
        if (s == cfg.warmup) {
            check(cudaStreamSynchronize(w.stream), "warm-up");
            pools.start();
            removed_timed = 0;
            wall = 0;
        }
        const auto t0 = std::chrono::steady_clock::now();
        timer.begin(s - cfg.warmup);
        step(s);
        if (s + 1 == cfg.warmup + cfg.steps) check(cudaStreamSynchronize(w.stream), "last step");
        if (s >= cfg.warmup)
            wall += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                        .count();
    }
    r.pool_mb = pools.peak_mb();
    r.wall_ms = wall / cfg.steps;
    r.left_percent = 100.0 * double(removed_timed) / (double(cfg.n) * cfg.steps);
}

// ---- hand-written SoA ---------------------------------------------------------------------------

struct columns {
    double *x, *y, *z;
    float *ux, *uy, *uz, *weight, *charge;
    int *id, *cell, *species;
};

columns allocate_columns(std::size_t n) {
    columns c{};
    check(cudaMalloc(&c.x, n * sizeof(double)), "cudaMalloc");
    check(cudaMalloc(&c.y, n * sizeof(double)), "cudaMalloc");
    check(cudaMalloc(&c.z, n * sizeof(double)), "cudaMalloc");
    for (float** f : {&c.ux, &c.uy, &c.uz, &c.weight, &c.charge})
        check(cudaMalloc(f, n * sizeof(float)), "cudaMalloc");
    for (int** i : {&c.id, &c.cell, &c.species})
        check(cudaMalloc(i, n * sizeof(int)), "cudaMalloc");
    return c;
}
void free_columns(const columns& c) {
    for (void* p : {(void*)c.x, (void*)c.y, (void*)c.z, (void*)c.ux, (void*)c.uy, (void*)c.uz,
                    (void*)c.weight, (void*)c.charge, (void*)c.id, (void*)c.cell, (void*)c.species})
        check(cudaFree(p), "cudaFree");
}

__device__ inline void store(const columns& c, std::size_t i, const Particle& p) {
    c.x[i] = p.x;
    c.y[i] = p.y;
    c.z[i] = p.z;
    c.ux[i] = p.ux;
    c.uy[i] = p.uy;
    c.uz[i] = p.uz;
    c.weight[i] = p.weight;
    c.charge[i] = p.charge;
    c.id[i] = p.id;
    c.cell[i] = p.cell;
    c.species[i] = p.species;
}

__global__ void soa_init(columns c, std::size_t n, std::uint64_t seed, int g) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) store(c, i, make_particle(seed, int(i), 0, g));
}

__global__ void soa_deposit(const int* __restrict__ cell, const float* __restrict__ weight,
                            const float* __restrict__ charge, std::size_t n,
                            float* __restrict__ rho) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int c = cell[i];
    if (c >= 0) atomicAdd(&rho[c], weight[i] * charge[i]);
}

__global__ void soa_push(double* __restrict__ x, double* __restrict__ y, double* __restrict__ z,
                         float* __restrict__ ux, float* __restrict__ uy, float* __restrict__ uz,
                         const float* __restrict__ charge, int* __restrict__ cell,
                         const float4* __restrict__ field, std::size_t n, float dtq, double dt,
                         int g) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double px = x[i], py = y[i], pz = z[i];
    float vx = ux[i], vy = uy[i], vz = uz[i];
    int c = cell[i];
    push_one(px, py, pz, vx, vy, vz, charge[i], c, field, dtq, dt, g);
    x[i] = px;
    y[i] = py;
    z[i] = pz;
    ux[i] = vx;
    uy[i] = vy;
    uz[i] = vz;
    cell[i] = c;
}

__global__ void soa_flags(const int* __restrict__ cell, unsigned char* __restrict__ keep,
                          std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) keep[i] = cell[i] >= 0;
}

__global__ void soa_inject(columns c, std::size_t kept, std::size_t count, int first_id, int step,
                           std::uint64_t seed, int g) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < count) store(c, kept + i, make_particle(seed, first_id + int(i), step, g));
}

__global__ void iota(unsigned* __restrict__ index, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) index[i] = unsigned(i);
}

/// Whether particle i is still in the box: DeviceSelect::If over positions 0, 1, ... keeps the
/// positions of the particles to keep.
struct soa_inside {
    const int* cell;
    __device__ bool operator()(unsigned i) const { return cell[i] >= 0; }
};

/// dst[i] = src[perm[i]] for i < *count (count null: n), every column (Cell false: but cell,
/// which the sort wrote into dst itself): all loads first, then the stores.
template <bool Cell>
__global__ void soa_gather(columns src, columns dst, const unsigned* __restrict__ perm,
                           const std::int64_t* __restrict__ count, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= (count ? std::size_t(*count) : n)) return;
    const unsigned j = perm[i];
    if constexpr (Cell) dst.cell[i] = src.cell[j];
    const double x = src.x[j], y = src.y[j], z = src.z[j];
    const float ux = src.ux[j], uy = src.uy[j], uz = src.uz[j], w = src.weight[j],
                q = src.charge[j];
    const int id = src.id[j], sp = src.species[j];
    dst.x[i] = x;
    dst.y[i] = y;
    dst.z[i] = z;
    dst.ux[i] = ux;
    dst.uy[i] = uy;
    dst.uz[i] = uz;
    dst.weight[i] = w;
    dst.charge[i] = q;
    dst.id[i] = id;
    dst.species[i] = sp;
}

/// Pinned host arrays of the output (x, y, z, id), the hand-written versions'.
struct pinned_output {
    double *x, *y, *z;
    int* id;
};

result run_hand_soa(const world& w, pinned_output out, pool_watch& pools) {
    const config& cfg = w.cfg;
    const std::size_t n = cfg.n;
    const int g = cfg.grid;
    const cudaStream_t stream = w.stream;
    result r;
    r.name = "hand_soa";

    // Everything allocated once, before the loop.
    columns a = allocate_columns(n), b = allocate_columns(n);
    unsigned char* keep = nullptr;
    unsigned *index = nullptr, *index_alt = nullptr;
    std::int64_t* count = nullptr;
    std::int64_t* count_host = nullptr;
    check(cudaMalloc(&keep, n), "cudaMalloc");
    check(cudaMalloc(&index, n * sizeof(unsigned)), "cudaMalloc");
    check(cudaMalloc(&index_alt, n * sizeof(unsigned)), "cudaMalloc");
    check(cudaMalloc(&count, sizeof *count), "cudaMalloc");
    check(cudaMallocHost(&count_host, sizeof *count_host), "cudaMallocHost");
    const int end_bit = std::max(1, int(std::bit_width(cfg.cells() - 1)));
    std::size_t temp_bytes = 0;
    {
        std::size_t bytes = 0;
        check(cub::DeviceSelect::Flagged(nullptr, bytes, a.x, keep, b.x, count, std::int64_t(n),
                                         stream),
              "cub::DeviceSelect::Flagged");
        temp_bytes = std::max(temp_bytes, bytes);
        check(cub::DeviceSelect::Flagged(nullptr, bytes, a.ux, keep, b.ux, count, std::int64_t(n),
                                         stream),
              "cub::DeviceSelect::Flagged");
        temp_bytes = std::max(temp_bytes, bytes);
        check(cub::DeviceSelect::Flagged(nullptr, bytes, a.id, keep, b.id, count, std::int64_t(n),
                                         stream),
              "cub::DeviceSelect::Flagged");
        temp_bytes = std::max(temp_bytes, bytes);
        check(cub::DeviceSelect::If(nullptr, bytes, thrust::counting_iterator<unsigned>(0), index,
                                    count, std::int64_t(n), soa_inside{a.cell}, stream),
              "cub::DeviceSelect::If");
        temp_bytes = std::max(temp_bytes, bytes);
        cub::DoubleBuffer<unsigned> keys(reinterpret_cast<unsigned*>(a.cell),
                                         reinterpret_cast<unsigned*>(b.cell));
        cub::DoubleBuffer<unsigned> values(index, index_alt);
        check(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, values, int(n), 0, end_bit,
                                              stream),
              "cub::DeviceRadixSort::SortPairs");
        temp_bytes = std::max(temp_bytes, bytes);
    }
    void* temp = nullptr;
    check(cudaMalloc(&temp, temp_bytes), "cudaMalloc");

    soa_init<<<blocks_for(n), block, 0, stream>>>(a, n, cfg.seed, g);
    check(cudaGetLastError(), "soa_init");
    int next_id = int(n);
    long long removed_all = 0, removed_timed = 0;
    step_timer timer(cfg.steps, stream);

    time_loop(w, timer, pools, r, removed_timed, [&](int s) {
        // deposit
        check(cudaMemsetAsync(w.rho, 0, cfg.cells() * sizeof(float), stream), "cudaMemsetAsync");
        soa_deposit<<<blocks_for(n), block, 0, stream>>>(a.cell, a.weight, a.charge, n, w.rho);
        check(cudaGetLastError(), "soa_deposit");
        timer.end(ph::deposit);
        // push
        soa_push<<<blocks_for(n), block, 0, stream>>>(a.x, a.y, a.z, a.ux, a.uy, a.uz, a.charge,
                                                      a.cell, w.field, n, cfg.dtq, cfg.dt, g);
        check(cudaGetLastError(), "soa_push");
        timer.end(ph::push);
        // remove, A -> B, then the count read back (the one wait) and swap: the positions of
        // the particles kept (DeviceSelect::If over 0, 1, ..., n - 1: one read of cell), then one
        // gather of every column; or (--hand-remove flagged) a flag kernel and one
        // DeviceSelect::Flagged per column
        if (!cfg.hand_flagged) {
            std::size_t bytes = temp_bytes;
            check(cub::DeviceSelect::If(temp, bytes, thrust::counting_iterator<unsigned>(0), index,
                                        count, std::int64_t(n), soa_inside{a.cell}, stream),
                  "cub::DeviceSelect::If");
            soa_gather<true><<<blocks_for(n), block, 0, stream>>>(a, b, index, count, n);
            check(cudaGetLastError(), "soa_gather");
        } else {
            soa_flags<<<blocks_for(n), block, 0, stream>>>(a.cell, keep, n);
            check(cudaGetLastError(), "soa_flags");
            auto select = [&](auto* in, auto* out) {
                std::size_t bytes = temp_bytes;
                check(cub::DeviceSelect::Flagged(temp, bytes, in, keep, out, count, std::int64_t(n),
                                                 stream),
                      "cub::DeviceSelect::Flagged");
            };
            select(a.x, b.x);
            select(a.y, b.y);
            select(a.z, b.z);
            select(a.ux, b.ux);
            select(a.uy, b.uy);
            select(a.uz, b.uz);
            select(a.weight, b.weight);
            select(a.charge, b.charge);
            select(a.id, b.id);
            select(a.cell, b.cell);
            select(a.species, b.species);
        }
        check(cudaMemcpyAsync(count_host, count, sizeof *count, cudaMemcpyDeviceToHost, stream),
              "cudaMemcpyAsync(count)");
        check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
        const std::size_t kept = std::size_t(*count_host);
        std::swap(a, b);
        timer.end(ph::remove);
        // inject
        const std::size_t born = n - kept;
        if (born) {
            soa_inject<<<blocks_for(born), block, 0, stream>>>(a, kept, born, next_id, s, cfg.seed,
                                                               g);
            check(cudaGetLastError(), "soa_inject");
        }
        next_id += int(born);
        removed_all += (long long)born;
        removed_timed += (long long)born;
        timer.end(ph::inject);
        // sort: (cell, index) pairs on the bits the cells need; A's and B's cell columns are the
        // keys' double buffer; the other columns gathered A -> B; swap
        if (cfg.sorts(s)) {
            iota<<<blocks_for(n), block, 0, stream>>>(index, n);
            check(cudaGetLastError(), "iota");
            cub::DoubleBuffer<unsigned> keys(reinterpret_cast<unsigned*>(a.cell),
                                             reinterpret_cast<unsigned*>(b.cell));
            cub::DoubleBuffer<unsigned> values(index, index_alt);
            std::size_t bytes = temp_bytes;
            check(cub::DeviceRadixSort::SortPairs(temp, bytes, keys, values, int(n), 0, end_bit,
                                                  stream),
                  "cub::DeviceRadixSort::SortPairs");
            soa_gather<false>
                <<<blocks_for(n), block, 0, stream>>>(a, b, values.Current(), nullptr, n);
            check(cudaGetLastError(), "soa_gather");
            if (keys.Current() == reinterpret_cast<unsigned*>(a.cell)) std::swap(a.cell, b.cell);
            std::swap(a, b);
        }
        timer.end(ph::sort, cfg.sorts(s));
        // output: x, y, z, id into pinned memory, there when the phase ends
        if (cfg.outputs(s)) {
            check(cudaMemcpyAsync(out.x, a.x, n * sizeof(double), cudaMemcpyDeviceToHost, stream),
                  "cudaMemcpyAsync(x)");
            check(cudaMemcpyAsync(out.y, a.y, n * sizeof(double), cudaMemcpyDeviceToHost, stream),
                  "cudaMemcpyAsync(y)");
            check(cudaMemcpyAsync(out.z, a.z, n * sizeof(double), cudaMemcpyDeviceToHost, stream),
                  "cudaMemcpyAsync(z)");
            check(cudaMemcpyAsync(out.id, a.id, n * sizeof(int), cudaMemcpyDeviceToHost, stream),
                  "cudaMemcpyAsync(id)");
            check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
        }
        timer.end(ph::output, cfg.outputs(s));
    });
    r.t = timer.summarize();

    // The particles, to the host, for the checksum.
    std::vector<double> x(n), y(n), z(n);
    std::vector<float> ux(n), uy(n), uz(n), wt(n), q(n);
    std::vector<int> id(n), cell(n), sp(n);
    auto down = [&](void* dst, const void* src, std::size_t bytes) {
        check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
    };
    down(x.data(), a.x, n * 8);
    down(y.data(), a.y, n * 8);
    down(z.data(), a.z, n * 8);
    down(ux.data(), a.ux, n * 4);
    down(uy.data(), a.uy, n * 4);
    down(uz.data(), a.uz, n * 4);
    down(wt.data(), a.weight, n * 4);
    down(q.data(), a.charge, n * 4);
    down(id.data(), a.id, n * 4);
    down(cell.data(), a.cell, n * 4);
    down(sp.data(), a.species, n * 4);
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    std::vector<Particle> host(n);
    for (std::size_t i = 0; i < n; ++i)
        host[i] = {x[i], y[i], z[i], ux[i], uy[i], uz[i], wt[i], q[i], id[i], cell[i], sp[i]};
    const std::vector<float> rho = density_on_host(w);
    r.sum = sum_particles(host.data(), n, rho.data(), rho.size(), removed_all);

    free_columns(a);
    free_columns(b);
    check(cudaFree(keep), "cudaFree");
    check(cudaFree(index), "cudaFree");
    check(cudaFree(index_alt), "cudaFree");
    check(cudaFree(count), "cudaFree");
    check(cudaFree(temp), "cudaFree");
    check(cudaFreeHost(count_host), "cudaFreeHost");
    return r;
}

// ---- hand-written AoS ---------------------------------------------------------------------------

__global__ void aos_init(Particle* p, std::size_t n, std::uint64_t seed, int g) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) p[i] = make_particle(seed, int(i), 0, g);
}

__global__ void aos_deposit(const Particle* __restrict__ p, std::size_t n,
                            float* __restrict__ rho) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int c = p[i].cell;
    if (c >= 0) atomicAdd(&rho[c], p[i].weight * p[i].charge);
}

__global__ void aos_push(Particle* __restrict__ p, const float4* __restrict__ field, std::size_t n,
                         float dtq, double dt, int g) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Particle e = p[i];
    push_one(e.x, e.y, e.z, e.ux, e.uy, e.uz, e.charge, e.cell, field, dtq, dt, g);
    p[i] = e;
}

struct inside_box {
    __device__ bool operator()(const Particle& p) const { return p.cell >= 0; }
};

__global__ void aos_inject(Particle* __restrict__ p, std::size_t kept, std::size_t count,
                           int first_id, int step, std::uint64_t seed, int g) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < count) p[kept + i] = make_particle(seed, first_id + int(i), step, g);
}

__global__ void aos_keys(const Particle* __restrict__ p, unsigned* __restrict__ keys,
                         unsigned* __restrict__ index, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    keys[i] = unsigned(p[i].cell);
    index[i] = unsigned(i);
}

__global__ void aos_gather(const Particle* __restrict__ src, Particle* __restrict__ dst,
                           const unsigned* __restrict__ perm, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[perm[i]];
}

/// x, y, z, id packed into a device staging block (columns), for one copy to pinned memory.
__global__ void aos_pack(const Particle* __restrict__ p, double* __restrict__ x,
                         double* __restrict__ y, double* __restrict__ z, int* __restrict__ id,
                         std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    x[i] = p[i].x;
    y[i] = p[i].y;
    z[i] = p[i].z;
    id[i] = p[i].id;
}

result run_hand_aos(const world& w, pinned_output out, pool_watch& pools) {
    const config& cfg = w.cfg;
    const std::size_t n = cfg.n;
    const int g = cfg.grid;
    const cudaStream_t stream = w.stream;
    result r;
    r.name = "hand_aos";

    Particle *a = nullptr, *b = nullptr;
    check(cudaMalloc(&a, n * sizeof(Particle)), "cudaMalloc");
    check(cudaMalloc(&b, n * sizeof(Particle)), "cudaMalloc");
    unsigned *keys_in = nullptr, *keys_alt = nullptr, *index = nullptr, *index_alt = nullptr;
    for (unsigned** p : {&keys_in, &keys_alt, &index, &index_alt})
        check(cudaMalloc(p, n * sizeof(unsigned)), "cudaMalloc");
    std::int64_t* count = nullptr;
    std::int64_t* count_host = nullptr;
    check(cudaMalloc(&count, sizeof *count), "cudaMalloc");
    check(cudaMallocHost(&count_host, sizeof *count_host), "cudaMallocHost");
    // The output's staging block: x, y, z (doubles) then id (ints), as in the pinned arrays.
    char* staging = nullptr;
    check(cudaMalloc(&staging, n * (3 * sizeof(double) + sizeof(int))), "cudaMalloc");
    double* sx = reinterpret_cast<double*>(staging);
    int* sid = reinterpret_cast<int*>(sx + 3 * n);
    const int end_bit = std::max(1, int(std::bit_width(cfg.cells() - 1)));
    std::size_t temp_bytes = 0;
    {
        std::size_t bytes = 0;
        check(cub::DeviceSelect::If(nullptr, bytes, a, b, count, std::int64_t(n), inside_box{},
                                    stream),
              "cub::DeviceSelect::If");
        temp_bytes = std::max(temp_bytes, bytes);
        cub::DoubleBuffer<unsigned> keys(keys_in, keys_alt), values(index, index_alt);
        check(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, values, int(n), 0, end_bit,
                                              stream),
              "cub::DeviceRadixSort::SortPairs");
        temp_bytes = std::max(temp_bytes, bytes);
    }
    void* temp = nullptr;
    check(cudaMalloc(&temp, temp_bytes), "cudaMalloc");
    // The pinned arrays x, y, z, id are one block: out.x, 3n doubles then n ints.
    aos_init<<<blocks_for(n), block, 0, stream>>>(a, n, cfg.seed, g);
    check(cudaGetLastError(), "aos_init");
    int next_id = int(n);
    long long removed_all = 0, removed_timed = 0;
    step_timer timer(cfg.steps, stream);

    time_loop(w, timer, pools, r, removed_timed, [&](int s) {
        check(cudaMemsetAsync(w.rho, 0, cfg.cells() * sizeof(float), stream), "cudaMemsetAsync");
        aos_deposit<<<blocks_for(n), block, 0, stream>>>(a, n, w.rho);
        check(cudaGetLastError(), "aos_deposit");
        timer.end(ph::deposit);
        aos_push<<<blocks_for(n), block, 0, stream>>>(a, w.field, n, cfg.dtq, cfg.dt, g);
        check(cudaGetLastError(), "aos_push");
        timer.end(ph::push);
        {
            std::size_t bytes = temp_bytes;
            check(cub::DeviceSelect::If(temp, bytes, a, b, count, std::int64_t(n), inside_box{},
                                        stream),
                  "cub::DeviceSelect::If");
        }
        check(cudaMemcpyAsync(count_host, count, sizeof *count, cudaMemcpyDeviceToHost, stream),
              "cudaMemcpyAsync(count)");
        check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
        const std::size_t kept = std::size_t(*count_host);
        std::swap(a, b);
        timer.end(ph::remove);
        const std::size_t born = n - kept;
        if (born) {
            aos_inject<<<blocks_for(born), block, 0, stream>>>(a, kept, born, next_id, s, cfg.seed,
                                                               g);
            check(cudaGetLastError(), "aos_inject");
        }
        next_id += int(born);
        removed_all += (long long)born;
        removed_timed += (long long)born;
        timer.end(ph::inject);
        if (cfg.sorts(s)) {
            aos_keys<<<blocks_for(n), block, 0, stream>>>(a, keys_in, index, n);
            check(cudaGetLastError(), "aos_keys");
            cub::DoubleBuffer<unsigned> keys(keys_in, keys_alt), values(index, index_alt);
            std::size_t bytes = temp_bytes;
            check(cub::DeviceRadixSort::SortPairs(temp, bytes, keys, values, int(n), 0, end_bit,
                                                  stream),
                  "cub::DeviceRadixSort::SortPairs");
            aos_gather<<<blocks_for(n), block, 0, stream>>>(a, b, values.Current(), n);
            check(cudaGetLastError(), "aos_gather");
            std::swap(a, b);
        }
        timer.end(ph::sort, cfg.sorts(s));
        if (cfg.outputs(s)) {
            aos_pack<<<blocks_for(n), block, 0, stream>>>(a, sx, sx + n, sx + 2 * n, sid, n);
            check(cudaGetLastError(), "aos_pack");
            check(cudaMemcpyAsync(out.x, staging, n * (3 * sizeof(double) + sizeof(int)),
                                  cudaMemcpyDeviceToHost, stream),
                  "cudaMemcpyAsync(output)");
            check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
        }
        timer.end(ph::output, cfg.outputs(s));
    });
    r.t = timer.summarize();

    std::vector<Particle> host(n);
    check(cudaMemcpyAsync(host.data(), a, n * sizeof(Particle), cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    const std::vector<float> rho = density_on_host(w);
    r.sum = sum_particles(host.data(), n, rho.data(), rho.size(), removed_all);

    for (void* p : {(void*)a, (void*)b, (void*)keys_in, (void*)keys_alt, (void*)index,
                    (void*)index_alt, (void*)count, (void*)staging, temp})
        check(cudaFree(p), "cudaFree");
    check(cudaFreeHost(count_host), "cudaFreeHost");
    return r;
}

// ---- the library, one template over the layout --------------------------------------------------

template <class View>
__global__ void init_particles(View p, std::uint64_t seed, int g) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < p.size()) p[i] = make_particle(seed, int(i), 0, g);
}

/// The user's deposit kernel over the container's view.
template <class View>
__global__ void deposit_kernel(View p, float* __restrict__ rho) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= p.size()) return;
    const auto e = p[i];
    const int c = layout::get<&Particle::cell>(e);
    if (c >= 0)
        atomicAdd(&rho[c], layout::get<&Particle::weight>(e) * layout::get<&Particle::charge>(e));
}

/// The user's push, for layout::cuda::for_each_index.
struct push_particles {
    const float4* field;
    float dtq;
    double dt;
    int g;
    template <class View>
    __device__ void operator()(const View& p, std::size_t i) const {
        auto&& [x, y, z, ux, uy, uz, weight, charge, id, cell, species] = p[i];
        push_one(x, y, z, ux, uy, uz, charge, cell, field, dtq, dt, g);
    }
};

/// remove_if's predicate: the particle left the box.
struct left_box {
    template <class P>
    __host__ __device__ bool operator()(const P& p) const {
        return layout::get<&Particle::cell>(p) < 0;
    }
};

/// The user's injection: count new particles after the kept ones (--inject kernel).
template <class View>
__global__ void inject_kernel(View p, std::size_t kept, std::size_t count, int first_id, int step,
                              std::uint64_t seed, int g) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < count) p[kept + i] = make_particle(seed, first_id + int(i), step, g);
}

/// The same injection through layout::cuda::tabulate: particle i of the container.
struct newcomer {
    std::size_t kept;
    int first_id, step;
    std::uint64_t seed;
    int g;
    __device__ Particle operator()(std::size_t i) const {
        return make_particle(seed, first_id + int(i - kept), step, g);
    }
};

#if !LAYOUT_PIC_NEW_API
/// Today's binning by a field of any layout: the keys copied out first.
template <class View>
__global__ void copy_cells(View p, int* __restrict__ keys) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < p.size()) keys[i] = layout::get<&Particle::cell>(p[i]);
}
#endif

template <class L>
result run_library(const char* name, const world& w, pinned_particles& pinned,
                   counting_resource& resource, pool_watch& pools) {
    const config& cfg = w.cfg;
    const std::size_t n = cfg.n;
    const int g = cfg.grid;
    const cudaStream_t stream = w.stream;
    result r;
    r.name = name;

    layout::vector<Particle, L, layout::cuda::device_memory> c(n, Particle{}, stream, resource);
    init_particles<<<blocks_for(n), block, 0, stream>>>(c.view(), cfg.seed, g);
    check(cudaGetLastError(), "init_particles");
#if LAYOUT_PIC_NEW_API
    layout::cuda::workspace ws(stream, resource);
#else
    layout::cuda::aos_vector<int> keys(n, 0, stream, resource);
#endif
    int next_id = int(n);
    long long removed_all = 0, removed_timed = 0;
    step_timer timer(cfg.steps, stream);
    std::size_t allocations_at_timing = 0;

    time_loop(w, timer, pools, r, removed_timed, [&](int s) {
        if (s == cfg.warmup) allocations_at_timing = resource.allocations();
        // deposit: the user's kernel
        check(cudaMemsetAsync(w.rho, 0, cfg.cells() * sizeof(float), stream), "cudaMemsetAsync");
        deposit_kernel<<<blocks_for(c.size()), block, 0, stream>>>(c.view(), w.rho);
        check(cudaGetLastError(), "deposit_kernel");
        timer.end(ph::deposit);
        // push: the user's functor
        layout::cuda::for_each_index(c.view(), push_particles{w.field, cfg.dtq, cfg.dt, g}, stream);
        timer.end(ph::push);
        // remove: stable, resizes c, returns the kept count (the step's one host wait)
#if LAYOUT_PIC_NEW_API
        const std::size_t kept = layout::cuda::remove_if(c, left_box{}, ws);
#else
        const std::size_t kept = layout::cuda::remove_if(c, left_box{});
#endif
        timer.end(ph::remove);
        // inject: grow back to n without a fill, then write the new elements
        const std::size_t born = n - kept;
        c.resize(n, layout::for_overwrite);
        if (born && cfg.inject_kernel) {
            inject_kernel<<<blocks_for(born), block, 0, stream>>>(c.view(), kept, born, next_id, s,
                                                                  cfg.seed, g);
            check(cudaGetLastError(), "inject_kernel");
        } else if (born) {
            layout::cuda::tabulate(c, kept, n, newcomer{kept, next_id, s, cfg.seed, g});
        }
        next_id += int(born);
        removed_all += (long long)born;
        removed_timed += (long long)born;
        timer.end(ph::inject);
        // sort: bin by the particle's own cell, stably
        if (cfg.sorts(s)) {
#if LAYOUT_PIC_NEW_API
            const auto bins = layout::cuda::bin_by_key<&Particle::cell>(c, cfg.cells(), ws);
            (void)bins;
#else
            copy_cells<<<blocks_for(n), block, 0, stream>>>(c.view(), keys.view().data());
            check(cudaGetLastError(), "copy_cells");
            const auto bins = layout::cuda::bin_by_key(keys, cfg.cells(), c, stream);
            (void)bins;
#endif
        }
        timer.end(ph::sort, cfg.sorts(s));
        // output: x, y, z, id into pinned memory
        if (cfg.outputs(s)) {
            layout::cuda::copy(
                c.view().template select<&Particle::x, &Particle::y, &Particle::z, &Particle::id>(),
                pinned.view()
                    .template select<&Particle::x, &Particle::y, &Particle::z, &Particle::id>(),
#if LAYOUT_PIC_NEW_API
                ws);
#else
                stream);
#endif
            // The copy should have waited for the stream (as a whole-container copy into
            // host-accessible memory does): if work is still queued, it returned early; count
            // that, and wait here so that the phase ends with the data on the host, as the
            // hand-written ones do.
            const cudaError_t queued = cudaStreamQuery(stream);
            if (queued == cudaErrorNotReady) {
                ++r.output_early;
                check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
            } else {
                check(queued, "cudaStreamQuery");
            }
        }
        timer.end(ph::output, cfg.outputs(s));
    });
    r.t = timer.summarize();
    r.allocations = (long long)(resource.allocations() - allocations_at_timing);

    const layout::aos_vector<Particle> host = c; // waits for the stream
    const std::vector<float> rho = density_on_host(w);
    r.sum = sum_particles(host.data(), host.size(), rho.data(), rho.size(), removed_all);
    return r;
}

// ---- comparison and the table -------------------------------------------------------------------

bool close(double a, double b, double rel) {
    return a == b || std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b));
}

/// Empty if r agrees with the reference, else what differs.
std::string compare(const checksum& ref, const checksum& r) {
    std::string why;
    auto add = [&](const char* what, double a, double b) {
        char line[160];
        std::snprintf(line, sizeof line, "%s%s %.17g (hand_soa %.17g)", why.empty() ? "" : "; ",
                      what, b, a);
        why += line;
    };
    if (r.size != ref.size) add("size", double(ref.size), double(r.size));
    if (r.removed != ref.removed) add("removed", double(ref.removed), double(r.removed));
    if (!close(ref.pos, r.pos, 1e-12)) add("sum x+y+z", ref.pos, r.pos);
    if (!close(ref.vel, r.vel, 1e-12)) add("sum u", ref.vel, r.vel);
    if (!close(ref.attr, r.attr, 1e-12)) add("sum weight*charge+species", ref.attr, r.attr);
    if (r.ids != ref.ids) add("sum id", double(ref.ids), double(r.ids));
    if (r.cells != ref.cells) add("sum cell", double(ref.cells), double(r.cells));
    if (r.order != ref.order) add("order", double(ref.order), double(r.order));
    // Charges of both signs: the sum may cancel, so its tolerance is relative to the sum of |rho|.
    if (std::fabs(ref.rho - r.rho) > 1e-4 * std::max(ref.rho_abs, r.rho_abs))
        add("sum rho", ref.rho, r.rho);
    if (!close(ref.rho_abs, r.rho_abs, 1e-4)) add("sum |rho|", ref.rho_abs, r.rho_abs);
    return why;
}

void print_row(const char* name, const double (&v)[8], const char* alloc, const char* pool,
               const char* left, const char* status, const char* format) {
    std::printf("%-9s", name);
    for (double x : v) {
        if (std::isnan(x))
            std::printf(" %9s", "-");
        else
            std::printf(format, x);
    }
    std::printf(" %7s %8s %6s  %s\n", alloc, pool, left, status);
}

void values_of(const result& r, double (&v)[8]) {
    v[0] = r.t.step_median;
    v[1] = r.t.step_mean;
    for (int p = 0; p < phases; ++p) v[2 + p] = r.t.median[p];
}

} // namespace

int main(int argc, char** argv) {
    config cfg;
    for (int a = 1; a + 1 < argc; a += 2) {
        const char* k = argv[a];
        const char* v = argv[a + 1];
        if (!std::strcmp(k, "--n"))
            cfg.n = std::strtoull(v, nullptr, 10);
        else if (!std::strcmp(k, "--grid"))
            cfg.grid = std::atoi(v);
        else if (!std::strcmp(k, "--steps"))
            cfg.steps = std::atoi(v);
        else if (!std::strcmp(k, "--warmup"))
            cfg.warmup = std::atoi(v);
        else if (!std::strcmp(k, "--sort-every"))
            cfg.sort_every = std::atoi(v);
        else if (!std::strcmp(k, "--output-every"))
            cfg.output_every = std::atoi(v);
        else if (!std::strcmp(k, "--seed"))
            cfg.seed = std::strtoull(v, nullptr, 10);
        else if (!std::strcmp(k, "--hand-remove") && !std::strcmp(v, "flagged"))
            cfg.hand_flagged = true;
        else if (!std::strcmp(k, "--hand-remove") && !std::strcmp(v, "select"))
            cfg.hand_flagged = false;
        else if (!std::strcmp(k, "--inject") && !std::strcmp(v, "kernel"))
            cfg.inject_kernel = true;
        else if (!std::strcmp(k, "--inject") && !std::strcmp(v, "tabulate"))
            cfg.inject_kernel = false;
        else {
            std::fprintf(stderr, "pic_step_gpu: unknown option %s\n", k);
            return 2;
        }
    }
    if (cfg.n == 0 || cfg.n > 0x7fffffffULL || cfg.grid < 1 || cfg.grid > 1024 || cfg.steps < 1 ||
        cfg.warmup < 0) {
        std::fprintf(stderr, "pic_step_gpu: need 0 < n < 2^31, 0 < grid <= 1024, steps > 0\n");
        return 2;
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::printf("pic_step_gpu: no CUDA device, nothing measured\n");
        return 0;
    }
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");

    try {
        world w{cfg, nullptr, nullptr, nullptr};
        check(cudaStreamCreateWithFlags(&w.stream, cudaStreamNonBlocking), "cudaStreamCreate");
        check(cudaMalloc(&w.field, cfg.cells() * sizeof(float4)), "cudaMalloc(field)");
        check(cudaMalloc(&w.rho, cfg.cells() * sizeof(float)), "cudaMalloc(rho)");
        init_field<<<blocks_for(cfg.cells()), block, 0, w.stream>>>(w.field, cfg.cells(), cfg.seed);
        check(cudaGetLastError(), "init_field");

        // Output targets, allocated once: the hand-written versions' pinned arrays (x, y, z
        // doubles then id ints, one block), the library's pinned SoA container.
        pinned_output out{};
        check(cudaMallocHost(&out.x, cfg.n * (3 * sizeof(double) + sizeof(int))), "cudaMallocHost");
        out.y = out.x + cfg.n;
        out.z = out.x + 2 * cfg.n;
        out.id = reinterpret_cast<int*>(out.x + 3 * cfg.n);
        pinned_particles pinned(cfg.n);
        check(cudaDeviceSynchronize(), "setup"); // whatever filled pinned, before w.stream uses it

        pool_watch pools;
        counting_resource resource;
        std::vector<result> results;
        results.push_back(run_hand_soa(w, out, pools));
        results.push_back(run_hand_aos(w, out, pools));
        results.push_back(run_library<aos>("aos", w, pinned, resource, pools));
        results.push_back(run_library<soa>("soa", w, pinned, resource, pools));
        results.push_back(run_library<aosoa32>("aosoa32", w, pinned, resource, pools));
        results.push_back(run_library<split_xyz>("split", w, pinned, resource, pools));

        std::printf("pic_step_gpu: %s; n = %zu particles (%zu bytes each), grid %d^3, %d steps "
                    "timed after %d warm-up, sort every %d, output every %d, seed %llu\n",
                    prop.name, cfg.n, sizeof(Particle), cfg.grid, cfg.steps, cfg.warmup,
                    cfg.sort_every, cfg.output_every, (unsigned long long)cfg.seed);
#if LAYOUT_PIC_NEW_API
        std::printf("library API: LAYOUT_PIC_NEW_API=1: workspace ws(stream, resource), "
                    "remove_if(c, pred, ws), bin_by_key<&Particle::cell>(c, cells, ws)\n");
#else
        std::printf("library API: LAYOUT_PIC_NEW_API=0: remove_if(c, pred), cells copied to an "
                    "aos_vector<int> + bin_by_key(keys, cells, c, stream)\n");
#endif
        std::printf("hand_soa removal: %s\n",
                    cfg.hand_flagged ? "flag kernel + DeviceSelect::Flagged per column"
                                     : "DeviceSelect::If of the kept positions + one gather");
        std::printf("library inject: %s\n",
                    cfg.inject_kernel ? "the user's kernel writes c.view()[i] (--inject kernel)"
                                      : "layout::cuda::tabulate(c, kept, n, newcomer{...})");
#if LAYOUT_CHECK_BOUNDS
        std::printf("warning: LAYOUT_CHECK_BOUNDS is on (no -DNDEBUG): the library's index "
                    "checks run inside the timed steps\n");
#endif
        std::printf("milliseconds, medians (step_mean: the mean, sort and output steps "
                    "included); allocs: library allocations during the timed steps; pool_MB: "
                    "peak of temporaries outside the user's resource; left: removed per step, "
                    "%% of n\n\n");
        std::printf("%-9s %9s %9s %9s %9s %9s %9s %9s %9s %7s %8s %6s  %s\n", "version", "step_med",
                    "step_mean", phase_names[0], phase_names[1], phase_names[2], phase_names[3],
                    phase_names[4], phase_names[5], "allocs", "pool_MB", "left", "check");
        const checksum& ref = results[0].sum;
        bool all_pass = true;
        for (const result& r : results) {
            const std::string why = compare(ref, r.sum);
            all_pass = all_pass && why.empty();
            double v[8];
            values_of(r, v);
            char alloc[32], pool[32], left[32];
            if (r.allocations < 0)
                std::snprintf(alloc, sizeof alloc, "-");
            else
                std::snprintf(alloc, sizeof alloc, "%lld", r.allocations);
            std::snprintf(pool, sizeof pool, "%.1f", r.pool_mb);
            std::snprintf(left, sizeof left, "%.3f", r.left_percent);
            const std::string status = why.empty() ? "PASS" : "FAIL: " + why;
            print_row(r.name.c_str(), v, alloc, pool, left, status.c_str(), " %9.3f");
        }
        std::printf("\nratios, library / hand-written (same run):\n");
        for (std::size_t k = 2; k < results.size(); ++k) {
            const result& lib = results[k];
            const result& hand = lib.name == "aos" ? results[1] : results[0];
            double a[8], b[8], ratio[8];
            values_of(lib, a);
            values_of(hand, b);
            for (int j = 0; j < 8; ++j) ratio[j] = a[j] / b[j];
            const std::string label = lib.name + "/" + (lib.name == "aos" ? "hA" : "hS");
            print_row(label.c_str(), ratio, "", "", "", "", " %8.3fx");
        }
        std::printf("\n(hA: hand_aos, hS: hand_soa; wall-clock ms/step, host: ");
        for (const result& r : results) std::printf("%s %.3f ", r.name.c_str(), r.wall_ms);
        std::printf(")\n");
        for (const result& r : results)
            if (r.output_early)
                std::printf("early: %s: layout::cuda::copy of the selection into pinned memory "
                            "returned before the data was there in %d of its outputs (the "
                            "benchmark waited)\n",
                            r.name.c_str(), r.output_early);

        check(cudaFreeHost(out.x), "cudaFreeHost");
        check(cudaFree(w.field), "cudaFree");
        check(cudaFree(w.rho), "cudaFree");
        check(cudaStreamDestroy(w.stream), "cudaStreamDestroy");
        if (!all_pass) {
            std::printf("FAIL: a version's particles or density differ from hand_soa's\n");
            return 1;
        }
        std::printf("PASS: every version agrees with hand_soa\n");
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pic_step_gpu: %s\n", e.what());
        return 1;
    }
}
