/// \file checkpoint.hpp
/// Checkpoint and restart of md and md_gpu, one implementation for every backend: --checkpoint
/// FILE [--checkpoint-every K] and --restart FILE [--restart-iteration I] through
/// <layout/io/hdf5.hpp>, where the app is built with layout::hdf5 (MD_HAVE_HDF5, set by
/// examples/md/CMakeLists.txt): the atoms as openPMD particles, species "atoms", one iteration
/// per checkpointed step, read back into whatever layout and memory the run uses. A file written
/// by md (host memory) restarts md_gpu (device memory) and the other way round: the file holds
/// the atoms' leaves, not a layout. Device containers are written and read through the host on
/// the simulation's stream (layout::hdf5 stages them).
///
/// A simulation (simulation.hpp, any backend) provides what this needs: atoms() (the container,
/// replaced on restart), size(), first_step() and start_at(step), and the after_step hook that
/// the writer takes. run_checkpointed() wires them around sim.run().
#pragma once

#include "md.hpp"

#if defined(MD_HAVE_HDF5)
#  include <layout/io/hdf5.hpp>
#endif

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

namespace md {

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

/// Writes the atoms of a simulation at the steps c asks for (sim.after_step = writer). Device
/// atoms are staged through the host on their own stream, after the step's queued kernels.
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

    // Read into a container on the simulation's stream (device memory: layout::hdf5 copies the
    // file's atoms in on it, and the run's kernels then follow on it too; a default container
    // would bring the legacy default stream into the run).
    using atoms_t = std::remove_reference_t<decltype(sim.atoms())>;
    atoms_t read_in(sim.atoms().stream());
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

/// Runs sim (restarted from c.restart first, checkpoints written as c asks: HDF5 builds only;
/// without HDF5, c must ask for neither) and prints its report on `device`, then the
/// checkpoints' line.
template <class Sim>
void run_checkpointed(Sim& sim, const checkpoint_options& c, const options& o, const box& b,
                      const char* device) {
#if defined(MD_HAVE_HDF5)
    if (!c.restart.empty()) restart(sim, c, o, b);
    std::unique_ptr<checkpoint_writer<Sim>> writer;
    if (!c.file.empty()) {
        writer = std::make_unique<checkpoint_writer<Sim>>(sim, c, o, b);
        sim.after_step = [w = writer.get()](long step) { (*w)(step); };
    }
    const auto th = sim.run();
    sim.report(th, device);
    if (writer) writer->report();
#else
    (void)b;
    (void)o;
    if (c.any()) throw input_error("--checkpoint and --restart: this md was built without HDF5");
    const auto th = sim.run();
    sim.report(th, device);
#endif
}

} // namespace md
