// Layout conversion on the GPU: layout::cuda::copy between two layouts in six directions (aos<->soa,
// aosoa32<->soa, aos<->aosoa32) for two structs, each next to
//   naive    a hand-written one-thread-per-element kernel, dst[i] = src[i].load() through views
//   memcpy   cudaMemcpyAsync device to device of the same bytes (one per struct: the bound)
// Structs: Particle (8 floats, 32 B) and Mixed (double, float, short, char, bool: 16 B), 32M
// elements each by default (--n=N). Bytes processed: read + written, 2 * n * (sum of leaf sizes).
//
// Names:   convert/<Particle|Mixed>/memcpy
//          convert/<Particle|Mixed>/<src>_to_<dst>/<library|naive>
//          assign/Particle/<src>_to_<dst>/<reused|fresh>   container `dst = src` (add_assignment)
// (Google Benchmark appends /manual_time.) Counters: elements, pct_of_memcpy = 100 * median
// time of the memcpy of the same bytes (measured once in this process, on first use) / median
// time of this benchmark's iterations.
//
// Before timing, each direction is checked once on random data: the library's result and the
// naive kernel's, both written over poisoned (0xff) outputs, are copied back and compared leaf
// by leaf (bytes), and the naive result against the host input; a mismatch is SkipWithError.
//
// Stand-alone (no examples/ include path):
//   nvcc -std=c++20 --expt-relaxed-constexpr -arch=sm_90 -O3 -Iinclude bench/convert_gpu.cu
//        -lbenchmark -o convert_gpu

// The naive kernel goes through view::operator[]: time it without bounds checks whatever the
// build type (the line above has no -DNDEBUG), as bench/algorithms_bench.cuh does.
#undef LAYOUT_CHECK_BOUNDS
#define LAYOUT_CHECK_BOUNDS 0

#include "gpu_common.cuh"

#include <layout/cuda/copy.hpp>
#include <layout/cuda/vector.hpp>
#include <layout/layout.hpp>

#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace convert_bench {

/// 8 floats, 32 bytes, no padding.
struct Particle {
    float x, y, z, vx, vy, vz, mass, charge;
};
static_assert(sizeof(Particle) == 32);

/// Leaves of every size from 8 down to 1 byte; 16 bytes, no padding.
struct Mixed {
    double d;
    float f;
    short s;
    char c;
    bool b;
};
static_assert(sizeof(Mixed) == 16);

using bench::device_vector;
using layout::policy::aos;
using layout::policy::soa;
using aosoa32 = layout::policy::aosoa<32>;

inline const char* layout_name(aos) { return "aos"; }
inline const char* layout_name(soa) { return "soa"; }
inline const char* layout_name(aosoa32) { return "aosoa32"; }

template <class T>
const char* struct_name();
template <>
const char* struct_name<Particle>() {
    return "Particle";
}
template <>
const char* struct_name<Mixed>() {
    return "Mixed";
}

/// Sum of the leaf sizes: what one element costs to read, or to write, in any layout.
template <class T>
constexpr std::size_t leaf_bytes() {
    std::size_t total = 0;
    for (const auto& leaf : layout::detail::leaf_table<T>) total += leaf.size;
    return total;
}

// ---- random input (counter-based, so any thread count gives the same values) ------------------

