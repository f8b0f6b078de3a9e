/// \file io/hdf5.hpp
/// Particles to HDF5 and back, one dataset per leaf named by its path, in the openPMD 1.1.0
/// particle-species structure, from and into any layout. Link layout::hdf5 (HDF5's C API).
///
///     struct Vec3 { float x, y, z; };
///     struct P { Vec3 pos; Vec3 vel; float mass; std::uint64_t id; };
///     layout::aosoa<P, 32> p(n);
///     layout::hdf5::handle f = layout::hdf5::create_file("out.h5");
///     layout::hdf5::write(f, p, {.iteration = 100, .species = "electrons"});
///         // /data/100/particles/electrons/pos/x, .../pos/y, .../pos/z, .../vel/x, ...,
///         // /data/100/particles/electrons/mass (a scalar record), .../id
///     layout::hdf5::write(f, p.select<&P::pos, &P::id>(), {.iteration = 200, .species = "e"});
///     layout::soa_vector<P> back;
///     layout::hdf5::read(f, 100, "electrons", back);   // any layout; bit-exact
///     layout::cuda::aos_vector<P> dev(p, stream);      // device memory (nvcc), on a stream
///     layout::hdf5::write(f, dev, {.iteration = 300});  // staged through the host on stream
///     layout::hdf5::read(f, 300, "particles", dev);     // likewise; ordered on dev's stream
///
/// Each leaf "pos.x" is record "pos", component "x" (a group of datasets); a leaf with no
/// component ("mass") is a scalar record, a dataset. Deeper paths keep the rest as the
/// component's name: "pair[1].x" is record "pair", component "[1].x"; "vel[2]", "vel/[2]".
/// Attributes: openPMD's root ones (openPMD, openPMDextension, basePath, particlesPath,
/// iterationEncoding, iterationFormat), the iteration's (time, dt, timeUnitSI), each record's
/// (unitDimension, timeOffset) and each component's (unitSI), from write_options.
///
/// read() checks every leaf of the element type against the file before it changes anything:
/// a missing dataset, another type of element (class, size, sign) or another length than the
/// other datasets throws layout::hdf5::error naming the leaf and the dataset; the container is
/// left as it was (the data goes to a new container, moved in at the end). Datasets the type
/// does not have are ignored. Values are not converted: unitSI is written, not applied.
///
/// Device memory goes through host memory, ordered on a stream, because HDF5 reads and writes
/// host memory only. A device container is staged on its own stream: write() copies it into a
/// host SoA container (converted on the GPU; the copy waits for that stream alone, so work
/// queued on it, on a cudaStreamNonBlocking stream too, is in the file); read() reads the file
/// into a host SoA container (straight into its columns) and assigns it, one copy on the
/// container's stream that the GPU converts, so later work on that stream sees the elements. A
/// view or a selection of device memory knows no stream: it is staged on write_options::stream
/// (the default stream unless given; only its chosen fields cross). Pinned and managed
/// containers are written by the host from where they are: finish the device work on them
/// first, as before any host access. Serial HDF5: MPI ranks write one file each (or one group
/// each, passing a group for the file).
#pragma once

#include "../backend.hpp"
#include "../config.hpp"
#include "../memory_resource.hpp"
#include "../names.hpp"
#include "../policies.hpp"
#include "../reflect.hpp"
#include "../selection.hpp"
#include "../vector.hpp"
#include "../view.hpp"

#include <hdf5.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <future>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace layout::hdf5 {

/// What read() and write() throw: the operation, the dataset or attribute, and what was wrong.
class error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// An HDF5 identifier, closed with the function of its kind (file, group, dataset, ...) when the
/// handle goes. Converts to hid_t, so it passes to the C API and to read() and write().
class handle {
public:
    handle() = default;
    explicit handle(hid_t id) noexcept : id_(id) {}
    handle(const handle&) = delete;
    handle& operator=(const handle&) = delete;
    handle(handle&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)) {}
    handle& operator=(handle&& other) noexcept {
        handle(std::move(other)).swap(*this);
        return *this;
    }
    ~handle() { close(); }

    hid_t get() const noexcept { return id_; }
    operator hid_t() const noexcept { return id_; }
    explicit operator bool() const noexcept { return id_ >= 0; }
    hid_t release() noexcept { return std::exchange(id_, H5I_INVALID_HID); }
    void swap(handle& other) noexcept { std::swap(id_, other.id_); }

    void close() noexcept {
        if (id_ < 0) return;
        switch (H5Iget_type(id_)) {
        case H5I_FILE:
            H5Fclose(id_);
            break;
        case H5I_GROUP:
            H5Gclose(id_);
            break;
        case H5I_DATASET:
            H5Dclose(id_);
            break;
        case H5I_DATASPACE:
            H5Sclose(id_);
            break;
        case H5I_DATATYPE:
            H5Tclose(id_);
            break;
        case H5I_ATTR:
            H5Aclose(id_);
            break;
        case H5I_GENPROP_LST:
            H5Pclose(id_);
            break;
        default:
            break;
        }
        id_ = H5I_INVALID_HID;
    }

