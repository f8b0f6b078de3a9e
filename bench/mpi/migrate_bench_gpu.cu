// Device migration benchmark (see migrate_bench.hpp): layout::cuda containers, CUDA-aware MPI
// (where the library is) against staging through pinned memory and, built with NCCL
// (LAYOUT_BENCH_NCCL) and one GPU per rank, NCCL (layout::mpi::use_nccl); and a hand-written baseline:
// count by destination on the host, upload the order, gather AoS structs with a raw kernel,
// MPI_Alltoallv of the bytes (device pointers when CUDA-aware, else staged), the received
// buffer becoming the particles.
//
//     mpirun -np 2 ./migrate_bench_gpu --n=8000000 --steps=20
#include "migrate_bench.hpp"

#include <cuda_runtime.h>

#if defined(LAYOUT_BENCH_NCCL)
#  include <layout/mpi/nccl.hpp>

#  include <memory>
#endif

namespace {

using namespace mpi_bench;

__global__ void gather_structs(Particle* __restrict__ out, const Particle* __restrict__ in,
                               const std::size_t* __restrict__ order, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[order[i]];
}

void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

std::vector<double> raw_device(const options& o, const std::vector<std::vector<int>>& steps,
                               bool direct) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const auto init = initial(o.n, rank);
    const std::size_t cap = o.n * 2;
    Particle *p = nullptr, *send = nullptr, *hs = nullptr, *hr = nullptr;
    std::size_t* order_d = nullptr;
    check(cudaMalloc(&p, cap * sizeof(Particle)), "cudaMalloc");
    check(cudaMalloc(&send, cap * sizeof(Particle)), "cudaMalloc");
    check(cudaMalloc(&order_d, cap * sizeof(std::size_t)), "cudaMalloc");
    check(cudaMallocHost(&hs, cap * sizeof(Particle)), "cudaMallocHost");
    check(cudaMallocHost(&hr, cap * sizeof(Particle)), "cudaMallocHost");
    check(cudaMemcpy(p, init.data(), o.n * sizeof(Particle), cudaMemcpyHostToDevice), "copy");
    std::vector<int> counts(static_cast<std::size_t>(size)), rcounts(counts), sb(counts),
        sd(counts), rb(counts), rd(counts);
    std::vector<std::size_t> next(counts.size()), order(o.n);
    std::vector<double> times;
    for (int step = 0; step <= o.steps; ++step) {
        const auto& d = steps[static_cast<std::size_t>(step) % steps.size()];
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        std::fill(counts.begin(), counts.end(), 0);
        for (int r : d) ++counts[static_cast<std::size_t>(r)];
        MPI_Alltoall(counts.data(), 1, MPI_INT, rcounts.data(), 1, MPI_INT, MPI_COMM_WORLD);
        std::size_t s = 0, rr = 0;
        for (std::size_t r = 0; r < counts.size(); ++r) {
            next[r] = s;
            sb[r] = counts[r] * static_cast<int>(sizeof(Particle));
            sd[r] = static_cast<int>(s * sizeof(Particle));
            rb[r] = rcounts[r] * static_cast<int>(sizeof(Particle));
            rd[r] = static_cast<int>(rr * sizeof(Particle));
            s += static_cast<std::size_t>(counts[r]);
            rr += static_cast<std::size_t>(rcounts[r]);
        }
        order.resize(d.size());
        for (std::size_t i = 0; i < d.size(); ++i)
            order[next[static_cast<std::size_t>(d[i])]++] = i;
        check(cudaMemcpy(order_d, order.data(), order.size() * sizeof(std::size_t),
                         cudaMemcpyHostToDevice),
              "order");
        gather_structs<<<static_cast<unsigned>((s + 255) / 256), 256>>>(send, p, order_d, s);
        check(cudaDeviceSynchronize(), "gather");
        if (direct) {
            MPI_Alltoallv(send, sb.data(), sd.data(), MPI_BYTE, p, rb.data(), rd.data(), MPI_BYTE,
                          MPI_COMM_WORLD);
        } else {
            check(cudaMemcpy(hs, send, s * sizeof(Particle), cudaMemcpyDeviceToHost), "stage");
            MPI_Alltoallv(hs, sb.data(), sd.data(), MPI_BYTE, hr, rb.data(), rd.data(), MPI_BYTE,
                          MPI_COMM_WORLD);
            check(cudaMemcpy(p, hr, rr * sizeof(Particle), cudaMemcpyHostToDevice), "stage");
        }
        const double t1 = MPI_Wtime();
        if (step > 0) times.push_back(t1 - t0);
    }
    cudaFree(p);
    cudaFree(send);
    cudaFree(order_d);
    cudaFreeHost(hs);
    cudaFreeHost(hr);
    return times;
}

