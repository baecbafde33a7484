#pragma once

/// Background work on threads of its own (the scheduler's planning, the
/// snapshot writer's encoding) runs at a lower priority than the stream:
/// an operator feels the stream's latency, not how long a round or a
/// snapshot write takes, and on a 2-core machine both compete for the same
/// cores. Priority changes when things finish, never what is decided.

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <spdlog/spdlog.h>

namespace ballast::actors {

/// The niceness of background threads (0 = the stream's; 19 = lowest).
inline constexpr int background_nice = 10;

/// Lowers the calling thread's priority to `background_nice`; `who` names
/// it in the warning if the system refuses.
inline void lower_this_thread_priority(const char* who) {
    const auto tid = static_cast<id_t>(syscall(SYS_gettid));
    if (setpriority(PRIO_PROCESS, tid, background_nice) != 0) {
        spdlog::warn("{}: could not lower its thread's priority: {}", who, std::strerror(errno));
    }
}

}  // namespace ballast::actors