private:
    hid_t id_ = H5I_INVALID_HID;
};

namespace detail {

/// Turns HDF5's printing of its error stack off while layout works (the errors become
/// layout::hdf5::error instead), and back on after.
class quiet_errors {
public:
    quiet_errors() noexcept {
        H5Eget_auto2(H5E_DEFAULT, &function_, &data_);
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    }
    quiet_errors(const quiet_errors&) = delete;
    quiet_errors& operator=(const quiet_errors&) = delete;
    ~quiet_errors() { H5Eset_auto2(H5E_DEFAULT, function_, data_); }

private:
    H5E_auto2_t function_ = nullptr;
    void* data_ = nullptr;
};

[[noreturn]] inline void fail(std::string_view what, std::string_view where, std::string_view why) {
    throw error("layout::hdf5::" + std::string(what) + ": " + std::string(where) + ": " +
                std::string(why));
}
inline hid_t checked(hid_t id, std::string_view what, std::string_view where,
                     std::string_view call) {
    if (id < 0) fail(what, where, std::string(call) + " failed");
    return id;
}
inline void checked_status(herr_t status, std::string_view what, std::string_view where,
                           std::string_view call) {
    if (status < 0) fail(what, where, std::string(call) + " failed");
}

// ---- Types of leaves ----------------------------------------------------------------------

template <class E>
constexpr bool storable_leaf() {
    return std::is_arithmetic_v<E> || std::is_enum_v<E>;
}

/// The HDF5 type of a leaf in memory: native floats and integers by size and sign; bool as
/// h5py and NumPy store it (an enum of int8, FALSE = 0, TRUE = 1); an enum as its integer.
template <class E>
handle memory_type() {
    if constexpr (std::is_enum_v<E>) {
        return memory_type<std::underlying_type_t<E>>();
    } else if constexpr (std::is_same_v<E, bool>) {
        static_assert(sizeof(bool) == 1, "layout: hdf5: bool leaves need a 1-byte bool");
        handle t(H5Tenum_create(H5T_NATIVE_INT8));
        signed char v = 0;
        H5Tenum_insert(t, "FALSE", &v);
        v = 1;
        H5Tenum_insert(t, "TRUE", &v);
        return t;
    } else if constexpr (std::is_floating_point_v<E>) {
        if constexpr (sizeof(E) == sizeof(float))
            return handle(H5Tcopy(H5T_NATIVE_FLOAT));
        else if constexpr (sizeof(E) == sizeof(double))
            return handle(H5Tcopy(H5T_NATIVE_DOUBLE));
        else
            return handle(H5Tcopy(H5T_NATIVE_LDOUBLE));
    } else {
        static_assert(std::is_integral_v<E>);
        constexpr bool s = std::is_signed_v<E>;
        if constexpr (sizeof(E) == 1)
            return handle(H5Tcopy(s ? H5T_NATIVE_INT8 : H5T_NATIVE_UINT8));
        else if constexpr (sizeof(E) == 2)
            return handle(H5Tcopy(s ? H5T_NATIVE_INT16 : H5T_NATIVE_UINT16));
        else if constexpr (sizeof(E) == 4)
            return handle(H5Tcopy(s ? H5T_NATIVE_INT32 : H5T_NATIVE_UINT32));
        else
            return handle(H5Tcopy(s ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64));
    }
}

/// "float32", "int64", "bool": what a leaf or a file's dataset holds, for messages.
inline std::string describe_type(hid_t type) {
    const std::size_t size = H5Tget_size(type);
    switch (H5Tget_class(type)) {
    case H5T_FLOAT:
        return "float" + std::to_string(8 * size);
    case H5T_INTEGER:
        return (H5Tget_sign(type) == H5T_SGN_NONE ? "uint" : "int") + std::to_string(8 * size);
    case H5T_ENUM:
        return "enum of " + std::to_string(size) + " bytes";
    case H5T_STRING:
        return "string";
    case H5T_COMPOUND:
        return "compound";
    default:
        return "a type of class " + std::to_string(static_cast<int>(H5Tget_class(type)));
    }
}

/// Whether a dataset's type holds leaf values of type E exactly (byte order aside: HDF5 swaps
/// it on reading): same class, size and sign. A bool leaf takes h5py's bool enum or a 1-byte
/// integer.
template <class E>
bool same_kind(hid_t file_type) {
    handle mine = memory_type<E>();
    const H5T_class_t c = H5Tget_class(file_type);
    if (H5Tget_size(file_type) != H5Tget_size(mine)) return false;
    if constexpr (std::is_same_v<E, bool>) {
        if (c == H5T_ENUM) {
            handle base(H5Tget_super(file_type));
            return H5Tget_class(base) == H5T_INTEGER;
        }
        return c == H5T_INTEGER;
    } else if constexpr (std::is_floating_point_v<E>) {
        return c == H5T_FLOAT;
    } else {
        return c == H5T_INTEGER && H5Tget_sign(file_type) == H5Tget_sign(mine);
    }
}

// ---- Attributes and groups ------------------------------------------------------------------

/// Writes attribute name on obj, replacing one already there.
inline void put_attribute(hid_t obj, const char* name, hid_t type, hid_t space, const void* value,
                          std::string_view where) {
    if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
    handle a(checked(H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT), "write", where,
                     std::string("H5Acreate2 of attribute ") + name));
    checked_status(H5Awrite(a, type, value), "write", where,
                   std::string("H5Awrite of attribute ") + name);
}
inline void put_string(hid_t obj, const char* name, std::string_view value,
                       std::string_view where) {
    handle type(H5Tcopy(H5T_C_S1));
    H5Tset_size(type, std::max<std::size_t>(value.size(), 1));
    H5Tset_strpad(type, H5T_STR_NULLPAD);
    handle space(H5Screate(H5S_SCALAR));
    std::string padded(value);
    padded.resize(std::max<std::size_t>(value.size(), 1), '\0');
    put_attribute(obj, name, type, space, padded.data(), where);
}
template <class V>
void put_scalar(hid_t obj, const char* name, V value, std::string_view where) {
    handle type = memory_type<V>();
    handle space(H5Screate(H5S_SCALAR));
    put_attribute(obj, name, type, space, &value, where);
}
template <class V, std::size_t N>
void put_array(hid_t obj, const char* name, const std::array<V, N>& value, std::string_view where) {
    handle type = memory_type<V>();
    const hsize_t dims[1] = {N};
    handle space(H5Screate_simple(1, dims, nullptr));
    put_attribute(obj, name, type, space, value.data(), where);
}

