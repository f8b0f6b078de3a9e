/// \file kernels.hpp
/// The particle structs and kernels of the particles example, written once.
///
/// Each kernel is a host-device functor f(view, i) that updates element i of a view of any
/// layout. The same object runs on the GPU (layout::cuda::for_each_index: one thread per
/// element) and on the host (layout::for_each_index: a loop), under aos, soa and aosoa<32>:
///
///     layout::cuda::for_each_index(dev.view(), drift{0.01f});   // dev: any device container
///     layout::for_each_index(host.view(), drift{0.01f});        // host: any host container
///
/// Next to each functor:
///   - footprint(): the bytes of one element it reads and writes, from which the benchmark
///     counts useful bytes and predicts the AoS penalty (32-byte sectors touched / useful bytes);
///   - reference(): the same update of one plain struct, in double precision, to verify against.
/// At the end of the file, namespace raw: the same computations hand-written over plain pointers,
/// one per layout (a Particle*, one float* per column, an array of 32-lane blocks), the baselines
/// the library must match.
#pragma once

#include <layout/layout.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

// ---- the structs: plain aggregates, untouched by the library ------------------------------

/// 8 floats, 32 bytes: one element per 32-byte sector under AoS.
struct Particle {
    float x, y, z, vx, vy, vz, mass, charge;
};
static_assert(sizeof(Particle) == 32);

struct Vec3 {
    float x, y, z;
};

/// A realistic wide particle: 16 scalar leaves, 64 bytes (two sectors) per element.
///     bytes  0..31  pos.xyz vel.xyz force.xy              (sector 0)
///     bytes 32..63  force.z mass charge energy id type cell flags  (sector 1)
struct WideParticle {
    Vec3 pos, vel, force;
    float mass, charge, energy;
    std::int32_t id, type, cell, flags;
};
static_assert(sizeof(WideParticle) == 64);
static_assert(layout::leaf_count_v<WideParticle> == 16);

// ---- footprints ------------------------------------------------------------------------------

/// Bytes [offset, offset + size) of one element.
struct byte_range {
    std::size_t offset, size;
};

/// What a kernel reads and writes in each element, each field counted once per direction.
struct footprint {
    std::vector<byte_range> reads, writes;
    std::size_t useful_bytes() const {
        std::size_t b = 0;
        for (const auto& r : reads) b += r.size;
        for (const auto& w : writes) b += w.size;
        return b;
    }
};

// ---- (a) drift: x += vx * dt, three coordinates of a 32-byte particle ------------------------

/// Reads x y z vx vy vz (24 B), writes x y z (12 B). Under AoS every element's one sector is read
/// and written: 64 B moved for 36 useful, a predicted 1.78x.
struct drift {
    float dt;

    template <class View>
    LAYOUT_HOST_DEVICE void operator()(const View& p, std::size_t i) const {
        auto&& [x, y, z, vx, vy, vz, m, q] = p[i];
        x += vx * dt;
        y += vy * dt;
        z += vz * dt;
    }

    static footprint bytes() {
        return {{{offsetof(Particle, x), 6 * sizeof(float)}},
                {{offsetof(Particle, x), 3 * sizeof(float)}}};
    }
    void reference(Particle& p) const {
        p.x = static_cast<float>(double(p.x) + double(p.vx) * dt);
        p.y = static_cast<float>(double(p.y) + double(p.vy) * dt);
        p.z = static_cast<float>(double(p.z) + double(p.vz) * dt);
    }
};

// ---- (b) wide drift: pos += vel * dt on the 64-byte particle: 6 of 16 fields -------------------

/// Reads pos and vel (24 B), writes pos (12 B); all of them in sector 0 of the element, so AoS
/// moves 64 B (sector 0 in and out) for 36 useful: 1.78x. Sector 1 is never fetched.
struct wide_drift {
    float dt;

    template <class View>
    LAYOUT_HOST_DEVICE void operator()(const View& p, std::size_t i) const {
        auto&& [px, py, pz] = layout::get<&WideParticle::pos>(p[i]);
        auto&& [vx, vy, vz] = layout::get<&WideParticle::vel>(p[i]);
        px += vx * dt;
        py += vy * dt;
        pz += vz * dt;
    }

