/// \file common.hpp
/// What the GPU and CPU drivers of the particles example share: options, random particles,
/// the kernel cases, verification against the double-precision reference, the AoS penalty
/// predicted from bytes per sector, and the one table they print.
///
/// A driver is a Backend type with
///     template <class T, class L> using container = layout::vector<T, L, <its memory>>;
///     void run_lib(const F&, View) const;    // the library: the functor over the view
///     void run_raw(const F&, View) const;    // the hand-written kernel on the same memory
///     void sync() const;
///     template <class Fn> double median_us(Fn&&, int warmup, int reps) const;
/// and run_cases<Backend>() does the rest.
#pragma once

#include "kernels.hpp"

#include <layout/layout.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace particles {

using layout::policy::aos;
using layout::policy::soa;
using aosoa32 = layout::policy::aosoa<32>;
/// Hot and cold: the fields drift and wide_drift touch (positions and velocities) in AoS, where
/// those kernels use every byte of a hot element, and the rest (mass, charge, ...) in SoA.
template <class T>
struct hot_cold;
template <>
struct hot_cold<Particle> {
    using type = layout::policy::split<aos, soa, &Particle::x, &Particle::y, &Particle::z,
                                       &Particle::vx, &Particle::vy, &Particle::vz>;
};
template <>
struct hot_cold<WideParticle> {
    using type = layout::policy::split<aos, soa, &WideParticle::pos, &WideParticle::vel>;
};
template <class T>
using split_of = typename hot_cold<T>::type;

// ---- options -----------------------------------------------------------------------------------

inline constexpr std::uint64_t default_seed = 20261122;

struct options {
    std::size_t n = 0; ///< particles; 0: the driver's default
    int reps = 0;      ///< timed repetitions; 0: the driver's default
    int warmup = -1;   ///< untimed runs first; -1: the driver's default (3 GPU, 1 CPU)
    std::vector<std::string> kernels{"drift", "wide_drift", "one_field", "most_fields"};
    bool cpu = false;             ///< GPU binary: run the CPU path anyway
    std::string threads = "both"; ///< CPU path: "1", "all" (OpenMP threads) or "both"
    std::uint64_t seed = default_seed;

    bool wants(const std::string& k) const {
        return std::find(kernels.begin(), kernels.end(), k) != kernels.end();
    }
};

inline void usage(const char* argv0) {
    std::printf("usage: %s [--n N] [--reps R] [--warmup W] [--kernels "
                "drift,wide_drift,one_field,most_fields]"
                " [--seed S] [--cpu] [--threads 1|all|both]\n"
                "  --n       particles (default 33554432 on the GPU, 8388608 on the CPU)\n"
                "  --reps    timed repetitions, the median is reported (default 30 on the GPU, 10 "
                "on the CPU)\n"
                "  --cpu     run the CPU path even where a GPU exists\n"
                "  --threads CPU path: one thread, all OpenMP threads, or both tables (default)\n",
                argv0);
}

inline options parse_options(int argc, char** argv) {
    options o;
    auto value = [&](int& i) -> std::string {
        if (i + 1 >= argc) {
            std::fprintf(stderr, "particles: %s needs a value\n", argv[i]);
            std::exit(2);
        }
        return argv[++i];
    };
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--n")
            o.n = std::stoull(value(i));
        else if (a == "--reps")
            o.reps = std::stoi(value(i));
        else if (a == "--warmup")
            o.warmup = std::stoi(value(i));
        else if (a == "--seed")
            o.seed = std::stoull(value(i));
        else if (a == "--cpu")
            o.cpu = true;
        else if (a == "--threads") {
            o.threads = value(i);
            if (o.threads != "1" && o.threads != "all" && o.threads != "both") {
                std::fprintf(stderr, "particles: --threads is 1, all or both\n");
                std::exit(2);
            }
        } else if (a == "--kernels") {
            o.kernels.clear();
            std::string list = value(i);
            for (std::size_t at = 0; at <= list.size();) {
                const std::size_t comma = std::min(list.find(',', at), list.size());
                if (comma > at) o.kernels.push_back(list.substr(at, comma - at));
                at = comma + 1;
            }
            for (const auto& k : o.kernels)
                if (k != "drift" && k != "wide_drift" && k != "one_field" && k != "most_fields") {
                    std::fprintf(stderr, "particles: unknown kernel '%s'\n", k.c_str());
                    std::exit(2);
                }
        } else if (a == "--help" || a == "-h") {
            usage(argv[0]);
            std::exit(0);
        } else {
            std::fprintf(stderr, "particles: unknown argument '%s'\n", a.c_str());
            usage(argv[0]);
            std::exit(2);
        }
    }
    if (o.reps < 0 || o.warmup < -1) {
        std::fprintf(stderr, "particles: --reps and --warmup must not be negative\n");
        std::exit(2);
    }
    return o;
}