/// Group name under parent, opened, or created where absent.
inline handle open_or_create_group(hid_t parent, const std::string& name, std::string_view where) {
    if (H5Lexists(parent, name.c_str(), H5P_DEFAULT) > 0)
        return handle(
            checked(H5Gopen2(parent, name.c_str(), H5P_DEFAULT), "write", where, "H5Gopen2"));
    return handle(checked(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                          "write", where, "H5Gcreate2"));
}

/// The object at a path of names below parent, or an invalid handle where one is missing (or
/// is not of the kind asked for).
inline handle open_path(hid_t parent, const std::vector<std::string>& names, H5I_type_t kind) {
    handle current;
    hid_t at = parent;
    for (std::size_t k = 0; k < names.size(); ++k) {
        if (H5Lexists(at, names[k].c_str(), H5P_DEFAULT) <= 0) return {};
        handle next(H5Oopen(at, names[k].c_str(), H5P_DEFAULT));
        if (!next) return {};
        const H5I_type_t type = H5Iget_type(next);
        if (k + 1 < names.size() ? type != H5I_GROUP : type != kind) return {};
        current = std::move(next);
        at = current;
    }
    return current;
}

// ---- What is written: the leaves of a view or a selection -----------------------------------

/// Where a leaf goes: record "pos" and component "x" (empty for a scalar record).
struct leaf_place {
    std::string_view record;
    std::string_view component;
};
inline leaf_place place_of(std::string_view leaf_name) {
    const std::size_t cut = leaf_name.find_first_of(".[");
    if (cut == std::string_view::npos) return {leaf_name, {}};
    std::string_view rest = leaf_name.substr(cut);
    if (rest.front() == '.') rest.remove_prefix(1);
    return {leaf_name.substr(0, cut), rest};
}

template <class S>
struct source_traits; // S: a view or a selection of host memory

template <class V>
    requires requires {
        typename V::storage_type;
        typename V::layout_type;
    }
struct source_traits<V> {
    using T = typename V::value_type;
    static constexpr auto leaves = [] {
        std::array<std::size_t, leaf_count_v<T>> all{};
        for (std::size_t l = 0; l < all.size(); ++l) all[l] = l;
        return all;
    }();
    static constexpr bool contiguous = layout::detail::contiguous_columns_v<V>;
    static constexpr std::size_t leaf_run = mapping<T, typename V::layout_type>::leaf_run;
};
template <class View, auto... Keys>
struct source_traits<selection<View, Keys...>> {
    using T = typename View::value_type;
    static constexpr auto leaves = selection<View, Keys...>::leaves;
    static constexpr bool contiguous = layout::detail::contiguous_columns_v<View>;
    static constexpr std::size_t leaf_run = mapping<T, typename View::layout_type>::leaf_run;
};

template <class S>
constexpr bool host_source() {
    if constexpr (requires { typename S::memory_type; })
        return host_accessible_v<typename S::memory_type>;
    else
        return true; // views without a memory space are host views
}

