/// \file md.hpp
/// A Lennard-Jones molecular dynamics mini-app on layout: the atom, the input (a LAMMPS data
/// file or an fcc lattice), the options, and the thermo output. The kernels are in kernels.hpp,
/// the time loop in simulation.hpp; md.cpp (host) and md.cu (host and GPU) hold the backends.
///
/// What it computes is what LAMMPS computes for in.lj (units lj, pair_style lj/cut, fix nve):
///   E_pair = sum over pairs r < rc of 4 (r^-12 - r^-6)   (truncated, not shifted), per atom
///   Temp   = 2 KE / (3N - 3)                              (LAMMPS's dof: 3N minus momentum)
///   Press  = (2 KE + sum over pairs r . f) / (3 V)
///   TotEng = (E_pair + KE) / N
/// with velocity Verlet in LAMMPS's order (v += dt/2 f/m, x += dt v, reneighbor if due, forces,
/// v += dt/2 f/m) and positions wrapped into the box only when the neighbor lists are rebuilt.
#pragma once

#include <layout/layout.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace md {

template <class Real>
struct vec3 {
    Real x, y, z;
};

/// One atom: 9 reals and 2 ints (80 bytes in double). Stored AoS, SoA or AoSoA by
/// layout::vector<atom<Real>, Layout>; the kernels never know which.
template <class Real>
struct atom {
    vec3<Real> x; // position
    vec3<Real> v; // velocity
    vec3<Real> f; // force
    int type;     // 1-based, as in the data file
    int id;       // the data file's atom id (atoms are reordered by cell)
};

/// --layout split: the positions, which the force kernel gathers by neighbor index, packed as
/// an AoS of vec3 (one 24-byte element per atom in double); velocities, forces, type and id SoA.
template <class Real>
using split_layout =
    layout::policy::split<layout::policy::aos, layout::policy::soa, &atom<Real>::x>;

/// Bad input: the message names the file, line or value. main prints it and exits with 1.
struct input_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// The box: orthogonal, periodic in x, y and z.
struct box {
    double lo[3] = {0, 0, 0};
    double hi[3] = {0, 0, 0};
    double prd(int d) const { return hi[d] - lo[d]; }
    double volume() const { return prd(0) * prd(1) * prd(2); }
};

/// A start: atoms as plain structs in double, masses per type (index 0 is type 1).
struct system {
    md::box box;
    std::vector<atom<double>> atoms;
    std::vector<double> mass;
};

// ---- options ----------------------------------------------------------------------------------

struct options {
    std::string data;     // --data FILE, or:
    bool lattice = false; // --lattice fcc RHO --cells NX NY NZ --temp T --seed S
    double density = 0.8442;
    int cells[3] = {0, 0, 0};
    double temp = 1.44;
    std::uint64_t seed = 87287;
    double cutoff = 2.5;
    double skin = 0.3;
    double dt = 0.005;
    long steps = 100;
    long thermo = 50;
    long every = 20;
    std::string layout = "soa"; // aos | soa | aosoa32 | split (positions AoS, the rest SoA)
    std::string device = "cpu"; // cpu | gpu
    std::string precision = "double";
    std::string neighbor;     // half | full; default: half on the CPU, full on the GPU
    int digits = 8;           // significant digits of the thermo values (LAMMPS prints 8)
    int threads = 1;          // host threads (OpenMP builds only)
    bool timing = true;       // the timing breakdown after the run
    bool compare_raw = false; // GPU: time the library force kernel against a hand-written one
    int raw_reps = 50;
    bool graph = false;    // GPU: the steps between rebuilds and thermo replayed as CUDA graphs
    int graph_compare = 0; // GPU: runs without and with graphs this many times each, compared
    int force_lanes = 0;   // GPU: threads an atom in the force kernel (1, 2, 4, 8; 0: by size)
};

