/// \file particle_columns.hpp
/// What the Python module (layout_columns.cpp) holds: one layout container of particles, behind
/// an interface that plain C++ (the pybind11 side, g++) and nvcc (device_columns.cu, the device
/// containers) both implement.
///
///     auto c = make_host_columns("aos", 100);    // layout::aos_vector<particle>(100)
///     c->fill();                                 // element i = reference(i), written in C++
///     DLManagedTensor* t = c->to_dlpack(4);      // "energy": kDLFloat 64, stride 4, owns c
///     std::vector<double> e = c->values(4);      // read back in C++, as doubles
#pragma once

#include <layout/dlpack.hpp>
#include <layout/layout.hpp>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace layout_py {

/// 32 bytes: under AoS the float leaves are 8 values apart, energy 4, id 8.
struct particle {
    float x, y, z, vx;
    double energy;
    std::int32_t id;
};

inline constexpr std::array<const char*, 6> field_names{"x", "y", "z", "vx", "energy", "id"};

/// Element i as C++ fills it (and the Python test expects it).
inline particle reference(std::size_t i) {
    const float f = static_cast<float>(i);
    return {f, 2 * f, -f, 0.5f * f, 1.25 * static_cast<double>(i), static_cast<std::int32_t>(i)};
}

/// Containers alive now (for the Python test: a column's tensor keeps its container).
inline std::atomic<long> live_containers{0};

/// One container of particles, any layout and memory.
class columns {
public:
    virtual ~columns() = default;
    virtual std::string layout_name() const = 0;
    virtual std::size_t size() const = 0;
    /// Element i = reference(i), for every i, written by C++.
    virtual void fill() = 0;
    /// Leaf `field` of every element, read by C++ (device memory: copied to the host first).
    virtual std::vector<double> values(int field) const = 0;
    /// Leaf `field` as a DLPack tensor that keeps the container alive; device work on the
    /// container is finished first.
    virtual DLManagedTensor* to_dlpack(int field) const = 0;
    /// Where leaf `field` of element 0 is, as C++ sees it.
    virtual std::uintptr_t address(int field) const = 0;
};

template <class Container>
class columns_of final : public columns {
public:
    columns_of(std::string name, std::size_t n)
        : name_(std::move(name)), c_(new Container(n, particle{}), [](Container* c) {
              --live_containers;
              delete c;
          }) {
        ++live_containers;
    }

    std::string layout_name() const override { return name_; }
    std::size_t size() const override { return c_->size(); }
    void fill() override {
        layout::soa_vector<particle> host(c_->size());
        for (std::size_t i = 0; i < host.size(); ++i) host[i] = reference(i);
        *c_ = host; // same size: in place, so the exported tensors stay valid
    }
    std::vector<double> values(int field) const override {
        const layout::aos_vector<particle> host = *c_; // waits for device memory
        std::vector<double> out;
        out.reserve(host.size());
        for (std::size_t i = 0; i < host.size(); ++i) {
            const particle p = host[i];
            const double v[] = {p.x, p.y, p.z, p.vx, p.energy, static_cast<double>(p.id)};
            out.push_back(v[checked(field)]);
        }
        return out;
    }
    DLManagedTensor* to_dlpack(int field) const override {
        synchronize();
        return with_leaf(field, [this](auto column) { return layout::to_dlpack(column, c_); });
    }
    std::uintptr_t address(int field) const override {
        return with_leaf(
            field, [](auto column) { return reinterpret_cast<std::uintptr_t>(column.data()); });
    }

private:
    static int checked(int field) {
        if (field < 0 || field >= static_cast<int>(field_names.size()))
            throw std::out_of_range("layout_columns: no such field");
        return field;
    }
    template <class F>
    auto with_leaf(int field, F f) const {
        return with_leaf(checked(field), f, std::make_index_sequence<field_names.size()>{});
    }
    template <class F, std::size_t... L>
    auto with_leaf(int field, F f, std::index_sequence<L...>) const {
        using result = decltype(f(c_->view().template leaf_column<0>()));
        result r{};
        ((field == static_cast<int>(L) ? (r = f(c_->view().template leaf_column<L>()), 0) : 0),
         ...);
        return r;
    }
    void synchronize() const {
#if defined(__CUDACC__)
        if constexpr (Container::memory_type::device_accessible)
            layout::cuda::check(
                cudaStreamSynchronize(static_cast<cudaStream_t>(c_->stream().get())),
                "cudaStreamSynchronize");
#endif
    }

    std::string name_;
    std::shared_ptr<Container> c_;
};

/// Host containers: "soa" or "aos" (layout_columns.cpp).
std::unique_ptr<columns> make_host_columns(const std::string& layout, std::size_t n);
/// Device containers (device_columns.cu, only where the module is built with CUDA).
std::unique_ptr<columns> make_device_columns(const std::string& layout, std::size_t n);

} // namespace layout_py
