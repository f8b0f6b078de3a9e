/// \file io/hdf5/options.hpp
/// What write() and read() may be told (write_options, read_options, a record's unit), and the
/// files they take (create_file, open_file).
#pragma once

#include "../../backend.hpp"
#include "handle.hpp"
#include "transpose.hpp"

#include <hdf5.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace layout::hdf5 {

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

} // namespace layout::hdf5
