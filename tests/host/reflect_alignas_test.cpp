// Members moved by alignas, next to members the byte probe cannot build (pointers, long
// double) or in structs larger than it reads: the offsets are the compiler's (offsetof), and
// elements round-trip through every layout. Before, these took the ABI rule: S below got d at 9
// (real 12) with its size and alignment unchanged, and g++ refused Moved as a bit-field.
#include <layout/layout.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

struct S { // the ABI rule puts d at 9: alignas(4) moves it to 12, sizeof stays 16
    float* p;
    char c;
    alignas(4) char d;
};
struct Moved { // g++ read this as a bit-field: same size and alignment as without the alignas
    int i;
    char c;
    alignas(2) char d;
};
struct Inner {
    char a;
    alignas(8) short b;
};
struct Deep { // long double, a nested struct moved inside, a pointer moved by a large alignas
    long double ld;
    char c;
    Inner in;
    alignas(32) const int* q;
    std::array<Inner, 2> pair;
};
struct PointerFirst { // alignas on the first pointer and inside the struct
    char tag;
    alignas(16) float* p;
    alignas(4) char late;
    double* q;
};
struct alignas(32) AlignedWithPointer {
    float* p;
    int n;
};
struct Large { // past the byte probe's 4 KiB, with a moved member after the array
    std::array<double, 520> a;
    char c;
    alignas(64) double* p;
    short s;
};

// g++ told a bit-field from a plain member by layout compatibility, which an alignas move also
// breaks: these were refused as bit-fields (same size and alignment as without the alignas).
struct MovedLate {
    long long q;
    char c;
    alignas(4) char d;
    char e;
};
static_assert(!layout::detail::has_bit_field<Moved>() &&
              !layout::detail::has_bit_field<MovedLate>());
static_assert(layout::reflectable<MovedLate>);

// Offsets at compile time, against offsetof (constant evaluation compares the two exactly).
template <class T, std::size_t L>
constexpr std::size_t at = layout::detail::leaf_offset<T, L>();
static_assert(at<S, 0> == offsetof(S, p) && at<S, 1> == offsetof(S, c));
static_assert(at<S, 2> == offsetof(S, d) && offsetof(S, d) == 12);
static_assert(at<Moved, 1> == offsetof(Moved, c) && at<Moved, 2> == offsetof(Moved, d));
static_assert(at<Deep, 0> == offsetof(Deep, ld) && at<Deep, 1> == offsetof(Deep, c));
static_assert(at<Deep, 2> == offsetof(Deep, in) + offsetof(Inner, a));
static_assert(at<Deep, 3> == offsetof(Deep, in) + offsetof(Inner, b));
static_assert(at<Deep, 4> == offsetof(Deep, q));
static_assert(at<Deep, 8> == offsetof(Deep, pair) + sizeof(Inner) + offsetof(Inner, b));
static_assert(at<PointerFirst, 1> == offsetof(PointerFirst, p));
static_assert(at<PointerFirst, 2> == offsetof(PointerFirst, late));
static_assert(at<PointerFirst, 3> == offsetof(PointerFirst, q));
static_assert(at<AlignedWithPointer, 1> == offsetof(AlignedWithPointer, n));
static_assert(at<Large, 520> == offsetof(Large, c) && at<Large, 521> == offsetof(Large, p));
static_assert(at<Large, 522> == offsetof(Large, s));

// The same at run time, from a real object's addresses, through leaf_ref and the leaf table.
template <class T, std::size_t N>
void expect_leaves_at(const T& obj, const std::array<const void*, N>& members) {
    static_assert(N == layout::leaf_count_v<T>);
    const auto* base = reinterpret_cast<const unsigned char*>(&obj);
    [&]<std::size_t... L>(std::index_sequence<L...>) {
        (
            [&] {
                const auto* member = static_cast<const unsigned char*>(members[L]);
                EXPECT_EQ(layout::detail::leaf_table<T>[L].offset,
                          static_cast<std::size_t>(member - base))
                    << "leaf " << L;
                EXPECT_EQ(static_cast<const void*>(&layout::detail::leaf_ref<L>(obj)), members[L]);
            }(),
            ...);
    }(std::make_index_sequence<N>{});
}

