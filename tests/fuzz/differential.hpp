/// \file differential.hpp
/// Differential fuzzing of layout::vector: one sequence of operations, decoded from a byte
/// stream, is applied to the same container in every layout (AoS, SoA, AoSoA<3>, <4>, <32>) and
/// to a std::vector<T> model; after every step each container is compared with the model (size,
/// capacity invariants, every leaf bit for bit). The first divergence prints the operation, the
/// layout, the element and the last operations, and aborts.
///
///     layout_fuzz::differential<layout_test::Body> d("Body");
///     auto stats = d.run(bytes.data(), bytes.size());   // stats.container_ops: ops applied
///
/// With Memory = layout_fuzz::failing_memory, an operation may also be run with its N-th
/// allocation failing: it must then throw std::bad_alloc and leave both containers exactly as
/// they were (the strong guarantee), after which it is run again without the failure. That
/// memory space also checks that every block is freed once, with the size it was allocated with.
///
/// Aliasing operations, which std::vector must survive and so must every layout: push_back,
/// insert and resize of one of the container's own elements (a reference into its block under
/// AoS, a proxy otherwise), sort_by_key and bin_by_key with keys that are the container's own
/// column (SoA; AoSoA of one block), and layout::copy between overlapping views of one
/// container.
///
/// Used by fuzz_test.cpp and fuzz_test_failing.cpp (fixed seeds, in CTest) and by
/// libfuzzer_main.cpp (coverage-guided).
#pragma once

#include "host/test_types.hpp"

#include <layout/layout.hpp>
#if __has_include(<layout/algorithms.hpp>)
#  include <layout/algorithms.hpp>
#  define LAYOUT_FUZZ_HAVE_ALGORITHMS 1
#else
#  define LAYOUT_FUZZ_HAVE_ALGORITHMS 0
#endif

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <new>
#include <numeric>
#include <random>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace layout_fuzz {

using layout_test::Body;
using layout_test::Mixed;
using layout_test::Particle;

// ---- leaves, through the hand-written oracles of test_types.hpp ---------------------------------

template <class T>
using leaf_tuple = decltype(layout_test::tie(std::declval<const T&>()));

template <class T>
inline constexpr std::size_t leaves = std::tuple_size_v<leaf_tuple<T>>;

template <class T, std::size_t L>
using leaf_type = std::remove_cvref_t<std::tuple_element_t<L, leaf_tuple<T>>>;

/// Leaf L of x, writable (layout_test::tie only hands out const references).
template <std::size_t L, class T>
auto& leaf(T& x) {
    return const_cast<leaf_type<T, L>&>(std::get<L>(layout_test::tie(std::as_const(x))));
}

/// Calls f(std::integral_constant<size_t, L>) for the run-time leaf index l.
template <class T, class F>
void with_leaf(std::size_t l, F&& f) {
    [&]<std::size_t... L>(std::index_sequence<L...>) {
        ((l == L ? (f(std::integral_constant<std::size_t, L>{}), 0) : 0), ...);
    }(std::make_index_sequence<leaves<T>>{});
}

/// The object representation of a scalar, as an integer (for a total order and for printing).
template <class S>
std::uint64_t bits_of(const S& s) {
    std::uint64_t u = 0;
    std::memcpy(&u, &s, sizeof(S));
    return u;
}

/// A leaf value from raw bits; bools are kept to 0 or 1 (other patterns are not bools).
template <class S>
S from_bits(std::uint64_t u) {
    if constexpr (std::is_same_v<S, bool>) {
        return (u & 1) != 0;
    } else {
        S s;
        std::memcpy(&s, &u, sizeof(S));
        return s;
    }
}

// The two functions below tie each element once (leaf<L> ties the whole element for one leaf:
// the comparisons took half of the fuzz tests' time unoptimized, under the sanitizers).

/// Every leaf equal bit for bit (so NaN payloads and -0.0 count; padding does not).
template <class T>
bool same_bits(const T& a, const T& b) {
    const leaf_tuple<T> ta = layout_test::tie(a), tb = layout_test::tie(b);
    return [&]<std::size_t... L>(std::index_sequence<L...>) {
        return ((bits_of(std::get<L>(ta)) == bits_of(std::get<L>(tb))) && ...);
    }(std::make_index_sequence<leaves<T>>{});
}

/// A total order on elements: leaf by leaf, by bits. Any total order will do for sorting, and
/// this one has no trouble with NaN.
template <class T>
bool bits_less(const T& a, const T& b) {
    const leaf_tuple<T> ta = layout_test::tie(a), tb = layout_test::tie(b);
    bool result = false;
    [&]<std::size_t... L>(std::index_sequence<L...>) {
        (void)((bits_of(std::get<L>(ta)) != bits_of(std::get<L>(tb))
                    ? (result = bits_of(std::get<L>(ta)) < bits_of(std::get<L>(tb)), true)
                    : false) ||
               ...);
    }(std::make_index_sequence<leaves<T>>{});
    return result;
}

/// The sort key: the bits of the first leaf (ties are common on purpose, see value_pool).
template <class T>
std::uint64_t key_bits(const T& a) {
    return bits_of(leaf<0>(a));
}

template <class T>
std::string describe(const T& x) {
    std::ostringstream os;
    os << x << " bits {";
    [&]<std::size_t... L>(std::index_sequence<L...>) {
        const char* sep = "";
        ((os << sep << std::hex << bits_of(leaf<L>(x)) << std::dec, sep = ", "), ...);
    }(std::make_index_sequence<leaves<T>>{});
    os << '}';
    return os.str();
}

// ---- values -------------------------------------------------------------------------------------

/// Special bit patterns for a scalar leaf, chosen by k.
template <class S>
S special(std::size_t k) {
    if constexpr (std::is_same_v<S, bool>) {
        return k % 2 == 1;
    } else if constexpr (std::is_floating_point_v<S>) {
        using lim = std::numeric_limits<S>;
        const S values[] = {S(-0.0),
                            lim::quiet_NaN(),
                            -lim::quiet_NaN(),
                            lim::infinity(),
                            -lim::infinity(),
                            lim::denorm_min(),
                            lim::max(),
                            lim::lowest(),
                            lim::min(),
                            lim::epsilon(),
                            S(1),
                            S(-1)};
        return values[k % std::size(values)];
    } else {
        using lim = std::numeric_limits<S>;
        const S values[] = {S(0), S(-1), lim::min(), lim::max(), S(1), S(lim::max() / 2)};
        return values[k % std::size(values)];
    }
}

/// 256 values per type: [0] = T{}, [1, 16) special patterns (NaN, -0.0, infinities, extreme
/// integers), the rest random; the second half copies its first leaf (the sort key) from one of
/// eight values, so that sorts by key see many ties.
template <class T>
const std::vector<T>& value_pool() {
    static const std::vector<T> pool = [] {
        std::mt19937 g(0x1a70u + static_cast<unsigned>(leaves<T>));
        std::vector<T> p = layout_test::random_values<T>(g, 256);
        p[0] = T{};
        for (std::size_t i = 1; i < 16; ++i)
            [&]<std::size_t... L>(std::index_sequence<L...>) {
                ((leaf<L>(p[i]) = special<leaf_type<T, L>>(i * 7 + L)), ...);
            }(std::make_index_sequence<leaves<T>>{});
        for (std::size_t i = 128; i < 256; ++i) leaf<0>(p[i]) = leaf<0>(p[16 + i % 8]);
        return p;
    }();
    return pool;
}

