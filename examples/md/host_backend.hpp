/// \file host_backend.hpp
/// The host side of simulation.hpp: layout::vector in host memory, layout::for_each_index
/// (or an OpenMP loop over the same functor with --threads N), layout::bin_by_key, and a half
/// neighbor list. Half on the CPU because a core runs one atom at a time: Newton's third law
/// halves the pair arithmetic and the neighbor storage, and the scattered f[j] -= ... writes
/// cost little when nothing else writes the same atom (one thread, or one force buffer per
/// thread with --threads N).
///
/// Also checkpoint and restart (--checkpoint FILE --checkpoint-every K, --restart FILE
/// [--restart-iteration I]) through <layout/io/hdf5.hpp>, where md is built with layout::hdf5
/// (MD_HAVE_HDF5, set by examples/md/CMakeLists.txt): the atoms as openPMD particles, species
/// "atoms", one iteration per checkpointed step, read back into whatever layout the run uses.
#pragma once

#include "simulation.hpp"

#include <layout/algorithms.hpp>
#include <layout/layout.hpp>

#if defined(MD_HAVE_HDF5)
#  include <layout/io/hdf5.hpp>
#endif

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#if defined(_OPENMP)
#  include <omp.h>
#endif

namespace md {

/// Half = false runs the GPU's full list, interleaved as on the GPU, through the same kernels
/// (--neighbor full): a check of the GPU's force and list kernels on a machine without one.
template <bool Half = true>
struct host_backend {
    template <class T, class Layout>
    using atoms = layout::vector<T, Layout>;
    template <class T>
    using array = std::vector<T>;
    static constexpr bool half_list = Half;
    static constexpr bool interleaved_list = !Half;
    /// Half list: cells half the reach wide, as LAMMPS's default bins: a stencil of up to 63
    /// of them holds ~40% fewer candidates than 14 cells a reach wide (in.lj: ~145 per atom,
    /// not ~250). Full list: the GPU's cells, one reach wide, so that --neighbor full runs the
    /// GPU's configuration exactly.
    static constexpr int cells_per_reach = Half ? 2 : 1;

    explicit host_backend(int thread_count = 1) : threads(thread_count) {}

    int threads = 1;
    std::vector<double> buffer_double; // the force buffers of half_forces with several threads
    std::vector<float> buffer_float;

    template <class Real>
    std::vector<Real>& buffer() {
        if constexpr (std::is_same_v<Real, float>)
            return buffer_float;
        else
            return buffer_double;
    }

    template <class T>
    static T* ptr(array<T>& a) {
        return a.data();
    }
    template <class T>
    static void zeros(array<T>& a, std::size_t n) {
        a.assign(n, T{});
    }
    template <class T>
    static array<T> to_device(const std::vector<T>& h) {
        return h;
    }
    template <class Atoms, class Host>
    static Atoms atoms_from(const Host& h) {
        return Atoms(h);
    }

    /// f(v, i) for every i: layout::for_each_index on one thread, or on `threads` OpenMP
    /// threads (exec::parallel uses omp_get_max_threads(), so that is set first) once there
    /// are at least 1024 atoms a thread: in.lj's 32,000 on 16 threads, below the policy's
    /// default minimum (32,768), but not 864 atoms, whose per-atom loops take microseconds and
    /// would wait on starting threads (150x slower on a busy 2-core machine).
    template <class View, class F>
    void for_each(const View& v, const F& f) const {
#if defined(_OPENMP)
        if (threads > 1) {
            omp_set_num_threads(threads);
            constexpr std::size_t atoms_per_thread = 1024;
            layout::for_each_index(
                layout::exec::parallel_policy{atoms_per_thread * std::size_t(threads)}, v, f);
            return;
        }
#endif
        layout::for_each_index(layout::exec::serial, v, f); // --threads 1 means one thread
    }

