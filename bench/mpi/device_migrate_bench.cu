// GPU-resident migration benchmark (issue #30): each step, `fraction` of each rank's N particles
// (32-byte structs of floats) leave for the other ranks, spread evenly, so every rank keeps N;
// the destinations are already in device memory, as a user's kernel leaves them. Timed per step
// from a barrier to the end of the step's GPU work (median over steps of the slowest rank):
//   nccl send/recv     the same bytes between the same GPUs, nothing else: grouped ncclSend /
//                      ncclRecv of each peer's leaving particles (the wire's floor)
//   hand-written       what a CUDA engineer writes: classify + histogram kernel, CUB radix sort of
//                      positions by destination (one pass), counts to the host, MPI_Alltoall of
//                      counts, a gather kernel packing the leavers as AoS structs (16-byte
//                      loads), grouped ncclSend/ncclRecv, the staying particles gathered straight
//                      into the second buffer, the arrivals copied after them, buffers swapped;
//                      everything allocated before the loop (received in place: no unpacking)
//   hand-written SoA   the same sort for particles kept as 8 columns: one kernel packs each
//                      leaver into its rank's message (column by column), grouped ncclSend /
//                      ncclRecv, one kernel writes the new columns (those that stay, through the
//                      order, then the arrivals, unpacked), swap: the twin of the SoA and AoSoA
//                      rows, whose messages must be unpacked too
//   layout <L> (nccl)  layout::mpi::device_migration_plan<nccl_transport>::migrate(c, dest)
//   layout <L> (staged) the same plan through pinned host buffers and MPI
//   layout <L> (ipc)    the same plan through ipc_transport: a copy kernel writes each message
//                      into the peer GPU's memory (CUDA IPC), counters in memory order it
//   host-planned soa (nccl)  layout::mpi::migration_plan (destinations on the host, the plan
//                      uploaded per update), the path before the device plan
// and halo gathers: each rank exports `fraction` of its N particles (spread evenly over the other
// ranks) as ghosts and refreshes them every step (only the gather timed):
//   nccl alone          the gather's messages (the same bytes per peer) as one grouped exchange
//   hand-written AoS halo  one kernel packs the exports (sorted by rank once), one grouped
//                      exchange received straight into the ghosts after the owned particles
//   halo <L> <fields>   layout::mpi::device_halo_plan<nccl_transport>::gather<S>(c); (ipc):
//                      device_halo_plan<ipc_transport>, against the same NCCL figures (every
//                      layout's leaves read and written where they are: no pack, no unpack)
// each timed twice: one at a time (barrier, gather, wait: what one exchange costs, the host's
// agreement included) and back to back (STEPS gathers, then one wait, as a time loop and
// nccl-tests run them: the host's agreement for one overlaps the GPU's work on the one before).
//
//     mpirun -np 2 ./device_migrate_bench_gpu --n=4000000 --steps=20   (NCCL_NVLS_ENABLE=0)
#include "migrate_bench.hpp"

#include <layout/mpi/device_halo.hpp>
#include <layout/mpi/device_migration.hpp>
#include <layout/mpi/ipc.hpp>
#include <layout/mpi/nccl.hpp>

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>
#include <nccl.h>

#include <bit>
#include <memory>
#include <span>
#include <type_traits>

namespace {

using namespace mpi_bench;

void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}
void check(ncclResult_t e, const char* what) {
    if (e != ncclSuccess) {
        std::fprintf(stderr, "%s: %s\n", what, ncclGetErrorString(e));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

struct world {
    int rank = 0, size = 1;
    cudaStream_t stream = nullptr;
    ncclComm_t nccl = nullptr;
    const layout::mpi::nccl_communicator* layout_nccl = nullptr;
};

/// The slowest rank's seconds of each step: barrier, step(k), wait for the stream.
template <class Step>
std::vector<double> time_steps(const world& w, const options& o, Step step) {
    std::vector<double> times;
    for (int s = 0; s <= o.steps; ++s) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        step(s);
        check(cudaStreamSynchronize(w.stream), "step");
        const double t1 = MPI_Wtime();
        if (s > 0) times.push_back(t1 - t0);
    }
    return times;
}

/// The slowest rank's seconds a step over 5 batches of o.steps steps run back to back: a barrier,
/// the steps, one wait for the stream.
/// issue (if given): this rank's host seconds a step to issue them (before the wait), per batch;
/// near the step's time, the host is what the GPU waits for.
template <class Step>
std::vector<double> time_batches(const world& w, const options& o, Step step,
                                 std::vector<double>* issue = nullptr) {
    std::vector<double> times;
    step(0);
    check(cudaStreamSynchronize(w.stream), "warm-up");
    for (int b = 0; b < 5; ++b) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        for (int s = 1; s <= o.steps; ++s) step(s);
        if (issue) issue->push_back((MPI_Wtime() - t0) / o.steps);
        check(cudaStreamSynchronize(w.stream), "batch");
        times.push_back((MPI_Wtime() - t0) / o.steps);
    }
    return times;
}

// ---- hand-written ----------------------------------------------------------------------------