/// A single-pass iterator over an array of T (insert's and assign's input-iterator path).
template <class T>
class input_iterator {
public:
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using reference = T;
    using pointer = void;
    using iterator_category = std::input_iterator_tag;
    using iterator_concept = std::input_iterator_tag;

    input_iterator() = default;
    explicit input_iterator(const T* p) : p_(p) {}
    T operator*() const { return *p_; }
    input_iterator& operator++() {
        ++p_;
        return *this;
    }
    input_iterator operator++(int) {
        auto old = *this;
        ++p_;
        return old;
    }
    friend bool operator==(const input_iterator&, const input_iterator&) = default;

private:
    const T* p_ = nullptr;
};

// ---- a memory space that fails on demand and audits every block ----------------------------------

/// Host memory whose N-th allocation after arm(N) throws std::bad_alloc. Every block is recorded
/// with its size: freeing an unknown block or with a different size aborts, and blocks_live()
/// tells whether anything leaked.
struct failing_memory : layout::host_memory {
    static inline long countdown = 0; // 0: never fail
    static inline std::unordered_map<void*, std::size_t> blocks;

    static void arm(long n) { countdown = n; }
    static void disarm() { countdown = 0; }
    static std::size_t blocks_live() { return blocks.size(); }

    struct resource {
        static constexpr bool host_accessible = true;
        static constexpr bool device_accessible = false;

        void* allocate(std::size_t bytes, std::size_t alignment) {
            if (countdown > 0 && --countdown == 0) throw std::bad_alloc();
            if (alignment != layout::block_alignment) die("allocate: not block_alignment");
            void* p = layout::host_resource{}.allocate(bytes, alignment);
            blocks.emplace(p, bytes);
            return p;
        }
        void deallocate(void* p, std::size_t bytes, std::size_t alignment) noexcept {
            const auto it = blocks.find(p);
            if (it == blocks.end()) die("deallocate: a block that is not live (double free?)");
            if (it->second != bytes) die("deallocate: size differs from the allocated size");
            blocks.erase(it);
            layout::host_resource{}.deallocate(p, bytes, alignment);
        }
        bool operator==(const resource&) const = default;
    };
    static layout::resource_ref default_resource() noexcept {
        static resource r;
        return r;
    }

private:
    [[noreturn]] static void die(const char* what) noexcept {
        std::fprintf(stderr, "layout_fuzz: failing_memory::%s\n", what);
        std::abort();
    }
};

template <class Memory>
inline constexpr bool can_fail = std::is_same_v<Memory, failing_memory>;

// ---- reading the byte stream ----------------------------------------------------------------------

class byte_reader {
public:
    byte_reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
    bool exhausted() const { return pos_ >= size_; }
    std::uint8_t u8() { return pos_ < size_ ? data_[pos_++] : 0; }
    std::uint16_t u16() { return static_cast<std::uint16_t>(u8() | (u8() << 8)); }
    std::uint32_t u32() { return static_cast<std::uint32_t>(u16() | (std::uint32_t{u16()} << 16)); }
    std::uint64_t u64() { return u32() | (std::uint64_t{u32()} << 32); }
    /// In [0, n); 0 when n is 0.
    std::size_t below(std::size_t n) { return n == 0 ? 0 : u16() % n; }
    std::size_t upto(std::size_t n) { return below(n + 1); }

private:
    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t pos_ = 0;
};

// clang 14 cannot compile libstdc++ 12's std::ranges::subrange, what std::ranges::rotate returns.
#if defined(__clang__) && __clang_major__ < 15 && defined(__GLIBCXX__)
#  define LAYOUT_FUZZ_RANGES_ROTATE 0
#else
#  define LAYOUT_FUZZ_RANGES_ROTATE 1
#endif

// ---- operations -----------------------------------------------------------------------------------

// The list by hand: clang-format would stair-case it.
// clang-format off
#define LAYOUT_FUZZ_OPS(X)                                                                       \
    X(push_back) X(emplace_back) X(insert_one) X(insert_count) X(insert_range)                   \
    X(insert_self_range) X(insert_input_range) X(insert_other_range) X(insert_list) X(emplace)   \
    X(erase_one) X(erase_range) X(pop_back) X(resize) X(resize_value) X(reserve)                 \
    X(shrink_to_fit) X(clear) X(swap) X(copy_construct) X(move_construct) X(copy_assign)         \
    X(self_copy_assign) X(convert) X(assign_count) X(assign_range) X(assign_input_range)         \
    X(set_element) X(copy_element) X(swap_elements) X(set_leaf) X(sort) X(sort_by_key_bits)      \
    X(ranges_sort) X(stable_sort_by_key_bits) X(reverse) X(rotate) X(gather) X(gather_self)      \
    X(scatter) X(permute) X(permute_in_place) X(sort_by_key) X(bin_by_key) X(compare_equal)      \
    X(length_errors) X(push_back_self) X(insert_self_value) X(insert_count_self) X(resize_self)   \
    X(sort_by_key_column) X(bin_by_key_column) X(copy_overlap)
// clang-format on

enum class op_kind : std::uint8_t {
#define LAYOUT_FUZZ_ENUM(name) name,
    LAYOUT_FUZZ_OPS(LAYOUT_FUZZ_ENUM)
#undef LAYOUT_FUZZ_ENUM
        count
};

inline const char* name(op_kind k) {
    static const char* const names[] = {
#define LAYOUT_FUZZ_NAME(name) #name,
        LAYOUT_FUZZ_OPS(LAYOUT_FUZZ_NAME)
#undef LAYOUT_FUZZ_NAME
    };
    return names[static_cast<std::size_t>(k)];
}

/// One decoded operation. Its fields are already clamped to valid positions for the current
/// sizes (the same in every container), so it means the same thing to each of them.
struct op {
    op_kind kind = op_kind::push_back;
    std::uint8_t flag = 0;             // a variant of the operation
    std::uint8_t fail_at = 0;          // failing_memory: the allocation that fails (0: none)
    std::uint32_t i = 0, j = 0, k = 0; // positions, counts
    std::uint8_t v = 0, w = 0;         // value_pool indices
    std::uint64_t bits = 0;            // a leaf's bits, or the seed of an index array
};

inline std::string describe(const op& o) {
    std::ostringstream os;
    os << name(o.kind) << "(i=" << o.i << ", j=" << o.j << ", k=" << o.k << ", v=" << int(o.v)
       << ", w=" << int(o.w) << ", flag=" << int(o.flag) << ", bits=0x" << std::hex << o.bits
       << std::dec;
    if (o.fail_at) os << ", allocation " << int(o.fail_at) << " fails";
    os << ')';
    return os.str();
}

/// copy_overlap's offsets: a whole number of AoSoA blocks for 3, 4 and 32 lanes.
inline constexpr std::size_t copy_step = 96;

/// Limits that keep a step cheap: comparing after every step costs O(size).
struct limits {
    std::size_t max_size = 300; // growing operations turn into erasures beyond it
    std::size_t max_count = 40; // elements one insert or resize may add
};

struct run_stats {
    std::uint64_t steps = 0;         // operations decoded (each applied to every layout)
    std::uint64_t container_ops = 0; // operations applied to a layout container
    std::uint64_t allocation_failures = 0;
    std::uint64_t max_size_seen = 0;
    std::uint64_t size_sum = 0; // of a's size after each step: size_sum / steps is the mean
};

// ---- the driver -------------------------------------------------------------------------------------

