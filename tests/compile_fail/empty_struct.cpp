// An empty element struct: nothing to store.
// expected-error: layout: the element type \(or a member struct\) is empty
// expected-max-lines: 30
#include <layout/view.hpp>

struct S {};

layout::view<S, layout::policy::soa> v;
