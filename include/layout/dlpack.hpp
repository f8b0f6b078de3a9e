/// \file dlpack.hpp
/// One column as a DLPack tensor, without a copy: what NumPy (numpy.from_dlpack), CuPy and
/// PyTorch take through the Python DLPack protocol, and C libraries take as a DLManagedTensor*.
///
///     layout::soa_vector<Particle> p(n);                  // Particle is 8 floats
///     DLManagedTensor* t = layout::to_dlpack(p.column<&Particle::x>());
///     // t->dl_tensor: data == p.column<&Particle::x>().data(), ndim 1, shape {n},
///     //               strides {1} (aos_vector: {8}), dtype {kDLFloat, 32, 1}, device {kDLCPU, 0}
///     t->deleter(t);                                      // once, by whoever consumed it
///
///     auto owned = std::make_shared<layout::aos_vector<Particle>>(n);
///     DLManagedTensor* u = layout::to_dlpack(owned->column<&Particle::x>(), owned);
///     owned.reset();                                      // u still holds the container
///
/// | column of       | shape | strides (in values, as DLPack counts)                     |
/// |-----------------|-------|-----------------------------------------------------------|
/// | soa             | {n}   | {1}                                                       |
/// | aos             | {n}   | {sizeof(T) / sizeof(leaf)}; refused where that is no whole |
/// |                 |       | number (a packed struct): DLPack strides count values     |
/// | aosoa<N>, split | -     | not one stride (blocks, parts): refused at compile time   |
///
/// The tensor is DLPack 0.8's DLManagedTensor (the "dltensor" capsule of the Python protocol).
/// The structs are declared here from the specification, unless <dlpack/dlpack.h> was included
/// first, whose definitions are then used; include it first if you use both.
///
/// Lifetime: to_dlpack(column) borrows (the container must outlive the tensor; the deleter frees
/// only the tensor's own shape and strides); to_dlpack(column, std::shared_ptr<Owner>) keeps the
/// owner alive until the deleter runs. The consumer calls the deleter exactly once.
///
/// Device: the memory space of the container or view says it (host_memory: kDLCPU; device,
/// pinned and managed memory: kDLCUDA, kDLCUDAHost, kDLCUDAManaged, the device id from the CUDA
/// runtime, so under nvcc only); without one, nvcc asks the CUDA runtime about the pointer and
/// plain C++ takes it for host memory. to_dlpack(column, DLDevice) says it yourself.
/// DLPack 0.8 has no read-only flag: a column of const elements is exported all the same.
#pragma once

#include "column.hpp"
#include "config.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <type_traits>

#if defined(__CUDACC__)
#  include <cuda_runtime.h>
#endif

// ---- The DLPack 0.8 ABI (written from the specification), unless dlpack.h came first --------

#if !defined(DLPACK_EXTERN_C) && !defined(DLPACK_VERSION) && !defined(DLPACK_DLPACK_H_)
// A later #include <dlpack/dlpack.h> is then skipped (its include guard), rather than a second
// definition of every struct.
#  define DLPACK_DLPACK_H_

#  ifdef __cplusplus
extern "C" {
#  endif

/// Where a tensor's memory is. Values are the ABI; only those layout produces are used.
typedef enum {
    kDLCPU = 1,
    kDLCUDA = 2,
    kDLCUDAHost = 3,
    kDLOpenCL = 4,
    kDLVulkan = 7,
    kDLMetal = 8,
    kDLVPI = 9,
    kDLROCM = 10,
    kDLROCMHost = 11,
    kDLExtDev = 12,
    kDLCUDAManaged = 13,
    kDLOneAPI = 14,
    kDLWebGPU = 15,
    kDLHexagon = 16,
} DLDeviceType;

typedef struct {
    DLDeviceType device_type;
    int32_t device_id;
} DLDevice;

typedef enum {
    kDLInt = 0U,
    kDLUInt = 1U,
    kDLFloat = 2U,
    kDLOpaqueHandle = 3U,
    kDLBfloat = 4U,
    kDLComplex = 5U,
    kDLBool = 6U,
} DLDataTypeCode;

/// code (DLDataTypeCode), bits per lane, lanes (1: a scalar).
typedef struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

/// Element (i) of a 1-D tensor is at (char*)data + byte_offset + i * strides[0] * bits / 8.
typedef struct {
    void* data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t* shape;
    int64_t* strides; // in elements, not bytes
    uint64_t byte_offset;
} DLTensor;

/// A tensor and what keeps it alive: deleter(self) releases manager_ctx (and self).
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void* manager_ctx;
    void (*deleter)(struct DLManagedTensor* self);
} DLManagedTensor;

#  ifdef __cplusplus
} // extern "C"
#  endif
#endif