/// Indices for gather / scatter / permutations, drawn from the op's seed (the same for every
/// container and the model).
inline std::vector<std::uint32_t> random_indices(std::uint64_t seed, std::size_t count,
                                                 std::size_t bound) {
    std::mt19937_64 g(seed);
    std::vector<std::uint32_t> idx(count);
    for (auto& x : idx) x = static_cast<std::uint32_t>(g() % bound);
    return idx;
}
inline std::vector<std::uint32_t> random_permutation(std::uint64_t seed, std::size_t n) {
    std::mt19937_64 g(seed);
    std::vector<std::uint32_t> p(n);
    std::iota(p.begin(), p.end(), 0u);
    for (std::size_t i = n; i > 1; --i) std::swap(p[i - 1], p[g() % i]);
    return p;
}
/// Indices in another integer type (the algorithms take any integral contiguous range).
template <class I>
std::vector<I> as_index_type(const std::vector<std::uint32_t>& idx) {
    return std::vector<I>(idx.begin(), idx.end());
}

template <class T, class Memory = layout::host_memory>
class differential {
public:
    template <class Layout>
    using container = layout::vector<T, Layout, Memory>;

    explicit differential(std::string label, limits lim = {})
        : label_(std::move(label)), lim_(lim) {}

    /// Runs the operations that data encodes, from empty containers; aborts on divergence.
    run_stats run(const std::uint8_t* data, std::size_t size) {
        run_stats stats;
        {
            state s;
            byte_reader in(data, size);
            trace_size_ = 0;
            while (!in.exhausted()) {
                const op o = decode(in, s);
                trace_[trace_size_++ % trace_.size()] = o;
                step(s, o, stats);
                ++stats.steps;
                stats.max_size_seen = std::max<std::uint64_t>(stats.max_size_seen, s.ma.size());
                stats.size_sum += s.ma.size();
            }
        }
        if constexpr (can_fail<Memory>)
            if (failing_memory::blocks_live() != 0)
                fail_run("blocks leaked: " + std::to_string(failing_memory::blocks_live()) +
                         " still allocated after every container was destroyed");
        return stats;
    }

private:
    template <class C>
    struct slot {
        C a, b;
    };
    struct state {
        std::vector<T> ma, mb; // the models of a and b
        std::tuple<slot<container<layout::policy::aos>>, slot<container<layout::policy::soa>>,
                   slot<container<layout::policy::aosoa<3>>>,
                   slot<container<layout::policy::aosoa<4>>>,
                   slot<container<layout::policy::aosoa<32>>>>
            slots;
    };

    template <class C>
    static std::string layout_name() {
        using L = typename C::layout_type;
        if constexpr (std::is_same_v<L, layout::policy::aos>)
            return "aos";
        else if constexpr (std::is_same_v<L, layout::policy::soa>)
            return "soa";
        else
            return "aosoa<" + std::to_string(L::lanes) + ">";
    }

    // ---- decoding ---------------------------------------------------------------------------

    op decode(byte_reader& in, const state& s) const {
        const std::size_t n = s.ma.size(), nb = s.mb.size();
        op o;
        o.kind = static_cast<op_kind>(in.u8() % static_cast<unsigned>(op_kind::count));
        o.flag = in.u8();
        if constexpr (can_fail<Memory>) {
            const std::uint8_t f = in.u8();
            o.fail_at = f < 64 ? static_cast<std::uint8_t>(1 + f % 3) : 0;
        }
        o.v = in.u8();
        o.w = in.u8();
        const std::size_t room =
            n < lim_.max_size ? std::min(lim_.max_count, lim_.max_size - n) : 0;
        const auto u = [](std::size_t x) { return static_cast<std::uint32_t>(x); };
        const auto grow_or_shrink = [&](op_kind grow) {
            // full: remove up to half instead, so that long streams keep moving
            if (room == 0) {
                o.kind = op_kind::erase_range;
                o.i = u(in.below(n / 2 + 1));
                o.j = u(o.i + in.upto(n / 2));
            } else {
                o.kind = grow;
            }
        };
        switch (o.kind) {
        case op_kind::push_back:
        case op_kind::emplace_back:
            grow_or_shrink(o.kind);
            break;
        case op_kind::insert_one:
        case op_kind::insert_list:
        case op_kind::emplace:
            grow_or_shrink(o.kind);
            if (o.kind != op_kind::erase_range) o.i = u(in.upto(n));
            break;
        case op_kind::insert_count:
            grow_or_shrink(o.kind);
            if (o.kind != op_kind::erase_range) {
                o.i = u(in.upto(n));
                o.k = u(in.upto(room));
            }
            break;
        case op_kind::insert_range:
        case op_kind::insert_input_range:
            grow_or_shrink(o.kind);
            if (o.kind != op_kind::erase_range) {
                o.i = u(in.upto(n));
                o.j = u(in.below(256));
                o.k = u(o.j + in.upto(std::min<std::size_t>(room, 256 - o.j)));
            }
            break;
        case op_kind::insert_self_range:
            grow_or_shrink(o.kind);
            if (o.kind != op_kind::erase_range) {
                o.i = u(in.upto(n));
                o.j = u(in.upto(n));
                o.k = u(o.j + in.upto(std::min(room, n - o.j)));
            }
            break;
        case op_kind::insert_other_range:
            grow_or_shrink(o.kind);
            if (o.kind != op_kind::erase_range) {
                o.i = u(in.upto(n));
                o.j = u(in.upto(nb));
                o.k = u(o.j + in.upto(std::min(room, nb - o.j)));
            }
            break;
        case op_kind::erase_one:
        case op_kind::set_element:
            if (n == 0) {
                o.kind = op_kind::push_back;
                if (room == 0) o.kind = op_kind::clear;
            } else {
                o.i = u(in.below(n));
            }
            break;
        case op_kind::erase_range:
            o.i = u(in.upto(n));
            o.j = u(o.i + in.upto(n - o.i));
            break;
        case op_kind::pop_back:
            if (n == 0) o.kind = op_kind::clear;
            break;
        case op_kind::resize:
        case op_kind::resize_value:
            o.k = u(in.upto(std::min(lim_.max_size, n + lim_.max_count)));
            break;
        case op_kind::reserve:
            // mostly small (often no-ops, which must not reallocate), sometimes large
            o.k = u(o.flag % 4 == 0 ? in.upto(4 * lim_.max_size) : in.upto(n + 8));
            break;
        case op_kind::assign_count:
            o.k = u(in.upto(std::min(lim_.max_size, lim_.max_count * 2)));
            break;
        case op_kind::assign_range:
        case op_kind::assign_input_range:
            o.j = u(in.below(256));
            o.k = u(o.j + in.upto(std::min<std::size_t>(lim_.max_size, 256 - o.j)));
            break;
        case op_kind::copy_element:
        case op_kind::swap_elements:
            if (n == 0) {
                o.kind = op_kind::clear;
            } else {
                o.i = u(in.below(n));
                // copy_element: from a (flag even) or from b (flag odd, when b has elements)
                o.j = u(in.below(o.kind == op_kind::copy_element && o.flag % 2 == 1 && nb > 0 ? nb
                                                                                              : n));
                if (o.kind == op_kind::copy_element && nb == 0) o.flag &= 0xfe;
            }
            break;
        case op_kind::set_leaf:
            if (n == 0) {
                o.kind = op_kind::clear;
            } else {
                o.i = u(in.below(n));
                o.j = u(in.below(leaves<T>));
                o.bits = in.u64();
            }
            break;
        case op_kind::rotate:
            o.i = u(in.upto(n));
            break;
        case op_kind::gather:
            o.k = u(n == 0 ? 0 : in.upto(std::min(lim_.max_size, n + lim_.max_count)));
            o.bits = in.u64();
            break;
        case op_kind::scatter:
            if (nb == 0 && n > 0) o.kind = op_kind::copy_assign;
            o.bits = in.u64();
            break;
        case op_kind::convert:
            if (n > 0) {
                o.i = u(in.below(n));
                o.j = u(in.below(n));
            }
            break;
        case op_kind::permute:
        case op_kind::permute_in_place:
        case op_kind::sort_by_key:
        case op_kind::bin_by_key:
            o.bits = in.u64();
            o.k = u(1 + in.below(9)); // key range / number of bins
            break;
        case op_kind::push_back_self: // a.push_back(an element of a)
            if (n == 0) {
                o.kind = op_kind::push_back;
                if (room == 0) o.kind = op_kind::clear;
                break;
            }
            grow_or_shrink(o.kind);
            if (o.kind != op_kind::erase_range) o.i = u(in.below(n));
            break;
        case op_kind::insert_self_value:
        case op_kind::insert_count_self:
            if (n == 0) {
                o.kind = op_kind::push_back;
                if (room == 0) o.kind = op_kind::clear;
                break;
            }
            grow_or_shrink(o.kind);
            if (o.kind != op_kind::erase_range) {
                o.i = u(in.below(n)); // the element inserted
                o.j = u(in.upto(n));  // where
                if (o.kind == op_kind::insert_count_self) o.k = u(in.upto(room));
            }
            break;
        case op_kind::resize_self:
            if (n == 0) {
                o.kind = op_kind::clear;
                break;
            }
            o.i = u(in.below(n));
            o.k = u(in.upto(std::min(lim_.max_size, n + lim_.max_count)));
            break;
        case op_kind::sort_by_key_column:
        case op_kind::bin_by_key_column:
            o.bits = in.u64();
            o.k = u(1 + in.below(9)); // key range / number of bins
            o.j = u(in.below(leaves<T>));
            break;
        case op_kind::copy_overlap: {
            // Views of a start at a block: offsets in multiples of 96, a whole number of blocks
            // in every layout under test (lanes 3, 4, 32)
            const std::size_t offsets = n / copy_step + 1;
            o.i = u(copy_step * in.below(offsets));
            o.j = u(copy_step * in.below(offsets));
            o.k = u(in.upto(n - std::max(o.i, o.j)));
            break;
        }
        default:
            break;
        }
        return o;
    }

