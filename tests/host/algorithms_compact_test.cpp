// layout::remove_if and layout::stable_partition (<layout/algorithms.hpp>) on every (element
// type, layout) pair, containers and views, against std::erase_if and std::stable_partition on a
// std::vector<T> model of random elements, with none, some and all of them chosen: the cases
// every memory space shares (common/compact_cases.hpp, which the device test runs too), and the
// host's own (a predicate that takes T, is called in order, or throws).

#include <layout/algorithms.hpp>

#include "common/compact_cases.hpp"
#include "test_types.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <random>
#include <vector>

namespace {

using namespace layout_test;

constexpr std::size_t sizes[] = {0, 1, 31, 33, 1000};

template <class Combo>
using cases = compact_cases::cases<Combo, layout::host_memory>;

template <class C>
class compact : public ::testing::Test {};
TYPED_TEST_SUITE(compact, all_combos, combo_names);

TYPED_TEST(compact, remove_if_container_matches_erase_if) {
    std::mt19937 g(1);
    cases<TypeParam>::remove_if_container(g, sizes, {});
}

TYPED_TEST(compact, remove_if_view_keeps_its_size_and_returns_the_new_one) {
    using T = typename TypeParam::value_type;
    using C = typename TypeParam::container;
    std::mt19937 g(2);
    for (std::size_t n : sizes) {
        auto model = random_values<T>(g, n);
        C c(model.begin(), model.end());
        // A predicate that takes the element by value: the proxy converts to T.
        const auto odd = [](const T& e) { return static_cast<long long>(key(e)) % 2 != 0; };
        const std::size_t kept = layout::remove_if(c.view(), odd);
        std::erase_if(model, odd);
        ASSERT_EQ(kept, model.size());
        EXPECT_EQ(c.size(), n);
        std::vector<T> front = to_std(c);
        front.resize(kept);
        EXPECT_TRUE(same_values(front, model)) << "n " << n;
    }
}

TYPED_TEST(compact, stable_partition_matches_std) {
    std::mt19937 g(3);
    cases<TypeParam>::stable_partition(g, sizes);
}

TYPED_TEST(compact, predicate_is_called_once_per_element_in_order) {
    using T = typename TypeParam::value_type;
    using C = typename TypeParam::container;
    std::mt19937 g(4);
    const auto values = random_values<T>(g, 100);
    for (int algorithm = 0; algorithm < 2; ++algorithm) {
        C c(values.begin(), values.end());
        std::vector<T> seen;
        const auto record = [&](const auto& e) {
            seen.push_back(T(e));
            return seen.size() % 3 == 0;
        };
        if (algorithm == 0)
            layout::remove_if(c, record);
        else
            layout::stable_partition(c, record);
        EXPECT_TRUE(same_values(seen, values))
            << (algorithm == 0 ? "remove_if" : "stable_partition");
    }
}

// A predicate that throws at element `at`: remove_if leaves the kept elements of [0, at) and
// then all of [at, n), nothing lost or duplicated; stable_partition leaves x unchanged.
TYPED_TEST(compact, a_throwing_predicate_loses_nothing) {
    using T = typename TypeParam::value_type;
    using C = typename TypeParam::container;
    struct thrown {};
    std::mt19937 g(5);
    const std::size_t n = 100;
    for (std::size_t at : {std::size_t{0}, std::size_t{1}, std::size_t{40}, n - 1}) {
        const auto values = random_values<T>(g, n);
        std::size_t calls = 0;
        const auto every_third_then_throw = [&](const auto&) {
            if (calls == at) throw thrown{};
            return calls++ % 3 == 0;
        };
        std::vector<T> model;
        for (std::size_t i = 0; i < at; ++i)
            if (i % 3 != 0) model.push_back(values[i]);
        model.insert(model.end(), values.begin() + static_cast<std::ptrdiff_t>(at), values.end());
        C c(values.begin(), values.end());
        EXPECT_THROW(layout::remove_if(c, every_third_then_throw), thrown);
        EXPECT_TRUE(container_matches(c, model)) << "remove_if, throw at " << at;
        calls = 0;
        C d(values.begin(), values.end());
        EXPECT_THROW(layout::stable_partition(d, every_third_then_throw), thrown);
        EXPECT_TRUE(container_matches(d, values)) << "stable_partition, throw at " << at;
    }
}

} // namespace