/// Halo gathers through one plan: each rank exports fraction * n of its n elements (spread over
/// the other ranks) and refreshes those ghosts every step; seconds per gather (the transport's
/// throughput, without migration's planning). Only `S`'s fields travel (a fields_by_keys).
template <class S, class C, class Prepare>
std::vector<double> halo_gathers(const options& o, C& c, Prepare prepare) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const std::size_t exports = static_cast<std::size_t>(o.fraction * static_cast<double>(o.n));
    std::vector<std::size_t> index(exports);
    std::vector<int> ranks(exports);
    for (std::size_t k = 0; k < exports; ++k) {
        index[k] = (k * 7919) % o.n;
        ranks[k] = size == 1 ? 0 : (rank + 1 + static_cast<int>(k % std::size_t(size - 1))) % size;
    }
    layout::mpi::halo_plan plan(MPI_COMM_WORLD, o.n, index, ranks);
    prepare(plan);
    std::vector<double> times;
    for (int step = 0; step <= o.steps; ++step) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        S::gather(plan, c);
        cudaDeviceSynchronize();
        const double t1 = MPI_Wtime();
        if (step > 0) times.push_back(t1 - t0);
    }
    return times;
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1, devices = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        if (rank == 0) std::printf("migrate_bench_gpu: no CUDA device\n");
        MPI_Finalize();
        return 0;
    }
    cudaSetDevice(rank % devices); // ranks share the GPUs there are
    options o = parse(argc, argv);
    std::vector<std::vector<int>> steps;
    for (std::uint64_t s = 0; s < 4; ++s)
        steps.push_back(destinations(o.n, o.fraction, rank, size, s));
    std::size_t moved = 0;
    for (int r : steps[0]) moved += r != rank;
    const auto init = initial(o.n, rank);
    const bool aware = layout::mpi::cuda_aware_mpi();
    constexpr std::size_t all = all_fields::wire_bytes;

    struct row {
        std::string name;
        double seconds;
        std::size_t wire;
    };
    std::vector<row> rows, halo_rows;
#if defined(LAYOUT_BENCH_NCCL)
    // NCCL takes one GPU per rank (collective: every rank sees the same device count).
    std::unique_ptr<layout::mpi::nccl_communicator> nccl;
    if (devices >= size) nccl = std::make_unique<layout::mpi::nccl_communicator>(MPI_COMM_WORLD);