// ---- host parallelism for setup and checks (not for the timed kernels) --------------------------

inline unsigned host_threads(std::size_t n) {
    return n < (std::size_t{1} << 16)
               ? 1u
               : std::max(1u, std::min(std::thread::hardware_concurrency(), 64u));
}

/// f(chunk, begin, end) on host_threads(n) threads, one contiguous chunk each.
template <class F>
void parallel_chunks(std::size_t n, F&& f) {
    const unsigned threads = host_threads(n);
    const std::size_t chunk = (n + threads - 1) / threads;
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
        const std::size_t begin = std::min(n, t * chunk), end = std::min(n, begin + chunk);
        pool.emplace_back([&f, t, begin, end] { f(t, begin, end); });
    }
    for (auto& th : pool) th.join();
}

template <class F>
void parallel_for(std::size_t n, F&& f) {
    parallel_chunks(n, [&f](unsigned, std::size_t begin, std::size_t end) { f(begin, end); });
}

// ---- the kernel parameters ---------------------------------------------------------------------

inline constexpr drift drift_params{1e-3f};
inline constexpr wide_drift wide_drift_params{1e-3f};
inline constexpr scale_mass scale_mass_params{0.999f};
inline constexpr integrate integrate_params{1e-3f, 0.25f, 1.0f, {0.5f, -0.25f, 0.125f}, 0.5f};

// ---- random particles (counter-based: the same values for any thread count) ---------------------