/// The elements moved per H5Dwrite / H5Dread where a leaf is not one contiguous column: a block
/// of 64Ki elements (2 MiB of 32-byte elements) and its transposed copy stay in cache while one
/// is turned into the other, and each HDF5 call moves enough to cost little per byte.
inline constexpr std::size_t default_chunk = std::size_t{1} << 16;

/// Elements per block of the scatter from leaf buffers into a layout without runs (AoS, split):
/// about 4 KiB of elements, which stay in L1 while each leaf is stored into them.
template <class T>
inline constexpr std::size_t scatter_block = std::clamp<std::size_t>(4096 / sizeof(T), 16, 256);

/// Moves elements [first, first + count) of a storage to or from one buffer per leaf (out[k]:
/// leaf Leaves[k] of those elements, contiguous). Where the layout keeps a leaf's values in runs
/// (AoSoA: LeafRun lanes) and first is at a run's start, run by run (memcpy); otherwise:
/// - into the buffers, element by element, every leaf of an element at once, so that the
///   elements are read once, in order;
/// - out of them, a block of scatter_block<T> elements at a time, leaf by leaf: each buffer is
///   read in order (vector loads) and its values stored at the element stride into the block,
///   which stays in L1 until every leaf is in. 2.4x the speed of element by element for 32-byte
///   elements (0.067 s against 0.160 s for 1 GB into mapped memory, bench/results/
///   local-2026-11-27/hdf5.md), where storing 8 leaves of an element from 8 streams was slower.
template <bool ToBuffers, class T, auto Leaves, class Storage, class... E>
void transpose_elements(const Storage& storage, std::size_t first, std::size_t count,
                        E* LAYOUT_RESTRICT... buffer) {
    // Restrict: the buffers alias neither each other nor the container, so that the compiler
    // may keep an element's leaves in registers (and vectorize) across the stores.
    if constexpr (ToBuffers) {
        for (std::size_t i = 0; i < count; ++i) {
            const auto cursor = storage.at(first + i);
            [&]<std::size_t... K>(std::index_sequence<K...>) {
                ((buffer[i] = cursor.template leaf<Leaves[K]>()), ...);
            }(std::make_index_sequence<sizeof...(E)>{});
        }
    } else {
        constexpr std::size_t block = scatter_block<T>;
        const std::tuple<E*...> buffers(buffer...);
        for (std::size_t i0 = 0; i0 < count; i0 += block) {
            const std::size_t m = std::min(block, count - i0);
            [&]<std::size_t... K>(std::index_sequence<K...>) {
                (
                    [&] {
                        using leaf = std::tuple_element_t<K, std::tuple<E...>>;
                        const leaf* LAYOUT_RESTRICT from = std::get<K>(buffers) + i0;
                        for (std::size_t i = 0; i < m; ++i)
                            storage.at(first + i0 + i).template leaf<Leaves[K]>() = from[i];
                    }(),
                    ...);
            }(std::make_index_sequence<sizeof...(E)>{});
        }
    }
}

template <bool ToBuffers, class T, std::size_t LeafRun, auto Leaves, class Storage>
void transpose_chunk(const Storage& storage, std::size_t first, std::size_t count,
                     std::byte* const* buffers) {
    constexpr std::size_t k_count = Leaves.size();
    if constexpr (LeafRun > 1 && LeafRun != layout::detail::whole_column) {
        if (first % LeafRun == 0) {
            // Run by run, every leaf of a run of elements before the next: one pass over them.
            for (std::size_t i = 0; i < count; i += LeafRun) {
                const std::size_t m = std::min(LeafRun, count - i);
                const auto cursor = storage.at(first + i);
                [&]<std::size_t... K>(std::index_sequence<K...>) {
                    (
                        [&] {
                            using E = leaf_t<T, Leaves[K]>;
                            E* buffer = reinterpret_cast<E*>(buffers[K]) + i;
                            auto& at = cursor.template leaf<Leaves[K]>();
                            if constexpr (ToBuffers)
                                std::memcpy(buffer, &at, m * sizeof(E));
                            else
                                std::memcpy(&at, buffer, m * sizeof(E));
                        }(),
                        ...);
                }(std::make_index_sequence<k_count>{});
            }
            return;
        }
    }
    [&]<std::size_t... K>(std::index_sequence<K...>) {
        transpose_elements<ToBuffers, T, Leaves>(
            storage, first, count, reinterpret_cast<leaf_t<T, Leaves[K]>*>(buffers[K])...);
    }(std::make_index_sequence<k_count>{});
}

/// Elements per chunk: about chunk_elements, a whole number of the layout's runs.
inline std::size_t chunk_size(std::size_t wanted, std::size_t n, std::size_t leaf_run) {
    std::size_t c = std::max<std::size_t>(wanted, 1);
    if (leaf_run > 1 && leaf_run != layout::detail::whole_column)
        c = (c + leaf_run - 1) / leaf_run * leaf_run;
    return std::min(c, n);
}

