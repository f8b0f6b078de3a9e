/// \file compact_cases.hpp
/// The cases of layout::remove_if and layout::stable_partition whose contract is the same in
/// every memory space, written once: tests/host/algorithms_compact_test.cpp runs them on host
/// containers (built by g++), tests/cuda/algorithms_compact_test.cu on device containers (built
/// by nvcc), where the same calls take the device path. Each compares with std::erase_if or
/// std::stable_partition on a std::vector<T> model of random elements, with none, about half
/// and all of them chosen.
///
///     std::mt19937 g(1);
///     compact_cases::cases<Combo, layout::cuda::device_memory>::remove_if_container(g, sizes, s);
#pragma once

#include "host/test_types.hpp"

#include <layout/algorithms.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <random>
#include <span>
#include <vector>

namespace layout_test::compact_cases {

/// The first leaf of each test type, on the host and the device (key() is host-only).
LAYOUT_HOST_DEVICE inline double first_leaf(const Particle& p) { return p.x; }
LAYOUT_HOST_DEVICE inline double first_leaf(const Mixed& m) { return m.d; }
LAYOUT_HOST_DEVICE inline double first_leaf(const Body& b) { return b.pos.x; }

/// Chooses the elements whose first leaf is below a threshold, through the element proxy (or
/// from a T of the model).
template <class T>
struct below {
    double threshold;
    template <class Ref>
    LAYOUT_HOST_DEVICE bool operator()(const Ref& e) const {
        return first_leaf(T(e)) < threshold;
    }
};

/// Thresholds that choose none, about half, and all of the random elements.
inline constexpr double thresholds[] = {-std::numeric_limits<double>::infinity(), 0.0,
                                        std::numeric_limits<double>::infinity()};

/// The cases, for the containers of one (element type, layout) pair of test_types.hpp's
/// all_combos in memory space Memory.
template <class Combo, class Memory>
struct cases {
    using T = typename Combo::value_type;
    using P = typename Combo::policy;

    /// remove_if(container) keeps the others in order and resizes the container to them; the
    /// container's work runs on its stream.
    static void remove_if_container(std::mt19937& g, std::span<const std::size_t> sizes,
                                    layout::stream_ref stream) {
        for (std::size_t n : sizes) {
            for (double t : thresholds) {
                auto model = random_values<T>(g, n);
                auto c = in_memory<T, P, Memory>(model, stream);
                const std::size_t kept = layout::remove_if(c, below<T>{t});
                std::erase_if(model, below<T>{t});
                EXPECT_EQ(kept, model.size());
                EXPECT_EQ(c.size(), model.size());
                EXPECT_TRUE(same_values(elements(c), model)) << "n " << n << ", threshold " << t;
            }
        }
    }

    /// stable_partition of a container and of a view: the chosen elements first, then the
    /// others, each group in order, and how many were chosen; the size stays.
    static void stable_partition(std::mt19937& g, std::span<const std::size_t> sizes) {
        for (std::size_t n : sizes) {
            for (double t : thresholds) {
                auto model = random_values<T>(g, n);
                const auto chosen = [&](std::vector<T>& v) {
                    return static_cast<std::size_t>(
                        std::stable_partition(v.begin(), v.end(), below<T>{t}) - v.begin());
                };
                auto c = in_memory<T, P, Memory>(model, {});
                EXPECT_EQ(layout::stable_partition(c, below<T>{t}), chosen(model));
                EXPECT_EQ(c.size(), n);
                EXPECT_TRUE(same_values(elements(c), model)) << "n " << n << ", threshold " << t;

                auto again = random_values<T>(g, n);
                auto d = in_memory<T, P, Memory>(again, {});
                EXPECT_EQ(layout::stable_partition(d.view(), below<T>{t}), chosen(again));
                EXPECT_TRUE(same_values(elements(d), again))
                    << "view, n " << n << ", threshold " << t;
            }
        }
    }
};

} // namespace layout_test::compact_cases
