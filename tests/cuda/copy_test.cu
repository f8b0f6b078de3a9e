// layout::cuda::copy between every pair of {aos, soa, aosoa<32>, aosoa<8>, aosoa<3>}, for a
// float-only struct, a struct of 8-, 4-, 2- and 1-byte leaves and a 3-byte struct, at sizes
// around the chunk and lane widths, against a host reference, leaf by leaf and bit for bit.
// Destinations start poisoned (0xFF): an element the kernel misses shows, and so does a byte
// it writes outside the elements it owns.
#include "gpu_test.hpp"

#include <layout/copy.hpp>
#include <layout/cuda/copy.hpp>
#include <layout/policies.hpp>
#include <layout/view.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

struct Particle {
    float x, y, z, vx, vy, vz, mass, charge;
};
struct Mixed {
    double d;
    float f;
    short s;
    char c;
    bool b;
};
struct Bytes3 { // sizeof 3: no 4-byte piece lines up with an element
    char a, b, c;
};
struct Padded { // 4 padding bytes after f
    double d;
    float f;
};

namespace lp = layout::policy;

template <class L>
std::string layout_name() {
    if constexpr (std::is_same_v<L, lp::aos>)
        return "aos";
    else if constexpr (std::is_same_v<L, lp::soa>)
        return "soa";
    else
        return "aosoa" + std::to_string(L::lanes);
}

struct Wide { // 256 bytes: a tile of 128 elements, so half the threads of a block have none
    std::array<float, 63> v;
    int id;
};

template <class T>
std::string type_name() {
    if constexpr (std::is_same_v<T, Particle>) return "Particle";
    if constexpr (std::is_same_v<T, Mixed>) return "Mixed";
    if constexpr (std::is_same_v<T, Bytes3>) return "Bytes3";
    if constexpr (std::is_same_v<T, Wide>) return "Wide";
    return "Padded";
}

/// Random values for every leaf of every element, from a fixed seed.
template <class T>
std::vector<T> random_elements(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<T> out(n);
    for (T& e : out) {
        std::memset(&e, 0, sizeof(T));
        [&]<std::size_t... L>(std::index_sequence<L...>) {
            auto fill = [&](auto& leaf) {
                using leaf_type = std::remove_reference_t<decltype(leaf)>;
                if constexpr (std::is_same_v<leaf_type, bool>)
                    leaf = (rng() & 1) != 0;
                else if constexpr (std::is_floating_point_v<leaf_type>)
                    leaf = std::uniform_real_distribution<leaf_type>(-1e3, 1e3)(rng);
                else
                    leaf = static_cast<leaf_type>(rng());
            };
            (fill(layout::detail::leaf_ref<L>(e)), ...);
        }(std::make_index_sequence<layout::leaf_count_v<T>>{});
    }
    return out;
}

/// n elements of T in layout L in device memory, poisoned with 0xFF.
template <class T, class L>
struct device_block {
    using map = layout::mapping<T, L>;
    std::size_t n, bytes;
    void* ptr = nullptr;

    explicit device_block(std::size_t count) : n(count), bytes(map::bytes(count)) {
        check_cuda(cudaMalloc(&ptr, bytes ? bytes : 1), "cudaMalloc");
        check_cuda(cudaMemset(ptr, 0xFF, bytes), "cudaMemset");
    }
    ~device_block() { cudaFree(ptr); }
    device_block(const device_block&) = delete;
    device_block& operator=(const device_block&) = delete;

    layout::view<T, L> view() const {
        return {layout::detail::storage<T, L>::from_block(ptr, n), n};
    }
    void upload(const std::vector<T>& values) {
        std::vector<std::byte> image(bytes + 128);
        std::byte* base = align(image);
        const layout::view<T, L> v(layout::detail::storage<T, L>::from_block(base, n), n);
        for (std::size_t i = 0; i < n; ++i) v[i] = values[i];
        check_cuda(cudaMemcpy(ptr, base, bytes, cudaMemcpyHostToDevice), "cudaMemcpy H2D");
    }
    static std::byte* align(std::vector<std::byte>& image) {
        const auto p = reinterpret_cast<std::uintptr_t>(image.data());
        return image.data() + ((128 - p % 128) % 128);
    }
};