#endif
    for (const auto path : {layout::mpi::device_path::cuda_aware, layout::mpi::device_path::staged,
                            layout::mpi::device_path::nccl}) {
        if (path == layout::mpi::device_path::cuda_aware && !aware) continue;
        const bool direct = path == layout::mpi::device_path::cuda_aware;
        const std::string tag = direct                                     ? " (cuda-aware)"
                                : path == layout::mpi::device_path::staged ? " (staged)"
                                                                           : " (nccl)";
        // The host-planned plans' run-time path choice, deprecated (set_device_path, use_nccl):
        // measured while it is there.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#if defined(LAYOUT_BENCH_NCCL)
        if (path == layout::mpi::device_path::nccl && !nccl) continue;
        auto prepare = [path, &nccl](auto& plan) {
            if (path == layout::mpi::device_path::nccl)
                layout::mpi::use_nccl(plan, *nccl);
            else
                layout::mpi::set_device_path(plan, path);
        };
#else
        if (path == layout::mpi::device_path::nccl) continue;
        auto prepare = [path](auto& plan) { layout::mpi::set_device_path(plan, path); };
#endif
#pragma GCC diagnostic pop
        // The hand-written baseline moves its bytes with MPI: beside the MPI paths only.
        if (path != layout::mpi::device_path::nccl)
            rows.push_back({"raw_alltoallv AoS" + tag, median_of_max(raw_device(o, steps, direct)),
                            sizeof(Particle)});
        {
            layout::cuda::aos_vector<Particle> c =
                layout::aos_vector<Particle>(init.begin(), init.end());
            rows.push_back({"layout aos" + tag,
                            median_of_max(library<all_fields>(o, steps, c, prepare)), all});
        }
        {
            layout::cuda::soa_vector<Particle> c =
                layout::aos_vector<Particle>(init.begin(), init.end());
            rows.push_back({"layout soa" + tag,
                            median_of_max(library<all_fields>(o, steps, c, prepare)), all});
        }
        {
            layout::cuda::aosoa<Particle, 32> c =
                layout::aos_vector<Particle>(init.begin(), init.end());
            rows.push_back({"layout aosoa32" + tag,
                            median_of_max(library<all_fields>(o, steps, c, prepare)), all});
        }
        {
            layout::cuda::soa_vector<Particle> c =
                layout::aos_vector<Particle>(init.begin(), init.end());
            rows.push_back({"layout soa xyz" + tag,
                            median_of_max(library<xyz>(o, steps, c, prepare)), xyz::wire_bytes});
        }
        {
            layout::cuda::aos_vector<Particle> c =
                layout::aos_vector<Particle>(init.begin(), init.end());
            halo_rows.push_back(
                {"halo aos" + tag, median_of_max(halo_gathers<all_fields>(o, c, prepare)), all});
        }
        {
            layout::cuda::soa_vector<Particle> c =
                layout::aos_vector<Particle>(init.begin(), init.end());
            halo_rows.push_back(
                {"halo soa" + tag, median_of_max(halo_gathers<all_fields>(o, c, prepare)), all});
        }
        {
            layout::cuda::aosoa<Particle, 32> c =
                layout::aos_vector<Particle>(init.begin(), init.end());
            halo_rows.push_back({"halo aosoa32" + tag,
                                 median_of_max(halo_gathers<all_fields>(o, c, prepare)), all});
        }
        {
            layout::cuda::soa_vector<Particle> c =
                layout::aos_vector<Particle>(init.begin(), init.end());
            halo_rows.push_back({"halo soa xyz" + tag,
                                 median_of_max(halo_gathers<xyz>(o, c, prepare)), xyz::wire_bytes});
        }
    }
    if (rank == 0) {
        std::printf(
            "migrate_bench_gpu: %d ranks on %d GPU(s), N = %zu per rank, %zu (%.0f%%) leave "
            "each rank per step, %d steps (median of the slowest rank); MPI CUDA-aware: %s\n",
            size, devices, o.n, moved, o.fraction * 100, o.steps, aware ? "yes" : "no");
        // Each row against the hand-written row of its path; NCCL's against the faster MPI one.
        double raw = 0, best_raw = 0;
        for (const auto& r : rows)
            if (r.name.rfind("raw", 0) == 0 && (best_raw == 0 || r.seconds < best_raw))
                best_raw = r.seconds;
        for (const auto& r : rows) {
            if (r.name.rfind("raw", 0) == 0) raw = r.seconds;
            const bool by_nccl = r.name.find("(nccl)") != std::string::npos;
            print_row(r.name.c_str(), r.seconds, by_nccl ? best_raw : raw, o.n, moved, r.wire);
        }
        const std::size_t ghosts = static_cast<std::size_t>(o.fraction * static_cast<double>(o.n));
        std::printf("\nhalo gather: %zu ghosts a rank refreshed per step (only the gather), "
                    "against the staged halo of each layout\n",
                    ghosts);
        for (const auto& r : halo_rows) {
            double staged = 0;
            const std::string layout_name = r.name.substr(0, r.name.find(" ("));
            for (const auto& q : halo_rows)
                if (q.name == layout_name + " (staged)") staged = q.seconds;
            print_row(r.name.c_str(), r.seconds, staged, o.n, ghosts, r.wire);
        }
    }
#if defined(LAYOUT_BENCH_NCCL)
    nccl.reset(); // before MPI_Finalize
#endif
    MPI_Finalize();
}
