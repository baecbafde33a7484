#pragma once

/// How the HTTP server's threads reach the engine without racing its
/// actors. The server never reads actor state: every endpoint is work that
/// calls the engine's own API (`status`, `plan_now`, `feed`, `wait_idle`,
/// the journal's readers), run where that API may be called:
///
/// - `any_thread` (`ballast run`: the engine runs on CAF's threads and its
///   API is safe from any thread): the work runs on the server's thread,
///   under a shared lock that `attach` takes whole, so an engine is never
///   gone while work uses it.
/// - `owner_thread` (`ballast sim --realtime`: every actor runs on the
///   driver's thread, inside the engine's calls): the work waits in a queue
///   that the driver serves between two steps, while it would otherwise sleep
///   until the next one (`serve_until`). A step is never interrupted: a
///   request waits at most one step.
///
/// The process also says what this instance is and whether it is ready
/// (`/readyz`): starting, leading, following, simulating.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>

#include "events/result.h"

namespace ballast::actors {
class Engine;
}

namespace ballast::http {

/// What `/readyz` and `/v1/state` say of this instance.
struct Readiness {
    /// "starting", "single" (a `ballast run` that leads alone), "leader",
    /// "standby", "simulation", "stopping".
    std::string role = "starting";
    /// Ready: it leads, or it follows and has caught up with the leader.
    bool ready = false;
    /// Why not, or what it is doing ("waiting for the cluster at ...").
    std::string detail;
    /// A standby: records of the leader's log it has not followed yet, and
    /// how far behind the newest it is (-1: not a standby, or not known).
    int64_t lag_records = -1;
    int64_t lag_ms = -1;
};

class EngineAccess {
public:
    enum class Mode : uint8_t { any_thread, owner_thread };
    /// The engine (null while there is none: starting, a standby, stopped)
    /// and the engine's time now, which an operator command is stamped with.
    using Work = std::function<void(actors::Engine* engine, int64_t now_ms)>;

    /// `clock`: any_thread's time for `Work` (the wall clock of `ballast
    /// run`'s Ticks); owner_thread takes the time `serve_until` is given.
    EngineAccess(Mode mode, std::function<int64_t()> clock = {});
    ~EngineAccess();

    // ---- the server's side

    /// Runs `work` and returns once it ran. An error (and `work` never runs)
    /// when the access is closed, or, owner_thread, when the owner did not
    /// take it within `timeout_ms` (a step or a request ahead of it took longer).
    events::Status call(const Work& work, int64_t timeout_ms);
    Readiness readiness() const;

    // ---- the process's side

    /// any_thread: the engine work is handed from now on (null: none). Waits
    /// for the work in progress with the engine before.
    void attach(actors::Engine* engine);
    /// owner_thread: runs the waiting work, with `engine` at simulated time
    /// `now_ms`, until `deadline` (or until `stop()` says so: it is asked
    /// every 100 ms). The engine is idle between two steps, and each work's
    /// calls run its actors to the end before the next.
    void serve_until(actors::Engine& engine, int64_t now_ms, std::chrono::steady_clock::time_point deadline,
                     const std::function<bool()>& stop = {});
    void set_readiness(Readiness readiness);
    /// No work runs any more: what waits is answered with `why`, and so is
    /// every later call.
    void close(const std::string& why);

private:
    struct Item;

    const Mode _mode;
    std::function<int64_t()> _clock;
    // any_thread: calls hold it shared, attach and close whole.
    mutable std::shared_mutex _engine_mutex;
    actors::Engine* _engine = nullptr;
    // owner_thread: the queue and the closing.
    std::mutex _mutex;
    std::condition_variable _wake;
    std::deque<std::shared_ptr<Item>> _queue;
    bool _closed = false;
    std::string _closed_why;
    mutable std::mutex _readiness_mutex;
    Readiness _readiness;
};

}  // namespace ballast::http