/// Every leaf of every element equals the reference bit for bit, and every byte of the block
/// that belongs to no element's leaf is still poison (AoS owns its whole block, padding too).
template <class T, class L>
::testing::AssertionResult holds(const device_block<T, L>& block, const std::vector<T>& want) {
    using map = layout::mapping<T, L>;
    std::vector<std::byte> image(block.bytes + 128);
    std::byte* base = device_block<T, L>::align(image);
    if (cudaMemcpy(base, block.ptr, block.bytes, cudaMemcpyDeviceToHost) != cudaSuccess)
        return ::testing::AssertionFailure() << "cudaMemcpy D2H failed";
    const layout::view<T, L> v(layout::detail::storage<T, L>::from_block(base, block.n), block.n);
    std::vector<bool> owned(block.bytes, std::is_same_v<L, lp::aos>);
    for (std::size_t i = 0; i < block.n; ++i) {
        const auto cursor = v.storage().at(i);
        bool ok = true;
        std::size_t bad_leaf = 0;
        [&]<std::size_t... Leaf>(std::index_sequence<Leaf...>) {
            auto same = [&](std::size_t leaf, const auto& got, const auto& expected) {
                if (ok && std::memcmp(&got, &expected, sizeof got) != 0)
                    ok = false, bad_leaf = leaf;
            };
            (same(Leaf, cursor.template leaf<Leaf>(), layout::detail::leaf_ref<Leaf>(want[i])),
             ...);
        }(std::make_index_sequence<layout::leaf_count_v<T>>{});
        if (!ok)
            return ::testing::AssertionFailure()
                   << "element " << i << " of " << block.n << ", leaf " << bad_leaf << " differs";
        for (std::size_t l = 0; l < layout::leaf_count_v<T>; ++l)
            for (std::size_t k = 0; k < layout::detail::leaf_table<T>[l].size; ++k)
                owned[map::offset(i, l, block.n) + k] = true;
    }
    for (std::size_t b = 0; b < block.bytes; ++b)
        if (!owned[b] && base[b] != std::byte{0xFF})
            return ::testing::AssertionFailure()
                   << "byte " << b << " of the block belongs to no element but was written";
    return ::testing::AssertionSuccess();
}

// ---- every pair, round trip ---------------------------------------------------------------------

template <class T, class Dst, class Src>
struct conversion {
    using value_type = T;
    using dst_layout = Dst;
    using src_layout = Src;
    static std::string name() {
        return type_name<T>() + "_" + layout_name<Src>() + "_to_" + layout_name<Dst>();
    }
};

using layouts = std::tuple<lp::aos, lp::soa, lp::aosoa<32>, lp::aosoa<8>, lp::aosoa<3>>;

template <class T, class... L>
auto pairs_of(std::tuple<L...>) {
    auto row = []<class Dst>(std::type_identity<Dst>) {
        return std::tuple<conversion<T, Dst, L>...>{};
    };
    return std::tuple_cat(row(std::type_identity<L>{})...);
}
template <class... C>
auto as_gtest_types(std::tuple<C...>) -> ::testing::Types<C...>;

using all_conversions = decltype(as_gtest_types(std::tuple_cat(
    pairs_of<Particle>(layouts{}), pairs_of<Mixed>(layouts{}), pairs_of<Bytes3>(layouts{}))));

struct conversion_names {
    template <class C>
    static std::string GetName(int) {
        return C::name();
    }
};

template <class C>
class convert_pair : public gpu_test {};
TYPED_TEST_SUITE(convert_pair, all_conversions, conversion_names);