inline std::uint64_t mix(std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
struct rng {
    std::uint64_t seed, i;
    std::uint64_t bits(unsigned field) const { return mix(seed ^ mix(i * 64 + field)); }
    float uniform(unsigned field, float lo, float hi) const {
        return lo + (hi - lo) * static_cast<float>(bits(field) >> 40) * 0x1p-24f;
    }
};

inline Particle random_particle(std::uint64_t seed, std::size_t i) {
    const rng r{seed, i};
    return {r.uniform(0, -50, 50), r.uniform(1, -50, 50), r.uniform(2, -50, 50),
            r.uniform(3, -1, 1),   r.uniform(4, -1, 1),   r.uniform(5, -1, 1),
            r.uniform(6, 0.5f, 2), r.uniform(7, -1, 1)};
}

/// energy is NaN: no kernel reads it and only integrate writes it, so an element integrate
/// leaves unwritten fails verification (the poison).
inline WideParticle random_wide_particle(std::uint64_t seed, std::size_t i) {
    const rng r{seed, i};
    WideParticle p{};
    p.pos = {r.uniform(0, -50, 50), r.uniform(1, -50, 50), r.uniform(2, -50, 50)};
    p.vel = {r.uniform(3, -1, 1), r.uniform(4, -1, 1), r.uniform(5, -1, 1)};
    p.force = {r.uniform(6, -1, 1), r.uniform(7, -1, 1), r.uniform(8, -1, 1)};
    p.mass = r.uniform(9, 0.5f, 2);
    p.charge = r.uniform(10, -1, 1);
    p.energy = std::nanf("");
    p.id = static_cast<std::int32_t>(i);
    p.type = static_cast<std::int32_t>(r.bits(11) & 3);
    // three in four particles are still in their cell; the others moved
    p.cell = (r.bits(12) & 3) ? integrate_params.cell_of(p.pos.x, p.pos.y, p.pos.z)
                              : static_cast<std::int32_t>(r.bits(13) & 0x3fffffff);
    p.flags = static_cast<std::int32_t>(r.bits(14) & 0xff);
    return p;
}

// ---- the 4-byte words of each struct, for verification -----------------------------------------

template <class T>
struct words;
template <>
struct words<Particle> {
    static constexpr const char* names[] = {"x", "y", "z", "vx", "vy", "vz", "mass", "charge"};
    static constexpr bool is_int(std::size_t) { return false; }
};
template <>
struct words<WideParticle> {
    static constexpr const char* names[] = {
        "pos.x",   "pos.y", "pos.z",  "vel.x",  "vel.y", "vel.z", "force.x", "force.y",
        "force.z", "mass",  "charge", "energy", "id",    "type",  "cell",    "flags"};
    static constexpr bool is_int(std::size_t w) { return w >= 12; }
};

struct check_result {
    std::size_t mismatches = 0;
    std::size_t first = SIZE_MAX; ///< lowest mismatching element
    std::string first_what;
    double max_error = 0; ///< largest |out - ref| / max(|ref|, 1) over written floats
};

/// Every word of every element of out against ref: words the kernel writes within 1e-5
/// (relative, floats; NaN fails) or exactly (ints), all other words bit for bit (untouched).
template <class T, class L>
check_result verify(const layout::view<const T, L>& out, const std::vector<T>& ref,
                    const footprint& fp) {
    constexpr std::size_t nw = sizeof(T) / 4;
    bool written[nw] = {};
    for (const auto& w : fp.writes)
        for (std::size_t b = w.offset; b < w.offset + w.size; b += 4) written[b / 4] = true;

    check_result total;
    if (out.size() != ref.size()) {
        total.mismatches = 1;
        total.first_what = "size mismatch";
        return total;
    }
    std::vector<check_result> parts(host_threads(out.size()));
    parallel_chunks(out.size(), [&](unsigned t, std::size_t begin, std::size_t end) {
        check_result& res = parts[t];
        for (std::size_t i = begin; i < end; ++i) {
            const T value = out[i];
            std::uint32_t o[nw], r[nw];
            std::memcpy(o, &value, sizeof(T));
            std::memcpy(r, &ref[i], sizeof(T));
            for (std::size_t w = 0; w < nw; ++w) {
                bool bad;
                double err = 0;
                if (!written[w] || words<T>::is_int(w)) {
                    bad = o[w] != r[w];
                } else {
                    float of, rf;
                    std::memcpy(&of, &o[w], 4);
                    std::memcpy(&rf, &r[w], 4);
                    err = std::fabs(double(of) - double(rf)) / std::max(1.0, std::fabs(double(rf)));
                    bad = !(err <= 1e-5);
                    if (!bad) res.max_error = std::max(res.max_error, err);
                }
                if (!bad) continue;
                if (res.mismatches++ == 0) {
                    char msg[200];
                    if (words<T>::is_int(w))
                        std::snprintf(msg, sizeof msg,
                                      "element %zu field %s: got %d, expected %d%s", i,
                                      words<T>::names[w], int(o[w]), int(r[w]),
                                      written[w] ? "" : " (untouched)");
                    else {
                        float of, rf;
                        std::memcpy(&of, &o[w], 4);
                        std::memcpy(&rf, &r[w], 4);
                        std::snprintf(msg, sizeof msg,
                                      "element %zu field %s: got %.9g, expected %.9g%s", i,
                                      words<T>::names[w], of, rf, written[w] ? "" : " (untouched)");
                    }
                    res.first = i;
                    res.first_what = msg;
                }
            }
        }
    });
    for (const auto& p : parts) {
        total.mismatches += p.mismatches;
        total.max_error = std::max(total.max_error, p.max_error);
        if (p.mismatches && p.first < total.first) {
            total.first = p.first;
            total.first_what = p.first_what;
        }
    }
    return total;
}

// ---- the AoS penalty predicted from bytes per sector -------------------------------------------

/// Distinct granule-sized blocks (32-byte sectors on the GPU, 64-byte lines on the CPU) an AoS
/// array touches for the fields read, plus those for the fields written, times the granule, over
/// the useful bytes. SoA and AoSoA<32> touch only the useful bytes: 1.0.
inline double predicted_aos_ratio(const footprint& fp, std::size_t elem_bytes,
                                  std::size_t granule) {
    const std::size_t window = 4096; // elements, from an aligned start
    auto count = [&](const std::vector<byte_range>& ranges) {
        std::vector<char> hit(window * elem_bytes / granule + 2, 0);
        for (std::size_t e = 0; e < window; ++e)
            for (const auto& r : ranges)
                for (std::size_t g = (e * elem_bytes + r.offset) / granule;
                     g <= (e * elem_bytes + r.offset + r.size - 1) / granule; ++g)
                    hit[g] = 1;
        return static_cast<std::size_t>(std::count(hit.begin(), hit.end(), 1));
    };
    return double(granule) * double(count(fp.reads) + count(fp.writes)) /
           (double(window) * double(fp.useful_bytes()));
}

/// Fields (4-byte words) a footprint touches, read or written.
inline std::size_t fields_touched(const footprint& fp, std::size_t elem_bytes) {
    std::vector<char> used(elem_bytes / 4, 0);
    for (const auto* list : {&fp.reads, &fp.writes})
        for (const auto& r : *list)
            for (std::size_t b = r.offset; b < r.offset + r.size; b += 4) used[b / 4] = 1;
    return static_cast<std::size_t>(std::count(used.begin(), used.end(), 1));
}

inline std::string penalty_note(const footprint& fp, std::size_t elem_bytes, double predicted,
                                std::size_t granule) {
    const std::size_t used = fields_touched(fp, elem_bytes), all = elem_bytes / 4;
    char buf[160];
    if (predicted >= 7.5)
        std::snprintf(buf, sizeof buf, "%s bound: %zu of %zu fields used, whole %zu-byte %ss moved",
                      granule == 32 ? "sector" : "line", used, all, granule,
                      granule == 32 ? "sector" : "line");
    else if (predicted <= 1.3)
        std::snprintf(buf, sizeof buf,
                      "by bytes AoS is not penalised: uses most fields (%zu of %zu)", used, all);
    else
        std::snprintf(buf, sizeof buf, "AoS moves unused bytes: %zu of %zu fields used", used, all);
    return buf;
}

// ---- raw pointers out of the library's views (the raw kernels run on the same memory) ----------
// Host or device views alike (M: the view's memory space).

template <class T, class M>
T* aos_data(const layout::view<T, aos, M>& v) {
    return v.storage().data;
}
template <class Block, class T, class M>
Block* aosoa_blocks(const layout::view<T, aosoa32, M>& v) {
    return reinterpret_cast<Block*>(v.storage().data);
}
/// The hot part of a split view: an array of Hot (the chosen fields as a plain struct).
template <class Hot, class T, class M>
Hot* split_hot(const layout::view<T, split_of<T>, M>& v) {
    return reinterpret_cast<Hot*>(v.storage().first.data);
}
/// A cold column of a split view (one in the SoA part): where element 0's value is, the others
/// following it (column::data() is for whole-view SoA and AoS columns only).
template <auto... Path, class T, class M>
auto* split_cold(const layout::view<T, split_of<T>, M>& v) {
    return &v.template column<Path...>()[0];
}
/// Column of a SoA view: col<&P::x>(v), col<&W::pos, &Vec3::x>(v).
template <auto... Path, class T, class M>
auto* col(const layout::view<T, soa, M>& v) {
    return v.template column<Path...>().data();
}

// ---- results ---------------------------------------------------------------------------------

struct row {
    std::string kernel, element, layout;
    bool raw;
    double us;
    double useful_bytes;
    double predicted;
    std::string note;
    bool ok;
};

struct report {
    std::vector<row> rows;
    bool all_ok = true;
    std::size_t granule = 32; ///< 32-byte sectors (GPU) or 64-byte lines (CPU)
};

inline const char* layout_name(aos) { return "aos"; }
inline const char* layout_name(soa) { return "soa"; }
inline const char* layout_name(aosoa32) { return "aosoa32"; }
template <class F, class S, auto... K>
const char* layout_name(layout::policy::split<F, S, K...>) {
    return "split";
}

/// The input in each of the three layouts, in the Backend's memory.
template <class Backend, class T>
struct dataset {
    std::vector<T> input;
    typename Backend::template container<T, aos> in_aos;
    typename Backend::template container<T, soa> in_soa;
    typename Backend::template container<T, aosoa32> in_aosoa32;
    typename Backend::template container<T, split_of<T>> in_split;
};

/// A host container of layout L holding input: one element-major pass (whole-element stores).
template <class T, class L>
layout::vector<T, L> to_layout(const std::vector<T>& input) {
    layout::vector<T, L> out(input.size());
    const auto v = out.view();
    parallel_for(input.size(), [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) v[i] = input[i];
    });
    return out;
}

