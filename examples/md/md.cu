// The MD mini-app with CUDA: --device gpu runs the kernels of kernels.hpp through
// layout::cuda::for_each_index on device containers, --device cpu the host path of md.cpp.
//   md_gpu --data FILE --device gpu [--layout aos|soa|aosoa32|split] [--precision double|float] ...
//   md_gpu --lattice fcc 0.8442 --cells 20 20 20 --device gpu --steps 10000 --thermo 1000
//   md_gpu ... --device gpu --compare-raw [REPS]   the library force kernel against a
//                                                  hand-written one on the same neighbor list
//   md_gpu ... --device gpu --graph                the steps between rebuilds and thermo
//                                                  replayed as CUDA graphs (device_backend)
//   md_gpu ... --device gpu --graph-compare [REPS] runs without and with graphs, steps/s of
//                                                  each and their ratio, thermo compared
//   md_gpu ... [--checkpoint FILE [--checkpoint-every K]] [--restart FILE [--restart-iteration I]]
//        checkpoints and restarts as md's (checkpoint.hpp; with HDF5): the same openPMD files,
//        so a checkpoint of md restarts md_gpu and the other way round, in any layout
//
// Full neighbor list on the GPU: one thread per atom writes only its own force, so no atomics
// and no races; computing each pair twice costs less than the atomic f[j] updates of a half
// list would (arithmetic is cheap next to the gathers of neighbor positions).
#include "checkpoint.hpp"
#include "gpu_forces.hpp"
#include "host_backend.hpp"

#include <layout/cuda/algorithms.hpp>
#include <layout/cuda/error.hpp>
#include <layout/cuda/for_each.hpp>
#include <layout/cuda/vector.hpp>

#include <layout/cuda/workspace.hpp>

#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace md {

struct max_of {
    __host__ __device__ index_t operator()(index_t a, index_t b) const { return a > b ? a : b; }
};
struct plus_of {
    __host__ __device__ double operator()(double a, double b) const { return a + b; }
};

/// The GPU side of simulation.hpp. Everything runs on the backend's own stream, created
/// non-blocking: nothing of the run goes to the legacy default stream, which stream capture
/// cannot record and which would order the run against every other stream of the process.
/// Containers are made with that stream, so the library's calls on them run there too.
struct device_backend {
    template <class T, class Layout>
    using atoms = layout::vector<T, Layout, layout::cuda::device_memory>;
    template <class T>
    using array = layout::cuda::aos_vector<T>;
    static constexpr bool half_list = false;
    static constexpr bool interleaved_list = true;
    static constexpr int cells_per_reach = 1; // 27 cells: fewer, longer runs of a warp's loads
    static constexpr bool graphs = true;      // --graph: simulation.hpp replays steps