/// key[i] = dest[i], index[i] = i; per-block histogram in shared memory, then counts[r] += .
__global__ void classify(const int* __restrict__ dest, unsigned n, int ranks,
                         unsigned* __restrict__ key, unsigned* __restrict__ index,
                         unsigned long long* __restrict__ counts) {
    extern __shared__ unsigned local[];
    for (int r = threadIdx.x; r < ranks; r += blockDim.x) local[r] = 0;
    __syncthreads();
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const int d = dest[i];
        key[i] = static_cast<unsigned>(d);
        index[i] = i;
        atomicAdd(&local[d], 1u);
    }
    __syncthreads();
    for (int r = threadIdx.x; r < ranks; r += blockDim.x)
        if (local[r]) atomicAdd(&counts[r], local[r]);
}

/// out[first + i] = in[order[from + i]] for i < n, whole 32-byte structs as two 16-byte loads.
__global__ void gather(Particle* __restrict__ out, const Particle* __restrict__ in,
                       const unsigned* __restrict__ order, std::size_t from, std::size_t n) {
    const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const uint4* s = reinterpret_cast<const uint4*>(in + order[from + i]);
    uint4* d = reinterpret_cast<uint4*>(out + i);
    d[0] = s[0];
    d[1] = s[1];
}

/// What both hand-written migrations share: the destinations classified and counted, the
/// positions sorted by destination (CUB, stable), the counts read back (the step's host wait)
/// and exchanged (MPI_Alltoall), and the offsets in the sorted order and in the new block.
struct hand_sorter {
    std::size_t P, me;
    unsigned *key = nullptr, *key_sorted = nullptr, *index = nullptr, *order = nullptr;
    unsigned long long *counts_d = nullptr, *counts_h = nullptr;
    void* temp = nullptr;
    std::size_t temp_bytes = 0;
    std::vector<unsigned long long> counts, rcounts;
    std::vector<std::size_t> send_at, recv_at;
    std::size_t arriving = 0; // the new block's size

    hand_sorter(const world& w, std::size_t cap)
        : P(static_cast<std::size_t>(w.size)), me(static_cast<std::size_t>(w.rank)), counts(P),
          rcounts(P), send_at(P), recv_at(P) {
        for (unsigned** a : {&key, &key_sorted, &index, &order})
            check(cudaMalloc(a, cap * sizeof(unsigned)), "cudaMalloc");
        check(cudaMalloc(&counts_d, P * sizeof(unsigned long long)), "cudaMalloc");
        check(cudaMallocHost(&counts_h, P * sizeof(unsigned long long)), "cudaMallocHost");
        cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, key, key_sorted, index, order,
                                        static_cast<int>(cap), 0, 8, w.stream);
        check(cudaMalloc(&temp, temp_bytes), "cudaMalloc");
    }
    hand_sorter(const hand_sorter&) = delete;
    hand_sorter& operator=(const hand_sorter&) = delete;
    ~hand_sorter() {
        for (void* a :
             {static_cast<void*>(key), static_cast<void*>(key_sorted), static_cast<void*>(index),
              static_cast<void*>(order), static_cast<void*>(counts_d), temp})
            cudaFree(a);
        cudaFreeHost(counts_h);
    }

    void run(const world& w, const int* dest, std::size_t n) {
        const unsigned un = static_cast<unsigned>(n);
        check(cudaMemsetAsync(counts_d, 0, P * sizeof(unsigned long long), w.stream), "memset");
        classify<<<(un + 255) / 256, 256, P * sizeof(unsigned), w.stream>>>(dest, un, w.size, key,
                                                                            index, counts_d);
        std::size_t bytes = temp_bytes;
        cub::DeviceRadixSort::SortPairs(temp, bytes, key, key_sorted, index, order,
                                        static_cast<int>(n), 0,
                                        std::bit_width(static_cast<unsigned>(w.size)), w.stream);
        check(cudaMemcpyAsync(counts_h, counts_d, P * sizeof(unsigned long long),
                              cudaMemcpyDeviceToHost, w.stream),
              "counts");
        check(cudaStreamSynchronize(w.stream), "counts");
        std::copy(counts_h, counts_h + P, counts.begin());
        MPI_Alltoall(counts.data(), 1, MPI_UNSIGNED_LONG_LONG, rcounts.data(), 1,
                     MPI_UNSIGNED_LONG_LONG, MPI_COMM_WORLD);
        std::size_t from = 0;
        arriving = 0;
        for (std::size_t r = 0; r < P; ++r) {
            send_at[r] = from;
            from += counts[r];
            recv_at[r] = arriving;
            arriving += rcounts[r];
        }
    }
};

