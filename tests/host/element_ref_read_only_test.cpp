// Read-only proxies rebind on assignment (they cannot write), which is what lets std::ranges::max
// and friends keep "the best element so far" in a proxy variable without touching the data.
#include <layout/layout.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace {

struct point {
    float x, y;
};

template <class Container>
void expect_ranges_max_and_min_read_only(Container c) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> value(-100, 100);
    std::vector<point> model(257);
    for (auto& p : model) p = {value(rng), value(rng)};
    c.assign(model.begin(), model.end());
    const auto by_x = [](const point& a, const point& b) { return a.x < b.x; };

    const point max = std::ranges::max(c.cview(), by_x);
    const point min = std::ranges::min(c.cview(), by_x);
    EXPECT_EQ(max.x, std::ranges::max_element(model, by_x)->x);
    EXPECT_EQ(min.x, std::ranges::min_element(model, by_x)->x);
    for (std::size_t i = 0; i < model.size(); ++i) { // nothing was written
        const point p = c[i];
        EXPECT_EQ(p.x, model[i].x);
        EXPECT_EQ(p.y, model[i].y);
    }

    auto r = c.cview()[3];
    r = c.cview()[5]; // rebinds
    EXPECT_EQ(point(r).x, model[5].x);
    EXPECT_EQ(point(c[3]).x, model[3].x);
}

TEST(read_only_proxy, aos) { expect_ranges_max_and_min_read_only(layout::aos_vector<point>{}); }
TEST(read_only_proxy, soa) { expect_ranges_max_and_min_read_only(layout::soa_vector<point>{}); }
TEST(read_only_proxy, aosoa) { expect_ranges_max_and_min_read_only(layout::aosoa<point, 8>{}); }

} // namespace