inline std::uint64_t mix(std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
/// Uniform in [-1, 1), from 24 random bits: finite, and each value distinct from the poison.
inline float unit(std::uint64_t bits) {
    return static_cast<float>(bits >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

template <class T>
T random_element(std::size_t i);

template <>
Particle random_element<Particle>(std::size_t i) {
    const std::uint64_t s = mix(0x5eed0001ull + i);
    Particle p;
    float* f = &p.x;
    for (int k = 0; k < 8; ++k) f[k] = unit(mix(s + k));
    return p;
}

template <>
Mixed random_element<Mixed>(std::size_t i) {
    const std::uint64_t r = mix(0x5eed0002ull + i), q = mix(r);
    Mixed m;
    m.d = static_cast<double>(r >> 11) * 0x1.0p-40 - 4096.0;
    m.f = unit(q);
    m.s = static_cast<short>(q % 65535); // never 0xffff, the poison
    m.c = static_cast<char>((q >> 16) & 0x7f);
    m.b = ((q >> 24) & 1) != 0;
    return m;
}

template <class F>
void parallel_for(std::size_t n, F&& f) {
    const unsigned threads = n < (std::size_t{1} << 16)
                                 ? 1u
                                 : std::max(1u, std::min(std::thread::hardware_concurrency(), 64u));
    const std::size_t chunk = (n + threads - 1) / threads;
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
        const std::size_t b = std::min(n, t * chunk), e = std::min(n, b + chunk);
        pool.emplace_back([&f, b, e] { f(b, e); });
    }
    for (auto& th : pool) th.join();
}

// ---- the data, built on first use (so that --benchmark_filter allocates only what it runs) ------

/// The input on the host, as sources in the three layouts on the device, and one output buffer
/// per layout (shared by the directions that write that layout).
template <class T>
struct dataset {
    std::vector<T> input;
    device_vector<T, aos> src_aos, dst_aos;
    device_vector<T, soa> src_soa, dst_soa;
    device_vector<T, aosoa32> src_aosoa32, dst_aosoa32;

    template <class L>
    device_vector<T, L>& src() {
        if constexpr (std::is_same_v<L, aos>)
            return src_aos;
        else if constexpr (std::is_same_v<L, soa>)
            return src_soa;
        else
            return src_aosoa32;
    }
    template <class L>
    device_vector<T, L>& dst() {
        if constexpr (std::is_same_v<L, aos>)
            return dst_aos;
        else if constexpr (std::is_same_v<L, soa>)
            return dst_soa;
        else
            return dst_aosoa32;
    }
};

/// Host vector in layout L holding input (converted on the host), then one bulk copy to the
/// device: the sources never go through the conversion under test.
template <class T, class L>
device_vector<T, L> to_device(const std::vector<T>& input) {
    layout::vector<T, L> host(input.size());
    const auto v = host.view();
    parallel_for(input.size(), [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) v[i] = input[i];
    });
    return device_vector<T, L>(host);
}

template <class T>
dataset<T>& data(std::size_t n) {
    static std::unique_ptr<dataset<T>> built;
    if (!built) {
        auto d = std::make_unique<dataset<T>>();
        d->input.resize(n);
        parallel_for(n, [&](std::size_t b, std::size_t e) {
            for (std::size_t i = b; i < e; ++i) d->input[i] = random_element<T>(i);
        });
        d->src_aos = to_device<T, aos>(d->input);
        d->src_soa = to_device<T, soa>(d->input);
        d->src_aosoa32 = to_device<T, aosoa32>(d->input);
        d->dst_aos = device_vector<T, aos>(n);
        d->dst_soa = device_vector<T, soa>(n);
        d->dst_aosoa32 = device_vector<T, aosoa32>(n);
        built = std::move(d);
    }
    return *built;
}

// ---- the naive kernel ---------------------------------------------------------------------------

constexpr unsigned naive_threads = 256;

/// One thread per element, the whole element through the views.
template <class T, class Dst, class Src, class M>
__global__ void naive_convert_kernel(layout::view<T, Dst, M> dst,
                                     layout::view<const T, Src, M> src) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < dst.size()) dst[i] = src[i].load();
}

template <class T, class Dst, class Src, class M>
void naive_convert(layout::view<T, Dst, M> dst, layout::view<const T, Src, M> src) {
    const std::size_t blocks = (src.size() + naive_threads - 1) / naive_threads;
    if (blocks == 0) return;
    if (blocks > 0x7fffffffu)
        throw std::length_error("convert_gpu: --n too large for the naive grid");
    naive_convert_kernel<<<static_cast<unsigned>(blocks), naive_threads>>>(dst, src);
    layout::cuda::check_launch("naive_convert_kernel");
}

