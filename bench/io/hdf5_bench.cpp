// layout::hdf5::write / read of n particles (8 four-byte leaves, 32 B each) as SoA, AoS and
// AoSoA<32>, against the HDF5 C API writing the same 8 columns from arrays, in one run and
// into the same directory. Each repeat times every variant once, in turn; the table gives the
// median over the repeats, in GB/s of particle data (n * 32 B), and the ratio to plain HDF5.
//
//     hdf5_bench [--n=33554432] [--repeats=5] [--dir=/tmp] [--chunk=262144] [--overlap=1]
//
// --overlap=0: AoS and AoSoA on the calling thread only. --overlap=1 (the default): a second
// thread transposes the next block while HDF5 writes this one, and puts half of each block read
// into the container while the calling thread puts the other half.
//
// Write: create the file, write, close it (H5Fclose, no fsync). Read: open, read into a new
// container (plain: 8 new arrays, not filled first, as h5py reads into numpy.empty), close.
// The file is removed after each read, so the page cache holds what was just written: these
// are page-cache figures, not the disk's. Each repeat also times the first touch (memset) of a
// new block of n * 32 B: every read fills new memory, and on a VM that first touch can cost
// more than the read (the guest's and the host's page faults).
#include <layout/io/hdf5.hpp>
#include <layout/layout.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace {

struct Particle {
    float x, y, z, vx, vy, vz, mass;
    std::int32_t id;
};

struct columns { // the plain baseline's arrays
    std::vector<float> x, y, z, vx, vy, vz, mass;
    std::vector<std::int32_t> id;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void check(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "hdf5_bench: %s failed\n", what);
        std::exit(1);
    }
}

const char* const names[8] = {"x", "y", "z", "vx", "vy", "vz", "mass", "id"};

