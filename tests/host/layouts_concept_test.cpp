// Adding a layout is adding one file: a fourth layout, defined here alone, works through
// vector, view, copy, for_each_index and the algorithms, checked against a std::vector model.
// The layout: AoS with every element padded to a multiple of 64 bytes (one cache line per
// element), the kind of layout a user might add to keep elements from sharing lines.
#include <layout/algorithms.hpp>
#include <layout/for_each.hpp>
#include <layout/layout.hpp>

#include <gtest/gtest.h>

#include "test_types.hpp"

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace layout_test;

/// Element i is a whole T at byte i * stride, stride = sizeof(T) rounded up to Line bytes.
template <std::size_t Line>
struct padded_aos {
    static std::string name() { return "padded_aos" + std::to_string(Line); }

    template <class T>
    struct mapping {
        static constexpr std::size_t element_stride = (sizeof(T) + Line - 1) / Line * Line;
        static constexpr std::size_t leaf_run = 1;
        static constexpr std::size_t bytes(std::size_t capacity) {
            return capacity * element_stride;
        }
        static constexpr std::size_t offset(std::size_t i, std::size_t leaf, std::size_t) {
            return i * element_stride + layout::detail::leaf_table<T>[leaf].offset;
        }
        static constexpr std::size_t rounded_capacity(std::size_t n) { return n; }
    };

    template <class E>
    struct cursor {
        E* element;
        template <std::size_t L>
        layout::detail::copy_const_t<E, layout::leaf_t<E, L>>& leaf() const noexcept {
            return layout::detail::leaf_ref<L>(*element);
        }
    };

    template <class E>
    struct storage {
        using cursor = padded_aos::cursor<E>;
        using byte = layout::detail::copy_const_t<E, std::byte>;
        static constexpr std::size_t stride = mapping<std::remove_const_t<E>>::element_stride;
        byte* data;

        static storage from_block(layout::detail::copy_const_t<E, void>* block,
                                  std::size_t) noexcept {
            return {static_cast<byte*>(block)};
        }
        storage advanced(std::size_t k) const noexcept { return {data + k * stride}; }
        cursor at(std::size_t i) const noexcept {
            return {reinterpret_cast<E*>(data + i * stride)};
        }
        layout::detail::copy_const_t<E, void>* first_byte() const noexcept { return data; }
        template <class F>
        decltype(auto) split(F&& f) const {
            return f(data);
        }
        static storage rebuild(byte* data) noexcept { return {data}; }
        template <class Mutable = E>
            requires(!std::is_const_v<Mutable>)
        operator storage<const Mutable>() const noexcept {
            return {data};
        }
    };

    /// One run, from the first element to the end of the last one (padding between them
    /// included: at most max_runs_v runs, says the concept).
    template <class T, class F, class... S>
    static void runs(std::size_t n, F&& f, const S&... s) {
        if (n) f((n - 1) * storage<T>::stride + sizeof(T), layout::detail::void_pointer(s.data)...);
    }
};

using padded = padded_aos<64>;
static_assert(layout::layout_policy<padded, Particle>);
static_assert(layout::layout_policy<padded, Body>);
static_assert(layout::mapping<Particle, padded>::offset(2, 1, 0) == 2 * 64 + 4);

template <class T>
std::vector<T> to_std(const layout::vector<T, padded>& v) {
    return std::vector<T>(v.begin(), v.end());
}

template <class T>
void expect_same(const std::vector<T>& model, const layout::vector<T, padded>& v) {
    ASSERT_EQ(model.size(), v.size());
    for (std::size_t i = 0; i < model.size(); ++i)
        EXPECT_TRUE(same(model[i], T(v[i]))) << "element " << i;
}

TEST(custom_layout, elements_lie_where_the_mapping_says) {
    layout::vector<Particle, padded> v(3);
    v[1] = Particle{1, 2, 3, 4, 5, 6, 7, 8};
    const auto* base = reinterpret_cast<const std::byte*>(v.view().data());
    EXPECT_EQ(reinterpret_cast<const float*>(base + 64)[2], 3.f); // element 1, leaf z
    EXPECT_EQ(reinterpret_cast<const std::byte*>(&v.view()[2].get<0>()) - base, 128);
}

