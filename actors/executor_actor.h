#pragma once

/// The executor: carries out the scheduler's accepted actions through the
/// admin port and tracks each until it completes, fails for good, times out
/// or is cancelled. It sees everything in stream order from the router
/// (decisions, outcomes, ticks, operator commands), so its state as of any
/// sequence number is the same in a live run and in a replay.
///
/// Each attempt's intent (ActionSubmitted: action and attempt) is journaled
/// before its admin call, which is made in the journal's answer and only if
/// the action is still in flight at that attempt: every reassignment the
/// cluster ever runs has its intent in the journal, and a leader that can no
/// longer journal can no longer act. After a restart the actions in flight
/// are adopted (see admin_port.h), never submitted again.
///
/// Time is the engine's: timeouts and retry backoffs are checked on Tick
/// events, never against the wall clock.

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>
#include <caf/response_promise.hpp>

#include "actors/admin_port.h"
#include "actors/messages.h"

namespace ballast::actors {

struct ExecutorSettings {
    int64_t action_timeout_ms = 600'000;
    uint32_t retries_max = 3;
    int64_t retry_backoff_ms = 2'000;  // doubles with each retry
    /// A partition whose moves end unfinished is held for
    /// hold_base_ms x 2^(failures-1), at most 64 x hold_base_ms (the
    /// scheduler applies it); the longer of the cooldown and the timeout.
    int64_t hold_base_ms = 600'000;
    /// A partition's failure count is forgotten this long after its last
    /// failure (the longest hold).
    int64_t backoff_memory_ms = 64 * 600'000;
};

struct ExecutorState {
    static inline const char* name = "executor";
    AdminPort* port = nullptr;  // null: never act (replay)
    /// Events and decisions up to this seq were already acted on and
    /// journaled before a restart: apply them, do not act or record again.
    uint64_t quiet_until_seq = 0;
    bool leading = false;       // acts only while this instance leads
    ExecutorSettings settings;
    std::map<uint64_t, TrackedAction> inflight;  // by action id
    std::map<uint32_t, MoveBackoff> backoff;     // by partition slot, see MoveBackoff
    int64_t now_ms = 0;
    int64_t last_batch_ms = -1;
    caf::actor journal;
    std::function<void(const events::Event&)> on_decision;
    /// Submissions whose intents the journal has not yet confirmed, and who
    /// asked for idle meanwhile.
    uint32_t intents_unconfirmed = 0;
    std::vector<caf::response_promise> idle_waiters;
    InFlight* in_flight = nullptr;  // the engine's
};

/// `view` restores a snapshot's state (empty on a fresh start).
caf::behavior executor_actor(caf::stateful_actor<ExecutorState>* self, AdminPort* port,
                             caf::actor journal, ExecutorView view, ExecutorSettings settings,
                             uint64_t quiet_until_seq,
                             std::function<void(const events::Event&)> on_decision, InFlight* in_flight);

}  // namespace ballast::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ballast::actors::ExecutorSettings)
