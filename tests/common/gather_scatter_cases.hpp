/// \file gather_scatter_cases.hpp
/// The cases of layout::gather, scatter, permute and permute_in_place whose contract is the same
/// in every memory space, written once: tests/host/algorithms_gather_test.cpp runs them on host
/// containers (built by g++), tests/cuda/algorithms_test.cu on device containers (built by
/// nvcc), where the same calls take the device path. The indices live in the same memory space
/// as the elements. Each result is compared with the same operation on a std::vector<T> model.
///
///     std::mt19937 g(1);
///     gather_scatter_cases::cases<Combo, layout::cuda::device_memory>::gather(g, sizes);
#pragma once

#include "host/test_types.hpp"

#include <layout/algorithms.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace layout_test::gather_scatter_cases {

/// Integers in memory space Memory, and a span over them for the algorithms.
template <class I, class Memory>
layout::vector<I, layout::policy::aos, Memory> integers_in(const std::vector<I>& values) {
    return in_memory<I, layout::policy::aos, Memory>(values, {});
}
template <class I, class Memory>
std::span<const I> as_span(const layout::vector<I, layout::policy::aos, Memory>& c) {
    return {c.data(), c.size()};
}

/// The cases, for the containers of one (element type, layout) pair of test_types.hpp's
/// all_combos in memory space Memory.
template <class Combo, class Memory>
struct cases {
    using T = typename Combo::value_type;
    using P = typename Combo::policy;

    static layout::vector<T, P, Memory> in(const std::vector<T>& values) {
        return in_memory<T, P, Memory>(values, {});
    }

    /// gather, indices with repeats, for every (source size, destination size) pair; the
    /// destination starts with other values.
    static void gather(std::mt19937& g, std::span<const std::size_t> sizes) {
        for (std::size_t n : sizes) {
            for (std::size_t m : sizes) {
                if (n == 0 && m != 0) continue; // no valid index into an empty source
                const auto values = random_values<T>(g, n);
                const auto src = in(values);
                const auto idx = random_indices<std::uint32_t>(g, m, n);
                const auto in_idx = integers_in<std::uint32_t, Memory>(idx);
                auto dst = in(random_values<T>(g, m));
                layout::gather(src, as_span(in_idx), dst);
                std::vector<T> want(m);
                for (std::size_t i = 0; i < m; ++i) want[i] = values[idx[i]];
                EXPECT_TRUE(same_values(elements(dst), want)) << "n " << n << ", m " << m;
            }
        }
    }

    /// scatter by a permutation (every element written once), and into a larger destination,
    /// whose elements that no index names keep their values (through views).
    static void scatter(std::mt19937& g, std::span<const std::size_t> sizes) {
        for (std::size_t n : sizes) {
            const auto values = random_values<T>(g, n);
            const auto src = in(values);
            const auto perm = random_permutation<std::uint64_t>(g, n);
            const auto in_perm = integers_in<std::uint64_t, Memory>(perm);
            auto dst = in(random_values<T>(g, n));
            layout::scatter(src, as_span(in_perm), dst);
            std::vector<T> want(n);
            for (std::size_t i = 0; i < n; ++i) want[perm[i]] = values[i];
            EXPECT_TRUE(same_values(elements(dst), want)) << "n " << n;

            const auto before = random_values<T>(g, n + 7);
            auto big = in(before);
            const auto some = random_permutation<std::uint32_t>(g, n + 7);
            const std::vector<std::uint32_t> idx(some.begin(),
                                                 some.begin() + static_cast<std::ptrdiff_t>(n));
            const auto in_idx = integers_in<std::uint32_t, Memory>(idx);
            layout::scatter(src.view(), as_span(in_idx), big.view());
            std::vector<T> want_big = before;
            for (std::size_t i = 0; i < n; ++i) want_big[idx[i]] = values[i];
            EXPECT_TRUE(same_values(elements(big), want_big)) << "n " << n;
        }
    }

    /// permute into another container, and permute_in_place of a container and of a view.
    static void permute(std::mt19937& g, std::span<const std::size_t> sizes) {
        for (std::size_t n : sizes) {
            const auto values = random_values<T>(g, n);
            const auto perm = random_permutation<std::uint32_t>(g, n);
            const auto in_perm = integers_in<std::uint32_t, Memory>(perm);
            std::vector<T> want(n);
            for (std::size_t i = 0; i < n; ++i) want[i] = values[perm[i]];

            const auto src = in(values);
            layout::vector<T, P, Memory> dst(n);
            layout::permute(src, as_span(in_perm), dst);
            EXPECT_TRUE(same_values(elements(dst), want)) << "permute, n " << n;

            auto in_place = in(values);
            layout::permute_in_place(in_place, as_span(in_perm));
            EXPECT_TRUE(same_values(elements(in_place), want)) << "permute_in_place, n " << n;

            auto through_view = in(values);
            layout::permute_in_place(through_view.view(), as_span(in_perm));
            EXPECT_TRUE(same_values(elements(through_view), want))
                << "permute_in_place(view), n " << n;
        }
    }
};

} // namespace layout_test::gather_scatter_cases
