// Layout proofs: for every layout, element shape and capacity, each (element, leaf) that
// mapping<T, L>::offset gives lies inside the block, is aligned for its leaf, and shares no byte
// with any other; plus what makes each layout itself (AoS is the struct, SoA columns start on
// 128-byte lines, AoSoA keeps a block's lanes of a leaf contiguous). The proofs run in constant
// evaluation (static_assert) and again at run time, where a failure says which element and leaf.
// Then: views over a real block put every leaf where the mapping says.
#include <layout/policies.hpp>
#include <layout/view.hpp>

#include "common/shapes.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>

namespace {

using namespace shapes;
using layout::mapping;
namespace policy = layout::policy;

/// Outcome of a proof: ok, or the first broken property and where.
struct proof {
    bool ok = true;
    const char* what = "";
    std::size_t capacity = 0, element = 0, leaf = 0;

    constexpr explicit operator bool() const { return ok; }
};

constexpr proof broken(const char* what, std::size_t capacity, std::size_t element = 0,
                       std::size_t leaf = 0) {
    return {false, what, capacity, element, leaf};
}

template <class Layout>
inline constexpr bool is_aosoa_v = false;
template <std::size_t N>
inline constexpr bool is_aosoa_v<policy::aosoa<N>> = true;

template <class Layout>
inline constexpr bool is_split_v = false;
template <class F, class S, auto... K>
inline constexpr bool is_split_v<policy::split<F, S, K...>> = true;

/// The properties every layout must have, and those of its kind, at one capacity.
template <class T, class Layout>
constexpr proof prove(std::size_t capacity) {
    using map = mapping<T, Layout>;
    constexpr std::size_t leaves = layout::leaf_count_v<T>;
    constexpr const auto& table = layout::detail::leaf_table<T>;
    const std::size_t bytes = map::bytes(capacity);

    if (capacity == 0 && bytes != 0) return broken("an empty block takes bytes", capacity);

    // Every byte of the block has at most one owner.
    bool* owned = new bool[bytes + 1]{};
    proof result;
    for (std::size_t i = 0; i < capacity && result; ++i) {
        for (std::size_t l = 0; l < leaves && result; ++l) {
            const std::size_t offset = map::offset(i, l, capacity);
            const auto& leaf = table[l];
            if (offset + leaf.size > bytes) {
                result = broken("leaf lies outside the block", capacity, i, l);
            } else if (leaf.alignment > layout::block_alignment || offset % leaf.alignment != 0) {
                result = broken("leaf is misaligned", capacity, i, l);
            } else {
                for (std::size_t b = offset; b < offset + leaf.size; ++b) {
                    if (owned[b]) result = broken("leaf overlaps another leaf", capacity, i, l);
                    owned[b] = true;
                }
            }
        }
    }
    delete[] owned;
    if (!result) return result;

    // What makes each layout what it is.
    for (std::size_t i = 0; i < capacity; ++i) {
        for (std::size_t l = 0; l < leaves; ++l) {
            const std::size_t offset = map::offset(i, l, capacity);
            const std::size_t size = table[l].size;
            if constexpr (std::is_same_v<Layout, policy::aos>) {
                if (offset != i * sizeof(T) + table[l].offset)
                    return broken("AoS element is not the struct", capacity, i, l);
            } else if constexpr (std::is_same_v<Layout, policy::soa>) {
                const std::size_t column = map::column_offset(l, capacity);
                if (column % policy::soa::column_alignment != 0)
                    return broken("SoA column does not start on a 128-byte line", capacity, i, l);
                if (offset != column + i * size)
                    return broken("SoA column is not contiguous", capacity, i, l);
            } else if constexpr (is_aosoa_v<Layout>) {
                constexpr std::size_t lanes = Layout::lanes;
                const std::size_t first = i - i % lanes; // first element of i's block
                if (offset != map::offset(first, l, capacity) + (i % lanes) * size)
                    return broken("AoSoA lanes of a leaf are not contiguous", capacity, i, l);
                if (i >= lanes && offset != map::offset(i - lanes, l, capacity) + map::block_bytes)
                    return broken("AoSoA blocks are not block_bytes apart", capacity, i, l);
            } else if constexpr (is_split_v<Layout>) {
                const std::size_t second = map::second_offset(capacity);
                if (second % layout::block_alignment != 0)
                    return broken("split's second part does not start a block", capacity, i, l);
                if (map::parts::in_first[l] != (offset < second))
                    return broken("split leaf lies in the other part", capacity, i, l);
            }
        }
    }
    if constexpr (std::is_same_v<Layout, policy::aos>) {
        if (bytes != capacity * sizeof(T)) return broken("AoS block is not n structs", capacity);
    }
    if constexpr (is_aosoa_v<Layout>) {
        for (std::size_t l = 0; l < leaves; ++l)
            if (map::block_bytes % table[l].alignment != 0)
                return broken("AoSoA block size breaks the alignment of the next block", capacity,
                              0, l);
    }
    return {};
}

inline constexpr std::array<std::size_t, 6> capacities = {0, 1, 31, 32, 33, 100};

template <class T, class Layout>
constexpr proof prove_all_capacities() {
    for (std::size_t capacity : capacities)
        if (proof p = prove<T, Layout>(capacity); !p) return p;
    return {};
}

template <class T>
constexpr bool holds_for_every_layout() {
    return prove_all_capacities<T, policy::aos>() && prove_all_capacities<T, policy::soa>() &&
           prove_all_capacities<T, policy::aosoa<1>>() &&
           prove_all_capacities<T, policy::aosoa<3>>() &&
           prove_all_capacities<T, policy::aosoa<4>>() &&
           prove_all_capacities<T, policy::aosoa<32>>();
}

// In constant evaluation: a broken layout does not compile.
// Members the ABI rule from their types alone would misplace: alignas on a member (b at 2, not
// 1), on a nested struct, on a member of a struct inside a std::array.
struct Padded {
    char a;
    alignas(2) char b;
    char c;
};
struct alignas(16) Vec4 {
    float x, y, z;
};
struct Aligned {
    char tag;
    Vec4 v;
    alignas(8) int i;
    std::array<Padded, 2> ps;
    bool on;
    alignas(32) double d;
};

static_assert(holds_for_every_layout<Particle>());
static_assert(holds_for_every_layout<Mixed>());
static_assert(holds_for_every_layout<Nested>());
static_assert(holds_for_every_layout<Grid>());
static_assert(holds_for_every_layout<Padded>());
// The split layouts on a small struct (more would pass clang's constexpr step limit; every
// shape is proved at run time below).
static_assert(prove_all_capacities<Mixed, policy::split<policy::aos, policy::soa, 0>>());
static_assert(prove_all_capacities<Mixed, policy::split<policy::aosoa<3>, policy::aos, 1>>());
// (Aligned is proved at run time below only: its proof exceeds clang's constexpr step limit.)

// Spot checks of the numbers the layout files (layouts/*.hpp) document.
struct two {
    float x;
    double d;
};
static_assert(mapping<two, policy::aos>::offset(3, 1, 0) == 3 * 16 + 8);
// Column 1 starts after column 0 padded to 256 bytes, plus the 256-byte stagger.
static_assert(mapping<two, policy::soa>::offset(5, 1, 100) == 512 + 256 + 5 * 8);
static_assert(mapping<two, policy::aosoa<32>>::offset(33, 1, 0) == 384 + 128 + 8);
static_assert(mapping<Particle, policy::soa>::bytes(33) == 8 * (256 + 256));
static_assert(mapping<Particle, policy::soa>::bytes(0) == 0);
// x, y, z as an AoS of 12-byte elements; then vx.. as SoA from the next 256-byte boundary.
using hot_xyz = policy::split<policy::aos, policy::soa, &Particle::x, &Particle::y, &Particle::z>;
static_assert(mapping<Particle, hot_xyz>::offset(5, 2, 100) == 5 * 12 + 8);
static_assert(mapping<Particle, hot_xyz>::offset(5, 3, 100) == 1280 + 5 * 4);
static_assert(mapping<Particle, hot_xyz>::offset(5, 4, 100) == 1280 + 768 + 5 * 4);
static_assert(
    mapping<Particle, policy::split<policy::aosoa<32>, policy::aosoa<8>, 0>>::rounded_capacity(
        33) == 64);
static_assert(mapping<Mixed, policy::aosoa<4>>::block_bytes == 32 + 16 + 4 + 4);

// Each layout provides what layouts/concept.hpp lists (layouts_concept_test adds one of a user's;
// compile_fail/layout_policy_compiles.cpp states the same under nvcc).
static_assert(
    layout::layout_policy<policy::aos, two> && layout::layout_policy<policy::soa, two> &&
    layout::layout_policy<policy::aosoa<32>, two> &&
    layout::layout_policy<policy::aosoa<1>, Particle> && layout::layout_policy<hot_xyz, Particle> &&
    layout::layout_policy<policy::split<policy::aosoa<32>, policy::aosoa<8>, 0>, Particle>);

// ---- The same proofs at run time, with the failure spelled out --------------------------------

template <class T, class Layout>
void expect_proof() {
    for (std::size_t capacity : capacities) {
        const proof p = prove<T, Layout>(capacity);
        EXPECT_TRUE(p.ok) << typeid(T).name() << " in " << typeid(Layout).name() << ": " << p.what
                          << " (capacity " << p.capacity << ", element " << p.element << ", leaf "
                          << p.leaf << ")";
    }
}

template <class Layout>
void expect_proof_for_every_shape() {
    expect_proof<Particle, Layout>();
    expect_proof<Mixed, Layout>();
    expect_proof<Nested, Layout>();
    expect_proof<Grid, Layout>();
    expect_proof<Padded, Layout>();
    expect_proof<Aligned, Layout>();
}

TEST(mapping, aos_is_sound) { expect_proof_for_every_shape<policy::aos>(); }
TEST(mapping, soa_is_sound) { expect_proof_for_every_shape<policy::soa>(); }
TEST(mapping, aosoa1_is_sound) { expect_proof_for_every_shape<policy::aosoa<1>>(); }
TEST(mapping, aosoa3_is_sound) { expect_proof_for_every_shape<policy::aosoa<3>>(); }
TEST(mapping, aosoa4_is_sound) { expect_proof_for_every_shape<policy::aosoa<4>>(); }
TEST(mapping, aosoa32_is_sound) { expect_proof_for_every_shape<policy::aosoa<32>>(); }
TEST(mapping, split_is_sound) {
    expect_proof_for_every_shape<policy::split<policy::aos, policy::soa, 0>>();
    expect_proof_for_every_shape<policy::split<policy::soa, policy::aosoa<4>, 1, 2>>();
    expect_proof_for_every_shape<policy::split<policy::aosoa<3>, policy::aos, 1>>();
}

TEST(mapping, holds_in_constant_evaluation_too) {
    EXPECT_TRUE(holds_for_every_layout<Particle>());
    EXPECT_TRUE(holds_for_every_layout<Mixed>());
    EXPECT_TRUE(holds_for_every_layout<Nested>());
    EXPECT_TRUE(holds_for_every_layout<Grid>());
}

// ---- Views are plain handles ----------------------------------------------------------------

template <class T, class Layout>
constexpr bool is_plain_handle_v = std::is_trivially_copyable_v<layout::view<T, Layout>> &&
                                   std::is_standard_layout_v<layout::view<T, Layout>> &&
                                   std::is_trivially_copyable_v<layout::view<const T, Layout>> &&
                                   std::is_standard_layout_v<layout::view<const T, Layout>>;

template <class T>
constexpr bool views_are_plain_handles =
    is_plain_handle_v<T, policy::aos> && is_plain_handle_v<T, policy::soa> &&
    is_plain_handle_v<T, policy::aosoa<1>> && is_plain_handle_v<T, policy::aosoa<3>> &&
    is_plain_handle_v<T, policy::aosoa<4>> && is_plain_handle_v<T, policy::aosoa<32>> &&
    is_plain_handle_v<T, policy::split<policy::aos, policy::soa, 0>> &&
    is_plain_handle_v<T, policy::split<policy::aosoa<3>, policy::aos, 1>>;

static_assert(views_are_plain_handles<Particle>);
static_assert(views_are_plain_handles<Mixed>);
static_assert(views_are_plain_handles<Nested>);
static_assert(views_are_plain_handles<Grid>);
static_assert(views_are_plain_handles<Aligned>);

// ---- Views over a real block put every leaf where the mapping says ---------------------------

/// A block as the containers allocate it: block_alignment-aligned.
class aligned_block {
public:
    explicit aligned_block(std::size_t bytes) {
        const std::size_t a = layout::block_alignment;
        size_ = (bytes + a - 1) / a * a;
        data_ = static_cast<std::byte*>(std::aligned_alloc(a, size_ == 0 ? a : size_));
        if (data_ != nullptr) std::memset(data_, 0, size_);
    }
    aligned_block(const aligned_block&) = delete;
    aligned_block& operator=(const aligned_block&) = delete;
    ~aligned_block() { std::free(data_); }
    std::byte* data() const { return data_; }

private:
    std::byte* data_ = nullptr;
    std::size_t size_ = 0;
};

/// A value for leaf l of element i that differs between neighbours.
template <class Leaf>
Leaf value_of(std::size_t i, std::size_t l) {
    return static_cast<Leaf>((i * 7 + l * 3) % 100 + 1);
}

template <class T, class Layout>
void expect_view_matches_mapping(std::size_t capacity) {
    using map = mapping<T, Layout>;
    constexpr std::size_t leaves = layout::leaf_count_v<T>;
    SCOPED_TRACE(std::string(typeid(T).name()) + " in " + typeid(Layout).name() + ", capacity " +
                 std::to_string(capacity));

    aligned_block block(map::bytes(capacity));
    ASSERT_NE(block.data(), nullptr);
    const auto storage = layout::detail::storage<T, Layout>::from_block(block.data(), capacity);
    const layout::view<T, Layout> v(storage, capacity);
    const layout::view<const T, Layout> r = v;
    ASSERT_EQ(v.size(), capacity);

    for (std::size_t i = 0; i < capacity; ++i) {
        T value{};
        [&]<std::size_t... L>(std::index_sequence<L...>) {
            ((layout::detail::leaf_ref<L>(value) = value_of<layout::leaf_t<T, L>>(i, L)), ...);
        }(std::make_index_sequence<leaves>{});
        v[i] = value; // whole-element store through the proxy
    }

    for (std::size_t i = 0; i < capacity; ++i) {
        [&]<std::size_t... L>(std::index_sequence<L...>) {
            (
                [&] {
                    using leaf = layout::leaf_t<T, L>;
                    std::byte* expected = block.data() + map::offset(i, L, capacity);
                    const void* mutable_leaf = &v.storage().at(i).template leaf<L>();
                    const void* const_leaf = &r.storage().at(i).template leaf<L>();
                    EXPECT_EQ(mutable_leaf, static_cast<const void*>(expected))
                        << "element " << i << ", leaf " << L;
                    EXPECT_EQ(const_leaf, static_cast<const void*>(expected))
                        << "element " << i << ", leaf " << L << " (read-only view)";
                    // The store went to those bytes.
                    leaf stored;
                    std::memcpy(&stored, expected, sizeof(leaf));
                    EXPECT_EQ(stored, (value_of<leaf>(i, L))) << "element " << i << ", leaf " << L;
                }(),
                ...);
        }(std::make_index_sequence<leaves>{});
    }
}

template <class Layout>
void expect_views_match_mapping() {
    for (std::size_t capacity : capacities) {
        expect_view_matches_mapping<Particle, Layout>(capacity);
        expect_view_matches_mapping<Mixed, Layout>(capacity);
        expect_view_matches_mapping<Nested, Layout>(capacity);
        expect_view_matches_mapping<Grid, Layout>(capacity);
        expect_view_matches_mapping<Padded, Layout>(capacity);
        expect_view_matches_mapping<Aligned, Layout>(capacity);
    }
}

TEST(view_storage, aos_matches_mapping) { expect_views_match_mapping<policy::aos>(); }
TEST(view_storage, soa_matches_mapping) { expect_views_match_mapping<policy::soa>(); }
TEST(view_storage, aosoa1_matches_mapping) { expect_views_match_mapping<policy::aosoa<1>>(); }
TEST(view_storage, aosoa3_matches_mapping) { expect_views_match_mapping<policy::aosoa<3>>(); }
TEST(view_storage, aosoa4_matches_mapping) { expect_views_match_mapping<policy::aosoa<4>>(); }
TEST(view_storage, aosoa32_matches_mapping) { expect_views_match_mapping<policy::aosoa<32>>(); }

} // namespace