    device_backend() {
        cudaStream_t s = nullptr;
        layout::cuda::check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking),
                            "cudaStreamCreateWithFlags");
        stream_.reset(s);
        void* h = nullptr;
        layout::cuda::check(cudaMallocHost(&h, sizeof(std::uint64_t)), "cudaMallocHost");
        readback_.reset(h);
        ws_ = std::make_unique<layout::cuda::workspace>(stream());
    }

    cudaStream_t native_stream() const { return stream_.get(); }
    layout::stream_ref stream() const { return layout::stream_ref(stream_.get()); }

    template <class T>
    static T* ptr(array<T>& a) {
        return a.view().data();
    }
    template <class T>
    void zeros(array<T>& a, std::size_t n) const {
        a = array<T>();                 // free first: the neighbor list can be large
        a = array<T>(n, T{}, stream()); // n zeros, filled on the stream
    }
    template <class T>
    array<T> to_device(const std::vector<T>& h) const {
        return array<T>(std::span<const T>(h), stream());
    }
    template <class Atoms, class Host>
    Atoms atoms_from(const Host& h) const {
        return Atoms(h, stream());
    }
    /// One element a thread, not the default's several: the force and neighbor kernels loop
    /// over neighbours, and several atoms a thread cost them registers and so resident threads
    /// (loads in flight): the force kernel ran 1.48x slower at the default's 2 per thread under
    /// SoA at 2,048,000 atoms (60 registers, 4 blocks an SM, against 48 and 5).
    template <class View, class F>
    void for_each(const View& v, const F& f) const {
        layout::cuda::for_each_index<1>(v, f, stream());
        layout::cuda::check(cudaGetLastError(), "md kernel launch");
    }
    template <class View, class F>
    void half_forces(const View&, const F&) const {} // never called: the GPU's list is full

    /// The full-list forces f (lj_full) with `lanes` threads an atom (gpu_forces.hpp; 0: as
    /// many as give the GPU the threads it holds at once, gpu::lanes_for).
    template <class View, class F>
    void full_forces(const View& v, const F& f, int lanes) const {
        gpu::full_forces(v, f, 0, v.size(), lanes, native_stream());
    }

    /// Sorts the keys (the permutation and the offsets per cell come back) and gathers the
    /// atoms into the spare container, which then becomes the atoms: one pass, as the
    /// library's reorder does, but into a block that stays. The atoms so live in one of two
    /// blocks, and a graph recorded on each (simulation.hpp keys them by address) replays for
    /// the rest of the run.
    template <class Atoms>
    array<index_t> bin(array<index_t>& keys, std::size_t cells, Atoms& a, Atoms& spare) const {
        auto b = layout::cuda::bin_by_key<index_t>(keys, cells, stream());
        if (spare.size() != a.size()) spare = Atoms(a.size(), stream());
        layout::cuda::gather(a, b.permutation, spare, stream());
        a.swap(spare);
        return std::move(b.offsets);
    }
    double sum(array<double>& a, std::size_t n) { return reduce(ptr(a), n, 0.0, plus_of{}); }
    std::size_t max(array<index_t>& a, std::size_t n) {
        return reduce(ptr(a), n, index_t{0}, max_of{});
    }
    void sync() const { layout::cuda::check(cudaStreamSynchronize(native_stream()), "md step"); }

    /// Runs `steps` steps that record() launches, as a CUDA graph: recorded from the stream
    /// once per key (what the kernels take: the simulation's addresses and sizes), replayed
    /// from then on. Recording in the global capture mode makes any call that would wait for
    /// the GPU or allocate outside stream order fail, and the graph is checked for allocation
    /// nodes: a step that does either is an error naming it, not a graph that replays stale
    /// memory.
    template <class Record>
    void replay(const std::vector<std::uintptr_t>& key, long steps, Record&& record) {
        cudaGraphExec_t exec = nullptr;
        for (auto it = graphs_.begin(); it != graphs_.end(); ++it)
            if (it->key == key) {
                exec = it->exec.get();
                break;
            }
        if (!exec) exec = record_graph(key, steps, record);
        layout::cuda::check(cudaGraphLaunch(exec, native_stream()), "cudaGraphLaunch");
        ++replays_;
        replayed_steps_ += steps;
    }

    /// One line after the run's report: graphs recorded, their cost, the steps they ran.
    void report_graphs(long steps) const {
        std::printf("Graphs: %ld recorded (%ld kernels, %.3f ms to capture and instantiate), "
                    "%ld replays ran %ld of %ld steps\n",
                    recorded_, kernels_, 1e3 * record_seconds_, replays_, replayed_steps_, steps);
    }
    long graphs_recorded() const { return recorded_; }
    long replayed_steps() const { return replayed_steps_; }

