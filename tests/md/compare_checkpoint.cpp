// md_compare_checkpoint A B ITERATION
//
// The atoms of iteration ITERATION of two checkpoints of the md app (openPMD files, species
// "atoms", written by md --checkpoint) must be the same bit for bit: count, and every leaf of
// every atom in file order (positions, velocities, forces, type, id), compared as bytes, so that
// -0.0 is not 0.0. Read back through layout::hdf5 into an AoS container (double, else float).
// Prints the first differences with the leaf's name; exits 1 if any, 2 if a file cannot be read.
#include "md.hpp"

#include <layout/io/hdf5.hpp>
#include <layout/names.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

template <class Real>
int compare(const char* a_path, const char* b_path, std::uint64_t iteration) {
    using atom_t = md::atom<Real>;
    layout::aos_vector<atom_t> a, b;
    {
        auto f = layout::hdf5::open_file(a_path);
        layout::hdf5::read(f, iteration, "atoms", a);
    }
    {
        auto f = layout::hdf5::open_file(b_path);
        layout::hdf5::read(f, iteration, "atoms", b);
    }
    if (a.size() != b.size()) {
        std::printf("FAILED: %zu atoms in %s, %zu in %s\n", a.size(), a_path, b.size(), b_path);
        return 1;
    }
    constexpr auto names = layout::leaf_names<atom_t>();
    std::size_t differ = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const atom_t x = a[i], y = b[i];
        const Real* xr[] = {&x.x.x, &x.x.y, &x.x.z, &x.v.x, &x.v.y, &x.v.z, &x.f.x, &x.f.y, &x.f.z};
        const Real* yr[] = {&y.x.x, &y.x.y, &y.x.z, &y.v.x, &y.v.y, &y.v.z, &y.f.x, &y.f.y, &y.f.z};
        for (int k = 0; k < 9; ++k)
            if (std::memcmp(xr[k], yr[k], sizeof(Real)) != 0 && differ++ < 10)
                std::printf("atom %zu (id %d): %s %.17g != %.17g\n", i, x.id,
                            std::string(names[k]).c_str(), double(*xr[k]), double(*yr[k]));
        if ((x.type != y.type || x.id != y.id) && differ++ < 10)
            std::printf("atom %zu: type/id %d/%d != %d/%d\n", i, x.type, x.id, y.type, y.id);
    }
    std::printf("%s: %zu atoms (%s) of iteration %llu, %zu value(s) differ\n",
                differ ? "FAILED" : "PASSED", a.size(), sizeof(Real) == 8 ? "double" : "float",
                static_cast<unsigned long long>(iteration), differ);
    return differ ? 1 : 0;
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: md_compare_checkpoint A.h5 B.h5 ITERATION\n");
        return 2;
    }
    const std::uint64_t iteration = std::strtoull(argv[3], nullptr, 10);
    try {
        return compare<double>(argv[1], argv[2], iteration);
    } catch (const layout::hdf5::error& e) {
        if (std::string(e.what()).find("wrong type") == std::string::npos) {
            std::fprintf(stderr, "md_compare_checkpoint: %s\n", e.what());
            return 2;
        }
    }
    try {
        return compare<float>(argv[1], argv[2], iteration);
    } catch (const layout::hdf5::error& e) {
        std::fprintf(stderr, "md_compare_checkpoint: %s\n", e.what());
        return 2;
    }
}