/// Src -> Dst -> Src on random data at each size, checking both results against the host.
template <class T, class Dst, class Src>
void round_trip(std::initializer_list<std::size_t> sizes) {
    for (std::size_t n : sizes) {
        SCOPED_TRACE((conversion<T, Dst, Src>::name() + ", n = " + std::to_string(n)));
        const std::vector<T> want = random_elements<T>(n, 1234u + unsigned(n));
        device_block<T, Src> src(n), back(n);
        device_block<T, Dst> dst(n);
        src.upload(want);

        layout::cuda::copy(src.view(), dst.view());
        ASSERT_TRUE(check_cuda(cudaDeviceSynchronize(), "convert src -> dst"));
        EXPECT_TRUE(holds(dst, want)) << "there";

        layout::cuda::copy(layout::view<const T, Dst>(dst.view()), back.view());
        ASSERT_TRUE(check_cuda(cudaDeviceSynchronize(), "convert dst -> src"));
        EXPECT_TRUE(holds(back, want)) << "and back";
    }
}

TYPED_TEST(convert_pair, round_trip_matches_host_reference) {
    round_trip<typename TypeParam::value_type, typename TypeParam::dst_layout,
               typename TypeParam::src_layout>({0, 1, 31, 32, 33, 1000, 100003});
}

// ---- the AoS side at every alignment the 16-, 4- and 1-byte paths cover ----------------------

template <class T, class Other>
void unaligned_aos_round_trip(std::size_t offset, std::size_t n) {
    SCOPED_TRACE(type_name<T>() + " at offset " + std::to_string(offset) +
                 ", n = " + std::to_string(n));
    const std::size_t guard = 64, bytes = n * sizeof(T);
    const std::vector<T> want = random_elements<T>(n, 99u);
    std::vector<std::byte> image(offset + bytes + guard, std::byte{0xAB});
    std::memcpy(image.data() + offset, want.data(), bytes);

    std::byte* raw = nullptr;
    ASSERT_TRUE(check_cuda(cudaMalloc(&raw, image.size()), "cudaMalloc"));
    ASSERT_TRUE(check_cuda(cudaMemcpy(raw, image.data(), image.size(), cudaMemcpyHostToDevice),
                           "cudaMemcpy"));
    const layout::view<T, lp::aos> aos(reinterpret_cast<T*>(raw + offset), n);
    device_block<T, Other> other(n);

    layout::cuda::copy(aos, other.view());
    ASSERT_TRUE(check_cuda(cudaDeviceSynchronize(), "aos -> other"));
    EXPECT_TRUE(holds(other, want));

    ASSERT_TRUE(check_cuda(cudaMemset(raw + offset, 0xFF, bytes), "cudaMemset"));
    layout::cuda::copy(layout::view<const T, Other>(other.view()), aos);
    ASSERT_TRUE(check_cuda(cudaDeviceSynchronize(), "other -> aos"));
    std::vector<std::byte> got(image.size());
    ASSERT_TRUE(
        check_cuda(cudaMemcpy(got.data(), raw, got.size(), cudaMemcpyDeviceToHost), "cudaMemcpy"));
    cudaFree(raw);
    EXPECT_EQ(std::memcmp(got.data() + offset, want.data(), bytes), 0) << "the elements";
    for (std::size_t b = 0; b < offset; ++b) ASSERT_EQ(got[b], std::byte{0xAB}) << "byte " << b;
    for (std::size_t b = offset + bytes; b < got.size(); ++b)
        ASSERT_EQ(got[b], std::byte{0xAB})
            << "guard byte " << b - offset - bytes << " past the end";
}

class convert_gpu : public gpu_test {};

TEST_F(convert_gpu, aos_side_at_any_alignment) {
    for (std::size_t n : {1, 17, 1000, 100003}) {
        unaligned_aos_round_trip<Particle, lp::soa>(4, n); // 4-byte pieces
        unaligned_aos_round_trip<Particle, lp::aosoa<32>>(36, n);
        unaligned_aos_round_trip<Mixed, lp::soa>(8, n);       // 4-byte pieces
        unaligned_aos_round_trip<Bytes3, lp::aosoa<8>>(1, n); // byte by byte
        unaligned_aos_round_trip<Bytes3, lp::soa>(16, n);     // 16-byte pieces, 3-byte elements
    }
}