    /// The half-list forces (f: an lj_half<Real, Energy, false>). One thread: a plain loop
    /// (iteration i also writes atom j, so the iterations are not independent and
    /// for_each_index, which tells the compiler they are, is not for this), forces straight
    /// into the atoms. Several threads: each adds into its own force buffer, then the buffers
    /// are summed into the atoms (as LAMMPS's OPENMP package does).
    template <class View, class Real, bool Energy>
    void half_forces(const View& v, const lj_half<Real, Energy, false>& f) {
        const std::size_t n = v.size();
#if defined(_OPENMP)
        if (threads > 1) {
            std::vector<Real>& buffers = buffer<Real>();
            buffers.resize(std::size_t(threads) * 3 * n);
            lj_half<Real, Energy, true> g{f.list, f.box, f.cut_sq, f.e, f.w, nullptr};
#  pragma omp parallel num_threads(threads) firstprivate(g)
            {
                // Each thread clears its own buffer: in parallel, and in its core's cache.
                g.fbuf = buffers.data() + std::size_t(omp_get_thread_num()) * 3 * n;
                std::fill(g.fbuf, g.fbuf + 3 * n, Real(0));
                const auto count = static_cast<std::ptrdiff_t>(n);
#  pragma omp for schedule(static)
                for (std::ptrdiff_t i = 0; i < count; ++i) g(v, static_cast<std::size_t>(i));
            }
            for_each(v, sum_force_buffers<Real>{buffers.data(), n, threads});
            return;
        }
#endif
        for_each(v, clear_forces<Real>{});
        for (std::size_t i = 0; i < n; ++i) f(v, i);
    }

    /// Sorts the atoms by cell (a stable counting sort that moves every field); returns where
    /// each cell starts. The keys come back sorted: key[i] is then the cell of atom i. In place:
    /// the spare container is not used.
    template <class Atoms>
    static array<index_t> bin(array<index_t>& keys, std::size_t cells, Atoms& a, Atoms&) {
        return layout::bin_by_key<index_t>(keys, cells, a).offsets;
    }

    static double sum(const array<double>& a, std::size_t n) {
        double s = 0;
        for (std::size_t i = 0; i < n; ++i) s += a[i];
        return s;
    }
    static std::size_t max(const array<index_t>& a, std::size_t n) {
        return n ? *std::max_element(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n)) : 0;
    }
    static void sync() {}
};

// ---- checkpoint and restart ---------------------------------------------------------------------

/// --checkpoint FILE [--checkpoint-every K]: the atoms at steps K, 2K, ... (without
/// --checkpoint-every: at the last step only) as iterations of an openPMD file (created anew at
/// the start of the run). --restart FILE [--restart-iteration I]: the atoms of iteration I (by
/// default the file's last) instead of the start's, and the run continues from step I for
/// --steps more steps. The start (--data or --lattice) still gives the box and the masses; the
/// restart checks that the file's box and atom count are the start's.
struct checkpoint_options {
    std::string file;
    long every = 0; // 0: the last step only
    std::string restart;
    long restart_iteration = -1; // -1: the file's last
    bool any() const { return !file.empty() || !restart.empty(); }
};

inline const char* checkpoint_usage = "          [--checkpoint FILE [--checkpoint-every K]] "
                                      "[--restart FILE [--restart-iteration I]]\n";