TEST(custom_layout, vector_follows_a_std_vector_model) {
    std::mt19937 g(12);
    std::vector<Body> model;
    layout::vector<Body, padded> v;
    for (int step = 0; step < 400; ++step) {
        const int op = random_int(g, 0, 5);
        const Body value = random_value<Body>(g);
        const auto at = model.empty() ? 0 : std::size_t(random_int(g, 0, int(model.size())));
        switch (op) {
        case 0:
        case 1:
            model.push_back(value);
            v.push_back(value);
            break;
        case 2: // moves the tail up: vector::move_elements through the layout's runs
            model.insert(model.begin() + std::ptrdiff_t(at), value);
            v.insert(v.begin() + std::ptrdiff_t(at), value);
            break;
        case 3:
            if (at < model.size()) {
                model.erase(model.begin() + std::ptrdiff_t(at));
                v.erase(v.begin() + std::ptrdiff_t(at));
            }
            break;
        case 4:
            model.resize(at + 3, value);
            v.resize(at + 3, value);
            break;
        default:
            v.shrink_to_fit();
            break;
        }
        expect_same(model, v);
    }
}

TEST(custom_layout, copies_to_and_from_every_layout) {
    std::mt19937 g(3);
    const std::size_t n = 77;
    std::vector<Mixed> model(n);
    for (auto& m : model) m = random_value<Mixed>(g);
    layout::aos_vector<Mixed> a(model.begin(), model.end());
    layout::vector<Mixed, padded> p(n);
    layout::copy(a.view(), p.view()); // converts
    expect_same(model, p);
    layout::vector<Mixed, padded> q(n);
    layout::copy(p.cview(), q.view()); // same layout: the runs
    expect_same(model, q);
    layout::aosoa<Mixed, 8> b(n);
    layout::copy(q.view(), b.view());
    layout::soa_vector<Mixed> s(n);
    layout::copy(b.view(), s.view());
    for (std::size_t i = 0; i < n; ++i) EXPECT_TRUE(same(model[i], Mixed(s[i])));
    // Overlapping views of one container: the result is the old source, as with memmove.
    const layout::view<Mixed, padded> all = q.view();
    layout::copy(layout::view<Mixed, padded>(all.storage(), n - 5),
                 layout::view<Mixed, padded>(all.storage().advanced(5), n - 5));
    std::copy_backward(model.begin(), model.end() - 5, model.end());
    expect_same(model, q);
}

struct drift {
    float dt;
    template <class View>
    void operator()(const View& v, std::size_t i) const {
        auto&& [x, y, z, vx, vy, vz, m, q] = v[i];
        x += vx * dt;
        y += vy * dt;
        z += vz * dt;
        (void)m;
        (void)q;
    }
};

TEST(custom_layout, for_each_index_and_algorithms) {
    std::mt19937 g(5);
    const std::size_t n = 1000;
    std::vector<Particle> model(n);
    for (auto& p : model) p = random_value<Particle>(g);
    layout::vector<Particle, padded> v(model.begin(), model.end());

    layout::for_each_index(layout::exec::serial, v.view(), drift{0.5f});
    layout::for_each_index(v.view(), drift{0.25f}); // threads, where OpenMP is on
    for (auto& p : model) drift{0.5f}(std::span(&p, 1), 0), drift{0.25f}(std::span(&p, 1), 0);
    expect_same(model, v);

    std::vector<int> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), g);
    layout::vector<Particle, padded> permuted(n);
    layout::permute(v, perm, permuted);
    std::vector<Particle> expected(n);
    for (std::size_t i = 0; i < n; ++i) expected[i] = model[std::size_t(perm[i])];
    expect_same(expected, permuted);

    layout::permute_in_place(v, perm);
    expect_same(expected, v);

    // sort by a column of the custom layout: the keys are a strided column (element_stride).
    std::vector<float> keys(n);
    const auto x = layout::strided_span(v.column<&Particle::x>());
    EXPECT_EQ(x.stride(), 64 / sizeof(float));
    std::copy(x.begin(), x.end(), keys.begin());
    const auto order = layout::sort_by_key(keys, v);
    std::stable_sort(expected.begin(), expected.end(),
                     [](const Particle& a, const Particle& b) { return a.x < b.x; });
    expect_same(expected, v);
    EXPECT_EQ(order.size(), n);
}

} // namespace