template <class Backend, class T, class Make>
dataset<Backend, T> make_dataset(std::size_t n, Make&& make) {
    dataset<Backend, T> d;
    d.input.resize(n);
    parallel_for(n, [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) d.input[i] = make(i);
    });
    d.in_aos = to_layout<T, aos>(d.input);
    d.in_soa = to_layout<T, soa>(d.input);
    d.in_aosoa32 = to_layout<T, aosoa32>(d.input);
    d.in_split = to_layout<T, split_of<T>>(d.input);
    return d;
}

template <class Backend, class F, class View>
concept runs_default =
    requires(const Backend& be, const F& f, const View& v) { be.run_default(f, v); };
template <class Backend, class F, class View>
concept runs_llama = requires(const Backend& be, const F& f, const View& v) { be.run_llama(f, v); };
template <class Backend, class F, class View>
concept runs_element =
    requires(const Backend& be, const F& f, const View& v) { be.run_element(f, v); };
template <class Backend, class F, class View>
void run_element_if_any(const Backend& be, const F& f, const View& v) {
    if constexpr (runs_element<Backend, F, View>) be.run_element(f, v);
}
template <class Backend, class F, class View>
void run_default_if_any(const Backend& be, const F& f, const View& v) {
    if constexpr (runs_default<Backend, F, View>) be.run_default(f, v);
}
template <class Backend, class F, class View>
void run_llama_if_any(const Backend& be, const F& f, const View& v) {
    if constexpr (runs_llama<Backend, F, View>) be.run_llama(f, v);
}

