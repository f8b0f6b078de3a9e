// Simulated device (and pinned and managed) allocation failures: for every operation that allocates, the
// k-th allocation is made to fail for k = 1, 2, ... until the operation needs fewer than k.
// Each failure must throw layout::cuda::bad_alloc naming the size that failed, leave every
// container and key array exactly as it was (strong guarantee), leak nothing, and leave the
// device usable. The failures come from fault_injection.cpp's cudaMalloc / cudaMallocHost /
// cudaMallocAsync hooks, so they reach allocations the library makes internally too (staging
// buffers of cross-layout copies, scratch of permute_in_place, CUB temporaries of sort_by_key).

#include "../host/test_types.hpp"
#include "device_containers.hpp"
#include "fault_injection.hpp"
#include "gpu_test.hpp"

#include <layout/cuda/algorithms.hpp>
#include <layout/layout.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace layout_test;

/// The other layout a cross-layout case converts to or from.
template <class L>
using other_layout = std::conditional_t<std::is_same_v<L, aos_layout>, soa_layout, aos_layout>;

/// The elements of a container in any memory, through a host copy in its own layout.
template <class T, class Policy, class Memory>
std::vector<T> contents(const layout::vector<T, Policy, Memory>& c) {
    const layout::vector<T, Policy, layout::host_memory> h = c;
    return to_std(h);
}

/// Runs a fresh Case (constructed from args) with the k-th allocation failing, for k = 1, 2, ...
/// Case has op() (the operation under test), unchanged() (the state equals the state before
/// op) and done_right() (the state after a successful op). Stops at the first k that does not
/// fire; expects that to be reached.
template <class Case, class... Args>
void check_every_failure(const std::string& what, const Args&... args) {
    SCOPED_TRACE(what);
    for (long k = 1;; ++k) {
        ASSERT_LT(k, 20) << "more allocations than any operation here should need";
        Case c(args...);
        const std::size_t live = fault_injection::live_allocations();
        fault_injection::fail_nth(k);
        bool threw = false;
        try {
            c.op();
        } catch (const layout::cuda::bad_alloc& e) {
            threw = true;
            EXPECT_EQ(e.bytes(), fault_injection::failed_bytes()) << "k = " << k;
            EXPECT_NE(std::string(e.what()).find(std::to_string(e.bytes())), std::string::npos)
                << e.what();
        }
        const bool fired = fault_injection::fired();
        fault_injection::fail_nth(0);
        ASSERT_TRUE(check_cuda(cudaDeviceSynchronize(), "after the operation"));
        EXPECT_TRUE(check_cuda(cudaGetLastError(), "error state after the operation"));
        if (!fired) {
            EXPECT_FALSE(threw);
            EXPECT_TRUE(c.done_right()) << "k = " << k << ", no failure injected";
            EXPECT_GT(k, 1) << "the operation allocated nothing: the case tests nothing";
            return;
        }
        EXPECT_TRUE(threw) << "allocation " << k << " failed and the operation did not throw";
        EXPECT_TRUE(c.unchanged()) << "allocation " << k << " failed and the state changed";
        EXPECT_EQ(fault_injection::live_allocations(), live)
            << "allocation " << k << " failed and memory leaked";
    }
}

constexpr std::size_t n = 1000;

std::vector<Body> values(unsigned seed, std::size_t count = n) {
    std::mt19937 g(seed);
    return random_values<Body>(g, count);
}

// ---- containers -------------------------------------------------------------------------------

/// A device container of n Bodies and an operation on it that grows, copies or converts.
template <class L, class Op>
struct container_case {
    using D = device_container<L, Body>;
    std::vector<Body> model = values(1);
    D dev = host_container<L, Body>(model.begin(), model.end());
    std::size_t capacity = dev.capacity();
    Op operation;
    std::vector<Body> expected = model;

    explicit container_case(Op o) : operation(o) {
        if constexpr (requires { operation.setup(dev, model); }) {
            operation.setup(dev, model);
            capacity = dev.capacity();
            expected = model;
        }
        operation.expect(expected);
    }
    void op() { operation(dev); }
    bool unchanged() const {
        return dev.capacity() == capacity && same_values(contents(dev), model);
    }
    bool done_right() const { return static_cast<bool>(same_values(contents(dev), expected)); }
};

struct reserve_more {
    template <class D>
    void operator()(D& d) const {
        d.reserve(4 * n);
    }
    void expect(std::vector<Body>&) const {}
};
struct resize_more {
    template <class D>
    void operator()(D& d) const {
        d.resize(3 * n);
    }
    void expect(std::vector<Body>& m) const { m.resize(3 * n); }
};
struct resize_more_with_value {
    template <class D>
    void operator()(D& d) const {
        d.resize(2 * n + 1, values(2, 1)[0]);
    }
    void expect(std::vector<Body>& m) const { m.resize(2 * n + 1, values(2, 1)[0]); }
};
struct shrink_after_resize_to_half {
    template <class D>
    void setup(D& d, std::vector<Body>& m) const {
        d.resize(n / 2);
        m.resize(n / 2);
    }
    template <class D>
    void operator()(D& d) const {
        d.shrink_to_fit();
    }
    void expect(std::vector<Body>&) const {}
};