    // ---- one step -----------------------------------------------------------------------------

    void step(state& s, const op& o, run_stats& stats) {
        std::apply([&](auto&... sl) { (apply_to_slot(s, sl, o, stats), ...); }, s.slots);
        // The model last: apply_to_slot compares against the model as it was before the op
        // when an allocation failed.
        apply(s.ma, s.mb, o, s, nullptr);
        const std::size_t path = static_cast<std::size_t>(trace_size_ % 4);
        // b in full only after operations that write it, and every 8th step (a block shared
        // with a would show there); otherwise its size
        const bool check_b = writes_b(o.kind) || trace_size_ % 8 == 0 || o.fail_at != 0;
        std::apply([&](auto&... sl) { (check_slot(s, sl, path, check_b), ...); }, s.slots);
    }

    static bool writes_b(op_kind k) {
        switch (k) {
        case op_kind::swap:
        case op_kind::copy_construct:
        case op_kind::copy_assign:
        case op_kind::gather:
        case op_kind::scatter:
        case op_kind::permute:
            return true;
        default:
            return false;
        }
    }

    template <class C>
    void apply_to_slot(state& s, slot<C>& sl, const op& o, run_stats& stats) {
        current_layout_ = layout_name<C>();
        const std::size_t cap_a = sl.a.capacity(), cap_b = sl.b.capacity();
        const void* block_a = block_of(sl.a);
        if constexpr (can_fail<Memory>) {
            if (o.fail_at) {
                failing_memory::arm(o.fail_at);
                bool threw = false;
                try {
                    apply(sl.a, sl.b, o, s, &s.ma);
                } catch (const std::bad_alloc&) {
                    threw = true;
                }
                failing_memory::disarm();
                if (threw) {
                    ++stats.allocation_failures;
                    // strong guarantee: both containers exactly as before
                    expect(sl.a.capacity() == cap_a, "capacity of a changed by a failed operation");
                    expect(sl.b.capacity() == cap_b, "capacity of b changed by a failed operation");
                    compare(sl.a, s.ma, "a after a failed allocation", 0);
                    compare(sl.b, s.mb, "b after a failed allocation", 0);
                    apply(sl.a, sl.b, o, s, &s.ma);
                }
                ++stats.container_ops;
                return;
            }
        }
        apply(sl.a, sl.b, o, s, &s.ma);
        ++stats.container_ops;
        // std::vector's promise: an operation that fits in the capacity does not reallocate
        const bool fits = o.kind == op_kind::reserve ? o.k <= cap_a : sl.a.size() <= cap_a;
        if (keeps_block(o.kind) && fits) {
            expect(sl.a.capacity() == cap_a, "capacity changed although the size fit");
            expect(block_of(sl.a) == block_a, "the block moved although the size fit");
        }
    }

    static bool keeps_block(op_kind k) {
        switch (k) {
        case op_kind::push_back:
        case op_kind::emplace_back:
        case op_kind::insert_one:
        case op_kind::insert_count:
        case op_kind::insert_range:
        case op_kind::insert_self_range:
        case op_kind::insert_input_range:
        case op_kind::insert_other_range:
        case op_kind::insert_list:
        case op_kind::emplace:
        case op_kind::erase_one:
        case op_kind::erase_range:
        case op_kind::pop_back:
        case op_kind::resize:
        case op_kind::resize_value:
        case op_kind::reserve:
        case op_kind::clear:
        case op_kind::set_element:
        case op_kind::copy_element:
        case op_kind::swap_elements:
        case op_kind::set_leaf:
        case op_kind::sort:
        case op_kind::sort_by_key_bits:
        case op_kind::ranges_sort:
        case op_kind::stable_sort_by_key_bits:
        case op_kind::reverse:
        case op_kind::rotate:
        case op_kind::gather_self:
        case op_kind::permute_in_place:
        case op_kind::sort_by_key:
        case op_kind::bin_by_key:
        case op_kind::length_errors:
        case op_kind::push_back_self:
        case op_kind::insert_self_value:
        case op_kind::insert_count_self:
        case op_kind::resize_self:
        case op_kind::sort_by_key_column:
        case op_kind::bin_by_key_column:
        case op_kind::copy_overlap:
            return true;
        default:
            return false;
        }
    }

    template <class C>
    static const void* block_of(const C& c) {
        const auto st = c.view().storage();
        if constexpr (std::is_same_v<typename C::layout_type, layout::policy::soa>)
            return st.columns[0];
        else
            return st.data;
    }

    template <class V>
    static constexpr bool is_model = std::is_same_v<V, std::vector<T>>;