/// The per-leaf buffers of a chunk of elements, one allocation.
template <class T, auto Leaves>
struct chunk_buffers {
    std::unique_ptr<std::byte[]> block;
    std::array<std::byte*, Leaves.size()> at{};
    explicit chunk_buffers(std::size_t chunk) {
        std::size_t bytes = 0;
        std::array<std::size_t, Leaves.size()> offsets{};
        [&]<std::size_t... K>(std::index_sequence<K...>) {
            ((offsets[K] = bytes,
              bytes += layout::detail::align_up(chunk * sizeof(leaf_t<T, Leaves[K]>), 64)),
             ...);
        }(std::make_index_sequence<Leaves.size()>{});
        block.reset(new std::byte[bytes]);
        for (std::size_t k = 0; k < at.size(); ++k) at[k] = block.get() + offsets[k];
    }
};

} // namespace detail

/// Units of one record: unitSI (each component's scale to SI) and unitDimension (powers of
/// length, mass, time, current, temperature, amount, luminous intensity).
struct unit {
    double unit_si = 1.0;
    std::array<double, 7> unit_dimension{};
};

struct write_options {
    std::uint64_t iteration = 0;
    std::string species = "particles";
    double time = 0.0; // the iteration's time, dt and timeUnitSI
    double dt = 1.0;
    double time_unit_si = 1.0;
    float time_offset = 0.0f;                           // every record's timeOffset
    std::map<std::string, unit, std::less<>> units{};   // by record name ("pos"); default: unit{}
    std::size_t chunk_elements = detail::default_chunk; // transposed per write (non-SoA leaves)
    bool overlap = true; // transpose on a second thread while HDF5 writes (non-SoA layouts)
    // The stream a view or selection of device memory is staged on: its data is what that
    // stream has written (a container is staged on its own stream, whatever this says).
    stream_ref stream{};
};

/// What read() may be told: how it moves non-SoA layouts (as write_options; overlap: a second
/// thread puts half of each block read into the container).
struct read_options {
    std::size_t chunk_elements = detail::default_chunk;
    bool overlap = true;
};

/// Creates (truncates) an HDF5 file for writing.
inline handle create_file(const std::string& path) {
    detail::quiet_errors quiet;
    return handle(detail::checked(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
                                  "create_file", path, "H5Fcreate"));
}
/// Opens an HDF5 file, read-only unless writable.
inline handle open_file(const std::string& path, bool writable = false) {
    detail::quiet_errors quiet;
    return handle(detail::checked(
        H5Fopen(path.c_str(), writable ? H5F_ACC_RDWR : H5F_ACC_RDONLY, H5P_DEFAULT), "open_file",
        path, "H5Fopen"));
}