/// Takes the checkpoint options out of the command line (md::parse_options does not know them)
/// and returns the rest, argv[0] first. Without HDF5 they are an input_error.
inline std::vector<char*> take_checkpoint_options(int argc, char** argv, checkpoint_options& c) {
    std::vector<char*> rest{argv[0]};
    bool have_every = false, have_iteration = false;
    for (int a = 1; a < argc; ++a) {
        const std::string opt = argv[a];
        auto value = [&](const char* what) -> std::string {
            if (a + 1 >= argc) throw input_error(opt + ": missing " + what);
            return argv[++a];
        };
        if (opt == "--checkpoint") {
            c.file = value("file name");
        } else if (opt == "--checkpoint-every") {
            c.every = detail::to_long(value("step interval"), opt);
            if (c.every <= 0) throw input_error("--checkpoint-every must be positive");
            have_every = true;
        } else if (opt == "--restart") {
            c.restart = value("file name");
        } else if (opt == "--restart-iteration") {
            c.restart_iteration = detail::to_long(value("iteration"), opt);
            if (c.restart_iteration < 0)
                throw input_error("--restart-iteration must not be negative");
            have_iteration = true;
        } else {
            if (opt == "--help" || opt == "-h") {
                std::fputs(usage, stdout);
                std::fputs(checkpoint_usage, stdout);
                std::exit(0);
            }
            rest.push_back(argv[a]);
        }
    }
    if (have_every && c.file.empty())
        throw input_error("--checkpoint-every needs --checkpoint FILE");
    if (have_iteration && c.restart.empty())
        throw input_error("--restart-iteration needs --restart FILE");
#if !defined(MD_HAVE_HDF5)
    if (c.any())
        throw input_error(std::string(c.file.empty() ? "--restart" : "--checkpoint") +
                          ": this md was built without HDF5 (checkpoints are openPMD files "
                          "written through layout::hdf5): install HDF5's C library and headers "
                          "(Debian: libhdf5-dev) and configure again");
#endif
    return rest;
}

#if defined(MD_HAVE_HDF5)

namespace checkpoint_detail {

inline constexpr const char* species = "atoms";

/// The names of the groups below `path` in `file` ("20", "40" below /data), or none where it
/// has no such group.
inline std::vector<std::string> groups_below(hid_t file, const char* path) {
    std::vector<std::string> out;
    if (H5Lexists(file, path, H5P_DEFAULT) <= 0) return out;
    layout::hdf5::handle g(H5Gopen2(file, path, H5P_DEFAULT));
    if (!g) return out;
    H5G_info_t info{};
    if (H5Gget_info(g, &info) < 0) return out;
    for (hsize_t k = 0; k < info.nlinks; ++k) {
        const ssize_t size =
            H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, k, nullptr, 0, H5P_DEFAULT);
        if (size <= 0) continue;
        std::string name(static_cast<std::size_t>(size), '\0');
        H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, k, name.data(),
                           static_cast<std::size_t>(size) + 1, H5P_DEFAULT);
        out.push_back(name);
    }
    return out;
}

/// The box, as a double[3] attribute of the species (not openPMD's: md's own, for the check
/// of a restart).
inline void put_box(hid_t group, const char* name, const double (&value)[3]) {
    const hsize_t dims[1] = {3};
    layout::hdf5::handle space(H5Screate_simple(1, dims, nullptr));
    layout::hdf5::handle a(
        H5Acreate2(group, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT));
    if (!a || H5Awrite(a, H5T_NATIVE_DOUBLE, value) < 0)
        throw std::runtime_error(std::string("checkpoint: cannot write the attribute ") + name);
}
inline bool get_box(hid_t group, const char* name, double (&value)[3]) {
    if (H5Aexists(group, name) <= 0) return false;
    layout::hdf5::handle a(H5Aopen(group, name, H5P_DEFAULT));
    layout::hdf5::handle space(H5Aget_space(a));
    if (!a || H5Sget_simple_extent_npoints(space) != 3) return false;
    return H5Aread(a, H5T_NATIVE_DOUBLE, value) >= 0;
}

} // namespace checkpoint_detail

/// Writes the atoms of a simulation at the steps c asks for (sim.after_step = writer).
template <class Sim>
class checkpoint_writer {
public:
    checkpoint_writer(Sim& sim, const checkpoint_options& c, const options& o, const box& b)
        : sim_(sim), c_(c), dt_(o.dt), last_(sim.first_step() + o.steps), box_(b) {
        std::error_code ec;
        if (!c_.restart.empty() && std::filesystem::equivalent(c_.file, c_.restart, ec)) {
            // Restarting from this file: its iterations up to the restart's step stay, those
            // after it (the run that this one replaces) go.
            layout::hdf5::handle f = layout::hdf5::open_file(c_.file, true);
            for (const std::string& name : checkpoint_detail::groups_below(f, "/data"))
                if (name.find_first_not_of("0123456789") == std::string::npos &&
                    std::stol(name) > sim.first_step())
                    H5Ldelete(f, ("/data/" + name).c_str(), H5P_DEFAULT);
        } else {
            // Created (or emptied) now: a wrong path fails before the run, not at its first
            // checkpoint.
            try {
                layout::hdf5::create_file(c_.file);
            } catch (const layout::hdf5::error&) {
                throw input_error("--checkpoint " + c_.file + ": cannot create the file");
            }
        }
    }