/// The plain C API: one contiguous dataset per column, whole-column H5Dwrite, as h5py does.
double plain_write(const std::string& path, const columns& c) {
    const auto t0 = std::chrono::steady_clock::now();
    hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    check(f >= 0, "H5Fcreate");
    hid_t g = H5Gcreate2(f, "particles", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const hsize_t n = c.x.size();
    hid_t space = H5Screate_simple(1, &n, nullptr);
    const void* data[8] = {c.x.data(),  c.y.data(),  c.z.data(),    c.vx.data(),
                           c.vy.data(), c.vz.data(), c.mass.data(), c.id.data()};
    for (int k = 0; k < 8; ++k) {
        const hid_t type = k == 7 ? H5T_NATIVE_INT32 : H5T_NATIVE_FLOAT;
        hid_t d = H5Dcreate2(g, names[k], type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        check(H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data[k]) >= 0, "H5Dwrite");
        H5Dclose(d);
    }
    H5Sclose(space);
    H5Gclose(g);
    H5Fclose(f);
    return seconds_since(t0);
}

/// The plain read, as h5py's dataset[...] does (numpy.empty, then H5Dread): 8 new arrays, not
/// filled first (new T[n]), each read whole.
struct plain_columns {
    std::unique_ptr<float[]> floats[7];
    std::unique_ptr<std::int32_t[]> id;
};

double plain_read(const std::string& path, std::size_t n, plain_columns& out) {
    const auto t0 = std::chrono::steady_clock::now();
    hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    check(f >= 0, "H5Fopen");
    plain_columns c;
    for (int k = 0; k < 8; ++k) {
        const std::string name = std::string("particles/") + names[k];
        hid_t d = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
        void* into;
        if (k == 7) {
            c.id.reset(new std::int32_t[n]);
            into = c.id.get();
        } else {
            c.floats[k].reset(new float[n]);
            into = c.floats[k].get();
        }
        check(H5Dread(d, k == 7 ? H5T_NATIVE_INT32 : H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL,
                      H5P_DEFAULT, into) >= 0,
              "H5Dread");
        H5Dclose(d);
    }
    H5Fclose(f);
    const double t = seconds_since(t0);
    out = std::move(c);
    return t;
}

bool overlap = true;

template <class Container>
double lib_write(const std::string& path, const Container& c, std::size_t chunk) {
    const auto t0 = std::chrono::steady_clock::now();
    {
        auto f = layout::hdf5::create_file(path);
        layout::hdf5::write_options o;
        o.chunk_elements = chunk;
        o.overlap = overlap;
        layout::hdf5::write(f, c, o);
    }
    return seconds_since(t0);
}

template <class Container>
double lib_read(const std::string& path, Container& out, std::size_t chunk) {
    const auto t0 = std::chrono::steady_clock::now();
    {
        auto f = layout::hdf5::open_file(path);
        layout::hdf5::read(f, 0, "particles", out, {.chunk_elements = chunk, .overlap = overlap});
    }
    return seconds_since(t0);
}

Particle make(std::size_t i) {
    const float f = static_cast<float>(i);
    return {f, f + 1, f + 2, -f, 0.5f * f, 1.0f, 1.0f + f * 1e-3f, static_cast<std::int32_t>(i)};
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

template <class C>
bool same(const C& c, const columns& ref) {
    for (std::size_t i = 0; i < c.size(); i += 4099) {
        const Particle p = c[i];
        if (p.x != ref.x[i] || p.vy != ref.vy[i] || p.id != ref.id[i]) return false;
    }
    return c.size() == ref.x.size();
}

} // namespace

int main(int argc, char** argv) {
    std::size_t n = std::size_t{1} << 25;
    int repeats = 5;
    std::string dir = "/tmp";
    std::size_t chunk = layout::hdf5::detail::default_chunk;
    for (int a = 1; a < argc; ++a) {
        const std::string arg = argv[a];
        if (arg.rfind("--n=", 0) == 0)
            n = std::stoull(arg.substr(4));
        else if (arg.rfind("--repeats=", 0) == 0)
            repeats = std::stoi(arg.substr(10));
        else if (arg.rfind("--dir=", 0) == 0)
            dir = arg.substr(6);
        else if (arg.rfind("--chunk=", 0) == 0)
            chunk = std::stoull(arg.substr(8));
        else if (arg.rfind("--overlap=", 0) == 0)
            overlap = arg.substr(10) != "0";
        else {
            std::fprintf(
                stderr,
                "usage: hdf5_bench [--n=N] [--repeats=R] [--dir=D] [--chunk=C] [--overlap=0|1]\n");
            return 2;
        }
    }
    const std::string path = dir + "/layout_hdf5_bench_" + std::to_string(::getpid()) + ".h5";

    columns ref;
    std::vector<float>* floats[7] = {&ref.x, &ref.y, &ref.z, &ref.vx, &ref.vy, &ref.vz, &ref.mass};
    for (auto* f : floats) f->resize(n);
    ref.id.resize(n);
    layout::soa_vector<Particle> soa(n);
    for (std::size_t i = 0; i < n; ++i) {
        const Particle p = make(i);
        ref.x[i] = p.x, ref.y[i] = p.y, ref.z[i] = p.z, ref.vx[i] = p.vx, ref.vy[i] = p.vy;
        ref.vz[i] = p.vz, ref.mass[i] = p.mass, ref.id[i] = p.id;
        soa[i] = p;
    }
    const layout::aos_vector<Particle> aos = soa;
    const layout::aosoa<Particle, 32> blocks = soa;

    enum { plain, lib_soa, lib_aos, lib_aosoa, variants };
    const char* label[variants] = {"plain HDF5 (8 columns)", "layout soa_vector",
                                   "layout aos_vector", "layout aosoa<32>"};
    std::vector<double> w[variants], r[variants], touch;
    bool ok = true;
    for (int rep = 0; rep < repeats; ++rep) {
        {
            w[plain].push_back(plain_write(path, ref));
            plain_columns back;
            r[plain].push_back(plain_read(path, n, back));
            ok = ok && std::memcmp(back.id.get(), ref.id.data(), n * sizeof(std::int32_t)) == 0 &&
                 std::memcmp(back.floats[4].get(), ref.vy.data(), n * sizeof(float)) == 0;
            std::filesystem::remove(path);
        }
        auto one = [&](int v, const auto& container) {
            w[v].push_back(lib_write(path, container, chunk));
            std::remove_cvref_t<decltype(container)> back;
            r[v].push_back(lib_read(path, back, chunk));
            ok = ok && same(back, ref);
            std::filesystem::remove(path);
        };
        one(lib_soa, soa);
        one(lib_aos, aos);
        one(lib_aosoa, blocks);
        {
            // The floor of any read into new memory: the first touch of as many new bytes.
            const std::size_t bytes = n * sizeof(Particle);
            const auto t0 = std::chrono::steady_clock::now();
            std::unique_ptr<std::byte[]> block(new std::byte[bytes]);
            std::memset(block.get(), 0, bytes);
            touch.push_back(seconds_since(t0));
        }
        std::fprintf(stderr, "repeat %d of %d done\n", rep + 1, repeats);
    }
    if (!ok) {
        std::fprintf(stderr, "hdf5_bench: a read gave other values than were written\n");
        return 1;
    }
    const double gb = static_cast<double>(n) * sizeof(Particle) / 1e9;
    const double pw = median(w[plain]), pr = median(r[plain]);
    std::printf("n = %zu particles, %zu B each (%.2f GB), %d repeats (median), chunk %zu, "
                "overlap %d, %s\n\n",
                n, sizeof(Particle), gb, repeats, chunk, int(overlap), dir.c_str());
    std::printf("| variant | write s | write GB/s | write vs plain | read s | read GB/s | read vs "
                "plain |\n|---|---|---|---|---|---|---|\n");
    for (int v = 0; v < variants; ++v) {
        const double mw = median(w[v]), mr = median(r[v]);
        std::printf("| %s | %.3f | %.2f | %.3f | %.3f | %.2f | %.3f |\n", label[v], mw, gb / mw,
                    pw / mw, mr, gb / mr, pr / mr);
    }
    std::printf("\nfirst touch of %.2f GB of new memory (new[] + memset): median %.3f s, fastest "
                "%.3f s\n",
                gb, median(touch), *std::min_element(touch.begin(), touch.end()));
    std::printf("\nall times (s):\n");
    for (int v = 0; v < variants; ++v) {
        std::printf("  %-36s write", label[v]);
        for (double t : w[v]) std::printf(" %.3f", t);
        std::printf("  read");
        for (double t : r[v]) std::printf(" %.3f", t);
        std::printf("\n");
    }
    std::printf("  %-36s      ", "first touch of new memory");
    for (double t : touch) std::printf(" %.3f", t);
    std::printf("\n");
    return 0;
}
