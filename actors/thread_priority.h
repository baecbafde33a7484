#pragma once

/// Background work on threads of its own (the scheduler's planning, the
/// snapshot writer's encoding) can run at a lower priority than the stream:
/// under a storm an operator feels the stream's latency, not how long a
/// round or a snapshot write takes, and on a 2-core machine both compete
/// for the same cores. Niceness is machine-wide, though: a nice thread also
/// yields to every other process, so a planner at nice 10 beside a busy
/// neighbour (a broker, another test) gets a tenth of a core and its rounds
/// take ten times as long. The engine therefore lowers it only when asked
/// (EngineOptions::background_nice; `ballast storm` asks). Priority changes
/// when things finish, never what is decided.

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstring>

#include <spdlog/spdlog.h>

namespace ballast::actors {

/// The niceness `ballast storm` gives background threads (0 = the
/// stream's; 19 = lowest).
inline constexpr int storm_background_nice = 10;

/// Sets the calling thread's niceness to `nice` (0: leaves it alone); `who`
/// names it in the warning if the system refuses.
inline void lower_this_thread_priority(const char* who, int nice) {
    assert(nice >= 0 && nice <= 19);
    if (nice == 0) return;
    const auto tid = static_cast<id_t>(syscall(SYS_gettid));
    if (setpriority(PRIO_PROCESS, tid, nice) != 0) {
        spdlog::warn("{}: could not lower its thread's priority: {}", who, std::strerror(errno));
    }
}

}  // namespace ballast::actors