inline const char* usage =
    "usage: md (--data FILE | --lattice fcc RHO --cells NX NY NZ [--temp T] [--seed S])\n"
    "          [--cutoff 2.5] [--skin 0.3] [--dt 0.005] [--steps 100] [--thermo 50] [--every 20]\n"
    "          [--layout aos|soa|aosoa32|split] [--device cpu|gpu] [--precision double|float]\n"
    "          [--neighbor half|full] [--digits 8] [--threads 1] [--no-timing]\n"
    "          [--compare-raw [REPS]] [--graph] [--graph-compare [REPS]] [--force-lanes 0]\n";

namespace detail {

inline double to_double(const std::string& s, const std::string& what) {
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE || !std::isfinite(v))
        throw input_error(what + ": '" + s + "' is not a finite number");
    return v;
}

inline long to_long(const std::string& s, const std::string& what) {
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(s.c_str(), &end, 10);
    if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE)
        throw input_error(what + ": '" + s + "' is not an integer");
    return v;
}

} // namespace detail

inline options parse_options(int argc, char** argv) {
    options o;
    bool have_cells = false;
    for (int a = 1; a < argc; ++a) {
        const std::string opt = argv[a];
        auto value = [&](const char* what) -> std::string {
            if (a + 1 >= argc) throw input_error(opt + ": missing " + what);
            return argv[++a];
        };
        auto positive = [&](double v) {
            if (!(v > 0)) throw input_error(opt + " must be positive, not " + std::to_string(v));
            return v;
        };
        if (opt == "--data") {
            o.data = value("file name");
        } else if (opt == "--lattice") {
            if (value("lattice style") != "fcc")
                throw input_error("--lattice: only fcc is supported, not '" + std::string(argv[a]) +
                                  "'");
            o.lattice = true;
            o.density = positive(detail::to_double(value("density"), "--lattice fcc density"));
        } else if (opt == "--cells") {
            for (int d = 0; d < 3; ++d) {
                const long c = detail::to_long(value("three cell counts"), "--cells");
                if (c < 0 || c > 1000)
                    throw input_error("--cells: " + std::to_string(c) + " is not in [0, 1000]");
                o.cells[d] = static_cast<int>(c);
            }
            have_cells = true;
        } else if (opt == "--temp") {
            o.temp = detail::to_double(value("temperature"), "--temp");
            if (o.temp < 0) throw input_error("--temp must not be negative");
        } else if (opt == "--seed") {
            o.seed = static_cast<std::uint64_t>(detail::to_long(value("seed"), "--seed"));
        } else if (opt == "--cutoff") {
            o.cutoff = positive(detail::to_double(value("cutoff"), "--cutoff"));
        } else if (opt == "--skin") {
            o.skin = detail::to_double(value("skin"), "--skin");
            if (o.skin < 0) throw input_error("--skin must not be negative");
        } else if (opt == "--dt") {
            o.dt = positive(detail::to_double(value("time step"), "--dt"));
        } else if (opt == "--steps") {
            o.steps = detail::to_long(value("step count"), "--steps");
            if (o.steps < 0) throw input_error("--steps must not be negative");
        } else if (opt == "--thermo") {
            o.thermo = detail::to_long(value("thermo interval"), "--thermo");
            if (o.thermo <= 0) throw input_error("--thermo must be positive");
        } else if (opt == "--every") {
            o.every = detail::to_long(value("reneighbor interval"), "--every");
            if (o.every <= 0) throw input_error("--every must be positive");
        } else if (opt == "--layout") {
            o.layout = value("aos, soa, aosoa32 or split");
            if (o.layout != "aos" && o.layout != "soa" && o.layout != "aosoa32" &&
                o.layout != "split")
                throw input_error("--layout: '" + o.layout + "' is not aos, soa, aosoa32 or split");
        } else if (opt == "--device") {
            o.device = value("cpu or gpu");
            if (o.device != "cpu" && o.device != "gpu")
                throw input_error("--device: '" + o.device + "' is not cpu or gpu");
        } else if (opt == "--precision") {
            o.precision = value("double or float");
            if (o.precision != "double" && o.precision != "float")
                throw input_error("--precision: '" + o.precision + "' is not double or float");
        } else if (opt == "--neighbor") {
            o.neighbor = value("half or full");
            if (o.neighbor != "half" && o.neighbor != "full")
                throw input_error("--neighbor: '" + o.neighbor + "' is not half or full");
        } else if (opt == "--digits") {
            o.digits = static_cast<int>(detail::to_long(value("digits"), "--digits"));
            if (o.digits < 1 || o.digits > 17) throw input_error("--digits: 1 to 17");
        } else if (opt == "--threads") {
            o.threads = static_cast<int>(detail::to_long(value("thread count"), "--threads"));
            if (o.threads < 1) throw input_error("--threads must be at least 1");
        } else if (opt == "--no-timing") {
            o.timing = false;
        } else if (opt == "--compare-raw") {
            o.compare_raw = true;
            if (a + 1 < argc && argv[a + 1][0] != '-')
                o.raw_reps =
                    static_cast<int>(detail::to_long(value("repetitions"), "--compare-raw"));
        } else if (opt == "--graph") {
            o.graph = true;
        } else if (opt == "--graph-compare") {
            o.graph_compare = 3;
            if (a + 1 < argc && argv[a + 1][0] != '-')
                o.graph_compare =
                    static_cast<int>(detail::to_long(value("repetitions"), "--graph-compare"));
            if (o.graph_compare < 1) throw input_error("--graph-compare: at least 1 repetition");
        } else if (opt == "--force-lanes") {
            o.force_lanes =
                static_cast<int>(detail::to_long(value("threads an atom"), "--force-lanes"));
            if (o.force_lanes != 0 && o.force_lanes != 1 && o.force_lanes != 2 &&
                o.force_lanes != 4 && o.force_lanes != 8)
                throw input_error("--force-lanes: 0 (chosen from the atom count), 1, 2, 4 or 8");
        } else if (opt == "--help" || opt == "-h") {
            std::fputs(usage, stdout);
            std::exit(0);
        } else {
            throw input_error("unknown option '" + opt + "'\n" + usage);
        }
    }
    if (o.data.empty() == !o.lattice)
        throw input_error(
            std::string("give either --data FILE or --lattice fcc RHO --cells NX NY NZ\n") + usage);
    if (o.lattice && !have_cells) throw input_error("--lattice needs --cells NX NY NZ");
    if (o.neighbor.empty()) o.neighbor = o.device == "gpu" ? "full" : "half";
#if !defined(_OPENMP)
    if (o.threads > 1) {
        std::fprintf(stderr, "md: warning: built without OpenMP: --threads %d runs on one thread\n",
                     o.threads);
        o.threads = 1;
    }
#endif
    if ((o.graph || o.graph_compare) && o.device != "gpu")
        throw input_error(std::string(o.graph ? "--graph" : "--graph-compare") +
                          ": CUDA graphs are for --device gpu (md_gpu)");
    if (o.device == "gpu" && o.neighbor == "half")
        throw input_error("--neighbor half: the GPU runs a full list (no atomic updates of f[j])");
    return o;
}

