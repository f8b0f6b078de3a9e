#include <layout/names.hpp>

#include <array>
#include <cstdio>
#include <string>
#include <string_view>

struct Vec3 { float x, y, z; };
struct Body { Vec3 pos; std::array<float, 3> vel; int id; };

static_assert(layout::field_name<&Body::id> == "id");
static_assert(layout::leaf_names<Body>()[4] == "vel[1]");     // in the order of the SoA columns
static_assert(layout::leaf_name_v<Body, 1> == "pos.y");

int main() {
    std::string all;
    for (std::string_view name : layout::leaf_names<Body>()) all += std::string(name) + " ";
    all.pop_back();
    std::printf("%s\n", all.c_str());   // pos.x pos.y pos.z vel[0] vel[1] vel[2] id
}