    /// Applies o to (a, b): a container pair or the model pair (model == nullptr). For a
    /// container, model is the model of a before the operation (for self-checks inside).
    template <class V>
    void apply(V& a, V& b, const op& o, const state& s, const std::vector<T>* model) {
        (void)s;
        (void)model;
        const auto& pool = value_pool<T>();
        const T& value = pool[o.v];
        const auto at = [&](std::size_t i) { return a.begin() + static_cast<std::ptrdiff_t>(i); };
        const auto d = [](std::size_t i) { return static_cast<std::ptrdiff_t>(i); };
        switch (o.kind) {
        case op_kind::push_back:
            a.push_back(value);
            break;
        case op_kind::emplace_back:
            if constexpr (is_model<V>) {
                a.push_back(value);
            } else {
                const T got = std::apply(
                    [&](const auto&... f) -> decltype(auto) { return a.emplace_back(f...); },
                    layout_test::fields(value));
                expect(same_bits(got, value), "emplace_back returned a reference to another value");
            }
            break;
        case op_kind::insert_one: {
            const auto it = a.insert(at(o.i), value);
            expect(it - a.begin() == d(o.i), "insert(pos, value) returned the wrong iterator");
            break;
        }
        case op_kind::insert_count: {
            const auto it = a.insert(at(o.i), o.k, value);
            expect(it - a.begin() == d(o.i), "insert(pos, n, value) returned the wrong iterator");
            break;
        }
        case op_kind::insert_range: {
            const auto it = a.insert(at(o.i), pool.begin() + o.j, pool.begin() + o.k);
            expect(it - a.begin() == d(o.i),
                   "insert(pos, first, last) returned the wrong iterator");
            break;
        }
        case op_kind::insert_self_range:
            if constexpr (is_model<V>) {
                // std::vector does not allow a range into itself; the layout containers do
                const std::vector<T> copy(at(o.j), at(o.k));
                a.insert(at(o.i), copy.begin(), copy.end());
            } else {
                const auto it = a.insert(at(o.i), at(o.j), at(o.k));
                expect(it - a.begin() == d(o.i),
                       "insert of a self range returned the wrong iterator");
            }
            break;
        case op_kind::insert_input_range: {
            const auto it = a.insert(at(o.i), input_iterator<T>(pool.data() + o.j),
                                     input_iterator<T>(pool.data() + o.k));
            expect(it - a.begin() == d(o.i),
                   "insert of an input range returned the wrong iterator");
            break;
        }
        case op_kind::insert_other_range: {
            const V& cb = b;
            const auto it = a.insert(at(o.i), cb.begin() + d(o.j), cb.begin() + d(o.k));
            expect(it - a.begin() == d(o.i), "insert of b's range returned the wrong iterator");
            break;
        }
        case op_kind::insert_list: {
            const auto it = a.insert(at(o.i), {value, pool[o.w]});
            expect(it - a.begin() == d(o.i), "insert(pos, {...}) returned the wrong iterator");
            break;
        }
        case op_kind::emplace:
            if constexpr (is_model<V>) {
                a.insert(at(o.i), value);
            } else {
                const auto it =
                    std::apply([&](const auto&... f) { return a.emplace(at(o.i), f...); },
                               layout_test::fields(value));
                expect(it - a.begin() == d(o.i), "emplace returned the wrong iterator");
            }
            break;
        case op_kind::erase_one: {
            const auto it = a.erase(at(o.i));
            expect(it - a.begin() == d(o.i), "erase(pos) returned the wrong iterator");
            break;
        }
        case op_kind::erase_range: {
            const auto it = a.erase(at(o.i), at(o.j));
            expect(it - a.begin() == d(o.i), "erase(first, last) returned the wrong iterator");
            break;
        }
        case op_kind::pop_back:
            a.pop_back();
            break;
        case op_kind::resize:
            a.resize(o.k);
            break;
        case op_kind::resize_value:
            a.resize(o.k, value);
            break;
        case op_kind::reserve:
            a.reserve(o.k);
            if constexpr (!is_model<V>) expect(a.capacity() >= o.k, "reserve(n) left capacity < n");
            break;
        case op_kind::shrink_to_fit:
            a.shrink_to_fit();
            if constexpr (!is_model<V>) {
                std::size_t tight = a.size();
                if constexpr (requires { V::layout_type::lanes; })
                    tight = (tight + V::layout_type::lanes - 1) / V::layout_type::lanes *
                            V::layout_type::lanes;
                expect(a.capacity() == tight, "shrink_to_fit left spare capacity");
            }
            break;
        case op_kind::clear:
            a.clear();
            break;
        case op_kind::swap:
            switch (o.flag % 3) {
            case 0:
                a.swap(b);
                break;
            case 1:
                std::swap(a, b);
                break; // move construction and move assignments
            default: {
                using std::swap;
                swap(a, b);
            }
            }
            break;
        case op_kind::copy_construct: {
            V c(a);
            if constexpr (!is_model<V>) compare(c, *model, "a copy of a", 1);
            b = std::move(c); // b must be independent of a from now on
            break;
        }
        case op_kind::move_construct: {
            V c(std::move(a));
            if constexpr (!is_model<V>) {
                expect(a.empty(), "a moved-from container is not empty");
                compare(c, *model, "a container moved from a", 2);
            }
            if (o.flag % 2 == 0) {
                a = std::move(c);
            } else {
                // the moved-from container works; if an allocation fails, put a back as it was
                try {
                    a.push_back(value);
                    a = c;
                } catch (...) {
                    a = std::move(c);
                    throw;
                }
            }
            break;
        }
        case op_kind::copy_assign:
            b = a;
            break;
        case op_kind::self_copy_assign: {
            V& alias = a;
            a = alias;
            break;
        }
        case op_kind::convert:
            convert(a, o, model);
            break;
        case op_kind::assign_count:
            a.assign(o.k, value);
            break;
        case op_kind::assign_range:
            a.assign(pool.begin() + o.j, pool.begin() + o.k);
            break;
        case op_kind::assign_input_range:
            a.assign(input_iterator<T>(pool.data() + o.j), input_iterator<T>(pool.data() + o.k));
            break;
        case op_kind::set_element:
            a[o.i] = value;
            break;
        case op_kind::copy_element:
            if (o.flag % 2 == 1)
                a[o.i] = std::as_const(b)[o.j]; // proxy from another container
            else
                a[o.i] = a[o.j]; // proxy from the same container, perhaps the same element
            break;
        case op_kind::swap_elements:
            if constexpr (is_model<V>) {
                std::swap(a[o.i], a[o.j]);
            } else if (o.flag % 4 == 0) {
                swap(a[o.i], a[o.j]); // the proxies' swap
            } else if (o.flag % 4 == 1) {
                std::iter_swap(at(o.i), at(o.j));
            } else if (o.flag % 4 == 2) {
                // std::swap of proxy variables: its temporary is a proxy made by moving, which
                // must keep a's value while a is overwritten
                auto x = a[o.i];
                auto y = a[o.j];
                std::swap(x, y);
            } else {
                // a moved proxy keeps the element's value (named first: moving the temporary
                // itself is what g++ 13 calls a pessimizing move)
                auto&& element = a[o.i];
                auto kept = std::move(element);
                a[o.i] = a[o.j];
                a[o.j] = std::move(kept);
            }
            break;
        case op_kind::set_leaf:
            with_leaf<T>(o.j, [&](auto l) {
                constexpr std::size_t L = decltype(l)::value;
                const auto x = from_bits<leaf_type<T, L>>(o.bits);
                if constexpr (is_model<V>)
                    leaf<L>(a[o.i]) = x;
                else
                    a.view().template leaf_column<L>()[o.i] = x;
            });
            break;
        case op_kind::sort:
            std::sort(a.begin(), a.end(), [](const T& x, const T& y) { return bits_less(x, y); });
            break;
        case op_kind::sort_by_key_bits:
            // not stable, but deterministic: the same comparisons make the same moves, whatever
            // the iterator
            std::sort(a.begin(), a.end(),
                      [](const T& x, const T& y) { return key_bits(x) < key_bits(y); });
            break;
        case op_kind::ranges_sort:
            std::ranges::sort(a, [](const T& x, const T& y) { return bits_less(x, y); });
            break;
        case op_kind::stable_sort_by_key_bits:
            std::stable_sort(a.begin(), a.end(),
                             [](const T& x, const T& y) { return key_bits(x) < key_bits(y); });
            break;
        case op_kind::reverse:
            if (o.flag % 2 == 0)
                std::reverse(a.begin(), a.end());
            else
                std::ranges::reverse(a);
            break;
        case op_kind::rotate:
            // libstdc++ 12's std::ranges::rotate moves *p into `auto t`: a proxy made by moving,
            // which must keep the value (std::rotate names the value type)
#if LAYOUT_FUZZ_RANGES_ROTATE
            if (!is_model<V> && o.flag % 2 == 1) {
                std::ranges::rotate(a, at(o.i));
                break;
            }
#endif
            std::rotate(a.begin(), at(o.i), a.end());
            break;
        case op_kind::gather:
            gather(a, b, o);
            break;
        case op_kind::gather_self:
#if LAYOUT_FUZZ_HAVE_ALGORITHMS
            if constexpr (!is_model<V>) {
                // source and destination overlap: rejected before anything is written
                const auto idx =
                    random_indices(o.bits, a.size(), std::max<std::size_t>(a.size(), 1));
                bool threw = false;
                try {
                    layout::gather(a, idx, a);
                } catch (const std::invalid_argument&) {
                    threw = true;
                }
                expect(threw == !a.empty(), "gather from a container into itself did not throw "
                                            "std::invalid_argument");
            }
#endif
            break;
        case op_kind::scatter:
            scatter(a, b, o);
            break;
        case op_kind::permute:
            permute(a, b, o);
            break;
        case op_kind::permute_in_place:
            permute_in_place(a, o);
            break;
        case op_kind::sort_by_key:
            sort_by_key(a, o);
            break;
        case op_kind::bin_by_key:
            bin_by_key(a, o);
            break;
        case op_kind::compare_equal:
            if constexpr (!is_model<V>) {
                bool want = s.ma.size() == s.mb.size();
                for (std::size_t i = 0; want && i < s.ma.size(); ++i)
                    want = layout_test::tie(s.ma[i]) == layout_test::tie(s.mb[i]); // NaN != NaN
                expect((a == b) == want, "operator== disagrees with the model");
                expect((a == a) == std::ranges::all_of(s.ma,
                                                       [](const T& x) {
                                                           return layout_test::tie(x) ==
                                                                  layout_test::tie(x);
                                                       }),
                       "operator== of a container with itself disagrees with the model");
            }
            break;
        case op_kind::length_errors:
            if constexpr (!is_model<V>) {
                const std::size_t too_many = V::max_size() + 1;
                expect_throws<std::length_error>([&] { a.reserve(too_many); },
                                                 "reserve(max_size() + 1)");
                expect_throws<std::length_error>([&] { a.resize(too_many); },
                                                 "resize(max_size() + 1)");
                expect_throws<std::length_error>([&] { a.resize(too_many, value); },
                                                 "resize(max_size() + 1, value)");
                expect_throws<std::length_error>(
                    [&] { a.insert(a.begin(), V::max_size() - a.size() + 1, value); },
                    "insert(pos, max_size() - size() + 1, value)");
                const std::size_t n = a.size();
                if (n > 0)
                    expect_throws<std::out_of_range>([&] { (void)a.at(n + (o.flag % 3)); },
                                                     "at(size())");
            }
            break;
        case op_kind::push_back_self:
            a.push_back(self_value(a, o));
            break;
        case op_kind::insert_self_value: {
            const auto it = a.insert(at(o.j), self_value(a, o));
            expect(it - a.begin() == d(o.j), "insert(pos, an element) returned the wrong iterator");
            break;
        }
        case op_kind::insert_count_self: {
            const auto it = a.insert(at(o.j), o.k, self_value(a, o));
            expect(it - a.begin() == d(o.j),
                   "insert(pos, n, an element) returned the wrong iterator");
            break;
        }
        case op_kind::resize_self:
            a.resize(o.k, self_value(a, o));
            break;
        case op_kind::sort_by_key_column:
            sort_by_key_column(a, o, false, model);
            break;
        case op_kind::bin_by_key_column:
            sort_by_key_column(a, o, true, model);
            break;
        case op_kind::copy_overlap:
            copy_overlap(a, o);
            break;
        case op_kind::count:
            break;
        }
    }

