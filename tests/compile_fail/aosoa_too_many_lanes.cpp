// aosoa<P, 1 << 59>: the block size wrapped around to 0 before. (The container's layout_policy
// check then adds its own layout: error after this one: 35 lines under clang 14.)
// expected-error: layout: aosoa<T, Lanes>: a block of Lanes elements does not fit
// expected-max-lines: 40
#include <layout/vector.hpp>

#include <cstddef>

struct P {
    float x, y;
};

layout::vector<P, layout::policy::aosoa<(std::size_t{1} << 59)>> v;
