#include <layout/view.hpp>

struct P {
    float x, y;
};

int main() {
    P data[2]{{1, 2}, {3, 4}};
    layout::view<P, layout::policy::aos> v(data, 2);
    auto&& [x, y] = v[1];
    return x + y == 7 ? 0 : 1;
}
