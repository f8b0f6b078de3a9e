// The MD mini-app across MPI ranks (distributed.hpp): the box cut into one sub-box per rank,
// atoms migrated and ghosts exchanged with layout::mpi. Same options and output as md (README.md)
// on the host, one thread per rank, plus --procs PX PY PZ to choose the grid of sub-boxes.
//   mpirun -np 4 md_mpi --data FILE [--procs 2 2 1] [--layout aos|soa|aosoa32] ...
// Built as md_mpi_gpu (md_mpi.cu, MD_MPI_GPU), --device gpu runs distributed_gpu.hpp: a GPU per
// rank (ranks share the GPUs there are). The plans' transport: where every rank is on one node,
// ipc (the GPUs write into each other's memory: the fastest there, bench/results/gpu-2026-11-27-g
// and -h); else NCCL where it is built and there is a GPU per rank; else pinned host memory
// (--transport nccl|ipc|staged chooses); the halo exchange runs beside the interior atoms'
// forces unless --no-overlap is given.
#include "distributed.hpp"
#include "domain.hpp"
#include "host_backend.hpp"
#if defined(MD_MPI_GPU)
#  include "distributed_gpu.hpp"

#  include <layout/mpi/ipc.hpp>
#  if defined(MD_MPI_NCCL)
#    include <layout/mpi/nccl.hpp>

#    include <memory>
#  endif
#endif

#include <layout/mpi/mpi.hpp>

#include <mpi.h>

#include <array>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

namespace {

/// md's options, less md_mpi's own (md::parse_options does not know them): --procs PX PY PZ,
/// --no-overlap (md_mpi_gpu: the halo exchange, then the forces, timed apart) and --transport.
std::vector<char*> take_own_options(int argc, char** argv, std::array<int, 3>& procs, bool& overlap,
                                    std::string& transport) {
    std::vector<char*> rest{argv[0]};
    for (int a = 1; a < argc; ++a) {
        if (std::string(argv[a]) == "--no-overlap") {
            overlap = false;
            continue;
        }
        if (std::string(argv[a]) == "--transport") {
            if (++a >= argc) throw md::input_error("--transport: missing nccl, ipc or staged");
            transport = argv[a];
            if (transport != "nccl" && transport != "ipc" && transport != "staged")
                throw md::input_error("--transport: " + transport +
                                      " is not one of nccl, ipc, staged");
            continue;
        }
        if (std::string(argv[a]) != "--procs") {
            rest.push_back(argv[a]);
            continue;
        }
        for (int d = 0; d < 3; ++d) {
            if (++a >= argc) throw md::input_error("--procs: missing three sub-box counts");
            const long p = md::detail::to_long(argv[a], "--procs");
            if (p < 1 || p > 4096)
                throw md::input_error("--procs: " + std::to_string(p) + " is not in [1, 4096]");
            procs[d] = static_cast<int>(p);
        }
    }
    return rest;
}

#if defined(MD_MPI_GPU)
/// --device gpu: a GPU per rank where there are enough, else ranks share them.
int run_gpu(const md::options& o, int ranks, std::array<int, 3> procs, bool overlap,
            const std::string& transport) {
    int devices = 0, rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)
        throw md::input_error("--device gpu: no CUDA device");
    md::gpu::check(cudaSetDevice(rank % devices), "cudaSetDevice");
    const md::system s = md::load_start(o);
    const md::domain dom(s.box, ranks, o.cutoff + o.skin, procs);
    auto go = [&](auto migration, auto halo) {
        using transport_type = decltype(migration);
        return md::with_types(o, [&]<class Real, class Layout>() {
            md::distributed_gpu<Real, Layout, transport_type> sim(
                MPI_COMM_WORLD, s, o, dom, std::move(migration), std::move(halo), overlap);
            sim.run();
            sim.report(ranks);
            return 0;
        });
    };
    if (transport == "ipc" ||
        (transport.empty() && layout::mpi::ipc_transport::reaches_every_rank(MPI_COMM_WORLD)))
        return go(layout::mpi::ipc_transport(MPI_COMM_WORLD),
                  layout::mpi::ipc_transport(MPI_COMM_WORLD));
#  if defined(MD_MPI_NCCL)
    if (transport != "staged" && devices >= ranks) { // NCCL takes one GPU per rank
        const layout::mpi::nccl_communicator nccl(MPI_COMM_WORLD);
        return go(layout::mpi::nccl_transport(nccl), layout::mpi::nccl_transport(nccl));
    }
#  endif
    if (transport == "nccl")
        throw md::input_error("--transport nccl: needs NCCL (built with it) and a GPU per rank (" +
                              std::to_string(ranks) + " ranks, " + std::to_string(devices) +
                              " GPUs)");
    return go(layout::mpi::staged_transport(MPI_COMM_WORLD),
              layout::mpi::staged_transport(MPI_COMM_WORLD));
}
#endif

int run(int argc, char** argv, int ranks) {
    std::array<int, 3> procs = {0, 0, 0};
    bool overlap = true;
    std::string transport; // empty: ipc on one node, else NCCL where it can, else staged
    std::vector<char*> args = take_own_options(argc, argv, procs, overlap, transport);
    const md::options o = md::parse_options(static_cast<int>(args.size()), args.data());
#if defined(MD_MPI_GPU)
    if (o.device == "gpu") return run_gpu(o, ranks, procs, overlap, transport);
#else
    if (o.device == "gpu")
        throw md::input_error("--device gpu: md_mpi runs on the host (md_mpi_gpu: on GPUs)");
#endif
    if (!transport.empty()) throw md::input_error("--transport: for --device gpu (md_mpi_gpu)");
    if (o.threads != 1) throw md::input_error("--threads: md_mpi runs one thread per rank");
    // --neighbor is not read: md_mpi always runs a full list (distributed.hpp says why).
    const md::system s = md::load_start(o); // every rank reads the start and keeps its atoms
    const md::domain dom(s.box, ranks, o.cutoff + o.skin, procs);
    return md::with_types(o, [&]<class Real, class Layout>() {
        md::distributed<Real, Layout> sim(MPI_COMM_WORLD, s, o, dom);
        sim.run();
        sim.report(ranks);
        return 0;
    });
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    int status = 0;
    try {
        status = run(argc, argv, ranks);
    } catch (const md::input_error& e) {
        // Every rank reads the same options and start, so every rank is here: one message.
        if (rank == 0) std::fprintf(stderr, "md_mpi: error: %s\n", e.what());
        status = 1;
    } catch (const layout::mpi::error& e) {
        // Thrown on every rank together (layout::mpi agrees before anything moves).
        std::fprintf(stderr, "md_mpi: rank %d: error: %s\n", rank, e.what());
        status = 1;
    } catch (const std::exception& e) {
        // This rank alone: the others would wait for it at their next exchange.
        std::fprintf(stderr, "md_mpi: rank %d: error: %s\n", rank, e.what());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Finalize();
    return status;
}
