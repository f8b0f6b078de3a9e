/// \file io/hdf5/handle.hpp
/// layout::hdf5::handle (an HDF5 identifier closed by its kind when it goes), layout::hdf5::error
/// (what read() and write() throw), and the checks that turn a failed HDF5 call into one.
#pragma once

#include <hdf5.h>

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

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

} // namespace detail

} // namespace layout::hdf5