std::vector<double> hand_written(const world& w, const options& o,
                                 const std::vector<const int*>& dest_steps,
                                 std::vector<Particle>& result) {
    const std::size_t cap = o.n * 2;
    Particle *p = nullptr, *q = nullptr, *send = nullptr;
    check(cudaMalloc(&p, cap * sizeof(Particle)), "cudaMalloc");
    check(cudaMalloc(&q, cap * sizeof(Particle)), "cudaMalloc");
    check(cudaMalloc(&send, cap * sizeof(Particle)), "cudaMalloc");
    hand_sorter h(w, cap);
    const auto init = initial(o.n, w.rank);
    check(cudaMemcpy(p, init.data(), o.n * sizeof(Particle), cudaMemcpyHostToDevice), "copy");
    std::size_t n = o.n;
    auto times = time_steps(w, o, [&](int s) {
        h.run(w, dest_steps[static_cast<std::size_t>(s) % dest_steps.size()], n);
        const std::size_t me = h.me;
        for (std::size_t r = 0; r < h.P; ++r)
            if (r != me && h.counts[r])
                gather<<<static_cast<unsigned>((h.counts[r] + 255) / 256), 256, 0, w.stream>>>(
                    send + h.send_at[r], p, h.order, h.send_at[r], h.counts[r]);
        check(ncclGroupStart(), "ncclGroupStart");
        for (std::size_t r = 0; r < h.P; ++r) {
            if (r == me) continue;
            if (h.rcounts[r])
                check(ncclRecv(q + h.recv_at[r], h.rcounts[r] * sizeof(Particle), ncclUint8,
                               static_cast<int>(r), w.nccl, w.stream),
                      "ncclRecv");
            if (h.counts[r])
                check(ncclSend(send + h.send_at[r], h.counts[r] * sizeof(Particle), ncclUint8,
                               static_cast<int>(r), w.nccl, w.stream),
                      "ncclSend");
        }
        check(ncclGroupEnd(), "ncclGroupEnd");
        if (h.counts[me])
            gather<<<static_cast<unsigned>((h.counts[me] + 255) / 256), 256, 0, w.stream>>>(
                q + h.recv_at[me], p, h.order, h.send_at[me], h.counts[me]);
        std::swap(p, q);
        n = h.arriving;
    });
    result.resize(n);
    check(cudaMemcpy(result.data(), p, n * sizeof(Particle), cudaMemcpyDeviceToHost), "result");
    for (Particle* a : {p, q, send}) cudaFree(a);
    return times;
}

// The SoA twin: the 8 fields of Particle in 8 columns.
constexpr int soa_fields = 8;
struct soa_columns {
    float* f[soa_fields];
};
/// Where each rank's part of a migration starts and how long it is (8 ranks at most), and where
/// its message starts in the send or receive block (floats); me: this rank.
struct soa_table {
    unsigned long long first[8], count[8], message[8];
    int ranks, me;
    __device__ int rank_of(unsigned long long k) const {
        int r = 0;
        while (r + 1 < ranks && k >= first[r + 1]) ++r;
        return r;
    }
};
/// Packs the leaving particles: sorted position k (not this rank's part) goes to its rank's
/// message, column by column (field c at message + c * count + i).
__global__ void soa_pack(soa_columns in, const unsigned* __restrict__ order, soa_table t,
                         float* __restrict__ out, unsigned long long n) {
    const unsigned long long k = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (k >= n) return;
    const int r = t.rank_of(k);
    if (r == t.me) return;
    const unsigned j = order[k];
    const unsigned long long i = k - t.first[r];
    float* m = out + t.message[r];
#pragma unroll
    for (int c = 0; c < soa_fields; ++c) m[c * t.count[r] + i] = in.f[c][j];
}
/// Writes the new block: element k of the part from rank r is either one that stays (r == me:
/// read through the order, `stay` the first sorted position of this rank's own part) or one
/// that arrived (read from r's message in the receive block).
__global__ void soa_unpack(soa_columns out, soa_columns in, const unsigned* __restrict__ order,
                           unsigned long long stay, soa_table t, const float* __restrict__ recv,
                           unsigned long long n) {
    const unsigned long long k = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (k >= n) return;
    const int r = t.rank_of(k);
    const unsigned long long i = k - t.first[r];
    if (r == t.me) {
        const unsigned j = order[stay + i];
#pragma unroll
        for (int c = 0; c < soa_fields; ++c) out.f[c][k] = in.f[c][j];
    } else {
        const float* m = recv + t.message[r];
#pragma unroll
        for (int c = 0; c < soa_fields; ++c) out.f[c][k] = m[c * t.count[r] + i];
    }
}

