/// \file mpi/error.hpp
/// layout::mpi::error: what every rank throws when a collective operation of a plan is refused.
///
///     try { plan.migrate(particles); }
///     catch (const layout::mpi::error& e) {
///         // on the rank whose input was wrong: what that was, e.failing_rank() == this rank;
///         // on every other rank: "rank 2 reported an error ...", e.failing_rank() == 2.
///     }
///
/// Plans check their input and do everything else that can throw on one rank alone (growing
/// their buffers and the containers, packing the messages, device work) before any data moves,
/// then agree on the outcome in one small MPI_Allreduce per call, so that either every rank goes
/// on or every rank throws: no rank is left waiting for a message that will never come, and no
/// element has left its rank. A rank whose own step threw (std::bad_alloc, a CUDA error)
/// rethrows that exception; the others throw layout::mpi::error naming it. After the agreement
/// only the messages and the unpacking remain: a failure while unpacking (finish(dst) of a split
/// migration into a container that must grow, a device error) comes after every message of the
/// exchange has arrived, so it leaves no rank waiting either, and that rank alone throws.
#pragma once

#include <mpi.h>

#include <stdexcept>
#include <string>

namespace layout::mpi {

class error : public std::runtime_error {
public:
    error(const std::string& what, int failing_rank)
        : std::runtime_error(what), failing_rank_(failing_rank) {}
    /// The rank whose input was refused or whose preparation threw (the highest one, if several
    /// did); -1 when the ranks
    /// disagreed about the operation or the plan rather than one rank's input being wrong.
    int failing_rank() const noexcept { return failing_rank_; }

private:
    int failing_rank_;
};

namespace detail {

/// Throws layout::mpi::error for an MPI return code other than MPI_SUCCESS (the plans set
/// MPI_ERRORS_RETURN on their own communicator so that errors come back as codes).
inline void check(int code, const char* call, int rank = -1) {
    if (code == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) length = 0;
    throw error(std::string("layout::mpi: ") + call + " failed: " + std::string(text, length),
                rank);
}

} // namespace detail
} // namespace layout::mpi