TEST(alignas_offsets, are_the_compilers) {
    S s{};
    expect_leaves_at(s, std::array<const void*, 3>{&s.p, &s.c, &s.d});
    Moved m{};
    expect_leaves_at(m, std::array<const void*, 3>{&m.i, &m.c, &m.d});
    Deep d{};
    expect_leaves_at(d,
                     std::array<const void*, 9>{&d.ld, &d.c, &d.in.a, &d.in.b, &d.q, &d.pair[0].a,
                                                &d.pair[0].b, &d.pair[1].a, &d.pair[1].b});
    PointerFirst f{};
    expect_leaves_at(f, std::array<const void*, 4>{&f.tag, &f.p, &f.late, &f.q});
    AlignedWithPointer w{};
    expect_leaves_at(w, std::array<const void*, 2>{&w.p, &w.n});
}

// ---- Round trips: every field's value comes back, from every layout -------------------------

float pool[8];
const int ints[8] = {};
double doubles[8];

S make_s(int k) { return {pool + k % 8, char('a' + k), char('A' + k)}; }
Moved make_moved(int k) { return {k * 7, char(k), char(-k)}; }
Deep make_deep(int k) {
    return {k + 0.25L,
            char(k),
            {char(k + 1), short(-k)},
            ints + k % 8,
            {{{char(k + 2), short(k * 3)}, {char(k + 3), short(k * 5)}}}};
}
PointerFirst make_first(int k) { return {char(k), pool + k % 8, char(~k), doubles + k % 8}; }

bool same(const S& a, const S& b) { return a.p == b.p && a.c == b.c && a.d == b.d; }
bool same(const Moved& a, const Moved& b) { return a.i == b.i && a.c == b.c && a.d == b.d; }
bool same(const Inner& a, const Inner& b) { return a.a == b.a && a.b == b.b; }
bool same(const Deep& a, const Deep& b) {
    return a.ld == b.ld && a.c == b.c && same(a.in, b.in) && a.q == b.q &&
           same(a.pair[0], b.pair[0]) && same(a.pair[1], b.pair[1]);
}
bool same(const PointerFirst& a, const PointerFirst& b) {
    return a.tag == b.tag && a.p == b.p && a.late == b.late && a.q == b.q;
}

/// Fills a container of layout From, converts it to every other layout and back, and reads
/// each element whole and through its mapping's bytes (the AoS view over the elements).
template <class T, class Make>
void round_trips(Make make) {
    constexpr int n = 37; // not a multiple of the AoSoA block
    std::vector<T> elements;
    for (int k = 0; k < n; ++k) elements.push_back(make(k));
    layout::aos_vector<T> aos(elements.begin(), elements.end());
    layout::soa_vector<T> soa = aos;
    layout::aosoa<T, 8> blocks = soa;
    layout::aos_vector<T> back = blocks;
    layout::view<T, layout::policy::aos> over_std(elements.data(), elements.size());
    for (int k = 0; k < n; ++k) {
        SCOPED_TRACE(k);
        EXPECT_TRUE(same(T(aos[k]), elements[k]));
        EXPECT_TRUE(same(T(soa[k]), elements[k]));
        EXPECT_TRUE(same(T(blocks[k]), elements[k]));
        EXPECT_TRUE(same(T(back[k]), elements[k]));
        EXPECT_TRUE(same(T(over_std[k]), elements[k]));
        soa[k] = make(k + 100);
        EXPECT_TRUE(same(T(soa[k]), make(k + 100)));
    }
}

TEST(alignas_offsets, pointer_next_to_alignas_round_trips) { round_trips<S>(make_s); }
TEST(alignas_offsets, member_moved_by_alignas_round_trips) { round_trips<Moved>(make_moved); }
TEST(alignas_offsets, long_double_and_nested_alignas_round_trip) { round_trips<Deep>(make_deep); }
TEST(alignas_offsets, aligned_pointer_members_round_trip) { round_trips<PointerFirst>(make_first); }

TEST(alignas_offsets, are_accepted) {
    static_assert(layout::reflectable<S> && layout::reflectable<Moved> &&
                  layout::reflectable<Deep> && layout::reflectable<PointerFirst> &&
                  layout::reflectable<AlignedWithPointer> && layout::reflectable<Large>);
    SUCCEED();
}

} // namespace
