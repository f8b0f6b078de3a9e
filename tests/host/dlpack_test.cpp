// layout::to_dlpack on the host: the DLTensor's fields against the column and against addresses
// taken from the plain struct (not through the library), values written through data + strides
// (as a DLPack consumer does) read back from the container, and the lifetime the deleter ends:
// the manager state freed (allocations counted by the replaced operator new below), the owner
// kept alive until the deleter runs and released then.

#include "common/shapes.hpp"

#include <layout/dlpack.hpp>
#include <layout/layout.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <vector>

// ---- allocations counted (this executable only) ------------------------------------------------

namespace {
long live_allocations = 0;

void* counted_allocate(std::size_t bytes, std::size_t alignment) {
    if (bytes == 0) bytes = 1;
    void* p = alignment <= alignof(std::max_align_t)
                  ? std::malloc(bytes)
                  : std::aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment);
    if (!p) throw std::bad_alloc();
    ++live_allocations;
    return p;
}
void counted_free(void* p) noexcept {
    if (!p) return;
    --live_allocations;
    std::free(p);
}
} // namespace

// The array and nothrow forms default to these.
void* operator new(std::size_t n) { return counted_allocate(n, 1); }
void* operator new(std::size_t n, std::align_val_t a) {
    return counted_allocate(n, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t) noexcept { counted_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { counted_free(p); }

namespace {

using shapes::Grid;
using shapes::Mixed;
using shapes::Nested;
using shapes::Particle;

// ---- the ABI, as the DLPack specification lays it out (LP64) ----------------------------------

static_assert(sizeof(DLDevice) == 8 && sizeof(DLDataType) == 4);
static_assert(offsetof(DLTensor, data) == 0 && offsetof(DLTensor, device) == 8 &&
              offsetof(DLTensor, ndim) == 16 && offsetof(DLTensor, dtype) == 20 &&
              offsetof(DLTensor, shape) == 24 && offsetof(DLTensor, strides) == 32 &&
              offsetof(DLTensor, byte_offset) == 40 && sizeof(DLTensor) == 48);
static_assert(offsetof(DLManagedTensor, manager_ctx) == 48 &&
              offsetof(DLManagedTensor, deleter) == 56 && sizeof(DLManagedTensor) == 64);
static_assert(kDLCPU == 1 && kDLCUDA == 2 && kDLCUDAHost == 3 && kDLCUDAManaged == 13);
static_assert(kDLInt == 0 && kDLUInt == 1 && kDLFloat == 2);

// ---- dtypes -----------------------------------------------------------------------------------

template <class E>
constexpr bool dtype_is(int code, int bits) {
    constexpr DLDataType t = layout::dlpack_dtype<E>;
    return t.code == code && t.bits == bits && t.lanes == 1;
}
static_assert(dtype_is<float>(2, 32) && dtype_is<double>(2, 64) && dtype_is<const float>(2, 32));
static_assert(dtype_is<std::int8_t>(0, 8) && dtype_is<std::int16_t>(0, 16) &&
              dtype_is<std::int32_t>(0, 32) && dtype_is<std::int64_t>(0, 64));
static_assert(dtype_is<std::uint8_t>(1, 8) && dtype_is<std::uint16_t>(1, 16) &&
              dtype_is<std::uint32_t>(1, 32) && dtype_is<std::uint64_t>(1, 64));
static_assert(dtype_is<bool>(6, 8));
static_assert(dtype_is<char>(std::is_signed_v<char> ? 0 : 1, 8));

// ---- oracles, written out by hand -------------------------------------------------------------

Particle make(Particle*, int i) {
    const float f = float(i);
    return {f, f + 0.5f, -f, 2 * f, 3 * f, 4 * f, 1 + f, -1 - f};
}
Mixed make(Mixed*, int i) { return {0.25 * i, 1000 + i, char('a' + i % 26), i % 2 == 1}; }
Nested make(Nested*, int i) {
    const float f = float(i);
    return {{f, f + 0.25f, f + 0.5f}, {{-f, -2 * f, -3 * f}}, 7 * i};
}
Grid make(Grid*, int i) {
    const auto s = [i](int k) { return short(10 * i + k); };
    return {char('A' + i % 26), {{{s(0), s(1)}, {s(2), s(3)}, {s(4), s(5)}}}, 0.5 * i};
}
bool same(const Particle& a, const Particle& b) {
    return a.x == b.x && a.y == b.y && a.z == b.z && a.vx == b.vx && a.vy == b.vy && a.vz == b.vz &&
           a.m == b.m && a.q == b.q;
}
bool same(const Mixed& a, const Mixed& b) {
    return a.d == b.d && a.i == b.i && a.c == b.c && a.b == b.b;
}
bool same(const Nested& a, const Nested& b) {
    return a.pos.x == b.pos.x && a.pos.y == b.pos.y && a.pos.z == b.pos.z && a.v == b.v &&
           a.id == b.id;
}
bool same(const Grid& a, const Grid& b) {
    return a.tag == b.tag && a.cells == b.cells && a.w == b.w;
}

/// A value for element i that differs from what make() put there.
template <class E>
E written(int i) {
    if constexpr (std::is_same_v<E, bool>)
        return i % 3 == 0;
    else
        return static_cast<E>(3 * i + 5);
}

/// Element i of a DLPack tensor, read and written as a consumer does: data + byte_offset + i *
/// strides[0] values of dtype.bits / 8 bytes.
std::byte* at(const DLTensor& t, std::size_t i) {
    return static_cast<std::byte*>(t.data) + t.byte_offset +
           static_cast<std::int64_t>(i) * t.strides[0] * (t.dtype.bits / 8);
}

/// Exports column `column` of c (leaf reached in a plain struct by `leaf`), checks every field
/// of the tensor, reads the container's values through it, writes new ones through it and checks
/// they landed in that leaf of each element and nowhere else; then the deleter frees the state.
template <class C, class Column, class Leaf>
void check_export(C& c, Column column, Leaf leaf, int code, int bits) {
    using T = typename C::value_type;
    using E = std::remove_cvref_t<decltype(leaf(std::declval<T&>()))>;
    static_assert(std::is_same_v<E, typename Column::value_type>);
    const int n = int(c.size());
    std::vector<T> expected;
    for (int i = 0; i < n; ++i) expected.push_back(make(static_cast<T*>(nullptr), i));
    for (int i = 0; i < n; ++i) c[std::size_t(i)] = expected[std::size_t(i)];

    const long before = live_allocations;
    DLManagedTensor* m = layout::to_dlpack(column);
    ASSERT_NE(m, nullptr);
    EXPECT_GT(live_allocations, before) << "the tensor's shape and strides live somewhere";
    const DLTensor& t = m->dl_tensor;

    // Where the leaf is, from the struct itself: AoS elements are whole T objects; SoA leaves
    // are one array each.
    constexpr bool aos = std::is_same_v<typename C::layout_type, layout::policy::aos>;
    std::int64_t stride = 1;
    void* first = nullptr;
    if constexpr (aos) {
        T* base = c.view().data();
        first = &leaf(base[0]);
        stride = std::int64_t(sizeof(T) / sizeof(E));
    } else {
        // One array per leaf: where it is, only the column says; that values written through
        // it land in this leaf of each element is checked below.
        first = const_cast<E*>(column.data());
    }
    EXPECT_EQ(t.data, first);
    EXPECT_EQ(t.device.device_type, kDLCPU);
    EXPECT_EQ(t.device.device_id, 0);
    EXPECT_EQ(t.ndim, 1);
    EXPECT_EQ(t.dtype.code, code);
    EXPECT_EQ(t.dtype.bits, bits);
    EXPECT_EQ(t.dtype.lanes, 1);
    ASSERT_NE(t.shape, nullptr);
    ASSERT_NE(t.strides, nullptr);
    EXPECT_EQ(t.shape[0], n);
    EXPECT_EQ(t.strides[0], stride);
    EXPECT_EQ(std::int64_t(column.stride()), stride);
    EXPECT_EQ(t.byte_offset, 0u);
    EXPECT_NE(m->manager_ctx, nullptr);
    ASSERT_NE(m->deleter, nullptr);

    for (int i = 0; i < n; ++i) {
        E read;
        std::memcpy(&read, at(t, std::size_t(i)), sizeof(E));
        ASSERT_EQ(read, leaf(expected[std::size_t(i)])) << "element " << i;
    }
    for (int i = 0; i < n; ++i) {
        const E v = written<E>(i);
        std::memcpy(at(t, std::size_t(i)), &v, sizeof(E));
        leaf(expected[std::size_t(i)]) = v;
    }
    for (int i = 0; i < n; ++i)
        ASSERT_TRUE(same(T(c[std::size_t(i)]), expected[std::size_t(i)])) << "element " << i;

    m->deleter(m);
    EXPECT_EQ(live_allocations, before) << "the deleter frees what to_dlpack allocated";
    // The container is borrowed, not released: still all there.
    for (int i = 0; i < n; ++i)
        ASSERT_TRUE(same(T(c[std::size_t(i)]), expected[std::size_t(i)])) << "element " << i;
}

// ---- every shape, SoA and AoS ------------------------------------------------------------------

// The leaf each check reaches in a plain struct, written out (not through the library).
float& particle_vy(Particle& p) { return p.vy; }
float& particle_q(Particle& p) { return p.q; }
double& mixed_d(Mixed& m) { return m.d; }
int& mixed_i(Mixed& m) { return m.i; }
char& mixed_c(Mixed& m) { return m.c; }
bool& mixed_b(Mixed& m) { return m.b; }
float& nested_pos_y(Nested& e) { return e.pos.y; }
float& nested_v_2(Nested& e) { return e.v[2]; }
int& nested_id(Nested& e) { return e.id; }
short& grid_cells_1_0(Grid& g) { return g.cells[1][0]; }
short& grid_cells_2_1(Grid& g) { return g.cells[2][1]; }
double& grid_w(Grid& g) { return g.w; }

TEST(dlpack_host, particle) {
    layout::soa_vector<Particle> s(37);
    check_export(s, s.column<&Particle::vy>(), particle_vy, 2, 32);
    layout::aos_vector<Particle> a(37);
    check_export(a, a.column<&Particle::vy>(), particle_vy, 2, 32);
    check_export(a, a.column<&Particle::q>(), particle_q, 2, 32);
}

TEST(dlpack_host, mixed) {
    constexpr int char_code = std::is_signed_v<char> ? 0 : 1;
    layout::soa_vector<Mixed> s(21);
    check_export(s, s.column<&Mixed::d>(), mixed_d, 2, 64);
    check_export(s, s.column<&Mixed::b>(), mixed_b, 6, 8);
    layout::aos_vector<Mixed> a(21); // 16 B: d stride 2, i stride 4, c and b stride 16
    check_export(a, a.column<&Mixed::d>(), mixed_d, 2, 64);
    check_export(a, a.column<&Mixed::i>(), mixed_i, 0, 32);
    check_export(a, a.column<&Mixed::c>(), mixed_c, char_code, 8);
    check_export(a, a.column<&Mixed::b>(), mixed_b, 6, 8);
}

TEST(dlpack_host, nested) {
    layout::aos_vector<Nested> a(13); // 28 B: stride 7 floats
    check_export(a, a.column<&Nested::pos, &shapes::Vec3::y>(), nested_pos_y, 2, 32);
    check_export(a, a.column<&Nested::v, 2>(), nested_v_2, 2, 32);
    layout::soa_vector<Nested> s(13);
    check_export(s, s.column<&Nested::id>(), nested_id, 0, 32);
}

TEST(dlpack_host, grid) {
    layout::aos_vector<Grid> a(9); // 24 B: shorts stride 12, w stride 3
    check_export(a, a.column<&Grid::cells, 1, 0>(), grid_cells_1_0, 0, 16);
    check_export(a, a.column<&Grid::w>(), grid_w, 2, 64);
    layout::soa_vector<Grid> s(9);
    check_export(s, s.column<&Grid::cells, 2, 1>(), grid_cells_2_1, 0, 16);
}

TEST(dlpack_host, const_and_empty_columns) {
    layout::aos_vector<Particle> a(5);
    a[3] = Particle{1, 2, 3, 4, 5, 6, 7, 8};
    const auto& ca = a;
    DLManagedTensor* m = layout::to_dlpack(ca.column<&Particle::z>());
    EXPECT_EQ(m->dl_tensor.data, &a.view().data()[0].z);
    EXPECT_EQ(static_cast<const float*>(m->dl_tensor.data)[3 * m->dl_tensor.strides[0]], 3.f);
    m->deleter(m);

    layout::soa_vector<Particle> empty;
    m = layout::to_dlpack(empty.column<&Particle::x>());
    EXPECT_EQ(m->dl_tensor.shape[0], 0);
    EXPECT_EQ(m->dl_tensor.strides[0], 1);
    EXPECT_EQ(m->dl_tensor.device.device_type, kDLCPU);
    m->deleter(m);
}

TEST(dlpack_host, explicit_device) {
    layout::soa_vector<Particle> s(4);
    DLManagedTensor* m = layout::to_dlpack(s.column<&Particle::m>(), DLDevice{kDLCUDAHost, 0});
    EXPECT_EQ(m->dl_tensor.device.device_type, kDLCUDAHost);
    EXPECT_EQ(m->dl_tensor.data, s.column<&Particle::m>().data());
    m->deleter(m);
}

// ---- the owning form ---------------------------------------------------------------------------

TEST(dlpack_host, owner_outlives_the_last_cpp_handle) {
    int destroyed = 0;
    using C = layout::aos_vector<Particle>;
    std::shared_ptr<C> owner(new C(11), [&destroyed](C* c) {
        ++destroyed;
        delete c;
    });
    for (int i = 0; i < 11; ++i)
        (*owner)[std::size_t(i)] = make(static_cast<Particle*>(nullptr), i);
    const long before = live_allocations;

    DLManagedTensor* m = layout::to_dlpack(owner->column<&Particle::z>(), owner);
    EXPECT_EQ(owner.use_count(), 2);
    EXPECT_EQ(m->dl_tensor.strides[0], 8);
    owner.reset(); // the last handle in C++: the tensor keeps the container
    EXPECT_EQ(destroyed, 0);
    const DLTensor& t = m->dl_tensor;
    for (int i = 0; i < 11; ++i) {
        float z;
        std::memcpy(&z, at(t, std::size_t(i)), sizeof z);
        ASSERT_EQ(z, float(-i)) << "element " << i;
    }
    m->deleter(m);
    EXPECT_EQ(destroyed, 1) << "the deleter releases the container, once";
    // The container's block, the container and the shared_ptr's control block are gone too.
    EXPECT_LT(live_allocations, before);
}

TEST(dlpack_host, owner_must_hold_the_column) {
    auto a = std::make_shared<layout::soa_vector<Particle>>(6);
    auto b = std::make_shared<layout::soa_vector<Particle>>(6);
    const long before = live_allocations;
    EXPECT_THROW((void)layout::to_dlpack(a->column<&Particle::x>(), b), std::invalid_argument);
    EXPECT_EQ(live_allocations, before) << "nothing allocated is left behind";
    std::shared_ptr<const layout::soa_vector<Particle>> ca = a;
    DLManagedTensor* m = layout::to_dlpack(a->column<&Particle::y>(), ca);
    EXPECT_EQ(a.use_count(), 3);
    EXPECT_EQ(m->dl_tensor.data, a->column<&Particle::y>().data());
    m->deleter(m);
    EXPECT_EQ(a.use_count(), 2);
}

TEST(dlpack_host, any_owner) {
    // Memory the user owns, seen as a view: the owner is whatever keeps it alive.
    auto storage = std::make_shared<std::vector<Particle>>(3, Particle{1, 2, 3, 4, 5, 6, 7, 8});
    layout::view<Particle, layout::policy::aos> v(storage->data(), storage->size());
    DLManagedTensor* m = layout::to_dlpack(v.column<&Particle::vz>(), storage);
    EXPECT_EQ(storage.use_count(), 2);
    EXPECT_EQ(m->dl_tensor.data, &(*storage)[0].vz);
    EXPECT_EQ(m->dl_tensor.strides[0], 8);
    EXPECT_EQ(m->dl_tensor.device.device_type, kDLCPU);
    m->deleter(m);
    EXPECT_EQ(storage.use_count(), 1);
}

} // namespace