/// dst = src between two containers in any memory and layouts: same-layout device copies,
/// conversions on the GPU, uploads and downloads through a staging buffer. The source is larger
/// than the destination's capacity (AoSoA<32> rounds 1000 up to 1024), so that the assignment
/// allocates: one that fits reuses the block and allocates nothing (vector_test's
/// assignment_reuses_capacity).
template <class Dst, class Src>
struct assign_case {
    std::vector<Body> model = values(1);
    std::vector<Body> incoming = values(3, n + 41);
    Dst dst = host_container<aos_layout, Body>(model.begin(), model.end());
    std::size_t capacity = dst.capacity();
    Src src = host_container<aos_layout, Body>(incoming.begin(), incoming.end());

    void op() { dst = src; }
    bool unchanged() const {
        return dst.capacity() == capacity && same_values(contents(dst), model) &&
               same_values(contents(src), incoming);
    }
    bool done_right() const { return static_cast<bool>(same_values(contents(dst), incoming)); }
};

/// Dst d = src: a failed construction leaves src as it was and leaks nothing.
template <class Dst, class Src>
struct construct_case {
    std::vector<Body> incoming = values(3, n + 7);
    Src src = host_container<aos_layout, Body>(incoming.begin(), incoming.end());
    std::optional<Dst> dst;

    void op() { dst.emplace(src); }
    bool unchanged() const { return !dst && same_values(contents(src), incoming); }
    bool done_right() const { return dst && same_values(contents(*dst), incoming); }
};

template <class L>
class allocation_failure : public gpu_test {};
TYPED_TEST_SUITE(allocation_failure, all_layouts, layout_names);

TYPED_TEST(allocation_failure, the_hooks_see_the_librarys_allocations) {
    using D = device_container<TypeParam, Body>;
    const std::size_t before = fault_injection::total_allocations();
    const std::size_t bytes =
        layout::mapping<Body, typename TypeParam::policy>::bytes(D(10).capacity());
    fault_injection::fail_nth(1);
    EXPECT_THROW(D(10), layout::cuda::bad_alloc);
    EXPECT_TRUE(fault_injection::fired());
    EXPECT_EQ(fault_injection::failed_bytes(), bytes);
    fault_injection::fail_nth(0);
    EXPECT_GT(fault_injection::total_allocations(), before);
}

TYPED_TEST(allocation_failure, growing_operations_keep_the_container) {
    using L = TypeParam;
    check_every_failure<container_case<L, reserve_more>>("reserve", reserve_more{});
    check_every_failure<container_case<L, resize_more>>("resize", resize_more{});
    check_every_failure<container_case<L, resize_more_with_value>>("resize(n, value)",
                                                                   resize_more_with_value{});
    check_every_failure<container_case<L, shrink_after_resize_to_half>>(
        "shrink_to_fit", shrink_after_resize_to_half{});
}

TYPED_TEST(allocation_failure, copies_and_conversions_keep_both_sides) {
    using L = TypeParam;
    using O = other_layout<L>;
    using D = device_container<L, Body>;
    check_every_failure<assign_case<D, device_container<L, Body>>>("device = device, same layout");
    check_every_failure<assign_case<D, device_container<O, Body>>>("device = device, converted");
    check_every_failure<assign_case<D, host_container<L, Body>>>("device = host, same layout");
    check_every_failure<assign_case<D, host_container<O, Body>>>("device = host, converted");
    check_every_failure<assign_case<host_container<O, Body>, D>>("host = device, converted");
    check_every_failure<assign_case<D, pinned_container<O, Body>>>("device = pinned, converted");
    check_every_failure<assign_case<pinned_container<L, Body>, D>>("pinned = device");
    check_every_failure<assign_case<managed_container<L, Body>, D>>("managed = device");
    check_every_failure<assign_case<D, managed_container<O, Body>>>("device = managed, converted");
    check_every_failure<assign_case<managed_container<O, Body>, host_container<L, Body>>>(
        "managed = host, converted");
    check_every_failure<construct_case<D, device_container<O, Body>>>("device(device), converted");
    check_every_failure<construct_case<D, host_container<O, Body>>>("device(host), converted");
    check_every_failure<construct_case<host_container<O, Body>, D>>("host(device), converted");
}