private:
    struct stream_deleter {
        void operator()(cudaStream_t s) const { cudaStreamDestroy(s); }
    };
    struct host_deleter {
        void operator()(void* p) const { cudaFreeHost(p); }
    };
    struct exec_deleter {
        void operator()(cudaGraphExec_t g) const { cudaGraphExecDestroy(g); }
    };
    struct graph_deleter {
        void operator()(cudaGraph_t g) const { cudaGraphDestroy(g); }
    };
    struct recorded_graph {
        std::vector<std::uintptr_t> key;
        std::unique_ptr<CUgraphExec_st, exec_deleter> exec;
    };
    /// Graphs kept: two atom blocks times the few run lengths that thermo and rebuild
    /// intervals leave; more (a run whose lists grow often) drop the oldest.
    static constexpr std::size_t max_graphs = 16;

    /// A reduction on the stream (CUB, temporary storage in the workspace, kept from call to
    /// call), read back: one wait.
    template <class T, class Op>
    T reduce(const T* in, std::size_t n, T init, Op op) {
        using slot = layout::cuda::workspace::slot;
        static_assert(sizeof(T) <= sizeof(std::uint64_t));
        T* out = ws_->get<T>(slot::counter, 1);
        std::size_t bytes = 0;
        layout::cuda::check(
            cub::DeviceReduce::Reduce(nullptr, bytes, in, out, n, op, init, native_stream()),
            "cub::DeviceReduce::Reduce");
        void* temp = ws_->bytes(slot::temp, bytes);
        layout::cuda::check(
            cub::DeviceReduce::Reduce(temp, bytes, in, out, n, op, init, native_stream()),
            "cub::DeviceReduce::Reduce");
        layout::cuda::check(cudaMemcpyAsync(readback_.get(), out, sizeof(T), cudaMemcpyDeviceToHost,
                                            native_stream()),
                            "cudaMemcpyAsync");
        sync();
        T r;
        std::memcpy(&r, readback_.get(), sizeof(T));
        return r;
    }

    template <class Record>
    cudaGraphExec_t record_graph(const std::vector<std::uintptr_t>& key, long steps,
                                 Record& record) {
        const auto t0 = std::chrono::steady_clock::now();
        const std::string what =
            "--graph: recording " + std::to_string(steps) + " step(s) into a CUDA graph failed: ";
        layout::cuda::check(cudaStreamBeginCapture(native_stream(), cudaStreamCaptureModeGlobal),
                            "cudaStreamBeginCapture");
        try {
            record();
        } catch (const std::exception& e) {
            cudaGraph_t partial = nullptr;
            (void)cudaStreamEndCapture(native_stream(), &partial);
            if (partial) cudaGraphDestroy(partial);
            (void)cudaGetLastError();
            throw std::runtime_error(what + e.what() +
                                     "\n(a call in the recorded steps waits for the GPU, reads "
                                     "back or allocates, which stream capture forbids; such a "
                                     "call belongs in a step that is not recorded)");
        }
        cudaGraph_t g = nullptr;
        const cudaError_t ended = cudaStreamEndCapture(native_stream(), &g);
        std::unique_ptr<CUgraph_st, graph_deleter> graph(g);
        if (ended != cudaSuccess) {
            (void)cudaGetLastError();
            throw std::runtime_error(what + cudaGetErrorString(ended) + " (" +
                                     cudaGetErrorName(ended) +
                                     "): something invalidated the capture (work on another "
                                     "stream joined to it, or a call that capture forbids)");
        }
        std::size_t count = 0;
        layout::cuda::check(cudaGraphGetNodes(g, nullptr, &count), "cudaGraphGetNodes");
        std::vector<cudaGraphNode_t> nodes(count);
        layout::cuda::check(cudaGraphGetNodes(g, nodes.data(), &count), "cudaGraphGetNodes");
        long kernels = 0;
        for (cudaGraphNode_t node : nodes) {
            cudaGraphNodeType type{};
            layout::cuda::check(cudaGraphNodeGetType(node, &type), "cudaGraphNodeGetType");
            if (type == cudaGraphNodeTypeMemAlloc || type == cudaGraphNodeTypeMemFree)
                throw std::runtime_error(
                    what + "the recorded steps allocate or free device memory (a stream-ordered "
                           "allocation was captured): a step to replay must allocate nothing");
            kernels += type == cudaGraphNodeTypeKernel;
        }
        cudaGraphExec_t exec = nullptr;
        layout::cuda::check(cudaGraphInstantiate(&exec, g, 0), "cudaGraphInstantiate");
        if (graphs_.size() == max_graphs) graphs_.erase(graphs_.begin());
        graphs_.push_back({key, std::unique_ptr<CUgraphExec_st, exec_deleter>(exec)});
        ++recorded_;
        kernels_ += kernels;
        record_seconds_ +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return exec;
    }

    // The stream first: destroyed last, after everything that frees in its order.
    std::unique_ptr<CUstream_st, stream_deleter> stream_;
    std::unique_ptr<void, host_deleter> readback_; // pinned: the reductions' results
    std::unique_ptr<layout::cuda::workspace> ws_;  // the reductions' temporary storage
    std::vector<recorded_graph> graphs_;
    long recorded_ = 0, kernels_ = 0, replays_ = 0, replayed_steps_ = 0;
    double record_seconds_ = 0;
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
    explicit event_timer(cudaStream_t stream) : stream_(stream) {
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
            layout::cuda::check(cudaEventRecord(start_, stream_), "cudaEventRecord");
            f();
            layout::cuda::check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
            layout::cuda::check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
            float ms = 0;
            layout::cuda::check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
            t.push_back(ms);
        }
        std::sort(t.begin(), t.end());
        return t[t.size() / 2];
    }

private:
    cudaStream_t stream_;
    cudaEvent_t start_{}, stop_{};
};

