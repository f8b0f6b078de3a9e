// A std::string member is not trivially copyable: elements move as bytes. (641 lines of g++
// output before; then 34, as vector, its view and its read-only view each failed the check.)
// expected-error: layout: the element type must be trivially copyable
// expected-max-lines: 30
#include <layout/vector.hpp>

#include <string>

struct S {
    std::string name;
    int id;
};

layout::vector<S, layout::policy::soa> v;