namespace detail {

inline void write_root_attributes(hid_t base) {
    constexpr std::string_view where = "/";
    put_string(base, "openPMD", "1.1.0", where);
    put_scalar<std::uint32_t>(base, "openPMDextension", 0, where);
    put_string(base, "basePath", "/data/%T/", where);
    put_string(base, "particlesPath", "particles/", where);
    put_string(base, "iterationEncoding", "groupBased", where);
    put_string(base, "iterationFormat", "/data/%T/", where);
    put_string(base, "software", "layout", where);
}

/// The species group, made with its iteration; an existing species is not overwritten.
inline handle create_species(hid_t base, const write_options& o) {
    write_root_attributes(base);
    const std::string it = std::to_string(o.iteration);
    const std::string path = "/data/" + it + "/particles/" + o.species;
    if (o.species.empty() || o.species.find('/') != std::string::npos)
        fail("write", path, "the species needs a name without '/'");
    handle data = open_or_create_group(base, "data", path);
    handle iteration = open_or_create_group(data, it, path);
    put_scalar(iteration, "time", o.time, path);
    put_scalar(iteration, "dt", o.dt, path);
    put_scalar(iteration, "timeUnitSI", o.time_unit_si, path);
    handle particles = open_or_create_group(iteration, "particles", path);
    if (H5Lexists(particles, o.species.c_str(), H5P_DEFAULT) > 0)
        fail("write", path, "already in the file (write another species or iteration)");
    return open_or_create_group(particles, o.species, path);
}

template <class E>
void write_leaf_attributes(hid_t record, hid_t component, const unit& u, float time_offset,
                           std::string_view where) {
    put_array(record, "unitDimension", u.unit_dimension, where);
    put_scalar(record, "timeOffset", time_offset, where);
    put_scalar(component, "unitSI", u.unit_si, where);
}

/// One dataset per leaf of S (in its leaves' order), with the attributes, and the data.
template <class S>
void write_host(hid_t base, const S& source, const write_options& o) {
    using traits = source_traits<S>;
    using T = typename traits::T;
    constexpr auto& leaves = traits::leaves;
    constexpr auto names = leaf_names<T>();
    const std::size_t n = source.size();

    handle species = create_species(base, o);
    const std::string species_path =
        "/data/" + std::to_string(o.iteration) + "/particles/" + o.species + "/";
    const hsize_t dims[1] = {static_cast<hsize_t>(n)};
    handle file_space(H5Screate_simple(1, dims, nullptr));
    // Contiguous datasets (HDF5's default, and h5py's): no chunk index, no filters.
    const hid_t create = H5P_DEFAULT;

    std::array<handle, leaves.size()> datasets;
    std::array<handle, leaves.size()> types;
    [&]<std::size_t... K>(std::index_sequence<K...>) {
        (
            [&] {
                constexpr std::size_t L = leaves[K];
                using E = leaf_t<T, L>;
                static_assert(storable_leaf<E>(),
                              "layout: hdf5::write: a pointer leaf has no meaning in a file; "
                              "store it as an integer (std::uintptr_t) to write it");
                const leaf_place place = place_of(names[L]);
                const std::string record(place.record);
                const std::string where = species_path + std::string(names[L]);
                const auto found = o.units.find(place.record);
                const unit u = found == o.units.end() ? unit{} : found->second;
                types[K] = memory_type<E>();
                if (place.component.empty()) {
                    datasets[K] =
                        handle(checked(H5Dcreate2(species, record.c_str(), types[K], file_space,
                                                  H5P_DEFAULT, create, H5P_DEFAULT),
                                       "write", where, "H5Dcreate2"));
                    write_leaf_attributes<E>(datasets[K], datasets[K], u, o.time_offset, where);
                } else {
                    handle group = open_or_create_group(species, record, where);
                    const std::string component(place.component);
                    datasets[K] =
                        handle(checked(H5Dcreate2(group, component.c_str(), types[K], file_space,
                                                  H5P_DEFAULT, create, H5P_DEFAULT),
                                       "write", where, "H5Dcreate2"));
                    write_leaf_attributes<E>(group, datasets[K], u, o.time_offset, where);
                }
            }(),
            ...);
    }(std::make_index_sequence<leaves.size()>{});
    if (n == 0) return;

    const auto& storage = source.storage();
    if constexpr (traits::contiguous) {
        // SoA: each column straight from the container, one call each.
        [&]<std::size_t... K>(std::index_sequence<K...>) {
            (checked_status(H5Dwrite(datasets[K], types[K], H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                     &storage.at(0).template leaf<leaves[K]>()),
                            "write", species_path + std::string(names[leaves[K]]), "H5Dwrite"),
             ...);
        }(std::make_index_sequence<leaves.size()>{});
    } else {
        // Other layouts: a block of elements at a time, transposed into one buffer per leaf,
        // each written to its part of its dataset.
        // With o.overlap, a second thread transposes the next block while this one writes.
        const std::size_t chunk = chunk_size(o.chunk_elements, n, traits::leaf_run);
        chunk_buffers<T, leaves> buffers[2]{chunk_buffers<T, leaves>(chunk),
                                            chunk_buffers<T, leaves>(o.overlap ? chunk : 0)};
        std::array<handle, leaves.size()> spaces;
        for (std::size_t k = 0; k < leaves.size(); ++k)
            spaces[k] = handle(H5Dget_space(datasets[k]));
        auto transpose = [&](std::size_t first, int b) {
            transpose_chunk<true, T, traits::leaf_run, leaves>(
                storage, first, std::min(chunk, n - first), buffers[b].at.data());
        };
        std::future<void> next;
        transpose(0, 0);
        int current = 0;
        for (std::size_t first = 0; first < n; first += chunk) {
            const std::size_t count = std::min(chunk, n - first);
            const bool more = first + chunk < n;
            if (more && o.overlap)
                next = std::async(std::launch::async, transpose, first + chunk, 1 - current);
            const hsize_t start[1] = {first}, size[1] = {count};
            handle memory_space(H5Screate_simple(1, size, nullptr));
            for (std::size_t k = 0; k < leaves.size(); ++k) {
                H5Sselect_hyperslab(spaces[k], H5S_SELECT_SET, start, nullptr, size, nullptr);
                checked_status(H5Dwrite(datasets[k], types[k], memory_space, spaces[k], H5P_DEFAULT,
                                        buffers[current].at[k]),
                               "write", species_path + std::string(names[leaves[k]]), "H5Dwrite");
            }
            if (more) {
                if (o.overlap) {
                    next.get();
                    current = 1 - current;
                } else {
                    transpose(first + chunk, current);
                }
            }
        }
    }
}

template <class S>
decltype(auto) as_view(const S& s) {
    if constexpr (requires { s.cview(); })
        return s.cview(); // a container
    else
        return (s); // a view or a selection
}

/// A view of device memory, copied on stream into a host SoA container (converted on the GPU;
/// the copy returns once the stream has done it), then written from there.
template <class View>
void write_device(hid_t base, const View& source, const write_options& o) {
    using T = typename View::value_type;
    const layout::view<const T, typename View::layout_type, typename View::memory_type> from(
        source);
    const layout::soa_vector<T> staged(from, o.stream);
    write_host(base, staged.cview(), o);
}
/// A selection of device memory: only its chosen leaves cross, into the same selection of a
/// host SoA container of the whole element type (which gives the datasets their names). Its
/// other columns are allocated but never written: their pages are never touched.
template <class View, auto... Keys>
void write_device(hid_t base, const selection<View, Keys...>& source, const write_options& o) {
    using S = selection<View, Keys...>;
    layout::soa_vector<typename View::value_type> staged;
    staged.resize(source.size(), layout::for_overwrite);
    const auto chosen = staged.template select<Keys...>();
    using D = std::remove_const_t<decltype(chosen)>;
    decltype(layout::detail::device_backend_for<S, D>())::copy(source, chosen, o.stream);
    write_host(base, chosen, o);
}

} // namespace detail