// ---- timing -------------------------------------------------------------------------------------

inline void memcpy_d2d(void* dst, const void* src, std::size_t bytes) {
    layout::cuda::check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0),
                        "cudaMemcpyAsync device to device");
}

/// Median of 30 device-to-device copies of n * leaf_bytes<T>() bytes (AoS source to AoS
/// output), measured once per struct: the reference for pct_of_memcpy.
template <class T>
double memcpy_reference_s(std::size_t n) {
    static const double median = [&] {
        auto& d = data<T>(n);
        const std::size_t bytes = n * leaf_bytes<T>();
        bench::event_timer timer;
        std::vector<double> times;
        for (int k = 0; k < 33; ++k) {
            const double s = timer.seconds(
                [&] { memcpy_d2d(d.dst_aos.view().data(), d.src_aos.cview().data(), bytes); });
            if (k >= 3) times.push_back(s); // 3 warm-up copies
        }
        return bench::median(times);
    }();
    return median;
}

template <class T>
void report(benchmark::State& state, std::size_t n, double median_s) {
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 2 *
                            static_cast<std::int64_t>(n * leaf_bytes<T>()));
    state.counters["elements"] = static_cast<double>(n);
    if (median_s > 0) state.counters["pct_of_memcpy"] = 100.0 * memcpy_reference_s<T>(n) / median_s;
}

// ---- verification -------------------------------------------------------------------------------

/// Every byte of v's elements set to 0xff (not a value random_element produces).
template <class T, class L, class M>
void poison(const layout::view<T, L, M>& v) {
    using layout::cuda::check;
    if constexpr (std::is_same_v<L, soa>) {
        for (std::size_t l = 0; l < layout::leaf_count_v<T>; ++l)
            check(cudaMemset(v.storage().columns[l], 0xff,
                             v.size() * layout::detail::leaf_table<T>[l].size),
                  "cudaMemset");
    } else {
        check(cudaMemset(v.storage().data, 0xff, layout::mapping<T, L>::bytes(v.size())),
              "cudaMemset");
    }
}

/// First (element, leaf) where a differs byte-wise from b_leaf(element, leaf), or n if none.
template <class T, class L, class Other>
std::size_t first_difference(const layout::view<const T, L>& a, std::size_t n, Other&& b_leaf,
                             std::size_t& leaf_out) {
    std::mutex m;
    std::size_t first = n, leaf = 0;
    parallel_for(n, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            const auto at = a.storage().at(i);
            std::size_t bad = layout::leaf_count_v<T>;
            [&]<std::size_t... L2>(std::index_sequence<L2...>) {
                ((bad == layout::leaf_count_v<T> &&
                          std::memcmp(&at.template leaf<L2>(),
                                      b_leaf(i, std::integral_constant<std::size_t, L2>{}),
                                      sizeof(layout::leaf_t<T, L2>)) != 0
                      ? (bad = L2, 0)
                      : 0),
                 ...);
            }(std::make_index_sequence<layout::leaf_count_v<T>>{});
            if (bad != layout::leaf_count_v<T>) {
                const std::lock_guard<std::mutex> lock(m);
                if (i < first) first = i, leaf = bad;
                return; // the first in this thread's range
            }
        }
    });
    leaf_out = leaf;
    return first;
}