    /// Element o.i of a itself, as the argument of push_back / insert / resize: a reference into
    /// a's own block for AoS (a.data()[i], which a reallocation frees) when the flag is even,
    /// otherwise the proxy a[i] (the model: a plain reference, which std::vector must accept).
    template <class V>
    static decltype(auto) self_value(V& a, const op& o) {
        if constexpr (is_model<V>) {
            return static_cast<const T&>(a[o.i]);
        } else if constexpr (std::is_same_v<typename V::layout_type, layout::policy::aos>) {
            return static_cast<const T&>(a.data()[o.i]);
        } else {
            return a[o.i];
        }
    }

    /// Writes small keys (from the op's seed) into leaf o.j of every element, then sorts (or
    /// bins, when that leaf is an integer) the elements by that leaf: the keys are the
    /// container's own column where it is contiguous (SoA; AoSoA of one block), a copy of it
    /// otherwise. With the flag, a SoA container first sees keys shifted by one element, which
    /// overlap it without being a column: std::invalid_argument, nothing changed.
    template <class V>
    void sort_by_key_column(V& a, const op& o, bool bin, const std::vector<T>* model) {
#if LAYOUT_FUZZ_HAVE_ALGORITHMS
        const std::size_t n = a.size();
        const auto raw = random_indices(o.bits, n, o.k);
        with_leaf<T>(o.j, [&](auto l) {
            constexpr std::size_t L = decltype(l)::value;
            using S = leaf_type<T, L>;
            const auto key_of = [&](std::size_t i) {
                if constexpr (std::is_same_v<S, bool>)
                    return (raw[i] & 1) != 0;
                else
                    return static_cast<S>(raw[i]);
            };
            constexpr bool binnable = std::is_integral_v<S> && !std::is_same_v<S, bool>;
            std::vector<std::size_t> want(n);
            std::iota(want.begin(), want.end(), std::size_t{0});
            std::stable_sort(want.begin(), want.end(),
                             [&](std::size_t x, std::size_t y) { return key_of(x) < key_of(y); });
            if constexpr (is_model<V>) {
                const std::vector<T> old = a;
                for (std::size_t i = 0; i < n; ++i) {
                    a[i] = old[want[i]];
                    leaf<L>(a[i]) = key_of(want[i]);
                }
            } else {
                const auto column = a.view().template leaf_column<L>();
                for (std::size_t i = 0; i < n; ++i) column[i] = key_of(i);
                bool contiguous = std::is_same_v<typename V::layout_type, layout::policy::soa>;
                if constexpr (requires { V::layout_type::lanes; })
                    contiguous = n <= V::layout_type::lanes;
                std::unique_ptr<S[]> copy(new S[n + 1]);
                for (std::size_t i = 0; i < n; ++i) copy[i] = column[i];
                const std::span<S> keys =
                    contiguous && n > 0 ? std::span<S>(&column[0], n) : std::span<S>(copy.get(), n);
                if (std::is_same_v<typename V::layout_type, layout::policy::soa> && n >= 2 &&
                    o.flag % 4 == 3) {
                    const std::span<S> shifted(&column[1], n);
                    expect_throws<std::invalid_argument>(
                        [&] { layout::sort_by_key(shifted, a); },
                        "sort_by_key with keys that overlap x but are not a column");
                    compare(
                        a,
                        [&] {
                            std::vector<T> m = *model;
                            for (std::size_t i = 0; i < n; ++i) leaf<L>(m[i]) = key_of(i);
                            return m;
                        }(),
                        "a after a rejected sort_by_key", 0);
                }
                if constexpr (binnable) {
                    if (bin) {
                        const auto result =
                            o.flag % 2 == 0
                                ? layout::bin_by_key<std::uint32_t>(keys, o.k, a)
                                : layout::bin_by_key<std::uint32_t>(keys, o.k, a.view());
                        expect(std::equal(result.permutation.begin(), result.permutation.end(),
                                          want.begin(), want.end()),
                               "bin_by_key by a column returned another permutation");
                        expect(std::ranges::is_sorted(keys), "bin_by_key left its keys unsorted");
                        return;
                    }
                }
                const auto perm = o.flag % 2 == 0 ? layout::sort_by_key(keys, a)
                                                  : layout::sort_by_key(keys, a.view());
                expect(std::equal(perm.begin(), perm.end(), want.begin(), want.end()),
                       "sort_by_key by a column returned another permutation");
                expect(std::ranges::is_sorted(keys), "sort_by_key left its keys unsorted");
            }
        });
#else
        (void)a, (void)o, (void)bin, (void)model;
#endif
    }

