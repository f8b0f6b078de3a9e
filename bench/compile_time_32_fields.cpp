// Compile-time check: all three layouts of a 32-field struct, every operation a user reaches
// (construction, conversion, element access, structured bindings, sort). Timed by
// bench/compile_time.sh; the target is under 10 s per translation unit (targets.md).
#include <layout/layout.hpp>

#include <algorithm>

struct wide32 {
    float f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17, f18, f19,
        f20, f21, f22, f23, f24, f25, f26, f27, f28, f29, f30, f31;
};

template <class Container>
float touch(Container& c) {
    c.resize(100);
    for (std::size_t i = 0; i < c.size(); ++i) {
        auto&& [a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18,
                a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, a30, a31] = c[i];
        a0 += a31 * 2.0f;
        wide32 w = c[i];
        w.f7 += 1.0f;
        c[i] = w;
    }
    std::sort(c.begin(), c.end(), [](const wide32& a, const wide32& b) { return a.f0 < b.f0; });
    return layout::get<&wide32::f3>(c[0]);
}

int main() {
    layout::aos_vector<wide32> a;
    layout::soa_vector<wide32> s;
    layout::aosoa<wide32, 32> c;
    float sum = touch(a) + touch(s) + touch(c);
    layout::soa_vector<wide32> from_aos = a;
    layout::aosoa<wide32, 32> from_soa = s;
    layout::aos_vector<wide32> from_aosoa = c;
    return static_cast<int>(sum) +
           static_cast<int>(from_aos.size() + from_soa.size() + from_aosoa.size()) - 300;
}