/// Empty if the library's Src -> Dst conversion equals the naive kernel's, and the naive
/// kernel's equals the input; otherwise what differs.
template <class T, class Dst, class Src>
std::string check_direction(std::size_t n) {
    using layout::cuda::check;
    auto& d = data<T>(n);
    auto& lib = d.template dst<Dst>();
    device_vector<T, Dst> naive(n);
    poison(lib.view());
    poison(naive.view());
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize after poisoning");
    layout::cuda::copy(d.template src<Src>().cview(), lib.view());
    naive_convert(naive.view(), d.template src<Src>().cview());
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize after the conversions");

    const layout::vector<T, Dst> lib_host(lib), naive_host(naive); // same layout: bulk copies
    const auto lv = lib_host.cview(), nv = naive_host.cview();
    const std::string what =
        std::string(layout_name(Src{})) + "->" + layout_name(Dst{}) + " " + struct_name<T>() + ": ";
    std::size_t leaf = 0;
    if (const std::size_t i = first_difference(
            nv, n,
            [&](std::size_t e, auto l) -> const void* {
                return &layout::detail::leaf_ref<decltype(l)::value>(d.input[e]);
            },
            leaf);
        i != n)
        return what + "the naive kernel's result differs from the input at element " +
               std::to_string(i) + ", leaf " + std::to_string(leaf);
    if (const std::size_t i = first_difference(
            lv, n,
            [&](std::size_t e, auto l) -> const void* {
                return &nv.storage().at(e).template leaf<decltype(l)::value>();
            },
            leaf);
        i != n)
        return what + "layout::cuda::copy differs from the naive kernel at element " +
               std::to_string(i) + ", leaf " + std::to_string(leaf);
    return {};
}

/// check_direction, once per direction (the library and naive benchmarks share the verdict).
template <class T, class Dst, class Src>
const std::string& verdict(std::size_t n) {
    static const std::string v = check_direction<T, Dst, Src>(n);
    return v;
}

// ---- registration -------------------------------------------------------------------------------

template <class T>
void add_memcpy(std::size_t n) {
    const std::string name = std::string("convert/") + struct_name<T>() + "/memcpy";
    benchmark::RegisterBenchmark(name.c_str(),
                                 [n](benchmark::State& state) {
                                     try {
                                         auto& d = data<T>(n);
                                         void* dst = d.dst_aos.view().data();
                                         const void* src = d.src_aos.cview().data();
                                         const std::size_t bytes = n * leaf_bytes<T>();
                                         const double median = bench::time_launches(
                                             state, [&] { memcpy_d2d(dst, src, bytes); });
                                         report<T>(state, n, median);
                                     } catch (const std::exception& e) {
                                         state.SkipWithError(e.what());
                                     }
                                 })
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
}

template <class T, class Src, class Dst>
void add_direction(std::size_t n) {
    for (const bool library : {true, false}) {
        const std::string name = std::string("convert/") + struct_name<T>() + "/" +
                                 layout_name(Src{}) + "_to_" + layout_name(Dst{}) +
                                 (library ? "/library" : "/naive");
        benchmark::RegisterBenchmark(name.c_str(),
                                     [n, library](benchmark::State& state) {
                                         try {
                                             if (const auto& bad = verdict<T, Dst, Src>(n);
                                                 !bad.empty()) {
                                                 state.SkipWithError(bad.c_str());
                                                 return;
                                             }
                                             auto& d = data<T>(n);
                                             const auto dst = d.template dst<Dst>().view();
                                             const auto src = d.template src<Src>().cview();
                                             const double median = bench::time_launches(state, [&] {
                                                 if (library)
                                                     layout::cuda::copy(src, dst);
                                                 else
                                                     naive_convert(dst, src);
                                             });
                                             report<T>(state, n, median);
                                         } catch (const std::exception& e) {
                                             state.SkipWithError(e.what());
                                         }
                                     })
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond);
    }
}