/// One kernel on one struct: the library and raw variants, each verified on its first run, then
/// timed (raw split only where a hand-written split kernel exists: Backend::has_raw).
template <class Backend, class T, class F, class Ref>
void run_case(const Backend& be, const char* kernel, const char* element, const F& f,
              const footprint& fp, Ref&& reference, const dataset<Backend, T>& d,
              const options& opt, report& rep) {
    std::vector<T> ref = d.input;
    parallel_for(ref.size(), [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) reference(ref[i]);
    });
    const double predicted = predicted_aos_ratio(fp, sizeof(T), rep.granule);
    const double useful = double(d.input.size()) * double(fp.useful_bytes());

    // lib: the functor through the library, one element per thread on the GPU (the raw
    // kernel's twin); raw: hand-written; automatic: the library's default elements per thread
    // (backends with run_default); llama: the AoS kernel written the way LLAMA's AoS mapping
    // computes addresses (backends with run_llama); element: the functor promised to touch its
    // own element only (backends with run_element: AoS through shared memory on the GPU).
    enum class how { lib, raw, automatic, llama, element };
    auto one = [&](how h, const auto& init) {
        using container = std::remove_cvref_t<decltype(init)>;
        using L = typename container::layout_type;
        using view_type = std::remove_cvref_t<decltype(std::declval<container&>().view())>;
        constexpr bool has_raw = Backend::template has_raw<F, view_type>;
        if (h == how::raw && !has_raw) return;
        auto run = [&](const auto& v) {
            if (h == how::raw) {
                if constexpr (has_raw) be.run_raw(f, v);
            } else if (h == how::lib) {
                be.run_lib(f, v);
            } else if (h == how::automatic) {
                run_default_if_any(be, f, v);
            } else if (h == how::element) {
                run_element_if_any(be, f, v);
            } else {
                run_llama_if_any(be, f, v);
            }
        };
        if (h == how::automatic && !runs_default<Backend, F, view_type>) return;
        if (h == how::llama && !runs_llama<Backend, F, view_type>) return;
        if (h == how::element && !runs_element<Backend, F, view_type>) return;
        container work = init;
        run(work.view());
        be.sync();
        const layout::vector<T, L> back = work;
        const check_result c = verify(back.cview(), ref, fp);
        const bool raw = h == how::raw || h == how::llama;
        const std::string name = h == how::raw         ? std::string("raw-") + layout_name(L{})
                                 : h == how::llama     ? std::string("llama-") + layout_name(L{})
                                 : h == how::automatic ? std::string(layout_name(L{})) + "/auto"
                                 : h == how::element   ? std::string(layout_name(L{})) + "/element"
                                                       : std::string(layout_name(L{}));
        if (c.mismatches) {
            std::printf("FAILED %s %s %s: %zu mismatching words; first: %s\n", kernel, element,
                        name.c_str(), c.mismatches, c.first_what.c_str());
            rep.all_ok = false;
        } else {
            std::printf("verified %-12s %-14s %-12s max rel. error %.2g\n", kernel, element,
                        name.c_str(), c.max_error);
        }
        std::fflush(stdout);
        const auto v = work.view();
        const double us = be.median_us([&] { run(v); }, opt.warmup, opt.reps);
        const bool is_aos = std::is_same_v<L, aos>;
        rep.rows.push_back(
            {kernel, element, name, raw, us, useful, is_aos ? predicted : 1.0,
             is_aos && h == how::lib ? penalty_note(fp, sizeof(T), predicted, rep.granule) : "",
             c.mismatches == 0});
    };
    for (how h : {how::raw, how::llama, how::lib, how::automatic, how::element}) {
        one(h, d.in_aos);
        one(h, d.in_soa);
        one(h, d.in_aosoa32);
        one(h, d.in_split);
    }
}