/// go.template operator()<Real, Layout>() for the options' precision and layout: the one place
/// where the command line picks the types.
template <class Go>
int with_types(const options& o, Go&& go) {
    auto with_layout = [&]<class Real>() {
        if (o.layout == "aos") return go.template operator()<Real, layout::policy::aos>();
        if (o.layout == "soa") return go.template operator()<Real, layout::policy::soa>();
        if (o.layout == "split") return go.template operator()<Real, split_layout<Real>>();
        return go.template operator()<Real, layout::policy::aosoa<32>>();
    };
    return o.precision == "float" ? with_layout.template operator()<float>()
                                  : with_layout.template operator()<double>();
}

// ---- the start: a LAMMPS data file ------------------------------------------------------------

namespace detail {

inline std::vector<std::string> words(const std::string& line) {
    std::vector<std::string> w;
    std::istringstream in(line.substr(0, line.find('#')));
    for (std::string s; in >> s;) w.push_back(s);
    return w;
}

inline bool blank(const std::string& line) { return words(line).empty(); }

} // namespace detail

/// Reads what LAMMPS's write_data writes for atom_style atomic: the header (atoms, atom types,
/// xlo xhi, ylo yhi, zlo zhi), Masses, Atoms (id type x y z [ix iy iz]) and Velocities
/// (id vx vy vz). Pair Coeffs are accepted when every type has epsilon = sigma = 1 (the app's
/// only potential). Anything else is an input_error naming the file, line and value.
inline system read_data(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw input_error(path + ": cannot open the data file");
    system s;
    std::string line;
    long line_no = 0;
    auto where = [&] { return path + ":" + std::to_string(line_no) + ": "; };
    auto next = [&]() -> bool {
        if (!std::getline(in, line)) return false;
        ++line_no;
        return true;
    };

    // Header: the first line is a title; then "N keyword" lines until the first section.
    long n_atoms = -1, n_types = -1;
    bool have_box[3] = {false, false, false};
    if (!next()) throw input_error(path + ": the file is empty");
    std::string section;
    while (next()) {
        const auto w = detail::words(line);
        if (w.empty()) continue;
        if (!std::isdigit(static_cast<unsigned char>(w[0][0])) && w[0][0] != '-' &&
            w[0][0] != '+' && w[0][0] != '.') {
            section = w.size() >= 2 ? w[0] + " " + w[1] : w[0];
            if (section != "Pair Coeffs") section = w[0];
            break;
        }
        if (w.size() == 2 && w[1] == "atoms") {
            n_atoms = detail::to_long(w[0], where() + "atom count");
        } else if (w.size() == 3 && w[1] == "atom" && w[2] == "types") {
            n_types = detail::to_long(w[0], where() + "atom type count");
        } else if (w.size() == 4 && (w[2] == "xlo" || w[2] == "ylo" || w[2] == "zlo")) {
            const int d = w[2][0] - 'x';
            s.box.lo[d] = detail::to_double(w[0], where() + w[2]);
            s.box.hi[d] = detail::to_double(w[1], where() + w[3]);
            if (!(s.box.hi[d] > s.box.lo[d]))
                throw input_error(where() + w[3] + " " + w[1] + " is not above " + w[2] + " " +
                                  w[0]);
            have_box[d] = true;
        } else if (w.size() == 6 && w[3] == "xy") {
            throw input_error(where() +
                              "a triclinic box (xy xz yz): only orthogonal boxes are supported");
        } else if (w.size() >= 2 && detail::to_long(w[0], where() + "count") != 0) {
            throw input_error(where() + "'" + line +
                              "': only atom_style atomic (atoms and atom types) is supported");
        }
    }
    if (n_atoms < 0) throw input_error(path + ": the header has no 'N atoms' line");
    if (n_atoms == 0) throw input_error(path + ": the header says 0 atoms: nothing to simulate");
    if (n_atoms > 0x7fffffffL)
        throw input_error(path + ": the header says " + std::to_string(n_atoms) +
                          " atoms: more than 2^31 - 1");
    if (n_types > 1000)
        throw input_error(path + ": the header says " + std::to_string(n_types) +
                          " atom types: at most 1000");
    if (n_types <= 0)
        throw input_error(path + ": the header has no 'N atom types' line (or 0 types)");
    for (int d = 0; d < 3; ++d)
        if (!have_box[d])
            throw input_error(path + ": the header has no '" + std::string(1, char('x' + d)) +
                              "lo " + std::string(1, char('x' + d)) + "hi' line");

    s.mass.assign(static_cast<std::size_t>(n_types), 0.0);
    std::vector<bool> mass_set(static_cast<std::size_t>(n_types), false);
    s.atoms.resize(static_cast<std::size_t>(n_atoms));
    std::vector<long> slot_of_id; // id -> index in s.atoms + 1 (0: not seen)
    bool have_masses = false, have_atoms = false, have_velocities = false;

    // Each section: a keyword line, a blank line, then exactly `count` lines.
    auto read_rows = [&](long count, auto&& row) {
        long done = 0;
        while (done < count) {
            if (!next())
                throw input_error(path + ": the " + section + " section ends after " +
                                  std::to_string(done) + " of " + std::to_string(count) + " lines");
            const auto w = detail::words(line);
            if (w.empty()) {
                if (done == 0) continue;
                throw input_error(where() + "the " + section + " section ends after " +
                                  std::to_string(done) + " of the " + std::to_string(count) +
                                  " lines the header's counts call for (a blank line)");
            }
            if (std::isalpha(static_cast<unsigned char>(w[0][0])))
                throw input_error(where() + "the " + section + " section ends after " +
                                  std::to_string(done) + " of the " + std::to_string(count) +
                                  " lines the header's counts call for ('" + line + "')");
            row(w);
            ++done;
        }
    };
    while (!section.empty()) {
        if (section == "Masses") {
            read_rows(n_types, [&](const std::vector<std::string>& w) {
                if (w.size() < 2) throw input_error(where() + "Masses: expected 'type mass'");
                const long t = detail::to_long(w[0], where() + "type");
                if (t < 1 || t > n_types)
                    throw input_error(where() + "Masses: type " + w[0] + " is not in [1, " +
                                      std::to_string(n_types) + "]");
                const double m = detail::to_double(w[1], where() + "mass");
                if (!(m > 0))
                    throw input_error(where() + "Masses: mass " + w[1] + " is not positive");
                s.mass[static_cast<std::size_t>(t - 1)] = m;
                mass_set[static_cast<std::size_t>(t - 1)] = true;
            });
            have_masses = true;
        } else if (section == "Pair Coeffs") {
            read_rows(n_types, [&](const std::vector<std::string>& w) {
                if (w.size() < 3 || detail::to_double(w[1], where() + "epsilon") != 1.0 ||
                    detail::to_double(w[2], where() + "sigma") != 1.0)
                    throw input_error(where() +
                                      "Pair Coeffs: only epsilon = sigma = 1 is supported, not '" +
                                      line + "'");
            });
        } else if (section == "Atoms") {
            long k = 0;
            read_rows(n_atoms, [&](const std::vector<std::string>& w) {
                if (w.size() != 5 && w.size() != 8)
                    throw input_error(
                        where() +
                        "Atoms: expected 'id type x y z [ix iy iz]' (atom_style atomic), got " +
                        std::to_string(w.size()) + " values");
                const long id = detail::to_long(w[0], where() + "atom id");
                const long t = detail::to_long(w[1], where() + "atom type");
                if (id < 1 || id > 0x7fffffff)
                    throw input_error(where() + "Atoms: bad atom id " + w[0]);
                if (t < 1 || t > n_types)
                    throw input_error(where() + "Atoms: atom " + w[0] + " has type " + w[1] +
                                      ", not in [1, " + std::to_string(n_types) + "]");
                atom<double>& a = s.atoms[static_cast<std::size_t>(k)];
                double* x[3] = {&a.x.x, &a.x.y, &a.x.z};
                for (int d = 0; d < 3; ++d) {
                    *x[d] = detail::to_double(w[2 + d], where() + "coordinate");
                    // LAMMPS's own test for a periodic box: lo <= x < hi.
                    if (*x[d] < s.box.lo[d] || *x[d] >= s.box.hi[d])
                        throw input_error(where() + "atom " + w[0] + " is outside the box: " +
                                          std::string(1, char('x' + d)) + " = " + w[2 + d] +
                                          " is not in [" + std::to_string(s.box.lo[d]) + ", " +
                                          std::to_string(s.box.hi[d]) + ")");
                }
                a.v = {0, 0, 0};
                a.f = {0, 0, 0};
                a.type = static_cast<int>(t);
                a.id = static_cast<int>(id);
                if (static_cast<std::size_t>(id) >= slot_of_id.size())
                    slot_of_id.resize(static_cast<std::size_t>(id) + 1, 0);
                if (slot_of_id[static_cast<std::size_t>(id)] != 0)
                    throw input_error(where() + "Atoms: atom id " + w[0] + " appears twice");
                slot_of_id[static_cast<std::size_t>(id)] = ++k;
            });
            have_atoms = true;
        } else if (section == "Velocities") {
            if (!have_atoms)
                throw input_error(where() + "no Atoms section before the Velocities section "
                                            "(velocities refer to the ids of Atoms)");
            std::vector<bool> seen(s.atoms.size(), false);
            read_rows(n_atoms, [&](const std::vector<std::string>& w) {
                if (w.size() != 4)
                    throw input_error(where() + "Velocities: expected 'id vx vy vz'");
                const long id = detail::to_long(w[0], where() + "atom id");
                if (id < 1 || static_cast<std::size_t>(id) >= slot_of_id.size() ||
                    slot_of_id[static_cast<std::size_t>(id)] == 0)
                    throw input_error(where() + "Velocities: atom id " + w[0] +
                                      " is not in the Atoms section");
                const auto k =
                    static_cast<std::size_t>(slot_of_id[static_cast<std::size_t>(id)] - 1);
                if (seen[k])
                    throw input_error(where() + "Velocities: atom id " + w[0] + " appears twice");
                seen[k] = true;
                s.atoms[k].v = {detail::to_double(w[1], where() + "vx"),
                                detail::to_double(w[2], where() + "vy"),
                                detail::to_double(w[3], where() + "vz")};
            });
            have_velocities = true;
        } else {
            throw input_error(where() + "section '" + section +
                              "' is not supported (atom_style atomic: Masses, Atoms, Velocities)");
        }
        // The next section keyword, or the end of the file.
        section.clear();
        while (next()) {
            const auto w = detail::words(line);
            if (w.empty()) continue;
            if (std::isdigit(static_cast<unsigned char>(w[0][0])) || w[0][0] == '-')
                throw input_error(where() + "more lines than the header's counts say ('" + line +
                                  "')");
            section = (w.size() >= 2 && w[0] == "Pair" && w[1] == "Coeffs") ? "Pair Coeffs" : w[0];
            break;
        }
    }
    if (!have_masses)
        throw input_error(path + ": no Masses section (every atom type needs a mass)");
    for (std::size_t t = 0; t < mass_set.size(); ++t)
        if (!mass_set[t])
            throw input_error(path + ": the Masses section gives no mass for type " +
                              std::to_string(t + 1));
    if (!have_atoms) throw input_error(path + ": no Atoms section");
    if (!have_velocities)
        throw input_error(path +
                          ": no Velocities section (write_data writes one; the app starts from "
                          "the file's velocities)");
    return s;
}

