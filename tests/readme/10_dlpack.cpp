#include <layout/dlpack.hpp>
#include <layout/layout.hpp>

#include <cstdio>
#include <memory>

struct Particle { float x, y, z, vx, vy, vz, mass, charge; };

int main() {
    auto p = std::make_shared<layout::aos_vector<Particle>>(1000, Particle{1, 2, 3, 0, 0, 0, 1, 0});
    DLManagedTensor* t = layout::to_dlpack(p->column<&Particle::y>(), p);   // holds the container
    p.reset();                                        // the last C++ handle: the data stays
    const DLTensor& y = t->dl_tensor;                 // what NumPy or PyTorch would see
    long long n = y.shape[0], stride = y.strides[0];  // 1000 values, 8 floats apart (AoS)
    std::printf("%lld %lld %g\n", n, stride, static_cast<float*>(y.data)[(n - 1) * stride]);   // 1000 8 2
    t->deleter(t);                                    // once, by the consumer: the container goes
}
