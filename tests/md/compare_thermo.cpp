// md_compare_thermo REFERENCE OUTPUT [--tol0 1e-6] [--tol 1e-4] [--step S]...
//
// Compares the thermo of two logs (LAMMPS's log, or the md app's output): the first block of
// lines after the header "Step Temp E_pair E_mol TotEng Press". Every step of OUTPUT must be in
// REFERENCE and the other way round (with --step, only the steps named, which both must have).
// Each value must agree to a relative tolerance: tol0 at step 0, tol after it; a reference value
// of exactly 0 (E_mol) must be matched to tol absolutely. Prints the relative difference of
// every value and exits 1 if any is over its tolerance, 2 if a file cannot be read.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

const char* const columns[] = {"Temp", "E_pair", "E_mol", "TotEng", "Press"};

struct row {
    double v[5];
};

bool read_thermo(const std::string& path, std::map<long, row>& out) {
    std::ifstream in(path);
    if (!in) {
        std::fprintf(stderr, "md_compare_thermo: cannot read %s\n", path.c_str());
        return false;
    }
    std::string line;
    bool in_block = false;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        if (!in_block) {
            std::string w[6];
            for (auto& s : w) words >> s;
            in_block = w[0] == "Step" && w[1] == "Temp" && w[2] == "E_pair" && w[3] == "E_mol" &&
                       w[4] == "TotEng" && w[5] == "Press";
            continue;
        }
        long step = 0;
        row r{};
        if (!(words >> step)) break;
        for (double& v : r.v)
            if (!(words >> v)) {
                std::fprintf(stderr, "md_compare_thermo: %s: a short thermo line: '%s'\n",
                             path.c_str(), line.c_str());
                return false;
            }
        out[step] = r;
    }
    if (out.empty()) {
        std::fprintf(stderr,
                     "md_compare_thermo: %s: no thermo block (a line 'Step Temp E_pair E_mol "
                     "TotEng Press' followed by numbers)\n",
                     path.c_str());
        return false;
    }
    return true;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: md_compare_thermo REFERENCE OUTPUT [--tol0 1e-6] [--tol 1e-4] "
                             "[--step S]...\n");
        return 2;
    }
    double tol0 = 1e-6, tol = 1e-4;
    std::vector<long> only;
    for (int a = 3; a + 1 < argc; a += 2) {
        const std::string opt = argv[a];
        if (opt == "--tol0")
            tol0 = std::atof(argv[a + 1]);
        else if (opt == "--tol")
            tol = std::atof(argv[a + 1]);
        else if (opt == "--step")
            only.push_back(std::atol(argv[a + 1]));
        else {
            std::fprintf(stderr, "md_compare_thermo: unknown option %s\n", argv[a]);
            return 2;
        }
    }
    std::map<long, row> ref, out;
    if (!read_thermo(argv[1], ref) || !read_thermo(argv[2], out)) return 2;

    std::vector<long> steps = only;
    if (steps.empty()) {
        for (const auto& [s, r] : ref) steps.push_back(s);
        for (const auto& [s, r] : out)
            if (!ref.count(s)) steps.push_back(s);
    }
    int failures = 0;
    std::printf("%8s %-7s %24s %24s %10s %8s\n", "step", "column", "reference", "output",
                "rel. diff", "tol");
    for (long s : steps) {
        if (!ref.count(s) || !out.count(s)) {
            std::printf("%8ld missing from the %s\n", s, ref.count(s) ? "output" : "reference");
            ++failures;
            continue;
        }
        const double t = s == 0 ? tol0 : tol;
        for (int c = 0; c < 5; ++c) {
            const double a = ref[s].v[c], b = out[s].v[c];
            const double diff = a == 0 ? std::abs(b) : std::abs(b - a) / std::abs(a);
            const bool ok = diff <= t; // NaN fails
            failures += !ok;
            std::printf("%8ld %-7s %24.15g %24.15g %10.2e %8.0e%s\n", s, columns[c], a, b, diff, t,
                        ok ? "" : "  FAIL");
        }
    }
    std::printf("%s: %d value(s) over tolerance\n", failures ? "FAILED" : "PASSED", failures);
    return failures ? 1 : 0;
}
