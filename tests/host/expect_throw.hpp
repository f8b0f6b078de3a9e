/// \file expect_throw.hpp
/// The exception check that the host and device algorithm tests share, so that both hold the
/// algorithms to the same exception types and messages.
///
///     expect_throw_containing<std::out_of_range>([&] { layout::gather(src, bad, dst); },
///                                                "index 10 at position 2 is out of range");
#pragma once

#include <gtest/gtest.h>

#include <string>

namespace layout_test {

/// Runs f, which must throw E with a message containing text.
template <class E, class F>
void expect_throw_containing(F f, const std::string& text) {
    try {
        f();
        ADD_FAILURE() << "no exception; expected one containing \"" << text << "\"";
    } catch (const E& e) {
        EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
}

} // namespace layout_test
