/// \file mpi/detail/attachment.hpp
/// How a host-planned plan (migration_plan, halo_plan) owns what only <layout/mpi/cuda.hpp>
/// knows: the plans are compiled by any C++ compiler, their device path only by nvcc, so the
/// plan holds the device state by an opaque pointer and three functions made from its type.
/// Nothing is posted or packed through it (the device state's transports do that, typed): it
/// only counts allocations, waits for messages in flight and destroys.
#pragma once

#include <cstddef>
#include <utility>

namespace layout::mpi::detail {

/// State that a plan keeps for memory the host-planned plans do not handle themselves (the device path of
/// <layout/mpi/cuda.hpp>: device buffers and the transports that move their messages), owned
/// by the plan's pattern without knowing its type. The pattern asks it only what every plan must answer whatever
/// its memory: how many buffers it allocated, and to wait for messages it has in flight (a finish
/// that refuses, a container that must grow first). The messages themselves are posted by that
/// state's own typed transport, never through the pattern.
class attachment {
public:
    attachment() = default;
    attachment(const attachment&) = delete;
    attachment& operator=(const attachment&) = delete;
    attachment(attachment&& o) noexcept
        : state_(std::exchange(o.state_, nullptr)), ops_(std::exchange(o.ops_, nullptr)) {}
    attachment& operator=(attachment&& o) noexcept {
        attachment(std::move(o)).swap(*this);
        return *this;
    }
    ~attachment() { reset(); }
    void swap(attachment& o) noexcept {
        std::swap(state_, o.state_);
        std::swap(ops_, o.ops_);
    }
    void reset() noexcept {
        if (state_) ops_->destroy(state_);
        state_ = nullptr;
        ops_ = nullptr;
    }

    /// The state, made on first use. State: default-constructible, with allocations() and
    /// wait(). One state type per plan (the device path's).
    template <class State>
    State& get() {
        if (!state_) {
            state_ = new State();
            ops_ = &ops_for<State>;
        }
        return *static_cast<State*>(state_);
    }
    std::size_t allocations() const noexcept { return state_ ? ops_->allocations(state_) : 0; }
    void wait() {
        if (state_) ops_->wait(state_);
    }

private:
    struct operations {
        void (*destroy)(void*) noexcept;
        std::size_t (*allocations)(const void*) noexcept;
        void (*wait)(void*);
    };
    template <class State>
    static constexpr operations ops_for{
        [](void* p) noexcept { delete static_cast<State*>(p); },
        [](const void* p) noexcept { return static_cast<const State*>(p)->allocations(); },
        [](void* p) { static_cast<State*>(p)->wait(); }};

    void* state_ = nullptr;
    const operations* ops_ = nullptr;
};

} // namespace layout::mpi::detail