/// The migration by hand for particles kept as 8 columns: sort as hand_written, one kernel packs
/// every leaving particle into its rank's message, one grouped NCCL exchange, one kernel writes
/// the new columns (the particles that stay, then those that arrived, in rank order), swap.
std::vector<double> hand_written_soa(const world& w, const options& o,
                                     const std::vector<const int*>& dest_steps,
                                     std::vector<Particle>& result) {
    const std::size_t cap = o.n * 2;
    soa_columns p{}, q{};
    float *send = nullptr, *recv = nullptr;
    for (int c = 0; c < soa_fields; ++c) {
        check(cudaMalloc(&p.f[c], cap * sizeof(float)), "cudaMalloc");
        check(cudaMalloc(&q.f[c], cap * sizeof(float)), "cudaMalloc");
    }
    check(cudaMalloc(&send, cap * sizeof(Particle)), "cudaMalloc");
    check(cudaMalloc(&recv, cap * sizeof(Particle)), "cudaMalloc");
    hand_sorter h(w, cap);
    if (h.P > 8) {
        std::fprintf(stderr, "hand_written_soa: at most 8 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const auto init = initial(o.n, w.rank);
    auto to_columns = [&](const std::vector<Particle>& a, soa_columns d) {
        std::vector<float> column(a.size());
        for (int c = 0; c < soa_fields; ++c) {
            for (std::size_t i = 0; i < a.size(); ++i)
                column[i] = reinterpret_cast<const float*>(&a[i])[c];
            check(
                cudaMemcpy(d.f[c], column.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice),
                "copy");
        }
    };
    to_columns(init, p);
    std::size_t n = o.n;
    auto times = time_steps(w, o, [&](int s) {
        h.run(w, dest_steps[static_cast<std::size_t>(s) % dest_steps.size()], n);
        soa_table send_t{}, recv_t{};
        send_t.ranks = recv_t.ranks = static_cast<int>(h.P);
        send_t.me = recv_t.me = w.rank;
        std::size_t out = 0, in = 0;
        for (std::size_t r = 0; r < h.P; ++r) {
            send_t.first[r] = h.send_at[r];
            send_t.count[r] = h.counts[r];
            recv_t.first[r] = h.recv_at[r];
            recv_t.count[r] = h.rcounts[r];
            send_t.message[r] = out;
            recv_t.message[r] = in;
            if (r == h.me) continue;
            out += soa_fields * h.counts[r];
            in += soa_fields * h.rcounts[r];
        }
        if (n)
            soa_pack<<<static_cast<unsigned>((n + 255) / 256), 256, 0, w.stream>>>(p, h.order,
                                                                                   send_t, send, n);
        check(ncclGroupStart(), "ncclGroupStart");
        for (std::size_t r = 0; r < h.P; ++r) {
            if (r == h.me) continue;
            if (h.rcounts[r])
                check(ncclRecv(recv + recv_t.message[r], soa_fields * h.rcounts[r], ncclFloat,
                               static_cast<int>(r), w.nccl, w.stream),
                      "ncclRecv");
            if (h.counts[r])
                check(ncclSend(send + send_t.message[r], soa_fields * h.counts[r], ncclFloat,
                               static_cast<int>(r), w.nccl, w.stream),
                      "ncclSend");
        }
        check(ncclGroupEnd(), "ncclGroupEnd");
        if (h.arriving)
            soa_unpack<<<static_cast<unsigned>((h.arriving + 255) / 256), 256, 0, w.stream>>>(
                q, p, h.order, h.send_at[h.me], recv_t, recv, h.arriving);
        std::swap(p, q);
        n = h.arriving;
    });
    result.resize(n);
    std::vector<float> column(n);
    for (int c = 0; c < soa_fields; ++c) {
        check(cudaMemcpy(column.data(), p.f[c], n * sizeof(float), cudaMemcpyDeviceToHost),
              "result");
        for (std::size_t i = 0; i < n; ++i) reinterpret_cast<float*>(&result[i])[c] = column[i];
    }
    for (int c = 0; c < soa_fields; ++c) {
        cudaFree(p.f[c]);
        cudaFree(q.f[c]);
    }
    cudaFree(send);
    cudaFree(recv);
    return times;
}

/// The wire alone: each peer's leaving particles (as counted from the step's destinations) sent
/// and received as one grouped NCCL exchange between two fixed buffers.
std::vector<double> nccl_alone(const world& w, const options& o,
                               const std::vector<std::vector<int>>& steps) {
    const std::size_t P = static_cast<std::size_t>(w.size), me = static_cast<std::size_t>(w.rank);
    std::vector<std::size_t> counts(P, 0);
    for (int r : steps[0]) ++counts[static_cast<std::size_t>(r)];
    std::byte *send = nullptr, *recv = nullptr;
    check(cudaMalloc(&send, o.n * sizeof(Particle)), "cudaMalloc");
    check(cudaMalloc(&recv, o.n * sizeof(Particle)), "cudaMalloc");
    auto times = time_steps(w, o, [&](int) {
        check(ncclGroupStart(), "ncclGroupStart");
        std::size_t at = 0;
        for (std::size_t r = 0; r < P; ++r) {
            if (r == me || counts[r] == 0) continue;
            // Evenly spread destinations: what this rank sends to r, r sends back.
            const std::size_t bytes = counts[r] * sizeof(Particle);
            check(ncclRecv(recv + at, bytes, ncclUint8, static_cast<int>(r), w.nccl, w.stream),
                  "ncclRecv");
            check(ncclSend(send + at, bytes, ncclUint8, static_cast<int>(r), w.nccl, w.stream),
                  "ncclSend");
            at += bytes;
        }
        check(ncclGroupEnd(), "ncclGroupEnd");
    });
    cudaFree(send);
    cudaFree(recv);
    return times;
}

// ---- the library -----------------------------------------------------------------------------

template <class C, class Transport>
std::vector<double> device_plan(const world& w, const options& o, Transport transport,
                                const std::vector<const int*>& dest_steps,
                                std::vector<Particle>& result, std::size_t& allocations) {
    const layout::stream_ref s(w.stream);
    const auto init = initial(o.n, w.rank);
    C c(layout::aos_vector<Particle>(init.begin(), init.end()), s);
    layout::mpi::device_migration_plan plan(MPI_COMM_WORLD, std::move(transport), s);
    std::size_t warm = 0;
    auto times = time_steps(w, o, [&](int step) {
        if (step == 1) warm = plan.allocations();
        const int* d = dest_steps[static_cast<std::size_t>(step) % dest_steps.size()];
        plan.migrate(c, std::span<const int>(d, c.size()));
    });
    allocations = plan.allocations() - warm;
    const layout::aos_vector<Particle> back = c;
    result.assign(back.begin(), back.end());
    return times;
}

template <class C>
std::vector<double> host_planned(const world& w, const options& o,
                                 const std::vector<std::vector<int>>& steps,
                                 const layout::mpi::nccl_communicator& nccl) {
    const auto init = initial(o.n, w.rank);
    C c = layout::aos_vector<Particle>(init.begin(), init.end());
    layout::mpi::migration_plan plan(MPI_COMM_WORLD, steps[0]);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    layout::mpi::use_nccl(plan,
                          nccl); // deprecated: the row measures the path before the typed plans
#pragma GCC diagnostic pop
    layout::mpi::set_stream(plan, w.stream);
    return time_steps(w, o, [&](int step) {
        plan.update(steps[static_cast<std::size_t>(step) % steps.size()]);
        plan.migrate(c);
    });
}

/// The halo's exports: fraction * n owned particles, spread over the other ranks.
struct ghost_list {
    std::vector<std::uint32_t> index;
    std::vector<int> rank;
};
ghost_list halo_exports(const world& w, const options& o) {
    ghost_list g;
    const auto exports = static_cast<std::size_t>(o.fraction * static_cast<double>(o.n));
    for (std::size_t k = 0; k < exports; ++k) {
        g.index.push_back(static_cast<std::uint32_t>((k * 7919) % o.n));
        g.rank.push_back(
            w.size == 1 ? 0
                        : (w.rank + 1 + static_cast<int>(k % std::size_t(w.size - 1))) % w.size);
    }
    return g;
}

/// Seconds per gather of S through a device_halo_plan, one at a time or back to back; bytes: the
/// messages' bytes per peer.
template <class S, class C, class MakeTransport>
std::vector<double> halo(const world& w, const options& o, const ghost_list& g,
                         MakeTransport make_transport, std::vector<std::size_t>& bytes,
                         bool back_to_back, std::vector<double>* issue = nullptr) {
    const layout::stream_ref s(w.stream);
    const auto init = initial(o.n, w.rank);
    C c(layout::aos_vector<Particle>(init.begin(), init.end()), s);
    std::uint32_t* index = nullptr;
    int* rank = nullptr;
    check(cudaMalloc(&index, g.index.size() * sizeof(std::uint32_t)), "cudaMalloc");
    check(cudaMalloc(&rank, g.rank.size() * sizeof(int)), "cudaMalloc");
    check(cudaMemcpy(index, g.index.data(), g.index.size() * sizeof(std::uint32_t),
                     cudaMemcpyHostToDevice),
          "exports");
    check(cudaMemcpy(rank, g.rank.data(), g.rank.size() * sizeof(int), cudaMemcpyHostToDevice),
          "exports");
    layout::mpi::device_halo_plan plan(MPI_COMM_WORLD, make_transport(), s);
    plan.update(o.n, std::span<const std::uint32_t>(index, g.index.size()),
                std::span<const int>(rank, g.rank.size()));
    bytes.assign(static_cast<std::size_t>(w.size), 0);
    for (std::size_t k = 0; k < g.rank.size(); ++k)
        bytes[static_cast<std::size_t>(g.rank[k])] += S::wire_bytes;
    for (auto& b : bytes) b = (b + 15) / 16 * 16; // messages are padded to 16 bytes
    auto gather = [&](int) { S::gather(plan, c); };
    auto times = back_to_back ? time_batches(w, o, gather, issue) : time_steps(w, o, gather);
    cudaFree(index);
    cudaFree(rank);
    return times;
}

/// The same bytes per peer as one grouped NCCL exchange (each peer sends back as much).
std::vector<double> nccl_bytes(const world& w, const options& o,
                               const std::vector<std::size_t>& bytes, bool back_to_back) {
    std::size_t total = 0;
    for (std::size_t b : bytes) total += b;
    std::byte *send = nullptr, *recv = nullptr;
    check(cudaMalloc(&send, total + 16), "cudaMalloc");
    check(cudaMalloc(&recv, total + 16), "cudaMalloc");
    auto exchange = [&](int) {
        check(ncclGroupStart(), "ncclGroupStart");
        std::size_t at = 0;
        for (std::size_t r = 0; r < bytes.size(); ++r) {
            if (static_cast<int>(r) == w.rank || bytes[r] == 0) continue;
            check(ncclRecv(recv + at, bytes[r], ncclUint8, static_cast<int>(r), w.nccl, w.stream),
                  "ncclRecv");
            check(ncclSend(send + at, bytes[r], ncclUint8, static_cast<int>(r), w.nccl, w.stream),
                  "ncclSend");
            at += bytes[r];
        }
        check(ncclGroupEnd(), "ncclGroupEnd");
    };
    auto times = back_to_back ? time_batches(w, o, exchange) : time_steps(w, o, exchange);
    cudaFree(send);
    cudaFree(recv);
    return times;
}

/// The same bytes per peer through ipc_transport alone (a copy kernel into each peer's memory).
std::vector<double> ipc_bytes(const world& w, const options& o,
                              const std::vector<std::size_t>& bytes, bool back_to_back) {
    std::vector<layout::mpi::message_range> out, in;
    std::size_t total = 0;
    for (std::size_t r = 0; r < bytes.size(); ++r) {
        if (static_cast<int>(r) == w.rank || bytes[r] == 0) continue;
        out.push_back({static_cast<int>(r), total, bytes[r]});
        in.push_back({static_cast<int>(r), total, bytes[r]});
        total += bytes[r];
    }
    std::byte *send = nullptr, *recv = nullptr;
    check(cudaMalloc(&send, total + 16), "cudaMalloc");
    check(cudaMalloc(&recv, total + 16), "cudaMalloc");
    std::vector<double> times;
    {
        layout::mpi::ipc_transport ipc(MPI_COMM_WORLD);
        auto exchange = [&](int) { ipc.exchange(send, out, recv, in, w.stream); };
        times = back_to_back ? time_batches(w, o, exchange) : time_steps(w, o, exchange);
    }
    cudaFree(send);
    cudaFree(recv);
    return times;
}

/// The halo gather of whole particles as a CUDA engineer writes it by hand, planned once (the
/// exports sorted by rank on the host, counts through MPI_Alltoall): each gather is one kernel
/// packing the exports into a send block, then one grouped NCCL exchange received straight into
/// the ghosts after the n owned particles (AoS: no unpacking); the same bytes as the library's.
std::vector<double> hand_halo(const world& w, const options& o, const ghost_list& g,
                              bool back_to_back, std::vector<double>* issue = nullptr) {
    const std::size_t P = static_cast<std::size_t>(w.size), me = static_cast<std::size_t>(w.rank);
    std::vector<unsigned> sorted;
    std::vector<unsigned long long> counts(P, 0), rcounts(P, 0);
    for (std::size_t r = 0; r < P; ++r)
        for (std::size_t k = 0; k < g.rank.size(); ++k)
            if (static_cast<std::size_t>(g.rank[k]) == r) {
                sorted.push_back(g.index[k]);
                ++counts[r];
            }
    MPI_Alltoall(counts.data(), 1, MPI_UNSIGNED_LONG_LONG, rcounts.data(), 1,
                 MPI_UNSIGNED_LONG_LONG, MPI_COMM_WORLD);
    std::vector<std::size_t> send_at(P), recv_at(P);
    std::size_t ghosts = 0;
    for (std::size_t r = 0, from = 0; r < P; ++r) {
        send_at[r] = from;
        from += counts[r];
        recv_at[r] = ghosts;
        ghosts += rcounts[r];
    }
    Particle *p = nullptr, *send = nullptr;
    unsigned* order = nullptr;
    check(cudaMalloc(&p, (o.n + ghosts) * sizeof(Particle)), "cudaMalloc");
    check(cudaMalloc(&send, (sorted.size() + 1) * sizeof(Particle)), "cudaMalloc");
    check(cudaMalloc(&order, (sorted.size() + 1) * sizeof(unsigned)), "cudaMalloc");
    const auto init = initial(o.n, w.rank);
    check(cudaMemcpy(p, init.data(), o.n * sizeof(Particle), cudaMemcpyHostToDevice), "copy");
    check(
        cudaMemcpy(order, sorted.data(), sorted.size() * sizeof(unsigned), cudaMemcpyHostToDevice),
        "copy");
    Particle* ghost = p + o.n;
    auto exchange = [&](int) {
        if (!sorted.empty())
            gather<<<static_cast<unsigned>((sorted.size() + 255) / 256), 256, 0, w.stream>>>(
                send, p, order, 0, sorted.size());
        check(ncclGroupStart(), "ncclGroupStart");
        for (std::size_t r = 0; r < P; ++r) {
            if (r == me) continue;
            if (rcounts[r])
                check(ncclRecv(ghost + recv_at[r], rcounts[r] * sizeof(Particle), ncclUint8,
                               static_cast<int>(r), w.nccl, w.stream),
                      "ncclRecv");
            if (counts[r])
                check(ncclSend(send + send_at[r], counts[r] * sizeof(Particle), ncclUint8,
                               static_cast<int>(r), w.nccl, w.stream),
                      "ncclSend");
        }
        check(ncclGroupEnd(), "ncclGroupEnd");
        if (counts[me]) // periodic images: packed with the rest, copied into place
            check(cudaMemcpyAsync(ghost + recv_at[me], send + send_at[me],
                                  counts[me] * sizeof(Particle), cudaMemcpyDeviceToDevice,
                                  w.stream),
                  "cudaMemcpyAsync");
    };
    auto times = back_to_back ? time_batches(w, o, exchange, issue) : time_steps(w, o, exchange);
    for (void* a : {static_cast<void*>(p), static_cast<void*>(send), static_cast<void*>(order)})
        cudaFree(a);
    return times;
}

bool all_ranks(bool ok) {
    int v = ok ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return v == 1;
}

bool same(const std::vector<Particle>& a, const std::vector<Particle>& b) {
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(Particle)) == 0);
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    world w;
    MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &w.size);
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < w.size) {
        if (w.rank == 0)
            std::printf("device_migrate_bench_gpu: needs a GPU per rank (%d for %d ranks)\n",
                        devices, w.size);
        MPI_Finalize();
        return 0;
    }
    check(cudaSetDevice(w.rank), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&w.stream, cudaStreamNonBlocking), "cudaStreamCreate");
    const options o = parse(argc, argv);
    auto nccl = std::make_unique<layout::mpi::nccl_communicator>(MPI_COMM_WORLD);
    w.nccl = nccl->get();
    w.layout_nccl = nccl.get();

    std::vector<std::vector<int>> steps;
    for (std::uint64_t s = 0; s < 4; ++s)
        steps.push_back(destinations(o.n, o.fraction, w.rank, w.size, s));
    std::vector<int*> dest_device(steps.size());
    std::vector<const int*> dest_steps;
    for (std::size_t s = 0; s < steps.size(); ++s) {
        check(cudaMalloc(&dest_device[s], o.n * sizeof(int)), "cudaMalloc");
        check(
            cudaMemcpy(dest_device[s], steps[s].data(), o.n * sizeof(int), cudaMemcpyHostToDevice),
            "destinations");
        dest_steps.push_back(dest_device[s]);
    }
    std::size_t moved = 0;
    for (int r : steps[0]) moved += r != w.rank;

    struct row {
        std::string name;
        double seconds;
        bool correct;
        std::size_t allocations;
    };
    std::vector<row> rows;
    std::vector<Particle> reference, got;
    rows.push_back({"nccl send/recv alone", median_of_max(nccl_alone(w, o, steps)), true, 0});
    rows.push_back({"hand-written AoS (nccl)",
                    median_of_max(hand_written(w, o, dest_steps, reference)), true, 0});
    rows.push_back({"hand-written SoA (nccl)",
                    median_of_max(hand_written_soa(w, o, dest_steps, got)),
                    all_ranks(same(got, reference)), 0});
    auto library = [&](const char* name, auto tag, auto make_transport) {
        using C = typename decltype(tag)::type;
        std::size_t allocations = 0;
        const double t =
            median_of_max(device_plan<C>(w, o, make_transport(), dest_steps, got, allocations));
        rows.push_back({name, t, all_ranks(same(got, reference)), allocations});
    };
    auto by_nccl = [&] { return layout::mpi::nccl_transport(*nccl); };
    auto staged = [&] { return layout::mpi::staged_transport(MPI_COMM_WORLD); };
    auto by_ipc = [&] { return layout::mpi::ipc_transport(MPI_COMM_WORLD); };
    library("layout aos (nccl)", std::type_identity<layout::cuda::aos_vector<Particle>>{}, by_nccl);
    library("layout soa (nccl)", std::type_identity<layout::cuda::soa_vector<Particle>>{}, by_nccl);
    library("layout aosoa32 (nccl)", std::type_identity<layout::cuda::aosoa<Particle, 32>>{},
            by_nccl);
    library("layout soa (staged)", std::type_identity<layout::cuda::soa_vector<Particle>>{},
            staged);
    library("layout aos (ipc)", std::type_identity<layout::cuda::aos_vector<Particle>>{}, by_ipc);
    library("layout soa (ipc)", std::type_identity<layout::cuda::soa_vector<Particle>>{}, by_ipc);
    library("layout aosoa32 (ipc)", std::type_identity<layout::cuda::aosoa<Particle, 32>>{},
            by_ipc);
    rows.push_back(
        {"host-planned soa (nccl)",
         median_of_max(host_planned<layout::cuda::soa_vector<Particle>>(w, o, steps, *nccl)), true,
         0});
    if (w.rank == 0) {
        std::printf(
            "device_migrate_bench_gpu: %d ranks, a GPU each, N = %zu per rank, %zu (%.0f%%) "
            "leave each rank per step (%.1f MB), %d steps (median of the slowest rank)\n",
            w.size, o.n, moved, o.fraction * 100,
            static_cast<double>(moved * sizeof(Particle)) / 1e6, o.steps);
        // Each row against both hand-written steps: AoS (whole structs received in place, no
        // unpacking) and SoA (packed, then unpacked into the columns).
        const double hand = rows[1].seconds, hand_soa = rows[2].seconds;
        for (const auto& r : rows)
            std::printf("%-28s %9.3f ms/step  %6.2fx hand AoS  %6.2fx hand SoA  %s  allocations "
                        "once warm: %zu\n",
                        r.name.c_str(), r.seconds * 1e3, r.seconds / hand, r.seconds / hand_soa,
                        r.correct ? "same particles as hand-written" : "DIFFERENT PARTICLES",
                        r.allocations);
    }
    // Halo gathers: each row against NCCL moving the same bytes per peer in the same run.
    const ghost_list g = halo_exports(w, o);
    struct halo_row {
        std::string name;
        double seconds, wire, batched, batched_wire, issue;
        std::size_t bytes;
        std::vector<std::size_t> peer_bytes;
    };
    std::vector<halo_row> halo_rows;
    auto halo_pair = [&](const char* name, auto tag, auto fields, auto make_transport) {
        using C = typename decltype(tag)::type;
        using S = decltype(fields);
        std::vector<std::size_t> bytes;
        std::vector<double> issue;
        halo_row r{name};
        r.seconds = median_of_max(halo<S, C>(w, o, g, make_transport, bytes, false));
        r.wire = median_of_max(nccl_bytes(w, o, bytes, false));
        r.batched = median_of_max(halo<S, C>(w, o, g, make_transport, bytes, true, &issue));
        r.batched_wire = median_of_max(nccl_bytes(w, o, bytes, true));
        r.issue = median_of_max(issue);
        r.bytes = 0;
        for (std::size_t b : bytes) r.bytes += b;
        r.peer_bytes = bytes;
        halo_rows.push_back(r);
    };
    {
        std::vector<std::size_t> bytes;
        std::vector<double> issue;
        halo_row r{"hand-written AoS halo"};
        r.seconds = median_of_max(hand_halo(w, o, g, false));
        r.batched = median_of_max(hand_halo(w, o, g, true, &issue));
        r.issue = median_of_max(issue);
        // The NCCL figures of the same bytes: those of the library's AoS row (same messages).
        halo_rows.push_back(r);
    }
    using aos_c = layout::cuda::aos_vector<Particle>;
    using soa_c = layout::cuda::soa_vector<Particle>;
    using aosoa_c = layout::cuda::aosoa<Particle, 32>;
    halo_pair("halo aos, all fields", std::type_identity<aos_c>{}, all_fields{}, by_nccl);
    halo_pair("halo soa, all fields", std::type_identity<soa_c>{}, all_fields{}, by_nccl);
    halo_pair("halo aosoa32, all fields", std::type_identity<aosoa_c>{}, all_fields{}, by_nccl);
    halo_pair("halo soa, x y z", std::type_identity<soa_c>{}, xyz{}, by_nccl);
    halo_pair("halo aos, all fields (ipc)", std::type_identity<aos_c>{}, all_fields{}, by_ipc);
    halo_pair("halo soa, all fields (ipc)", std::type_identity<soa_c>{}, all_fields{}, by_ipc);
    halo_pair("halo aosoa32, all (ipc)", std::type_identity<aosoa_c>{}, all_fields{}, by_ipc);
    halo_pair("halo soa, x y z (ipc)", std::type_identity<soa_c>{}, xyz{}, by_ipc);
    halo_pair("halo aosoa32, x y z (ipc)", std::type_identity<aosoa_c>{}, xyz{}, by_ipc);
    halo_pair("halo aos, x y z (ipc)", std::type_identity<aos_c>{}, xyz{}, by_ipc);
    // The AoS gathers' bytes through ipc_transport alone: what the wire gives without NCCL.
    const double ipc_alone = median_of_max(ipc_bytes(w, o, halo_rows[1].peer_bytes, false));
    const double ipc_alone_batched = median_of_max(ipc_bytes(w, o, halo_rows[1].peer_bytes, true));
    if (w.rank == 0) {
        std::printf(
            "\nhalo gather: %zu ghosts sent per rank per step, against NCCL moving the same "
            "bytes per peer\n",
            g.index.size());
        std::printf("%-28s %-52s | %s\n", "", "one at a time (barrier, gather, wait)",
                    "back to back (STEPS gathers, one wait)");
        // The hand-written row (first) moves the AoS row's bytes: its NCCL figures are those.
        halo_rows[0].wire = halo_rows[1].wire;
        halo_rows[0].batched_wire = halo_rows[1].batched_wire;
        halo_rows[0].bytes = halo_rows[1].bytes;
        for (const auto& r : halo_rows)
            std::printf("%-28s %7.3f ms/gather  nccl %7.3f ms  %5.1f%% of NCCL %6.1f GB/s | "
                        "%7.3f ms/gather  nccl %7.3f ms  %5.1f%% of NCCL %6.1f GB/s sent a rank"
                        "  host %7.3f ms/gather\n",
                        r.name.c_str(), r.seconds * 1e3, r.wire * 1e3, 100.0 * r.wire / r.seconds,
                        static_cast<double>(r.bytes) / r.seconds / 1e9, r.batched * 1e3,
                        r.batched_wire * 1e3, 100.0 * r.batched_wire / r.batched,
                        static_cast<double>(r.bytes) / r.batched / 1e9, r.issue * 1e3);
        std::printf("(host: the median of each batch's issue time a gather on the slowest rank, "
                    "before its one wait)\n");
        // As in the rows: NCCL's time over this one's (above 100% is faster than NCCL).
        std::printf("ipc_transport alone, the AoS rows' bytes: %.3f ms (%.1f%% of NCCL) | "
                    "back to back %.3f ms (%.1f%% of NCCL)\n",
                    ipc_alone * 1e3, 100.0 * halo_rows[1].wire / ipc_alone, ipc_alone_batched * 1e3,
                    100.0 * halo_rows[1].batched_wire / ipc_alone_batched);
    }
    for (int* d : dest_device) cudaFree(d);
    nccl.reset();
    cudaStreamDestroy(w.stream);
    MPI_Finalize();
}
