/// \file device_columns.cu
/// The device containers of the Python module (layout_columns.cpp), compiled by nvcc: no
/// pybind11 here, only the columns interface of particle_columns.hpp.
///
///     auto c = make_device_columns("soa", 100);  // layout::cuda::soa_vector<particle>(100)
///     DLManagedTensor* t = c->to_dlpack(0);      // kDLCUDA, the container's device, stride 1
#include "particle_columns.hpp"

#include <memory>
#include <stdexcept>
#include <string>

namespace layout_py {

std::unique_ptr<columns> make_device_columns(const std::string& layout, std::size_t n) {
    if (layout == "soa")
        return std::make_unique<columns_of<layout::cuda::soa_vector<particle>>>(layout, n);
    if (layout == "aos")
        return std::make_unique<columns_of<layout::cuda::aos_vector<particle>>>(layout, n);
    throw std::invalid_argument("layout_columns: layout is \"soa\" or \"aos\", not \"" + layout +
                                "\"");
}

} // namespace layout_py