/// After a run: the library's force kernel (for_each_index over the layout's view, lj_full)
/// against the hand-written kernels on the same positions and neighbor list; forces compared;
/// times against the bound set by the bytes the kernel must move at the measured copy bandwidth.
/// Everything on the simulation's stream, as the run.
template <class Real, class Layout>
void compare_raw(simulation<Real, Layout, device_backend>& sim, const char* name, int reps) {
    auto& dev = sim.atoms();
    const std::size_t n = dev.size();
    const neighbor_list list = sim.list();
    const kernel_box<Real> box = sim.box();
    const Real cut_sq = sim.cut_sq();
    device_backend& b = sim.backend();
    const cudaStream_t st = b.native_stream();
    event_timer timer(st);
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
    layout::cuda::aos_vector<atom<Real>> raw_aos(host_aos, b.stream());
    auto up = [&](const std::vector<Real>& h) { return b.to_device(h); };
    auto x = up(hx), y = up(hy), z = up(hz), fx = up(hx), fy = up(hy), fz = up(hz);
    auto gx = up(hx), gy = up(hy), gz = up(hz);
    const auto pos = b.to_device(hpos);

    // Total neighbors, for the byte count.
    std::vector<index_t> cnt(n);
    layout::cuda::check(
        cudaMemcpyAsync(cnt.data(), list.count, n * sizeof(index_t), cudaMemcpyDeviceToHost, st),
        "cudaMemcpyAsync");
    b.sync();
    double pairs = 0;
    for (index_t c : cnt) pairs += c;

    const auto lib = lj_full<Real, false>{list, box, cut_sq, nullptr, nullptr};
    const double lib_ms = timer.median_ms(reps, [&] { b.for_each(dev.view(), lib); });
    const double soa_ms = timer.median_ms(reps, [&] {
        raw_lj_soa<<<grid, block, 0, st>>>(x.view().data(), y.view().data(), z.view().data(),
                                           list.neigh, list.count, list.plain, n, box, cut_sq,
                                           fx.view().data(), fy.view().data(), fz.view().data());
    });
    const double aos_ms = timer.median_ms(reps, [&] {
        raw_lj_aos<<<grid, block, 0, st>>>(raw_aos.view().data(), list.neigh, list.count,
                                           list.plain, n, box, cut_sq);
    });
    // The library's forces, before the next kernel overwrites them.
    b.sync();
    const layout::aos_vector<atom<Real>> lib_f = layout::vector<atom<Real>, Layout>(dev);
    // The hand-written kernel on the library's own memory: where this runs as fast as the
    // library and the other raw kernel faster, the difference is where the bytes lie, not code.
    double own_ms = 0;
    if constexpr (std::is_same_v<Layout, layout::policy::soa>) {
        const auto v = dev.view();
        using A = atom<Real>;
        using V = vec3<Real>;
        own_ms = timer.median_ms(reps, [&] {
            raw_lj_soa<<<grid, block, 0, st>>>(
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
            raw_lj_aosoa<Real, 32><<<grid, block, 0, st>>>(blocks, list.neigh, list.count,
                                                           list.plain, n, box, cut_sq);
        });
    } else if constexpr (std::is_same_v<Layout, layout::policy::aos>) {
        own_ms = timer.median_ms(reps, [&] {
            raw_lj_aos<<<grid, block, 0, st>>>(dev.view().data(), list.neigh, list.count,
                                               list.plain, n, box, cut_sq);
        });
    }
    const double split_ms = timer.median_ms(reps, [&] {
        raw_lj_split<<<grid, block, 0, st>>>(pos.view().data(), list.neigh, list.count, list.plain,
                                             n, box, cut_sq, gx.view().data(), gy.view().data(),
                                             gz.view().data());
    });
    b.sync();

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
    layout::cuda::aos_vector<char> src(std::size_t(1) << 28, b.stream()),
        dst(std::size_t(1) << 28, b.stream());
    const double copy_ms = timer.median_ms(reps, [&] {
        layout::cuda::check(cudaMemcpyAsync(dst.view().data(), src.view().data(),
                                            std::size_t(1) << 28, cudaMemcpyDeviceToDevice, st),
                            "cudaMemcpyAsync");
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

bool same_thermo(const std::vector<thermo>& a, const std::vector<thermo>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t k = 0; k < a.size(); ++k)
        if (a[k].step != b[k].step || a[k].temp != b[k].temp || a[k].e_pair != b[k].e_pair ||
            a[k].e_mol != b[k].e_mol || a[k].tot_eng != b[k].tot_eng || a[k].press != b[k].press)
            return false;
    return true;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/// --graph-compare REPS: the same run without and with graphs, REPS times each in turn (the
/// first of each prints its thermo and report), in one process, so that the ratio of steps/s
/// compares runs on the same GPU, clocks and state. Both without per-phase timing (its
/// synchronizations would be measured, not the steps); one more direct run with it, which is
/// what md_gpu reports by default. Fresh simulations each time: every graph run pays for
/// recording its graphs. Exit status 1 if any run's thermo differs from the first direct
/// run's in any bit.
int compare_graphs(const system& s, const options& o) {
    auto go = [&]<class Real, class Layout>() {
        options direct = o;
        direct.graph = false;
        direct.timing = false;
        options graph = direct;
        graph.graph = true;
        options timed = direct;
        timed.timing = true;
        std::vector<thermo> reference;
        bool identical = true;
        int runs = 0;
        long recorded = 0, replayed = 0;
        auto run = [&](const options& with, bool first, const char* title) {
            simulation<Real, Layout, device_backend> sim(s, with);
            sim.print = first;
            if (first) std::printf("---- %s\n", title);
            const auto th = sim.run();
            if (first) sim.report(th, "gpu");
            if (reference.empty())
                reference = th;
            else
                identical = identical && same_thermo(th, reference);
            ++runs;
            if (with.graph) {
                recorded = sim.backend().graphs_recorded();
                replayed = sim.backend().replayed_steps();
            }
            return double(o.steps) / sim.times().total;
        };
        std::vector<double> rate_direct, rate_graph;
        for (int r = 0; r < o.graph_compare; ++r) {
            rate_direct.push_back(run(direct, r == 0, "direct (no graphs, no per-phase timing)"));
            rate_graph.push_back(run(graph, r == 0, "with --graph (no per-phase timing)"));
        }
        const double rate_timed = run(timed, true, "direct with per-phase timing (the default)");
        const double d = median(rate_direct), g = median(rate_graph);
        std::printf("\nCUDA graphs, %zu atoms, %ld steps, layout %s, %s; median of %d runs each:\n",
                    s.atoms.size(), o.steps, o.layout.c_str(), o.precision.c_str(),
                    o.graph_compare);
        std::printf("  direct          %12.1f steps/s  %8.2f us/step\n", d, 1e6 / d);
        std::printf("  graphs          %12.1f steps/s  %8.2f us/step  (%ld of %ld steps replayed, "
                    "%ld graphs recorded a run)\n",
                    g, 1e6 / g, replayed, o.steps, recorded);
        std::printf("  direct, timed   %12.1f steps/s  %8.2f us/step  (a wait after each phase)\n",
                    rate_timed, 1e6 / rate_timed);
        std::printf("Graph speedup: %.3fx steps/s over direct (%.3fx over direct timed); thermo "
                    "%s bit for bit in all %d runs\n",
                    g / d, g / rate_timed, identical ? "identical" : "DIFFERS", runs);
        return identical ? 0 : 1;
    };
    return with_types(o, go);
}

int run_gpu(const system& s, const options& o, const checkpoint_options& c = {}) {
    if (o.graph_compare && c.any())
        throw input_error("--graph-compare runs fresh simulations from the start: not with "
                          "--checkpoint or --restart");
    int devices = 0;
    const cudaError_t e = cudaGetDeviceCount(&devices);
    if (e != cudaSuccess || devices == 0) {
        (void)cudaGetLastError();
        std::fprintf(stderr, "md: error: --device gpu: no CUDA device (%s)\n",
                     e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        return 1;
    }
    if (o.graph_compare) return compare_graphs(s, o);
    auto go = [&]<class Real, class Layout>() {
        simulation<Real, Layout, device_backend> sim(s, o);
        run_checkpointed(sim, c, o, s.box, "gpu");
        if (o.compare_raw) compare_raw(sim, o.layout.c_str(), o.raw_reps);
        return 0;
    };
    return with_types(o, go);
}

} // namespace md

int main(int argc, char** argv) {
    try {
        md::checkpoint_options c;
        std::vector<char*> rest = md::take_checkpoint_options(argc, argv, c);
        const md::options o = md::parse_options(static_cast<int>(rest.size()), rest.data());
        const md::system s = md::load_start(o);
        if (o.device == "gpu") return md::run_gpu(s, o, c);
        return md::run_host(s, o, c);
    } catch (const md::input_error& e) {
        std::fprintf(stderr, "md: error: %s\n", e.what());
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "md: error: %s\n", e.what());
        return 2;
    }
}
