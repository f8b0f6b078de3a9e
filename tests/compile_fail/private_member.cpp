// A private member makes the struct a non-aggregate.
// expected-error: layout: the element type .* is not an aggregate
// expected-max-lines: 30
#include <layout/view.hpp>

class S {
public:
    float x;

private:
    float y;
};

layout::view<S, layout::policy::soa> v;