    static footprint bytes() {
        return {{{offsetof(WideParticle, pos), sizeof(Vec3)},
                 {offsetof(WideParticle, vel), sizeof(Vec3)}},
                {{offsetof(WideParticle, pos), sizeof(Vec3)}}};
    }
    void reference(WideParticle& p) const {
        p.pos.x = static_cast<float>(double(p.pos.x) + double(p.vel.x) * dt);
        p.pos.y = static_cast<float>(double(p.pos.y) + double(p.vel.y) * dt);
        p.pos.z = static_cast<float>(double(p.pos.z) + double(p.vel.z) * dt);
    }
};

// ---- (c) one field: mass *= c, on either struct -----------------------------------------------

/// Reads and writes one 4-byte field. AoS moves a whole 32-byte sector in and out for it:
/// 8x the useful bytes, the sector bound, for any struct of 32 bytes or more.
struct scale_mass {
    float c;

    template <class View>
    LAYOUT_HOST_DEVICE void operator()(const View& p, std::size_t i) const {
        using T = typename View::value_type;
        layout::get<&T::mass>(p[i]) *= c;
    }

    template <class T>
    static footprint bytes() {
        return {{{offsetof(T, mass), sizeof(float)}}, {{offsetof(T, mass), sizeof(float)}}};
    }
    template <class T>
    void reference(T& p) const {
        p.mass = static_cast<float>(double(p.mass) * c); // exact: one rounding either way
    }
};

// ---- (d) most fields: a full time step of the wide particle ------------------------------------

/// Bins the particle, kicks and drifts it, computes the force for the next step (a harmonic trap
/// whose stiffness depends on the species, plus a uniform field) and its energy.
/// Reads pos vel force mass charge type cell flags (56 B), writes pos vel force energy cell flags
/// (48 B): 15 of the 16 fields (only id is left alone), both sectors of every element in and out:
/// 128 B moved for 104 useful, a predicted 1.23x. AoS is hardly penalised here.
struct integrate {
    float dt;
    float k0, k1; ///< trap stiffness of species 0 (even type) and 1 (odd type)
    Vec3 field;   ///< uniform electric field
    float inv_h;  ///< 1 / cell size: a power of two, so that binning is exact on every device
    static constexpr std::int32_t moved = 1; ///< flags bit: changed cell at the last binning

    /// Periodic 3-D cell hash of a position: 10 bits per axis.
    LAYOUT_HOST_DEVICE std::int32_t cell_of(float x, float y, float z) const {
        const auto cx = static_cast<std::int32_t>(floorf(x * inv_h));
        const auto cy = static_cast<std::int32_t>(floorf(y * inv_h));
        const auto cz = static_cast<std::int32_t>(floorf(z * inv_h));
        return (cx & 1023) | (cy & 1023) << 10 | (cz & 1023) << 20;
    }

    /// The physics, on references to one particle's fields, wherever they live: the library
    /// functor and the raw kernels call it alike.
    LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE void step(float& px, float& py, float& pz, float& vx,
                                                    float& vy, float& vz, float& fx, float& fy,
                                                    float& fz, float m, float q, float& energy,
                                                    std::int32_t type, std::int32_t& cell,
                                                    std::int32_t& flags) const {
        const std::int32_t c = cell_of(px, py, pz);
        flags = c != cell ? (flags | moved) : (flags & ~moved);
        cell = c;

        const float kick = dt / m;
        vx += fx * kick;
        vy += fy * kick;
        vz += fz * kick;
        px += vx * dt;
        py += vy * dt;
        pz += vz * dt;

        const float k = (type & 1) ? k1 : k0;
        fx = q * field.x - k * px;
        fy = q * field.y - k * py;
        fz = q * field.z - k * pz;
        energy =
            0.5f * m * (vx * vx + vy * vy + vz * vz) + 0.5f * k * (px * px + py * py + pz * pz);
    }

    template <class View>
    LAYOUT_HOST_DEVICE void operator()(const View& p, std::size_t i) const {
        auto&& [pos, vel, force, mass, charge, energy, id, type, cell, flags] = p[i];
        auto&& [px, py, pz] = pos;
        auto&& [vx, vy, vz] = vel;
        auto&& [fx, fy, fz] = force;
        step(px, py, pz, vx, vy, vz, fx, fy, fz, mass, charge, energy, type, cell, flags);
    }