// ---- the start: an fcc lattice ------------------------------------------------------------------

/// fcc at number density rho, nx * ny * nz unit cells from the origin (LAMMPS's `lattice fcc
/// rho` + `create_atoms`), velocities Gaussian from the seed, zero total momentum, scaled to
/// temp with 3N - 3 degrees of freedom. LAMMPS's `velocity create` has its own generator: to
/// compare with LAMMPS, start from a data file it wrote.
inline system make_lattice(double rho, const int cells[3], double temp, std::uint64_t seed) {
    const long n = 4L * cells[0] * cells[1] * cells[2];
    if (n == 0)
        throw input_error("--cells " + std::to_string(cells[0]) + " " + std::to_string(cells[1]) +
                          " " + std::to_string(cells[2]) + " makes zero atoms");
    const double a = std::cbrt(4.0 / rho);
    system s;
    for (int d = 0; d < 3; ++d) s.box.hi[d] = a * cells[d];
    s.mass = {1.0};
    const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> gauss(0.0, 1.0);
    int id = 0;
    for (int k = 0; k < cells[2]; ++k)
        for (int j = 0; j < cells[1]; ++j)
            for (int i = 0; i < cells[0]; ++i)
                for (const auto& b : basis) {
                    atom<double> p{};
                    p.x = {(i + b[0]) * a, (j + b[1]) * a, (k + b[2]) * a};
                    p.v = {gauss(rng), gauss(rng), gauss(rng)};
                    p.type = 1;
                    p.id = ++id;
                    s.atoms.push_back(p);
                }
    double px = 0, py = 0, pz = 0;
    for (const auto& p : s.atoms) px += p.v.x, py += p.v.y, pz += p.v.z;
    px /= double(n), py /= double(n), pz /= double(n);
    double mv2 = 0;
    for (auto& p : s.atoms) {
        p.v.x -= px, p.v.y -= py, p.v.z -= pz;
        mv2 += p.v.x * p.v.x + p.v.y * p.v.y + p.v.z * p.v.z;
    }
    const double dof = 3.0 * double(n) - 3.0;
    const double scale = (mv2 > 0 && dof > 0) ? std::sqrt(temp * dof / mv2) : 0.0;
    for (auto& p : s.atoms) p.v.x *= scale, p.v.y *= scale, p.v.z *= scale;
    return s;
}

