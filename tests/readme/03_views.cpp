#include <layout/layout.hpp>

#include <array>
#include <vector>

struct Vec3 { float x, y, z; };
struct Body { Vec3 pos; std::array<float, 3> vel; int id; };   // 7 leaves: pos.x .. vel[2], id
struct Point { float x, y; int id; };

int main() {
    std::vector<Body> bodies(100);                             // memory you own
    layout::view<Body, layout::policy::aos> a(bodies.data(), bodies.size());   // no copy

    auto&& [pos, vel, id] = a[3];      // a proxy of Vec3, a proxy of std::array<float, 3>, int&
    layout::get<&Vec3::y>(pos) = 2;    // bodies[3].pos.y
    vel[1] = 5;                        // bodies[3].vel[1]
    id = 42;
    layout::view<const Body, layout::policy::aos> r = a;        // read-only
    Body b = r[3];

    std::vector<float> xs(100), ys(100);
    std::vector<int> ids(100);
    layout::view<Point, layout::policy::soa> s(100, xs.data(), ys.data(), ids.data());
    s[4] = Point{1, 2, 3};             // xs[4] = 1, ys[4] = 2, ids[4] = 3

    auto y = s.column<&Point::y>();    // one leaf of every element: y[i], y.size()
    float* raw = y.data();             // contiguous under SoA: ys.data()
    auto vel_z = a.column<&Body::vel, 2>();                   // strided under AoS: vel_z[i]
    return b.pos.y == 2 && raw[4] == 2 && vel_z[3] == 0 ? 0 : 1;
}