    /// The view of v's elements [first, first + count) (first: a whole number of AoSoA blocks).
    template <class E, class L, class M>
    static layout::view<E, L, M> subview(const layout::view<E, L, M>& v, std::size_t first,
                                         std::size_t count) {
        auto st = v.storage();
        using byte = std::conditional_t<std::is_const_v<E>, const std::byte, std::byte>;
        if constexpr (std::is_same_v<L, layout::policy::soa>) {
            for (std::size_t l = 0; l < layout::leaf_count_v<T>; ++l)
                st.columns[l] = static_cast<byte*>(st.columns[l]) +
                                first * layout::detail::leaf_table<T>[l].size;
        } else if constexpr (std::is_same_v<L, layout::policy::aos>) {
            st.data += first;
        } else {
            st.data += first / L::lanes * layout::mapping<T, L>::block_bytes;
        }
        return layout::view<E, L, M>(st, count);
    }

    /// a[j, j + k) = old a[i, i + k) through two overlapping views of a (layout::copy is a
    /// memmove).
    template <class V>
    void copy_overlap(V& a, const op& o) {
        if constexpr (is_model<V>) {
            const std::vector<T> src(a.begin() + o.i, a.begin() + o.i + o.k);
            std::copy(src.begin(), src.end(), a.begin() + o.j);
        } else {
            const auto whole = a.view();
            if (o.flag % 2 == 0)
                layout::copy(subview(whole, o.i, o.k), subview(whole, o.j, o.k));
            else
                layout::copy(subview(a.cview(), o.i, o.k), subview(whole, o.j, o.k));
        }
    }

    /// a -> SoA -> AoSoA<8> -> AoS (host memory) -> back into a, through converting
    /// constructors and assignments, with a cross-layout proxy assignment on the way.
    template <class V>
    void convert(V& a, const op& o, const std::vector<T>* model) {
        if constexpr (is_model<V>) {
            if (!a.empty()) a[o.i] = std::vector<T>(a)[o.j];
        } else {
            std::vector<T> m = *model;
            layout::soa_vector<T> soa(a);
            compare(soa, m, "soa_vector converted from a", 0);
            if (!a.empty()) {
                soa[o.i] = std::as_const(a)[o.j]; // element_ref from another layout
                m[o.i] = (*model)[o.j];
            }
            layout::aosoa<T, 8> blocks(soa);
            compare(blocks, m, "aosoa<8> converted from a soa_vector", 1);
            layout::aos_vector<T> structs;
            structs.push_back(T{});
            structs = blocks; // converting assignment
            compare(structs, m, "aos_vector assigned from an aosoa<8>", 2);
            // operator== compares with each scalar's ==: NaN leaves make copies unequal
            const bool equal = std::ranges::all_of(
                m, [](const T& x) { return layout_test::tie(x) == layout_test::tie(x); });
            expect((structs == blocks) == equal && (blocks == soa) == equal,
                   "operator== across layouts disagrees with the model after a conversion");
            switch (o.flag % 3) {
            case 0:
                a = structs;
                break; // converting assignment
            case 1:
                a = V(blocks);
                break; // converting construction, move
            default:
                a = V(structs.begin(), structs.end()); // from proxy iterators of another layout
            }
        }
    }

    template <class V>
    void gather(V& a, V& b, const op& o) {
#if LAYOUT_FUZZ_HAVE_ALGORITHMS
        const auto idx32 = random_indices(o.bits, o.k, std::max<std::size_t>(a.size(), 1));
        if constexpr (is_model<V>) {
            std::vector<T> out;
            for (auto x : idx32) out.push_back(a[x]);
            if (o.flag % 4 == 3)
                a = out;
            else
                b = out;
        } else {
            switch (o.flag % 4) {
            case 0:
                b.resize(o.k);
                layout::gather(a, idx32, b);
                break;
            case 1:
                b.resize(o.k);
                layout::gather(std::as_const(a), as_index_type<int>(idx32), b.view());
                break;
            case 2: {
                layout::soa_vector<T> out(o.k);
                layout::gather(a.cview(), as_index_type<std::size_t>(idx32), out);
                b = out;
                break;
            }
            default: {
                layout::aosoa<T, 4> out(o.k);
                layout::gather(a, as_index_type<long>(idx32), out);
                a = out;
            }
            }
        }
#else
        (void)a, (void)b, (void)o;
#endif
    }

    template <class V>
    void scatter(V& a, V& b, const op& o) {
#if LAYOUT_FUZZ_HAVE_ALGORITHMS
        if (a.empty()) return;
        const auto idx = random_indices(o.bits, a.size(), b.size());
        if constexpr (is_model<V>) {
            for (std::size_t i = 0; i < idx.size(); ++i) b[idx[i]] = a[i]; // last write wins
        } else {
            if (o.flag % 2 == 0) {
                layout::scatter(a, idx, b);
            } else {
                layout::soa_vector<T> src(a);
                layout::scatter(src, as_index_type<unsigned short>(idx), b.view());
            }
        }
#else
        (void)a, (void)b, (void)o;
#endif
    }

    template <class V>
    void permute(V& a, V& b, const op& o) {
#if LAYOUT_FUZZ_HAVE_ALGORITHMS
        const auto perm = random_permutation(o.bits, a.size());
        if constexpr (is_model<V>) {
            std::vector<T> out;
            for (auto x : perm) out.push_back(a[x]);
            b = out;
        } else {
            b.resize(a.size());
            layout::permute(a, perm, b);
        }
#else
        (void)a, (void)b, (void)o;
#endif
    }

    template <class V>
    void permute_in_place(V& a, const op& o) {
#if LAYOUT_FUZZ_HAVE_ALGORITHMS
        const auto perm = random_permutation(o.bits, a.size());
        if constexpr (is_model<V>) {
            const std::vector<T> old = a;
            for (std::size_t i = 0; i < perm.size(); ++i) a[i] = old[perm[i]];
        } else {
            if (o.flag % 2 == 0)
                layout::permute_in_place(a, perm);
            else
                layout::permute_in_place(a.view(), as_index_type<std::int64_t>(perm));
        }
#else
        (void)a, (void)o;
#endif
    }