/// Every selected kernel, Particle cases first, then WideParticle (one data set in memory at a
/// time).
template <class Backend>
void run_cases(const Backend& be, const options& opt, report& rep) {
    const std::size_t n = opt.n;
    if (opt.wants("drift") || opt.wants("one_field")) {
        const auto d = make_dataset<Backend, Particle>(
            n, [&](std::size_t i) { return random_particle(opt.seed, i); });
        if (opt.wants("drift"))
            run_case(
                be, "drift", "Particle(32B)", drift_params, drift::bytes(),
                [](Particle& p) { drift_params.reference(p); }, d, opt, rep);
        if (opt.wants("one_field"))
            run_case(
                be, "one_field", "Particle(32B)", scale_mass_params, scale_mass::bytes<Particle>(),
                [](Particle& p) { scale_mass_params.reference(p); }, d, opt, rep);
    }
    if (opt.wants("wide_drift") || opt.wants("one_field") || opt.wants("most_fields")) {
        const auto d = make_dataset<Backend, WideParticle>(
            n, [&](std::size_t i) { return random_wide_particle(opt.seed, i); });
        if (opt.wants("wide_drift"))
            run_case(
                be, "wide_drift", "Wide(64B)", wide_drift_params, wide_drift::bytes(),
                [](WideParticle& p) { wide_drift_params.reference(p); }, d, opt, rep);
        if (opt.wants("one_field"))
            run_case(
                be, "one_field", "Wide(64B)", scale_mass_params, scale_mass::bytes<WideParticle>(),
                [](WideParticle& p) { scale_mass_params.reference(p); }, d, opt, rep);
        if (opt.wants("most_fields"))
            run_case(
                be, "most_fields", "Wide(64B)", integrate_params, integrate::bytes(),
                [](WideParticle& p) { integrate_params.reference(p); }, d, opt, rep);
    }
}

// ---- the table ---------------------------------------------------------------------------------

/// Time of one row, 0 if the run has none.
inline double row_us(const report& rep, const std::string& kernel, const std::string& element,
                     const std::string& layout) {
    for (const auto& r : rep.rows)
        if (r.kernel == kernel && r.element == element && r.layout == layout) return r.us;
    return 0.0;
}

/// Issue #19's targets, where the run has the rows they need (the GPU's /auto and llama- rows).
inline void print_targets(const report& rep, double copy_gbps) {
    if (std::none_of(rep.rows.begin(), rep.rows.end(),
                     [](const row& r) { return r.layout.ends_with("/auto"); }))
        return;
    bool header = false;
    auto line = [&](const char* what, double value, const char* unit, bool met) {
        if (!header) std::printf("\ntargets (#19):\n");
        header = true;
        std::printf("  %-52s %8.3f%-7s %s\n", what, value, unit, met ? "met" : "NOT MET");
    };
    const std::string p32 = "Particle(32B)", wide = "Wide(64B)";
    for (const char* kernel : {"drift", "one_field"})
        for (const char* l : {"soa/auto", "aosoa32/auto"}) {
            const double us = row_us(rep, kernel, p32, l);
            if (us <= 0) continue;
            double useful = 0;
            for (const auto& r : rep.rows)
                if (r.kernel == kernel && r.element == p32 && r.layout == l)
                    useful = r.useful_bytes;
            const double pct = 100.0 * useful / (us * 1e3) / copy_gbps;
            char what[96];
            std::snprintf(what, sizeof what, "%s %s, %% of float4 copy (>= 95)", kernel, l);
            line(what, pct, "%", pct >= 95.0);
        }
    for (const char* l : {"aos", "aos/auto", "aos/element"}) {
        const double aos = row_us(rep, "most_fields", wide, l);
        const double soa =
            row_us(rep, "most_fields", wide, l == std::string("aos") ? "soa" : "soa/auto");
        if (aos <= 0 || soa <= 0) continue;
        char what[96];
        std::snprintf(what, sizeof what, "most_fields %s / %s time (<= 1.5)", l,
                      l == std::string("aos") ? "soa" : "soa/auto");
        line(what, aos / soa, "x", aos / soa <= 1.5);
    }
    const double llama = row_us(rep, "drift", p32, "llama-aos");
    for (const char* l : {"aos", "aos/auto", "aos/element"}) {
        const double us = row_us(rep, "drift", p32, l);
        if (llama <= 0 || us <= 0) continue;
        char what[96];
        std::snprintf(what, sizeof what, "drift %s / llama-aos time (<= 1.0)", l);
        line(what, us / llama, "x", us <= llama);
    }
    if (llama > 0) {
        const double raw = row_us(rep, "drift", p32, "raw-aos");
        line("drift llama-aos / raw-aos time (LLAMA 0.6 measured 0.933)", llama / raw, "x", true);
    }
}

