// expected-error: layout: the container's second parameter is not a layout
// A user's fourth layout that lacks part of the layout_policy concept (here: runs and the rest)
// is refused where it enters, with the concept named, not deep in a copy.
#include <layout/layout.hpp>

#include <cstddef>

struct P {
    float x, y;
};

struct half_a_layout {
    template <class T>
    struct mapping {
        static constexpr std::size_t bytes(std::size_t n) { return n * sizeof(T); }
    };
    template <class T>
    struct storage {
        T* data = nullptr;
    };
};

int main() {
    layout::vector<P, half_a_layout> v;
    return static_cast<int>(v.size());
}