    static footprint bytes() {
        using W = WideParticle;
        return {{{offsetof(W, pos), 3 * sizeof(Vec3)},           // pos vel force
                 {offsetof(W, mass), 2 * sizeof(float)},         // mass charge
                 {offsetof(W, type), 3 * sizeof(std::int32_t)}}, // type cell flags
                {{offsetof(W, pos), 3 * sizeof(Vec3)},
                 {offsetof(W, energy), sizeof(float)},
                 {offsetof(W, cell), 2 * sizeof(std::int32_t)}}};
    }
    void reference(WideParticle& p) const {
        const std::int32_t c = cell_of(p.pos.x, p.pos.y, p.pos.z); // exact in float
        p.flags = c != p.cell ? (p.flags | moved) : (p.flags & ~moved);
        p.cell = c;
        const double kick = double(dt) / p.mass;
        double v[3] = {p.vel.x + p.force.x * kick, p.vel.y + p.force.y * kick,
                       p.vel.z + p.force.z * kick};
        double x[3] = {p.pos.x + v[0] * dt, p.pos.y + v[1] * dt, p.pos.z + v[2] * dt};
        const double k = (p.type & 1) ? k1 : k0;
        const double f[3] = {p.charge * double(field.x) - k * x[0],
                             p.charge * double(field.y) - k * x[1],
                             p.charge * double(field.z) - k * x[2]};
        const double e = 0.5 * p.mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
                         0.5 * k * (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        p.vel = {float(v[0]), float(v[1]), float(v[2])};
        p.pos = {float(x[0]), float(x[1]), float(x[2])};
        p.force = {float(f[0]), float(f[1]), float(f[2])};
        p.energy = float(e);
    }
};

// ---- raw: the same computations, hand-written for each layout ----------------------------------
//
// What a careful CUDA programmer writes without the library: __restrict__ pointers, the struct
// for AoS, one array per field for SoA, an array of 32-lane blocks for AoSoA<32>. Each function
// updates element i (AoS, SoA) or lane l of a block (AoSoA); the GPU kernels (gpu_kernels.cuh)
// and the host loops (cpu_driver.hpp) call them with their own __restrict__ parameters. On the
// GPU, AoSoA element i is lane i % 32 of block i / 32; on the host the loop nests blocks and lanes.
namespace raw {

/// One AoSoA<32> block of Particles: 32 x, then 32 y, ... (1024 bytes).
struct ParticleBlock32 {
    float x[32], y[32], z[32], vx[32], vy[32], vz[32], mass[32], charge[32];
};
struct Vec3Block32 {
    float x[32], y[32], z[32];
};
/// One AoSoA<32> block of WideParticles (2048 bytes).
struct WideBlock32 {
    Vec3Block32 pos, vel, force;
    float mass[32], charge[32], energy[32];
    std::int32_t id[32], type[32], cell[32], flags[32];
};

// The blocks are what layout::aosoa<T, 32> stores, byte for byte: the raw kernels run on the
// library containers' memory.
static_assert(sizeof(ParticleBlock32) ==
              layout::mapping<Particle, layout::policy::aosoa<32>>::block_bytes);
static_assert(sizeof(WideBlock32) ==
              layout::mapping<WideParticle, layout::policy::aosoa<32>>::block_bytes);
static_assert(offsetof(ParticleBlock32, mass) ==
              layout::mapping<Particle, layout::policy::aosoa<32>>::lane_offsets[6]);
static_assert(offsetof(WideBlock32, mass) ==
              layout::mapping<WideParticle, layout::policy::aosoa<32>>::lane_offsets[9]);
static_assert(offsetof(WideBlock32, flags) ==
              layout::mapping<WideParticle, layout::policy::aosoa<32>>::lane_offsets[15]);

/// The hot part of a Particle under particles::split_of<Particle>: an array of these, then the
/// cold mass and charge columns (which drift does not touch).
struct Kinematics {
    float x, y, z, vx, vy, vz;
};
static_assert(sizeof(Kinematics) == 24);

// drift
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE void drift(Kinematics* LAYOUT_RESTRICT p, std::size_t i,
                                                 float dt) {
    p[i].x += p[i].vx * dt;
    p[i].y += p[i].vy * dt;
    p[i].z += p[i].vz * dt;
}
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE void drift(Particle* LAYOUT_RESTRICT p, std::size_t i,
                                                 float dt) {
    p[i].x += p[i].vx * dt;
    p[i].y += p[i].vy * dt;
    p[i].z += p[i].vz * dt;
}
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE void
drift(float* LAYOUT_RESTRICT x, float* LAYOUT_RESTRICT y, float* LAYOUT_RESTRICT z,
      const float* LAYOUT_RESTRICT vx, const float* LAYOUT_RESTRICT vy,
      const float* LAYOUT_RESTRICT vz, std::size_t i, float dt) {
    x[i] += vx[i] * dt;
    y[i] += vy[i] * dt;
    z[i] += vz[i] * dt;
}
/// AoSoA: lane l of one block; element i is lane i % 32 of block i / 32.
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE void drift(ParticleBlock32& b, std::size_t l, float dt) {
    b.x[l] += b.vx[l] * dt;
    b.y[l] += b.vy[l] * dt;
    b.z[l] += b.vz[l] * dt;
}

// wide drift
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE void wide_drift(WideParticle* LAYOUT_RESTRICT p,
                                                      std::size_t i, float dt) {
    p[i].pos.x += p[i].vel.x * dt;
    p[i].pos.y += p[i].vel.y * dt;
    p[i].pos.z += p[i].vel.z * dt;
}
// (SoA: the drift above, on the pos and vel columns)
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE void wide_drift(WideBlock32& b, std::size_t l, float dt) {
    b.pos.x[l] += b.vel.x[l] * dt;
    b.pos.y[l] += b.vel.y[l] * dt;
    b.pos.z[l] += b.vel.z[l] * dt;
}

// one field
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE void scale_mass(Particle* LAYOUT_RESTRICT p, std::size_t i,
                                                      float c) {
    p[i].mass *= c;
}
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE void scale_mass(WideParticle* LAYOUT_RESTRICT p,
                                                      std::size_t i, float c) {
    p[i].mass *= c;
}
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE void scale_mass(float* LAYOUT_RESTRICT mass, std::size_t i,
                                                      float c) {
    mass[i] *= c;
}
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE void scale_mass(ParticleBlock32& b, std::size_t l, float c) {
    b.mass[l] *= c;
}
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE void scale_mass(WideBlock32& b, std::size_t l, float c) {
    b.mass[l] *= c;
}

// most fields
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE void
integrate(const ::integrate& f, WideParticle* LAYOUT_RESTRICT p, std::size_t i) {
    WideParticle& e = p[i];
    f.step(e.pos.x, e.pos.y, e.pos.z, e.vel.x, e.vel.y, e.vel.z, e.force.x, e.force.y, e.force.z,
           e.mass, e.charge, e.energy, e.type, e.cell, e.flags);
}
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE void
integrate(const ::integrate& f, float* LAYOUT_RESTRICT px, float* LAYOUT_RESTRICT py,
          float* LAYOUT_RESTRICT pz, float* LAYOUT_RESTRICT vx, float* LAYOUT_RESTRICT vy,
          float* LAYOUT_RESTRICT vz, float* LAYOUT_RESTRICT fx, float* LAYOUT_RESTRICT fy,
          float* LAYOUT_RESTRICT fz, const float* LAYOUT_RESTRICT mass,
          const float* LAYOUT_RESTRICT charge, float* LAYOUT_RESTRICT energy,
          const std::int32_t* LAYOUT_RESTRICT type, std::int32_t* LAYOUT_RESTRICT cell,
          std::int32_t* LAYOUT_RESTRICT flags, std::size_t i) {
    f.step(px[i], py[i], pz[i], vx[i], vy[i], vz[i], fx[i], fy[i], fz[i], mass[i], charge[i],
           energy[i], type[i], cell[i], flags[i]);
}
LAYOUT_HOST_DEVICE LAYOUT_FORCEINLINE void integrate(const ::integrate& f, WideBlock32& b,
                                                     std::size_t l) {
    f.step(b.pos.x[l], b.pos.y[l], b.pos.z[l], b.vel.x[l], b.vel.y[l], b.vel.z[l], b.force.x[l],
           b.force.y[l], b.force.z[l], b.mass[l], b.charge[l], b.energy[l], b.type[l], b.cell[l],
           b.flags[l]);
}

} // namespace raw
