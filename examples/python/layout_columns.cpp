/// \file layout_columns.cpp
/// A Python module that hands a layout container's columns to NumPy, CuPy or PyTorch without a
/// copy, through the Python DLPack protocol (__dlpack__ / __dlpack_device__, a "dltensor"
/// capsule that the consumer renames "used_dltensor").
///
///     import numpy as np, layout_columns as lc
///     c = lc.particles("aos", 1000)     # layout::aos_vector<particle>; "soa" too
///     c.fill()                          # element i written by C++
///     x = np.from_dlpack(c.column("x")) # a view of the container's x: stride 32 bytes, no copy
///     c.values("x")                     # the same values, read by C++
///     d = lc.device_particles("soa", 1000)   # where built with CUDA: cupy/torch.from_dlpack
#include "particle_columns.hpp"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

namespace py = pybind11;

namespace layout_py {

std::unique_ptr<columns> make_host_columns(const std::string& layout, std::size_t n) {
    if (layout == "soa")
        return std::make_unique<columns_of<layout::soa_vector<particle>>>(layout, n);
    if (layout == "aos")
        return std::make_unique<columns_of<layout::aos_vector<particle>>>(layout, n);
    throw std::invalid_argument("layout_columns: layout is \"soa\" or \"aos\", not \"" + layout +
                                "\"");
}

#if !defined(LAYOUT_PY_CUDA)
std::unique_ptr<columns> make_device_columns(const std::string&, std::size_t) {
    throw std::runtime_error("layout_columns was built without CUDA");
}
#endif

namespace {

int field_index(const std::string& name) {
    for (std::size_t i = 0; i < field_names.size(); ++i)
        if (name == field_names[i]) return static_cast<int>(i);
    throw py::key_error("layout_columns: no field \"" + name + "\" (x, y, z, vx, energy, id)");
}

/// A capsule nobody consumed still owns its tensor; a consumed one ("used_dltensor") does not.
void delete_unconsumed(PyObject* capsule) {
    if (!PyCapsule_IsValid(capsule, "dltensor")) return;
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
    if (t && t->deleter) t->deleter(t);
    PyErr_Restore(type, value, traceback);
}

/// One column of a container, as Python sees it: what __dlpack__ exports.
struct column_ref {
    std::shared_ptr<columns> owner;
    int field;

    DLDevice device() const {
        DLManagedTensor* t = owner->to_dlpack(field);
        const DLDevice d = t->dl_tensor.device;
        t->deleter(t);
        return d;
    }

    py::object dlpack(const py::object& stream, const py::object& max_version,
                      const py::object& dl_device, const py::object& copy) const {
        // max_version: whatever the consumer asks, this is a DLPack 0.8 ("dltensor") capsule,
        // which the protocol allows a producer to return.
        (void)max_version;
        (void)stream; // to_dlpack waits for the container's device work before exporting
        if (!copy.is_none() && copy.cast<bool>())
            throw py::buffer_error("layout_columns: columns are exported without a copy");
        if (!dl_device.is_none()) {
            const auto wanted = dl_device.cast<std::pair<int, int>>();
            const DLDevice d = device();
            if (wanted.first != d.device_type || wanted.second != d.device_id)
                throw py::buffer_error("layout_columns: the column is on another device");
        }
        DLManagedTensor* t = owner->to_dlpack(field);
        PyObject* capsule = PyCapsule_New(t, "dltensor", &delete_unconsumed);
        if (!capsule) {
            t->deleter(t);
            throw py::error_already_set();
        }
        return py::reinterpret_steal<py::object>(capsule);
    }
};

} // namespace
} // namespace layout_py

PYBIND11_MODULE(layout_columns, m) {
    using namespace layout_py;
    m.doc() = "layout containers' columns to NumPy, CuPy and PyTorch through DLPack, no copy";

#if defined(LAYOUT_PY_CUDA)
    m.attr("has_cuda") = true;
#else
    m.attr("has_cuda") = false;
#endif
    m.attr("fields") = py::cast(std::vector<std::string>(field_names.begin(), field_names.end()));
    m.def(
        "live_containers", [] { return live_containers.load(); },
        "How many containers exist now (the tensors of columns keep theirs alive)");

    py::class_<column_ref>(m, "column")
        .def_property_readonly("name", [](const column_ref& c) { return field_names[c.field]; })
        .def_property_readonly(
            "address", [](const column_ref& c) { return c.owner->address(c.field); },
            "Where element 0's value is, as C++ sees it")
        .def("__dlpack__", &column_ref::dlpack, py::arg("stream") = py::none(),
             py::arg("max_version") = py::none(), py::arg("dl_device") = py::none(),
             py::arg("copy") = py::none())
        .def("__dlpack_device__", [](const column_ref& c) {
            const DLDevice d = c.device();
            return py::make_tuple(static_cast<int>(d.device_type), static_cast<int>(d.device_id));
        });

    py::class_<columns, std::shared_ptr<columns>>(m, "container")
        .def_property_readonly("layout", &columns::layout_name)
        .def("__len__", &columns::size)
        .def("fill", &columns::fill, "Element i = the reference particle i, written by C++")
        .def(
            "values",
            [](const columns& c, const std::string& name) { return c.values(field_index(name)); },
            "One field of every element, read by C++ from the container")
        .def("column", [](const std::shared_ptr<columns>& c, const std::string& name) {
            return column_ref{c, field_index(name)};
        });

    m.def(
        "particles",
        [](const std::string& layout, std::size_t n) {
            return std::shared_ptr<columns>(make_host_columns(layout, n));
        },
        py::arg("layout"), py::arg("n"));
    m.def(
        "device_particles",
        [](const std::string& layout, std::size_t n) {
            return std::shared_ptr<columns>(make_device_columns(layout, n));
        },
        py::arg("layout"), py::arg("n"));
}