    void operator()(long step) {
        if (c_.every > 0 ? step % c_.every != 0 : step != last_) return;
        const auto t0 = std::chrono::steady_clock::now();
        layout::hdf5::handle f = layout::hdf5::open_file(c_.file, true);
        layout::hdf5::write_options w;
        w.iteration = static_cast<std::uint64_t>(step);
        w.species = checkpoint_detail::species;
        w.time = double(step) * dt_;
        w.dt = dt_;
        // LJ reduced units (sigma, epsilon, mass, tau): unitSI is 1, the dimensions are SI's
        // (length; mass; time: L, M, T, I, theta, N, J).
        w.units = {{"x", {1.0, {1, 0, 0, 0, 0, 0, 0}}},
                   {"v", {1.0, {1, 0, -1, 0, 0, 0, 0}}},
                   {"f", {1.0, {1, 1, -2, 0, 0, 0, 0}}}};
        layout::hdf5::write(f, sim_.atoms(), w);
        const std::string path = "/data/" + std::to_string(step) + "/particles/" + w.species;
        layout::hdf5::handle g(H5Gopen2(f, path.c_str(), H5P_DEFAULT));
        checkpoint_detail::put_box(g, "boxLo", box_.lo);
        checkpoint_detail::put_box(g, "boxHi", box_.hi);
        steps_.push_back(step);
        seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }

    /// One line after the run's report: what was written, and the time it took.
    void report() const {
        std::printf("Checkpoints: %zu written to %s (", steps_.size(), c_.file.c_str());
        for (std::size_t k = 0; k < steps_.size(); ++k)
            std::printf("%s%ld", k ? ", " : "steps ", steps_[k]);
        std::printf("%s) in %.4f s\n", steps_.empty() ? "none" : "", seconds_);
    }

private:
    Sim& sim_;
    checkpoint_options c_;
    double dt_;
    long last_;
    box box_;
    std::vector<long> steps_;
    double seconds_ = 0;
};

