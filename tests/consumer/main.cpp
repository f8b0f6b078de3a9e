// Uses the umbrella header (columns as std::span included), as installed or as a subproject.
#include <layout/layout.hpp>

#include <numeric>
#include <vector>

struct P {
    float x, y;
};

int main() {
    // A view over memory the program owns.
    std::vector<P> data{{1, 2}, {3, 4}};
    layout::view<P, layout::policy::aos> v(data.data(), data.size());
    auto&& [x, y] = v[1];
    if (x + y != 7) return 1;

    // A container, a conversion, and a column as a std::span.
    layout::soa_vector<P> s = layout::aos_vector<P>{{1, 2}, {3, 4}, {5, 6}};
    const auto ys = s.column<&P::y>().span();
    return std::accumulate(ys.begin(), ys.end(), 0.0f) == 12 ? 0 : 1;
}