TEST_F(convert_gpu, wide_struct_with_fewer_elements_per_tile_than_threads) {
    static_assert(layout::cuda::detail::tile_shape<Wide>::chunk == 128);
    round_trip<Wide, lp::soa, lp::aos>({1, 127, 128, 129, 1000});
    round_trip<Wide, lp::aos, lp::aosoa<3>>({1, 127, 128, 129, 1000});
}

TEST_F(convert_gpu, aos_padding_bytes_come_out_zero) {
    const std::size_t n = 1000;
    const std::vector<Padded> want = random_elements<Padded>(n, 7u); // padding zeroed on the host
    device_block<Padded, lp::soa> soa(n);
    device_block<Padded, lp::aos> aos(n); // poisoned: padding starts as 0xFF
    soa.upload(want);
    layout::cuda::copy(layout::view<const Padded, lp::soa>(soa.view()), aos.view());
    ASSERT_TRUE(check_cuda(cudaDeviceSynchronize(), "soa -> aos"));
    std::vector<Padded> got(n);
    ASSERT_TRUE(check_cuda(cudaMemcpy(got.data(), aos.ptr, aos.bytes, cudaMemcpyDeviceToHost),
                           "cudaMemcpy"));
    EXPECT_EQ(std::memcmp(got.data(), want.data(), aos.bytes), 0);
}

// ---- past 2^31 elements: no 32-bit index may wrap ---------------------------------------------

// Two one-byte leaves: a one-member struct does not compile under nvcc with Boost 1.81's PFR.
struct Bytes2 {
    std::uint8_t lo, hi;
};

__device__ std::uint8_t pattern(std::size_t i) {
    return static_cast<std::uint8_t>((i * 0x9E3779B97F4A7C15ull) >> 56);
}
__global__ void fill_pattern(Bytes2* p, std::size_t n) {
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        p[i] = {pattern(i), pattern(~i)};
}
template <class L>
__global__ void count_mismatches(layout::view<const Bytes2, L> v, unsigned long long* bad) {
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < v.size();
         i += std::size_t(gridDim.x) * blockDim.x) {
        const auto e = v.storage().at(i);
        if (e.template leaf<0>() != pattern(i) || e.template leaf<1>() != pattern(~i))
            atomicAdd(bad, 1ull);
    }
}

TEST_F(convert_gpu, more_than_2_to_the_31_elements) {
    const std::size_t n = (std::size_t{1} << 31) + 1000;
    std::size_t free = 0, total = 0;
    ASSERT_TRUE(check_cuda(cudaMemGetInfo(&free, &total), "cudaMemGetInfo"));
    if (free < 3 * n * sizeof(Bytes2) + (std::size_t{1} << 28))
        GTEST_SKIP() << "needs " << 3 * n * sizeof(Bytes2) << " bytes of free device memory";

    device_block<Bytes2, lp::aos> aos(n), back(n);
    device_block<Bytes2, lp::aosoa<32>> blocks(n);
    unsigned long long* bad = nullptr;
    ASSERT_TRUE(check_cuda(cudaMallocManaged(&bad, sizeof *bad), "cudaMallocManaged"));
    *bad = 0;
    fill_pattern<<<4096, 256>>>(static_cast<Bytes2*>(aos.ptr), n);
    ASSERT_TRUE(check_cuda(cudaGetLastError(), "fill_pattern"));

    layout::cuda::copy(layout::view<const Bytes2, lp::aos>(aos.view()), blocks.view());
    layout::cuda::copy(layout::view<const Bytes2, lp::aosoa<32>>(blocks.view()), back.view());
    count_mismatches<<<4096, 256>>>(layout::view<const Bytes2, lp::aosoa<32>>(blocks.view()), bad);
    count_mismatches<<<4096, 256>>>(layout::view<const Bytes2, lp::aos>(back.view()), bad);
    ASSERT_TRUE(check_cuda(cudaDeviceSynchronize(), "convert and count"));
    EXPECT_EQ(*bad, 0u);
    cudaFree(bad);
}

// ---- member alignas: the leaves at the compiler's offsets ---------------------------------------