    /// Keys: small integers from the op's seed (many ties: the sort must be stable).
    static std::vector<int> small_keys(const op& o, std::size_t n) {
        const auto raw = random_indices(o.bits, n, o.k);
        return std::vector<int>(raw.begin(), raw.end());
    }

    template <class V>
    void sort_by_key(V& a, const op& o) {
#if LAYOUT_FUZZ_HAVE_ALGORITHMS
        auto keys = small_keys(o, a.size());
        std::vector<std::size_t> want(a.size());
        std::iota(want.begin(), want.end(), std::size_t{0});
        std::stable_sort(want.begin(), want.end(),
                         [&](std::size_t x, std::size_t y) { return keys[x] < keys[y]; });
        if constexpr (is_model<V>) {
            const std::vector<T> old = a;
            for (std::size_t i = 0; i < want.size(); ++i) a[i] = old[want[i]];
        } else {
            const auto perm = layout::sort_by_key(keys, a);
            expect(std::equal(perm.begin(), perm.end(), want.begin(), want.end()),
                   "sort_by_key returned another permutation than a stable sort");
            expect(std::ranges::is_sorted(keys), "sort_by_key left the keys unsorted");
        }
#else
        (void)a, (void)o;
#endif
    }

    template <class V>
    void bin_by_key(V& a, const op& o) {
#if LAYOUT_FUZZ_HAVE_ALGORITHMS
        auto keys = small_keys(o, a.size());
        const std::size_t bins = o.k;
        std::vector<std::size_t> want(a.size());
        std::iota(want.begin(), want.end(), std::size_t{0});
        std::stable_sort(want.begin(), want.end(),
                         [&](std::size_t x, std::size_t y) { return keys[x] < keys[y]; });
        if constexpr (is_model<V>) {
            const std::vector<T> old = a;
            for (std::size_t i = 0; i < want.size(); ++i) a[i] = old[want[i]];
        } else {
            std::vector<std::uint32_t> offsets(bins + 1, 0);
            for (int key : keys) ++offsets[static_cast<std::size_t>(key) + 1];
            for (std::size_t b = 0; b < bins; ++b) offsets[b + 1] += offsets[b];
            const auto result = layout::bin_by_key<std::uint32_t>(keys, bins, a);
            expect(std::equal(result.permutation.begin(), result.permutation.end(), want.begin(),
                              want.end()),
                   "bin_by_key returned another permutation than a stable sort");
            expect(result.offsets == offsets, "bin_by_key returned wrong offsets");
        }
#else
        (void)a, (void)o;
#endif
    }

    template <class E, class F>
    void expect_throws(F&& f, const char* what) {
        bool threw = false;
        try {
            f();
        } catch (const E&) {
            threw = true;
        } catch (...) {
            fail_step(std::string(what) + " threw another exception than expected");
        }
        if (!threw) fail_step(std::string(what) + " did not throw");
    }

    // ---- checking -------------------------------------------------------------------------------

    template <class C>
    void check_slot(const state& s, slot<C>& sl, std::size_t path, bool check_b) {
        current_layout_ = layout_name<C>();
        compare(sl.a, s.ma, "a", path);
        if (check_b)
            compare(sl.b, s.mb, "b", path);
        else if (sl.b.size() != s.mb.size())
            fail_step("b: size " + std::to_string(sl.b.size()) + ", model " +
                      std::to_string(s.mb.size()));
    }

    /// Size and invariants, then every element through one of four paths: operator[] (whole
    /// loads), iterators, every leaf through columns, reverse iterators.
    template <class C>
    void compare(const C& c, const std::vector<T>& m, const char* which, std::size_t path) {
        const std::size_t n = m.size();
        if (c.size() != n)
            fail_step(std::string(which) + ": size " + std::to_string(c.size()) + ", model " +
                      std::to_string(n));
        if (c.empty() != (n == 0)) fail_step(std::string(which) + ": empty() is wrong");
        if (c.capacity() < n)
            fail_step(std::string(which) + ": capacity " + std::to_string(c.capacity()) +
                      " < size");
        if constexpr (requires { C::layout_type::lanes; })
            if (c.capacity() % C::layout_type::lanes != 0)
                fail_step(std::string(which) + ": capacity " + std::to_string(c.capacity()) +
                          " is not a whole number of blocks");
        if (n > 0) {
            check_element(which, "front()", 0, c.front(), m[0]);
            check_element(which, "back()", n - 1, c.back(), m[n - 1]);
        }
        switch (path % 4) {
        case 0:
            for (std::size_t i = 0; i < n; ++i) check_element(which, "operator[]", i, c[i], m[i]);
            break;
        case 1: {
            const auto distance = c.end() - c.begin();
            if (distance != static_cast<std::ptrdiff_t>(n))
                fail_step(std::string(which) + ": end() - begin() is " + std::to_string(distance));
            std::size_t i = 0;
            for (auto it = c.cbegin(); it != c.cend(); ++it, ++i)
                check_element(which, "*iterator", i, *it, m[i]);
            break;
        }
        case 2: {
            const auto v = c.cview();
            [&]<std::size_t... L>(std::index_sequence<L...>) {
                (
                    [&] {
                        const auto column = v.template leaf_column<L>();
                        for (std::size_t i = 0; i < n; ++i)
                            if (bits_of(column[i]) != bits_of(leaf<L>(m[i])))
                                fail_step(std::string(which) + ": leaf " + std::to_string(L) +
                                          " of element " + std::to_string(i) + " has bits " +
                                          std::to_string(bits_of(column[i])) + ", model " +
                                          std::to_string(bits_of(leaf<L>(m[i]))));
                    }(),
                    ...);
            }(std::make_index_sequence<leaves<T>>{});
            break;
        }
        default: {
            std::size_t i = n;
            for (auto it = c.rbegin(); it != c.rend(); ++it) {
                --i;
                check_element(which, "*reverse_iterator", i, *it, m[i]);
            }
            if (i != 0) fail_step(std::string(which) + ": rend() - rbegin() is wrong");
        }
        }
    }

    template <class Ref>
    void check_element(const char* which, const char* how, std::size_t i, const Ref& ref,
                       const T& want) {
        const T got = ref;
        if (!same_bits(got, want))
            fail_step(std::string(which) + ": " + how + " element " + std::to_string(i) + " is " +
                      describe(got) + ", model " + describe(want));
    }

    void expect(bool ok, const char* what) {
        if (!ok) fail_step(what);
    }

    [[noreturn]] void fail_step(const std::string& what) {
        fail_run("layout " + current_layout_ + ": " + what);
    }

    [[noreturn]] void fail_run(const std::string& what) {
        std::ostringstream os;
        os << "\nlayout_fuzz: DIVERGENCE (" << label_ << ", element type "
           << layout_test::type_name<T>() << ", memory "
           << (can_fail<Memory> ? "failing_memory" : "host_memory") << ")\n  " << what
           << "\n  at step " << (trace_size_ == 0 ? 0 : trace_size_ - 1)
           << "; the last operations:\n";
        const std::size_t shown = std::min<std::size_t>(trace_size_, trace_.size());
        for (std::size_t k = trace_size_ - shown; k < trace_size_; ++k)
            os << "    " << k << ": " << describe(trace_[k % trace_.size()]) << '\n';
        std::fputs(os.str().c_str(), stderr);
        std::fflush(stderr);
        std::abort();
    }

    std::string label_;
    limits lim_;
    std::string current_layout_;
    std::array<op, 48> trace_{};
    std::size_t trace_size_ = 0;
};

} // namespace layout_fuzz