/// The checks that make the algorithm valid: one periodic image within the cutoff + skin.
inline void check_system(const system& s, const options& o) {
    if (s.atoms.empty()) throw input_error("zero atoms: nothing to simulate");
    const double reach = o.cutoff + o.skin;
    for (int d = 0; d < 3; ++d)
        if (reach > 0.5 * s.box.prd(d)) {
            char msg[256];
            std::snprintf(msg, sizeof msg,
                          "cutoff + skin = %g + %g = %g is larger than half the box in %c "
                          "(%g / 2 = %g): use a larger box or a smaller cutoff",
                          o.cutoff, o.skin, reach, char('x' + d), s.box.prd(d), 0.5 * s.box.prd(d));
            throw input_error(msg);
        }
    if (s.atoms.size() > 0x7fffffffu) throw input_error("more than 2^31 - 1 atoms");
}

// ---- thermo -------------------------------------------------------------------------------------

struct thermo {
    long step;
    double temp, e_pair, e_mol, tot_eng, press;
};

/// From the sums over atoms: kinetic energy, pair energy, virial (sum over pairs of r . f).
inline thermo make_thermo(long step, double ke, double e_pair, double virial, std::size_t n,
                          double volume) {
    const double dof = 3.0 * double(n) - 3.0;
    const double temp = dof > 0 ? 2.0 * ke / dof : 0.0;
    const double press = (2.0 * ke + virial) / (3.0 * volume);
    return {step, temp, e_pair / double(n), 0.0, (e_pair + ke) / double(n), press};
}

inline void print_thermo_header() { std::printf("Step Temp E_pair E_mol TotEng Press \n"); }

/// LAMMPS's format: "%8d" then " %12.8g" per value (with --digits d: " %{d+4}.{d}g").
inline void print_thermo(const thermo& t, int digits) {
    const int width = digits + 4;
    std::printf("%8ld %*.*g %*.*g %*.*g %*.*g %*.*g \n", t.step, width, digits, t.temp, width,
                digits, t.e_pair, width, digits, t.e_mol, width, digits, t.tot_eng, width, digits,
                t.press);
}

} // namespace md