/// Puts the atoms of c.restart's iteration (default: its last) into sim, to continue from that
/// step. Every check before sim changes: the iteration, the atoms' fields and types (another
/// --precision is another type), their count and the box against the start's.
template <class Sim>
void restart(Sim& sim, const checkpoint_options& c, const options& o, const box& b) {
    const std::string& file = c.restart;
    auto fail = [&](const std::string& why) {
        throw input_error("--restart " + file + ": " + why);
    };
    layout::hdf5::handle f;
    try {
        f = layout::hdf5::open_file(file);
    } catch (const layout::hdf5::error&) {
        std::error_code ec;
        fail(std::filesystem::exists(file, ec) ? "not an HDF5 file (or not readable)"
                                               : "no such file");
    }
    std::vector<long> iterations;
    for (const std::string& name : checkpoint_detail::groups_below(f, "/data"))
        if (!name.empty() && name.find_first_not_of("0123456789") == std::string::npos)
            iterations.push_back(std::stol(name));
    std::sort(iterations.begin(), iterations.end());
    if (iterations.empty()) fail("no iterations (no openPMD /data/<step> groups)");
    const long step = c.restart_iteration >= 0 ? c.restart_iteration : iterations.back();
    if (!std::binary_search(iterations.begin(), iterations.end(), step)) {
        std::string have;
        for (long i : iterations) have += (have.empty() ? "" : ", ") + std::to_string(i);
        fail("no iteration " + std::to_string(step) + " (the file has " + have + ")");
    }

    using atoms_t = std::remove_reference_t<decltype(sim.atoms())>;
    atoms_t read_in;
    try {
        layout::hdf5::read(f, static_cast<std::uint64_t>(step), checkpoint_detail::species,
                           read_in);
    } catch (const layout::hdf5::error& e) {
        std::string why = e.what();
        if (why.find("wrong type") != std::string::npos)
            why += " (a checkpoint of another --precision?)";
        fail(why);
    }
    if (read_in.size() != sim.size())
        fail("iteration " + std::to_string(step) + " has " + std::to_string(read_in.size()) +
             " atoms, the start (--data or --lattice) " + std::to_string(sim.size()) +
             ": restart with the start that made the checkpoint");
    const std::string path =
        "/data/" + std::to_string(step) + "/particles/" + checkpoint_detail::species;
    layout::hdf5::handle g(H5Gopen2(f, path.c_str(), H5P_DEFAULT));
    double lo[3] = {}, hi[3] = {};
    if (!g || !checkpoint_detail::get_box(g, "boxLo", lo) ||
        !checkpoint_detail::get_box(g, "boxHi", hi))
        fail(path + " has no boxLo and boxHi (not a checkpoint of md?)");
    for (int d = 0; d < 3; ++d)
        if (lo[d] != b.lo[d] || hi[d] != b.hi[d]) {
            char msg[256];
            std::snprintf(msg, sizeof msg,
                          "the checkpoint's box is [%.17g, %.17g) in %c, the start's [%.17g, "
                          "%.17g): restart with the start that made the checkpoint",
                          lo[d], hi[d], char('x' + d), b.lo[d], b.hi[d]);
            fail(msg);
        }
    double dt = 0;
    layout::hdf5::handle it(H5Gopen2(f, ("/data/" + std::to_string(step)).c_str(), H5P_DEFAULT));
    if (it && H5Aexists(it, "dt") > 0) {
        layout::hdf5::handle a(H5Aopen(it, "dt", H5P_DEFAULT));
        if (a && H5Aread(a, H5T_NATIVE_DOUBLE, &dt) >= 0 && dt != o.dt)
            std::fprintf(stderr,
                         "md: warning: --restart %s: the checkpoint was written with dt "
                         "%g, this run uses %g\n",
                         file.c_str(), dt, o.dt);
    }
    sim.atoms() = std::move(read_in);
    sim.start_at(step);
    std::printf("Restart: %zu atoms of step %ld from %s, layout %s\n", sim.size(), step,
                file.c_str(), o.layout.c_str());
}

#endif // MD_HAVE_HDF5

/// Runs the simulation for the options' layout and precision on backend b (with checkpoints
/// and a restart where c asks for them: HDF5 builds only).
template <class Backend>
int run_with(const system& s, const options& o, Backend b, const char* device,
             const checkpoint_options& c = {}) {
    auto go = [&]<class Real, class Layout>() {
        simulation<Real, Layout, Backend> sim(s, o, b);
#if defined(MD_HAVE_HDF5)
        using writer_t = checkpoint_writer<simulation<Real, Layout, Backend>>;
        if (!c.restart.empty()) restart(sim, c, o, s.box);
        std::unique_ptr<writer_t> writer;
        if (!c.file.empty()) {
            writer = std::make_unique<writer_t>(sim, c, o, s.box);
            sim.after_step = [w = writer.get()](long step) { (*w)(step); };
        }
        const auto th = sim.run();
        sim.report(th, device);
        if (writer) writer->report();
#else
        if (c.any())
            throw input_error("--checkpoint and --restart: this md was built without HDF5");
        const auto th = sim.run();
        sim.report(th, device);
#endif
        return 0;
    };
    return with_types(o, go);
}

/// Runs the simulation on the host with the options' neighbor list.
inline int run_host(const system& s, const options& o, const checkpoint_options& c = {}) {
    if (o.neighbor == "full") return run_with(s, o, host_backend<false>{o.threads}, "cpu", c);
    return run_with(s, o, host_backend<true>{o.threads}, "cpu", c);
}

/// The start the options ask for, checked.
inline system load_start(const options& o) {
    system s = o.lattice ? make_lattice(o.density, o.cells, o.temp, o.seed) : read_data(o.data);
    check_system(s, o);
    return s;
}

} // namespace md