namespace layout {

template <class T, class Layout, class Memory>
class vector; // vector.hpp; named here only to recognize an owner that is a container

namespace detail {
/// A column's view type and leaf index (is: false for anything else).
template <class C>
struct column_parts {
    static constexpr bool is = false;
};
template <class View, std::size_t Leaf>
struct column_parts<column<View, Leaf>> {
    static constexpr bool is = true;
    using view_type = View;
    static constexpr std::size_t leaf = Leaf;
};
template <class C>
inline constexpr bool is_column_v = column_parts<C>::is;

template <class C>
inline constexpr bool is_layout_vector_v = false;
template <class T, class L, class M>
inline constexpr bool is_layout_vector_v<vector<T, L, M>> = true;

template <class E>
constexpr DLDataType dlpack_dtype_of() {
    using V = std::remove_cv_t<E>;
    static_assert(std::is_arithmetic_v<V> && (std::is_integral_v<V> || std::is_same_v<V, float> ||
                                              std::is_same_v<V, double>),
                  "layout: to_dlpack: DLPack has no type for this leaf; columns of float, double, "
                  "bool and integers of 8 to 64 bits are exported (read other leaves through the "
                  "column itself)");
    static_assert(!std::is_integral_v<V> || sizeof(V) <= 8,
                  "layout: to_dlpack: integers wider than 64 bits have no DLPack type");
    std::uint8_t code = kDLFloat;
    if constexpr (std::is_same_v<V, bool>)
        code = 6; // kDLBool (DLPack 0.8): by number, for older dlpack.h that lack the name
    else if constexpr (std::is_integral_v<V>)
        code = std::is_signed_v<V> ? kDLInt : kDLUInt;
    return DLDataType{code, static_cast<std::uint8_t>(8 * sizeof(V)), 1};
}

/// Where a pointer's memory is, as the CUDA runtime sees it (host memory it never saw: kDLCPU).
/// In plain C++ there is no runtime to ask: kDLCPU.
inline DLDevice dlpack_device_of_pointer(const void* p) {
#if defined(__CUDACC__)
    if (!p) return DLDevice{kDLCPU, 0};
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError(); // no device, or no driver: then it is host memory
        return DLDevice{kDLCPU, 0};
    }
    switch (a.type) {
    case cudaMemoryTypeDevice:
        return DLDevice{kDLCUDA, a.device};
    case cudaMemoryTypeManaged:
        return DLDevice{static_cast<DLDeviceType>(13), a.device};
    case cudaMemoryTypeHost:
        return DLDevice{kDLCUDAHost, 0};
    default:
        return DLDevice{kDLCPU, 0};
    }
#else
    (void)p;
    return DLDevice{kDLCPU, 0};
#endif
}

/// The device of a container of memory space M holding the pointer p (null: nothing allocated).
template <class M>
DLDevice dlpack_device_of_space(const void* p) {
    if constexpr (M::host_accessible && !M::device_accessible) {
        (void)p;
        return DLDevice{kDLCPU, 0};
    } else {
#if defined(__CUDACC__)
        if (p) return dlpack_device_of_pointer(p);
        // An empty container: its device is the one its blocks would come from.
        int device = 0;
        if (cudaGetDevice(&device) != cudaSuccess) (void)cudaGetLastError();
        if constexpr (!M::host_accessible)
            return DLDevice{kDLCUDA, device};
        else if constexpr (requires { requires M::device_resident; })
            return DLDevice{static_cast<DLDeviceType>(13), device}; // managed
        else
            return DLDevice{kDLCUDAHost, 0};
#else
        static_assert(sizeof(M) == 0,
                      "layout: to_dlpack: this container's memory is not plain host memory; "
                      "compile with nvcc (the CUDA runtime gives the device) or pass the DLDevice");
        return DLDevice{kDLCPU, 0};
#endif
    }
}

/// A column's device: its view's memory space says where that is known.
template <class Column>
DLDevice dlpack_device_of_column(const Column& c) {
    using View = typename column_parts<Column>::view_type;
    if constexpr (requires { typename View::memory_type; })
        return dlpack_device_of_space<typename View::memory_type>(c.data());
    else
        return dlpack_device_of_pointer(c.data());
}

/// What manager_ctx points to: the shape and strides the tensor points into, and the owner.
struct dlpack_state {
    DLManagedTensor tensor{};
    std::int64_t shape[1]{};
    std::int64_t strides[1]{};
    std::shared_ptr<const void> owner;
};

inline void dlpack_delete(DLManagedTensor* self) noexcept {
    if (self) delete static_cast<dlpack_state*>(self->manager_ctx);
}

/// Whether to_dlpack can export a Column; if not, fails to compile with the reason (once: the
/// callers compile nothing else for such a column).
template <class Column>
constexpr bool dlpack_exportable() {
    static_assert(is_column_v<Column>,
                  "layout: to_dlpack takes a column: c.column<&P::x>() of a container or view");
    if constexpr (is_column_v<Column>) {
        static_assert(Column::is_strided,
                      "layout: to_dlpack: this column is not one stride (AoSoA and split "
                      "columns jump between blocks or parts; an AoS leaf whose size does not "
                      "divide sizeof(T) has no stride in whole values, which DLPack counts): "
                      "copy into a layout::soa_vector and export its column");
        return Column::is_strided;
    } else {
        return false;
    }
}

/// The tensor of a column that dlpack_exportable accepted.
template <class Column>
DLManagedTensor* make_dlpack(const Column& c, DLDevice device) {
    using E = typename Column::element_type;
    auto* state = new dlpack_state;
    state->shape[0] = static_cast<std::int64_t>(c.size());
    state->strides[0] = static_cast<std::int64_t>(c.stride());
    DLTensor& t = state->tensor.dl_tensor;
    t.data = const_cast<std::remove_const_t<E>*>(c.data());
    t.device = device;
    t.ndim = 1;
    t.dtype = dlpack_dtype_of<E>();
    t.shape = state->shape;
    t.strides = state->strides;
    t.byte_offset = 0;
    state->tensor.manager_ctx = state;
    state->tensor.deleter = &dlpack_delete;
    return &state->tensor;
}
} // namespace detail

