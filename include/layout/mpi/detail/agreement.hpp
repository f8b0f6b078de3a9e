/// \file mpi/detail/agreement.hpp
/// How the ranks of a plan decide together to go on or to throw: one MPI_Allreduce per
/// collective step, in which each rank says whether its input was refused or its own preparation
/// threw, and which operation, plan, plan version and fields it is running. Every plan type
/// (host pattern, device-planned migration) starts each collective step here, so that ranks
/// running different steps or plans meet in the same call and all throw rather than hang.
///
///     local_outcome local;
///     local.run([&] { if (bad) local.problem = "..."; reserve(); });
///     agree(comm, rank, operation::migrate, local, plan_id, version, signature);
///
/// A step may carry extra values in the same reduction (the device migration's count matrix):
/// each rank writes its own entries and leaves the others at zero; the maximum over the ranks
/// comes back in place.
#pragma once

#include "../error.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <span>
#include <string>
#include <vector>

namespace layout::mpi::detail {

/// What a collective step is doing, so that ranks running different steps find out together.
enum class operation : std::int64_t {
    construct = 1,
    build = 2,
    migrate = 3,
    halo_gather = 4,
    halo_scatter_add = 5,
    device_migrate = 6
};

inline const char* operation_name(std::int64_t op) {
    switch (op) {
    case 1:
        return "a plan's construction";
    case 2:
        return "a plan's update";
    case 3:
        return "a migration";
    case 4:
        return "a halo gather";
    case 5:
        return "a halo scatter_add";
    case 6:
        return "a device-planned migration";
    default:
        return "an unknown operation";
    }
}

/// Per-process counter from which plans take their ids: a plan's id is the largest counter of
/// all ranks when it is constructed, so plans constructed in the same order on every rank (which
/// MPI requires of collective calls anyway) have the same id everywhere.
inline std::int64_t& next_plan_id() {
    static std::int64_t id = 1;
    return id;
}

/// What a rank brings to an agreement: its input refused (problem, a message), or the exception
/// that its local preparation threw (failure), or neither.
///
///     local_outcome local;
///     local.run([&] { if (bad) local.problem = "..."; buffer.reserve(bytes); pack(); });
///     p.agree(op, local, ...);   // every rank throws if any rank has a problem or a failure
struct local_outcome {
    std::string problem;
    std::exception_ptr failure;

    bool ok() const noexcept { return problem.empty() && !failure; }
    /// Runs f unless something is already wrong, keeping what it throws for the agreement
    /// rather than letting it leave this rank alone.
    template <class F>
    void run(F&& f) noexcept {
        if (!ok()) return;
        try {
            f();
        } catch (...) {
            failure = std::current_exception();
        }
    }
};

/// Collective over comm: every rank says whether its input was refused or its preparation
/// threw, and what it is running. If any rank did, or the ranks disagree, every rank throws: a
/// rank whose preparation threw rethrows its own exception, one whose input was refused throws
/// layout::mpi::error saying why, the others layout::mpi::error naming the rank. extra (signed,
/// at least zero) is reduced by maximum in the same call. Returns the largest `value`.
inline std::int64_t agree(MPI_Comm comm, int rank, operation op, const local_outcome& local,
                          std::int64_t value, std::int64_t version, std::int64_t signature,
                          bool check_plan = true, std::span<std::int64_t> extra = {}) {
    const std::string& problem = local.problem;
    const auto o = static_cast<std::int64_t>(op);
    constexpr std::size_t header = 9;
    std::int64_t fixed[header] = {
        local.ok() ? 0 : rank + 1, o, -o, value, -value, version, -version, signature, -signature};
    std::int64_t* v = fixed;
    std::vector<std::int64_t> all; // header and extra in one reduction
    if (!extra.empty()) {
        all.assign(fixed, fixed + header);
        all.insert(all.end(), extra.begin(), extra.end());
        v = all.data();
    }
    check(MPI_Allreduce(MPI_IN_PLACE, v, static_cast<int>(header + extra.size()), MPI_INT64_T,
                        MPI_MAX, comm),
          "MPI_Allreduce (agreement)", rank);
    for (std::size_t k = 0; k < extra.size(); ++k) extra[k] = v[header + k];
    if (local.failure) std::rethrow_exception(local.failure);
    if (!problem.empty())
        throw error(problem + " [every rank of the communicator throws; no element moved]", rank);
    if (v[0] != 0)
        throw error("layout::mpi: rank " + std::to_string(v[0] - 1) + " refused its input to " +
                        operation_name(o) +
                        " or could not prepare it (its exception says why); no element moved",
                    static_cast<int>(v[0] - 1));
    if (v[1] != -v[2])
        throw error(std::string("layout::mpi: mismatched calls: this rank ran ") +
                        operation_name(o) + ", another rank " +
                        operation_name(v[1] == o ? -v[2] : v[1]) + "; no element moved",
                    -1);
    if (check_plan && (v[3] != -v[4] || v[5] != -v[6]))
        throw error("layout::mpi: mismatched plans: the ranks called " +
                        std::string(operation_name(o)) +
                        " with different plans, or with one plan updated on some ranks and not "
                        "others; no element moved",
                    -1);
    if (v[7] != -v[8])
        throw error(std::string("layout::mpi: mismatched fields: the ranks ran ") +
                        operation_name(o) +
                        " with different element types or different travelling fields (or, at "
                        "construction, some with neighbours and some without; or, in a device "
                        "plan through a transport that receives in place (NCCL, IPC), AoS "
                        "containers on some ranks and other layouts on others); no element moved",
                    -1);
    return v[3];
}

} // namespace layout::mpi::detail