struct AlignedMember { // b moved from 4 to 8 by its alignas: bytes 1-7 are padding
    char a;
    alignas(8) float b;
    double c;
};
struct AlignedShort { // an over-aligned small leaf in the middle, tail padding to 32
    float x;
    alignas(16) short s;
    char t;
};
static_assert(layout::detail::leaf_table<AlignedMember>[1].offset == offsetof(AlignedMember, b));
static_assert(layout::detail::leaf_table<AlignedMember>[2].offset == offsetof(AlignedMember, c));
static_assert(layout::detail::leaf_table<AlignedShort>[1].offset == offsetof(AlignedShort, s));
static_assert(layout::detail::leaf_table<AlignedShort>[2].offset == offsetof(AlignedShort, t));

/// The host conversion of want into layout L, in a block poisoned like a device_block's: the
/// byte image the device conversion must produce.
template <class T, class L>
std::vector<std::byte> host_image(const std::vector<T>& want, std::vector<std::byte>& storage) {
    const std::size_t n = want.size(), bytes = layout::mapping<T, L>::bytes(n);
    storage.assign(bytes + 128, std::byte{0xFF});
    std::byte* base = device_block<T, L>::align(storage);
    const layout::view<T, L> v(layout::detail::storage<T, L>::from_block(base, n), n);
    layout::copy(layout::view<const T, lp::aos>(want.data(), n), v);
    return std::vector<std::byte>(base, base + bytes);
}

template <class T, class L>
::testing::AssertionResult same_bytes_as_host(const device_block<T, L>& block,
                                              const std::vector<T>& want) {
    std::vector<std::byte> scratch;
    const std::vector<std::byte> expected = host_image<T, L>(want, scratch);
    std::vector<std::byte> got(block.bytes);
    if (cudaMemcpy(got.data(), block.ptr, block.bytes, cudaMemcpyDeviceToHost) != cudaSuccess)
        return ::testing::AssertionFailure() << "cudaMemcpy D2H failed";
    if constexpr (std::is_same_v<L, lp::aos>) { // padding: whatever the AoS source had
        const layout::view<const T, L> v(reinterpret_cast<const T*>(got.data()), want.size());
        for (std::size_t i = 0; i < want.size(); ++i)
            if (!(v[i] == want[i]))
                return ::testing::AssertionFailure() << "element " << i << " differs";
    } else {
        for (std::size_t b = 0; b < got.size(); ++b)
            if (got[b] != expected[b])
                return ::testing::AssertionFailure() << "byte " << b << " of " << got.size()
                                                     << " differs from the host conversion";
    }
    return ::testing::AssertionSuccess();
}

/// AoS -> SoA -> AoSoA<32> -> AoSoA<3> -> AoS on the device, each stage against the host.
template <class T>
void aligned_chain(std::size_t n) {
    SCOPED_TRACE(std::string(std::is_same_v<T, AlignedMember> ? "AlignedMember" : "AlignedShort") +
                 ", n = " + std::to_string(n));
    const std::vector<T> want = random_elements<T>(n, 99u + unsigned(n));
    device_block<T, lp::aos> aos(n), back(n);
    device_block<T, lp::soa> soa(n);
    device_block<T, lp::aosoa<32>> blocks(n);
    device_block<T, lp::aosoa<3>> threes(n);
    aos.upload(want);
    layout::cuda::copy(layout::view<const T, lp::aos>(aos.view()), soa.view());
    layout::cuda::copy(layout::view<const T, lp::soa>(soa.view()), blocks.view());
    layout::cuda::copy(layout::view<const T, lp::aosoa<32>>(blocks.view()), threes.view());
    layout::cuda::copy(layout::view<const T, lp::aosoa<3>>(threes.view()), back.view());
    ASSERT_TRUE(check_cuda(cudaDeviceSynchronize(), "the conversions"));
    EXPECT_TRUE(holds(soa, want)) << "soa";
    EXPECT_TRUE(holds(blocks, want)) << "aosoa32";
    EXPECT_TRUE(holds(threes, want)) << "aosoa3";
    EXPECT_TRUE(holds(back, want)) << "back to aos";
    EXPECT_TRUE(same_bytes_as_host(soa, want)) << "soa";
    EXPECT_TRUE(same_bytes_as_host(blocks, want)) << "aosoa32";
    EXPECT_TRUE(same_bytes_as_host(threes, want)) << "aosoa3";
    EXPECT_TRUE(same_bytes_as_host(back, want)) << "back to aos";
}