inline void print_table(const report& rep, double copy_gbps, const char* copy_what) {
    std::printf("\n%-12s %-14s %-12s %10s %11s %7s %8s %9s %-5s %s\n", "kernel", "element",
                "layout", "time_us", "useful_GB/s", "%copy", "vs_soa", "predicted", "check",
                "note");
    std::string last;
    for (const auto& r : rep.rows) {
        const std::string key = r.kernel + "/" + r.element;
        if (!last.empty() && key != last) std::printf("\n");
        last = key;
        double soa_us = 0;
        for (const auto& s : rep.rows)
            if (s.kernel == r.kernel && s.element == r.element && !s.raw && s.layout == "soa")
                soa_us = s.us;
        const double gbps = r.useful_bytes / (r.us * 1e3);
        const double vs_soa = soa_us > 0 ? r.us / soa_us : 0.0;
        std::string note = r.note;
        // Say so where the measurement leaves the sector arithmetic behind, either way.
        if (!note.empty() && (vs_soa > 1.4 * r.predicted || vs_soa < r.predicted / 1.4)) {
            char buf[96];
            std::snprintf(buf, sizeof buf, "; measured %.2fx = %.2fx the prediction", vs_soa,
                          vs_soa / r.predicted);
            note += buf;
        }
        std::printf("%-12s %-14s %-12s %10.1f %11.1f %6.1f%% %7.2fx %8.2fx %-5s %s\n",
                    r.kernel.c_str(), r.element.c_str(), r.layout.c_str(), r.us, gbps,
                    100.0 * gbps / copy_gbps, vs_soa, r.predicted, r.ok ? "ok" : "FAIL",
                    note.c_str());
    }
    std::printf("\n(vs_soa: time / library soa time. predicted: AoS bytes moved per %zu-byte %s / "
                "useful bytes; "
                "%%copy: of %s = %.1f GB/s)\n",
                rep.granule, rep.granule == 32 ? "sector" : "cache line", copy_what, copy_gbps);

    std::printf("\nlibrary vs raw (time ratio, 1.00 = no overhead; - where no raw kernel):\n"
                "%-12s %-14s %8s %8s %8s %8s\n",
                "kernel", "element", "aos", "soa", "aosoa32", "split");
    for (std::size_t k = 0; k < rep.rows.size(); ++k) {
        const row& r = rep.rows[k];
        if (r.raw || r.layout != "aos") continue;
        std::printf("%-12s %-14s", r.kernel.c_str(), r.element.c_str());
        for (const char* l : {"aos", "soa", "aosoa32", "split"}) {
            double lib = 0, raw = 0;
            for (const auto& s : rep.rows)
                if (s.kernel == r.kernel && s.element == r.element &&
                    s.layout == std::string(s.raw ? "raw-" : "") + l)
                    (s.raw ? raw : lib) = s.us;
            if (raw > 0)
                std::printf(" %7.3f ", lib / raw);
            else
                std::printf(" %7s ", "-");
        }
        std::printf("\n");
    }
    print_targets(rep, copy_gbps);
    std::printf("\n%s\n", rep.all_ok ? "all variants verified" : "VERIFICATION FAILED");
}

} // namespace particles