/// Writes the elements of a container, a view or a selection (c.select<&P::x, &P::id>()) as
/// species o.species of iteration o.iteration under file_or_group: one dataset per leaf, the
/// openPMD attributes, any layout. Throws layout::hdf5::error (the species already exists, or
/// an HDF5 call failed).
template <class Source>
void write(hid_t file_or_group, const Source& source, const write_options& options = {}) {
    detail::quiet_errors quiet;
    decltype(auto) s = detail::as_view(source);
    using S = std::remove_cvref_t<decltype(s)>;
    if constexpr (detail::host_source<S>()) {
        detail::write_host(file_or_group, s, options);
    } else if constexpr (requires { source.cview(); }) {
        // A device container: one copy into a host SoA container on the container's stream
        // (the converting copy takes the source's stream and waits for it), then the SoA path.
        const layout::soa_vector<typename Source::value_type> staged(source);
        detail::write_host(file_or_group, staged.cview(), options);
    } else {
        detail::write_device(file_or_group, s, options);
    }
}

namespace detail {

/// Dataset of leaf L (a path of names below the species), open, with its checked length.
struct leaf_dataset {
    handle dataset;
    handle type;
};

template <class T>
std::vector<std::string> dataset_path(std::size_t leaf) {
    const leaf_place place = place_of(leaf_names<T>()[leaf]);
    std::vector<std::string> names{std::string(place.record)};
    if (!place.component.empty()) names.emplace_back(place.component);
    return names;
}

template <class Container>
void read_host(hid_t base, std::uint64_t iteration, const std::string& species, Container& into,
               const read_options& o) {
    using T = typename Container::value_type;
    constexpr std::size_t count = leaf_count_v<T>;
    constexpr auto names = leaf_names<T>();
    const std::string species_path = "/data/" + std::to_string(iteration) + "/particles/" + species;
    handle group =
        open_path(base, {"data", std::to_string(iteration), "particles", species}, H5I_GROUP);
    if (!group) fail("read", species_path, "no such species in the file");

    // Every check before anything is read.
    std::array<leaf_dataset, count> leaves;
    std::size_t n = 0;
    std::string first_name;
    [&]<std::size_t... L>(std::index_sequence<L...>) {
        (
            [&] {
                using E = leaf_t<T, L>;
                static_assert(storable_leaf<E>(),
                              "layout: hdf5::read: a pointer leaf has no meaning in a file; "
                              "store it as an integer (std::uintptr_t) to read it");
                const std::vector<std::string> path = dataset_path<T>(L);
                std::string where = species_path;
                for (const auto& p : path) where += "/" + p;
                const std::string field = " (leaf " + std::string(names[L]) + ")";
                handle d = open_path(group, path, H5I_DATASET);
                if (!d) fail("read", where + field, "missing: no such dataset in the file");
                handle file_type(H5Dget_type(d));
                if (!same_kind<E>(file_type)) {
                    handle mine = memory_type<E>();
                    fail("read", where + field,
                         "wrong type of element: the file has " + describe_type(file_type) +
                             ", the leaf is " + describe_type(mine));
                }
                handle space(H5Dget_space(d));
                if (H5Sget_simple_extent_ndims(space) != 1)
                    fail("read", where + field, "not a one-dimensional dataset");
                hsize_t dims[1] = {0};
                H5Sget_simple_extent_dims(space, dims, nullptr);
                if (L == 0) {
                    n = static_cast<std::size_t>(dims[0]);
                    first_name = where;
                } else if (dims[0] != n) {
                    fail("read", where + field,
                         "wrong length: " + std::to_string(dims[0]) + " elements, but " +
                             first_name + " has " + std::to_string(n));
                }
                leaves[L] = {std::move(d), memory_type<E>()};
            }(),
            ...);
    }(std::make_index_sequence<count>{});

    // Into a new host container, moved or assigned in at the end: of the same layout for host
    // memory; for device memory, SoA: the datasets go straight into its columns (nothing for the
    // host to transpose) and the assignment converts on the GPU. Not filled first:
    // every leaf of every element is read below (or fresh is dropped), so the read itself is
    // the first write to the new memory, one pass over it, not two. On a new block the first
    // write is also where the kernel maps and zeroes its pages, which costs more than the copy
    // (0.35-0.4 s per GB in the 2-core VM of bench/results/local-2026-11-27).
    using host_container = std::conditional_t<host_accessible_v<typename Container::memory_type>,
                                              layout::vector<T, typename Container::layout_type>,
                                              layout::soa_vector<T>>;
    using host_layout = typename host_container::layout_type;
    host_container fresh;
    fresh.resize(n, layout::for_overwrite);
    if (n != 0) {
        const auto storage = fresh.view().storage();
        if constexpr (layout::detail::contiguous_columns_v<typename host_container::view_type>) {
            [&]<std::size_t... L>(std::index_sequence<L...>) {
                (checked_status(H5Dread(leaves[L].dataset, leaves[L].type, H5S_ALL, H5S_ALL,
                                        H5P_DEFAULT, &storage.at(0).template leaf<L>()),
                                "read", species_path + "/" + std::string(names[L]), "H5Dread"),
                 ...);
            }(std::make_index_sequence<count>{});
        } else {
            // A block of elements at a time: each leaf's part read into its buffer (a file
            // hyperslab, one H5Dread a leaf), then the block put into the container from the
            // buffers while they are in this core's cache. With o.overlap the second thread
            // puts the second half of the block: the cost of reading is the first touch of the
            // container's new pages (and the stores into them), which two cores share, while
            // HDF5's copies out of the page cache into the buffers take a small part of it.
            using all = source_traits<typename host_container::view_type>;
            constexpr std::size_t run = mapping<T, host_layout>::leaf_run;
            constexpr bool runs = run > 1 && run != layout::detail::whole_column;
            const std::size_t chunk = chunk_size(o.chunk_elements, n, run);
            chunk_buffers<T, all::leaves> buffers(chunk);
            std::array<handle, count> spaces;
            for (std::size_t k = 0; k < count; ++k)
                spaces[k] = handle(H5Dget_space(leaves[k].dataset));
            for (std::size_t first = 0; first < n; first += chunk) {
                const std::size_t m = std::min(chunk, n - first);
                const hsize_t start[1] = {first}, size[1] = {m};
                handle memory_space(H5Screate_simple(1, size, nullptr));
                for (std::size_t k = 0; k < count; ++k) {
                    H5Sselect_hyperslab(spaces[k], H5S_SELECT_SET, start, nullptr, size, nullptr);
                    checked_status(H5Dread(leaves[k].dataset, leaves[k].type, memory_space,
                                           spaces[k], H5P_DEFAULT, buffers.at[k]),
                                   "read", species_path + "/" + std::string(names[k]), "H5Dread");
                }
                // The second thread's half starts at a whole run (AoSoA: memcpy of runs).
                std::size_t half = o.overlap && m >= 2 * 4096 ? m / 2 : 0;
                if constexpr (runs) half = half / run * run;
                if (half == 0) {
                    transpose_chunk<false, T, run, all::leaves>(storage, first, m,
                                                                buffers.at.data());
                    continue;
                }
                std::array<std::byte*, count> second{};
                [&]<std::size_t... L>(std::index_sequence<L...>) {
                    ((second[L] = buffers.at[L] + half * sizeof(leaf_t<T, L>)), ...);
                }(std::make_index_sequence<count>{});
                auto helper = std::async(std::launch::async, [&storage, &second, first, half, m] {
                    transpose_chunk<false, T, run, all::leaves>(storage, first + half, m - half,
                                                                second.data());
                });
                transpose_chunk<false, T, run, all::leaves>(storage, first, half,
                                                            buffers.at.data());
                helper.get();
            }
        }
    }
    if constexpr (std::is_same_v<host_container, Container>)
        into = std::move(fresh);
    else
        into = fresh; // another memory space: one copy, on the container's stream
}

} // namespace detail

/// Reads species `species` of iteration `iteration` into a container of any layout, replacing
/// its elements (its size becomes the datasets' length). Throws layout::hdf5::error, naming the
/// leaf and the dataset, where the file lacks a leaf's dataset, holds another type of element
/// or another length than the other leaves; the container is then unchanged.
template <class Container>
void read(hid_t file_or_group, std::uint64_t iteration, const std::string& species, Container& into,
          const read_options& options = {}) {
    static_assert(
        requires {
            typename Container::layout_type;
            into.cview();
        }, "layout: hdf5::read reads into a container (layout::vector, soa_vector, ...)");
    detail::quiet_errors quiet;
    detail::read_host(file_or_group, iteration, species, into, options);
}

} // namespace layout::hdf5
