// field_name<p> of a member function: only data members have names layout can read.
// expected-error: layout: field_name<p> takes a pointer to a data member
// expected-max-lines: 12
#include <layout/names.hpp>

struct S {
    float x, y;
    float norm() const { return x * x + y * y; }
};

constexpr auto name = layout::field_name<&S::norm>;