TYPED_TEST(allocation_failure, pinned_containers_grow_or_stay) {
    using P = pinned_container<TypeParam, Body>;
    struct push_past_capacity {
        std::vector<Body> model = values(4, 96); // whole blocks of 3, 4 and 32 lanes
        P pinned = P(model.begin(), model.end());
        std::size_t capacity = pinned.capacity();
        Body extra = values(5, 1)[0];
        void op() { pinned.push_back(extra); } // capacity == size: it reallocates
        bool unchanged() const {
            return pinned.capacity() == capacity && same_values(to_std(pinned), model);
        }
        bool done_right() const {
            auto m = model;
            m.push_back(extra);
            return static_cast<bool>(same_values(to_std(pinned), m));
        }
    };
    check_every_failure<push_past_capacity>("pinned push_back");
}

// ---- algorithms -------------------------------------------------------------------------------

/// A device container of n Bodies, int keys in [0, bins) and an index array; the algorithm
/// under test reorders the container (and the keys): on failure neither may have changed.
template <class L, class Algorithm>
struct algorithm_case {
    static constexpr std::size_t bins = 37;
    std::vector<Body> model = values(6);
    std::vector<int> keys = [] {
        std::mt19937 g(7);
        std::vector<int> k(n);
        for (int& x : k) x = random_int(g, 0, int(bins) - 1);
        return k;
    }();
    std::vector<std::uint32_t> perm = [] { // a permutation (reversal), to permute by
        std::vector<std::uint32_t> p(n);
        for (std::size_t i = 0; i < n; ++i) p[i] = std::uint32_t(n - 1 - i);
        return p;
    }();
    device_container<L, Body> dev = host_container<L, Body>(model.begin(), model.end());
    layout::cuda::aos_vector<int> d_keys = layout::aos_vector<int>(keys.begin(), keys.end());
    layout::cuda::aos_vector<std::uint32_t> d_perm =
        layout::aos_vector<std::uint32_t>(perm.begin(), perm.end());
    device_container<L, Body> out = device_container<L, Body>(n);
    std::vector<Body> out_before = contents(out);

    void op() { Algorithm{}(*this); }
    bool unchanged() const {
        return same_values(contents(dev), model) && contents(d_keys) == keys &&
               same_values(contents(out), out_before);
    }
    bool done_right() const { return Algorithm{}.done_right(*this); }
};

/// The stable order of the keys, as the host computes it.
std::vector<std::size_t> stable_order(const std::vector<int>& keys) {
    std::vector<std::size_t> order(keys.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
    return order;
}

template <class Case>
bool sorted_by_keys(const Case& c) {
    const auto order = stable_order(c.keys);
    const auto got = contents(c.dev);
    const auto got_keys = contents(c.d_keys);
    for (std::size_t i = 0; i < n; ++i)
        if (!same(got[i], c.model[order[i]]) || got_keys[i] != c.keys[order[i]]) return false;
    return true;
}

struct sort_by_key_op {
    template <class C>
    void operator()(C& c) const {
        (void)layout::cuda::sort_by_key(c.d_keys, c.dev);
    }
    template <class C>
    bool done_right(const C& c) const {
        return sorted_by_keys(c);
    }
};
struct bin_by_key_op {
    template <class C>
    void operator()(C& c) const {
        (void)layout::cuda::bin_by_key(c.d_keys, C::bins, c.dev);
    }
    template <class C>
    bool done_right(const C& c) const {
        return sorted_by_keys(c);
    }
};
struct permute_in_place_op {
    template <class C>
    void operator()(C& c) const {
        layout::cuda::permute_in_place(c.dev, c.d_perm);
    }
    template <class C>
    bool done_right(const C& c) const {
        const auto got = contents(c.dev);
        for (std::size_t i = 0; i < n; ++i)
            if (!same(got[i], c.model[c.perm[i]])) return false;
        return true;
    }
};
struct gather_op { // out[i] = dev[perm[i]]; the index check allocates a flag
    template <class C>
    void operator()(C& c) const {
        layout::cuda::gather(c.dev, c.d_perm, c.out);
    }
    template <class C>
    bool done_right(const C& c) const {
        const auto got = contents(c.out);
        for (std::size_t i = 0; i < n; ++i)
            if (!same(got[i], c.model[c.perm[i]])) return false;
        return true;
    }
};
struct permute_op { // out = dev permuted; the permutation check allocates
    template <class C>
    void operator()(C& c) const {
        layout::cuda::permute(c.dev, c.d_perm, c.out);
    }
    template <class C>
    bool done_right(const C& c) const {
        return gather_op{}.done_right(c);
    }
};

TYPED_TEST(allocation_failure, algorithms_change_nothing_when_they_fail) {
    using L = TypeParam;
    check_every_failure<algorithm_case<L, sort_by_key_op>>("sort_by_key");
    check_every_failure<algorithm_case<L, bin_by_key_op>>("bin_by_key");
    check_every_failure<algorithm_case<L, permute_in_place_op>>("permute_in_place");
#if LAYOUT_CHECK_BOUNDS // the argument checks are what allocates
    check_every_failure<algorithm_case<L, gather_op>>("gather");
    check_every_failure<algorithm_case<L, permute_op>>("permute");
#endif
}

} // namespace
