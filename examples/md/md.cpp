// The MD mini-app on the host. See md.hpp for what it computes and README.md for how to run it.
//   md --data FILE [--cutoff 2.5 --skin 0.3 --dt 0.005 --steps 100 --thermo 50 --every 20]
//      [--layout aos|soa|aosoa32|split] [--precision double|float] [--threads N]
//      [--checkpoint FILE [--checkpoint-every K]] [--restart FILE [--restart-iteration I]]
// Checkpoints (openPMD files through layout::hdf5; checkpoint.hpp, shared with md_gpu) where md
// is built with HDF5.
#include "checkpoint.hpp"
#include "host_backend.hpp"

#include <cstdio>
#include <exception>
#include <vector>

int main(int argc, char** argv) {
    try {
        md::checkpoint_options c;
        std::vector<char*> rest = md::take_checkpoint_options(argc, argv, c);
        const md::options o = md::parse_options(static_cast<int>(rest.size()), rest.data());
        if (o.device == "gpu") {
            std::fprintf(stderr, "md: error: --device gpu needs the CUDA build (md_gpu)\n");
            return 1;
        }
        const md::system s = md::load_start(o);
        return md::run_host(s, o, c);
    } catch (const md::input_error& e) {
        std::fprintf(stderr, "md: error: %s\n", e.what());
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "md: error: %s\n", e.what());
        return 2;
    }
}