/// dst = src between device containers (the README's `soa = aos`), Src -> Dst, timed with
/// events around the whole assignment (host work, allocation and synchronization included):
///   reused  dst already holds n elements: the assignment reuses its block
///   fresh   a new destination each iteration, `device_vector<T, Dst> fresh = src` (the old one
///           is destroyed outside the timed region)
/// pct_of_memcpy compares with the same cudaMemcpy as the convert benchmarks. Afterwards the
/// destination is read back and compared with the input (SkipWithError on a difference), and
/// `reused` fails if the block or capacity changed.
template <class T, class Src, class Dst>
void add_assignment(std::size_t n) {
    for (const bool reuse : {true, false}) {
        const std::string name = std::string("assign/") + struct_name<T>() + "/" +
                                 layout_name(Src{}) + "_to_" + layout_name(Dst{}) +
                                 (reuse ? "/reused" : "/fresh");
        benchmark::RegisterBenchmark(
            name.c_str(),
            [n, reuse](benchmark::State& state) {
                try {
                    auto& d = data<T>(n);
                    const device_vector<T, Src>& src = d.template src<Src>();
                    device_vector<T, Dst>& dst = d.template dst<Dst>();
                    std::optional<device_vector<T, Dst>> fresh;
                    const auto first_leaf = layout::detail::leaf_address(dst.view(), 0, 0);
                    const std::size_t capacity = dst.capacity();
                    bench::event_timer timer;
                    dst = src; // warm-up
                    std::vector<double> times;
                    for (auto _ : state) {
                        double s = 0;
                        if (reuse) {
                            s = timer.seconds([&] { dst = src; });
                        } else {
                            fresh.reset();
                            s = timer.seconds([&] { fresh.emplace(src); });
                        }
                        state.SetIterationTime(s);
                        times.push_back(s);
                    }
                    layout::cuda::check(cudaDeviceSynchronize(), "after the timed assignments");
                    if (reuse && (dst.capacity() != capacity ||
                                  layout::detail::leaf_address(dst.view(), 0, 0) != first_leaf)) {
                        state.SkipWithError("the assignment replaced the destination's block");
                        return;
                    }
                    const layout::vector<T, Dst> back =
                        reuse ? layout::vector<T, Dst>(dst) : layout::vector<T, Dst>(*fresh);
                    std::size_t leaf = 0;
                    if (const std::size_t i = first_difference(
                            back.cview(), n,
                            [&](std::size_t e, auto l) -> const void* {
                                return &layout::detail::leaf_ref<decltype(l)::value>(d.input[e]);
                            },
                            leaf);
                        i != n) {
                        const std::string bad = "dst = src differs from the input at element " +
                                                std::to_string(i) + ", leaf " +
                                                std::to_string(leaf);
                        state.SkipWithError(bad.c_str());
                        return;
                    }
                    report<T>(state, n, bench::median(times));
                } catch (const std::exception& e) {
                    state.SkipWithError(e.what());
                }
            })
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond);
    }
}

template <class T>
void add_assignments(std::size_t n) {
    add_assignment<T, aos, soa>(n);
    add_assignment<T, soa, aos>(n);
    add_assignment<T, aosoa32, soa>(n);
    add_assignment<T, soa, aosoa32>(n);
    add_assignment<T, aos, aosoa32>(n);
    add_assignment<T, aosoa32, aos>(n);
    add_assignment<T, aos, aos>(n);
}

template <class T>
void add_struct(std::size_t n) {
    add_memcpy<T>(n);
    add_direction<T, aos, soa>(n);
    add_direction<T, soa, aos>(n);
    add_direction<T, aosoa32, soa>(n);
    add_direction<T, soa, aosoa32>(n);
    add_direction<T, aos, aosoa32>(n);
    add_direction<T, aosoa32, aos>(n);
}

} // namespace convert_bench

/// Options besides Google Benchmark's: --n=N elements (default 33554432). Without a CUDA
/// device the program says so and exits 0.
int main(int argc, char** argv) {
    return bench::gpu_main(argc, argv, std::size_t{32} << 20, [](std::size_t n) {
        convert_bench::add_struct<convert_bench::Particle>(n);
        convert_bench::add_struct<convert_bench::Mixed>(n);
        convert_bench::add_assignments<convert_bench::Particle>(n);
    });
}
