#pragma once

/// Background work on threads of its own (the scheduler's planning, the
/// snapshot writer's encoding) can run at a lower priority than the stream:
/// under a storm an operator feels the stream's latency, not how long a
/// round or a snapshot write takes, and on a 2-core machine both compete
/// for the same cores. A lowered priority is machine-wide, though: the
/// thread also yields to every other process, so a planner at nice 10
/// beside a busy neighbour (a broker, another test) gets a tenth of a core
/// and its rounds take ten times as long. The engine therefore lowers it
/// only when asked (EngineOptions::background_priority; `ballast storm`
/// asks for `idle`). Priority changes when things finish, never what is
/// decided.
///
/// Why SCHED_IDLE and not only a high niceness: at nice 10 a planning round
/// still holds one of the two cores for most of its ~300 ms. The kernel
/// places a waking thread on an idle core, and a core busy with a nice-10
/// thread is not idle, so both CAF workers wake on the other core and the
/// stream runs on one core while the planner has the other. A core running
/// only SCHED_IDLE work counts as idle for that placement, and the woken
/// thread preempts it at once. With `ballast storm` at 1M partitions,
/// metrics-flood at 500k events/s, 30 s: p99 arrival-to-applied 5.8-7.3 ms
/// at nice 10, 2.6 ms with the planner at SCHED_IDLE (bench/README.md).

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstring>

#include <spdlog/spdlog.h>

#include "store/journal.h"

namespace ballast::actors {

using store::BackgroundPriority;

/// The niceness of `BackgroundPriority::low`.
inline constexpr int background_low_nice = 10;

/// Lowers the calling thread's priority to `priority` (`normal`: leaves it
/// alone); `who` names it in the warning if the system refuses.
inline void lower_this_thread_priority(const char* who, BackgroundPriority priority) {
    const auto tid = static_cast<pid_t>(syscall(SYS_gettid));
    switch (priority) {
        case BackgroundPriority::normal: return;
        case BackgroundPriority::low:
            if (setpriority(PRIO_PROCESS, static_cast<id_t>(tid), background_low_nice) != 0) {
                spdlog::warn("{}: could not lower its thread's priority to nice {}: {}", who, background_low_nice,
                             std::strerror(errno));
            }
            return;
        case BackgroundPriority::idle: {
            const sched_param param{};  // SCHED_IDLE takes priority 0
            if (sched_setscheduler(tid, SCHED_IDLE, &param) != 0) {
                spdlog::warn("{}: could not move its thread to SCHED_IDLE: {}", who, std::strerror(errno));
            }
            return;
        }
    }
    assert(false && "unknown BackgroundPriority");
}

}  // namespace ballast::actors