TEST_F(convert_gpu, alignas_members_convert_like_the_host) {
    for (std::size_t n : {1u, 33u, 1000u, 100003u}) {
        aligned_chain<AlignedMember>(n);
        aligned_chain<AlignedShort>(n);
    }
}

// ---- overlapping views: the result is the old source, as with memmove ---------------------------

/// A view of n elements of T in layout L starting at element `first` of a block of capacity
/// `capacity` (SoA: each column shifted; AoS: the pointer; AoSoA: first must be whole blocks).
template <class T, class L>
layout::view<T, L> sub_view(void* block, std::size_t capacity, std::size_t first, std::size_t n) {
    auto s = layout::detail::storage<T, L>::from_block(block, capacity);
    if constexpr (std::is_same_v<L, lp::soa>) {
        for (std::size_t l = 0; l < layout::leaf_count_v<T>; ++l)
            s.columns[l] = static_cast<std::byte*>(s.columns[l]) +
                           first * layout::detail::leaf_table<T>[l].size;
    } else if constexpr (std::is_same_v<L, lp::aos>) {
        s.data += first;
    } else {
        s.data += first / L::lanes * layout::mapping<T, L>::block_bytes;
    }
    return {s, n};
}

/// Elements [0, v.size()) of a view into block (bytes long, on the device), read on the host.
template <class T, class L>
std::vector<T> download(const layout::view<T, L>& v, const void* block, std::size_t bytes) {
    std::vector<std::byte> image(bytes + 128);
    std::byte* base = device_block<T, L>::align(image);
    check_cuda(cudaMemcpy(base, block, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
    auto s = v.storage();
    const auto moved = [&](auto* p) {
        using P = decltype(p);
        return reinterpret_cast<P>(
            base + (reinterpret_cast<const std::byte*>(p) - static_cast<const std::byte*>(block)));
    };
    if constexpr (std::is_same_v<L, lp::soa>)
        for (auto& column : s.columns) column = moved(column);
    else
        s.data = moved(s.data);
    const layout::view<T, L> host(s, v.size());
    std::vector<T> out;
    for (std::size_t i = 0; i < v.size(); ++i) out.push_back(host[i]);
    return out;
}

template <class T>
::testing::AssertionResult same_elements(const std::vector<T>& got, const std::vector<T>& want) {
    if (got.size() != want.size()) return ::testing::AssertionFailure() << "sizes differ";
    for (std::size_t i = 0; i < want.size(); ++i)
        if (!(layout::view<const T, lp::aos>(got.data(), got.size())[i] == want[i]))
            return ::testing::AssertionFailure() << "element " << i << " differs";
    return ::testing::AssertionSuccess();
}

/// One layout, src = [0, n) and dst = [shift, shift + n) of one block, both directions.
template <class T, class L>
void same_layout_overlap(std::size_t n, std::size_t shift) {
    SCOPED_TRACE(layout_name<L>() + ", n = " + std::to_string(n) + ", shift " +
                 std::to_string(shift));
    const std::size_t capacity = n + shift;
    const std::vector<T> all = random_elements<T>(capacity, 5u + unsigned(n + shift));
    for (const bool forward : {true, false}) {
        device_block<T, L> block(capacity);
        block.upload(all);
        const std::size_t from = forward ? 0 : shift, to = forward ? shift : 0;
        const auto src = sub_view<T, L>(block.ptr, capacity, from, n);
        const auto dst = sub_view<T, L>(block.ptr, capacity, to, n);
        layout::cuda::copy(layout::view<const T, L>(src), dst);
        ASSERT_TRUE(check_cuda(cudaDeviceSynchronize(), "overlapping convert"));
        std::vector<T> want = all; // the model: memmove
        std::copy(all.begin() + long(from), all.begin() + long(from + n), want.begin() + long(to));
        const auto whole = sub_view<T, L>(block.ptr, capacity, 0, capacity);
        EXPECT_TRUE(same_elements(download(whole, block.ptr, block.bytes), want))
            << (forward ? "forward" : "backward");
    }
}

TEST_F(convert_gpu, overlapping_views_of_one_layout_move_like_memmove) {
    for (std::size_t n : {40u, 1000u, 100003u}) {
        same_layout_overlap<Mixed, lp::aos>(n, 1);
        same_layout_overlap<Mixed, lp::aos>(n, 17);
        same_layout_overlap<Mixed, lp::soa>(n, 1);
        same_layout_overlap<Mixed, lp::soa>(n, 33);
        same_layout_overlap<Mixed, lp::aosoa<32>>(n, 32);
        same_layout_overlap<Mixed, lp::aosoa<3>>(n, 3);
    }
    same_layout_overlap<Particle, lp::aosoa<8>>(1003, 8 * 7);
}

/// Src and Dst layouts over the same bytes: dst must hold the old src, which the conversion
/// reads from a copy (in place, later elements of src would be overwritten first).
template <class T, class Dst, class Src>
void cross_layout_overlap(std::size_t n) {
    SCOPED_TRACE(layout_name<Src>() + " -> " + layout_name<Dst>() +
                 " over the same bytes, n = " + std::to_string(n));
    const std::vector<T> want = random_elements<T>(n, 77u + unsigned(n));
    const std::size_t bytes =
        std::max(layout::mapping<T, Src>::bytes(n + 32), layout::mapping<T, Dst>::bytes(n + 32));
    void* block = nullptr;
    ASSERT_TRUE(check_cuda(cudaMalloc(&block, bytes), "cudaMalloc"));
    // Defined bytes between and after the elements: download() copies the whole block.
    ASSERT_TRUE(check_cuda(cudaMemset(block, 0xFF, bytes), "cudaMemset"));
    {
        device_block<T, Src> staged(n);
        staged.upload(want);
        const layout::view<T, Src> src(layout::detail::storage<T, Src>::from_block(block, n), n);
        layout::cuda::copy(layout::view<const T, Src>(staged.view()), src); // no overlap
        const layout::view<T, Dst> dst(layout::detail::storage<T, Dst>::from_block(block, n), n);
        layout::cuda::copy(layout::view<const T, Src>(src), dst);
        ASSERT_TRUE(check_cuda(cudaDeviceSynchronize(), "overlapping convert"));
        EXPECT_TRUE(same_elements(download(dst, block, bytes), want));
    }
    cudaFree(block);
}

TEST_F(convert_gpu, overlapping_views_of_two_layouts_convert_through_a_copy) {
    for (std::size_t n : {1u, 33u, 1000u, 100003u}) {
        cross_layout_overlap<Mixed, lp::soa, lp::aos>(n);
        cross_layout_overlap<Mixed, lp::aos, lp::soa>(n);
        cross_layout_overlap<Mixed, lp::aosoa<32>, lp::aos>(n);
        cross_layout_overlap<Mixed, lp::aos, lp::aosoa<32>>(n);
        cross_layout_overlap<Particle, lp::aosoa<8>, lp::soa>(n);
        cross_layout_overlap<Particle, lp::soa, lp::aosoa<3>>(n);
    }
}

// ---- errors -----------------------------------------------------------------------------------

// No device needed: the sizes are compared before anything reaches CUDA.
TEST(convert, size_mismatch_throws_length_error) {
    const layout::view<Particle, lp::soa> dst{};
    const layout::view<const Particle, lp::aos> src(nullptr, 3);
    try {
        layout::cuda::copy(src, dst);
        FAIL() << "no exception";
    } catch (const std::length_error& e) {
        EXPECT_NE(std::string(e.what()).find("size mismatch"), std::string::npos) << e.what();
    }
}

} // namespace