/// DLPack's type for values of E: float -> {kDLFloat, 32, 1}, std::int16_t -> {kDLInt, 16, 1},
/// bool -> {kDLBool, 8, 1}.
template <class E>
inline constexpr DLDataType dlpack_dtype = detail::dlpack_dtype_of<E>();

/// The column as a 1-D DLPack tensor on device, borrowing its memory: the caller keeps the
/// container alive until the tensor's deleter has run. Throws std::bad_alloc.
template <class Column>
DLManagedTensor* to_dlpack(const Column& c, DLDevice device) {
    if constexpr (!detail::dlpack_exportable<Column>()) {
        return nullptr;
    } else {
        return detail::make_dlpack(c, device);
    }
}

/// Same, the device found from the column's memory: its view's memory space where the view
/// has one (host_memory: kDLCPU), the CUDA runtime under nvcc (the device id, and where the
/// view says nothing, the kind of memory), else kDLCPU (pass the device for other memory).
template <class Column>
DLManagedTensor* to_dlpack(const Column& c) {
    if constexpr (!detail::dlpack_exportable<Column>())
        return nullptr;
    else
        return detail::make_dlpack(c, detail::dlpack_device_of_column(c));
}

/// The column as a DLPack tensor that keeps owner alive (a shared_ptr in manager_ctx, released
/// by the deleter). Where owner is a layout container, the column must be one of its own
/// (std::invalid_argument otherwise) and its memory space gives the device.
template <class Column, class Owner>
DLManagedTensor* to_dlpack(const Column& c, std::shared_ptr<Owner> owner) {
    if constexpr (!detail::dlpack_exportable<Column>()) {
        return nullptr;
    } else {
        DLDevice device{kDLCPU, 0};
        if constexpr (detail::is_layout_vector_v<std::remove_const_t<Owner>>) {
            using V = std::remove_const_t<Owner>;
            using View = typename detail::column_parts<Column>::view_type;
            static_assert(
                std::is_same_v<typename View::value_type, typename V::value_type> &&
                    std::is_same_v<typename View::layout_type, typename V::layout_type>,
                "layout: to_dlpack(column, owner): the column is not of the owner's element "
                "type and layout");
            if (!owner) throw std::invalid_argument("layout::to_dlpack: the owner is null");
            const auto own =
                owner->view().template leaf_column<detail::column_parts<Column>::leaf>();
            if (own.data() != c.data() || own.size() != c.size())
                throw std::invalid_argument("layout::to_dlpack: the column is not one of the "
                                            "owner's (another container's, or taken before "
                                            "the owner reallocated)");
            device = detail::dlpack_device_of_space<typename V::memory_type>(c.data());
        } else {
            device = detail::dlpack_device_of_column(c);
        }
        DLManagedTensor* t = detail::make_dlpack(c, device);
        static_cast<detail::dlpack_state*>(t->manager_ctx)->owner = std::move(owner);
        return t;
    }
}

/// Same, with the device given.
template <class Column, class Owner>
DLManagedTensor* to_dlpack(const Column& c, std::shared_ptr<Owner> owner, DLDevice device) {
    if constexpr (!detail::dlpack_exportable<Column>()) {
        return nullptr;
    } else {
        DLManagedTensor* t = detail::make_dlpack(c, device);
        static_cast<detail::dlpack_state*>(t->manager_ctx)->owner = std::move(owner);
        return t;
    }
}

} // namespace layout
