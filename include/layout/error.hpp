/// \file error.hpp
/// The library's shared error texts, one wording for host and device paths alike:
///
///     layout::detail::throw_copy_size_mismatch("layout::copy", 5, 4);
///     // std::length_error: "layout::copy: size mismatch: 5 elements in the source but the
///     //                     destination has 4 elements"
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace layout::detail {

/// The one size-mismatch message of the copies and algorithms, host and device:
/// "layout::gather: size mismatch: 5 indices but the destination has 4 elements".
[[noreturn]] inline void throw_size_mismatch(const char* function, std::size_t expected,
                                             const char* expected_what, std::size_t actual,
                                             const char* actual_what) {
    throw std::length_error(std::string(function) + ": size mismatch: " + std::to_string(expected) +
                            " " + expected_what + " but " + actual_what + " has " +
                            std::to_string(actual) + " elements");
}

/// "layout::copy: size mismatch: 5 elements in the source but the destination has 4 elements".
[[noreturn]] inline void throw_copy_size_mismatch(const char* function, std::size_t src,
                                                  std::size_t dst) {
    throw_size_mismatch(function, src, "elements in the source", dst, "the destination");
}

} // namespace layout::detail
