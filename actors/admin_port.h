#pragma once

/// The admin port: how the executor acts on a cluster. The Kafka adapter
/// (AlterPartitionReassignments, ElectLeaders), the simulator, and replay's
/// recorded port implement it; unit tests use a small fake.
///
/// Outcomes never return from these calls. An implementation reports them
/// later as events (ActionCompleted, ActionFailed) through the sink it was
/// attached to, so that they are journaled like any other input and a replay
/// sees them at the same place in the stream.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "events/event.h"

namespace ballast::actors {

/// Feeds events into the engine (thread-safe; see Engine::feed).
using EventSink = std::function<void(std::vector<events::Event>)>;

/// Whether broker `id` is in a replica (or ISR, or broker) list.
inline bool lists_broker(const std::vector<int32_t>& list, int32_t id) {
    return std::find(list.begin(), list.end(), id) != list.end();
}

/// Whether two replica lists hold the same brokers, in any order: a
/// reassignment whose target is {1, 2, 3} is done when the cluster reports
/// [3, 1, 2].
inline bool same_replica_set(std::vector<int32_t> a, std::vector<int32_t> b) {
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    return a == b;
}

class AdminPort {
public:
    virtual ~AdminPort() = default;

    /// Called once before any other call, with where outcomes go.
    virtual void attach(EventSink sink) = 0;

    /// Starts `action` (its `attempt`-th try, from 1). Must return quickly:
    /// it runs on an actor's thread.
    virtual void submit(const events::Action& action, uint32_t attempt) = 0;

    /// Asks the cluster to stop `action` (for moves: a reassignment with a
    /// null target). The outcome, if any, comes back through the sink.
    virtual void cancel(const events::Action& action) = 0;

    /// After a restart: `action` (its `attempt`-th try) was in flight, its
    /// intent journaled; whether it reached the cluster is for the port to
    /// find out, without submitting it again. Running: followed to its
    /// outcome, reported as for a submitted one. Done: reported completed.
    /// Neither (the crash came between the intent and the admin call, or
    /// someone undid it): reported failed, not retriable, with
    /// `not_started_code`.
    virtual void adopt(const events::Action& action, uint32_t attempt) = 0;
};

/// The error code of an adopted action found neither running nor done
/// (Kafka's NO_REASSIGNMENT_IN_PROGRESS): the executor lets it go without
/// holding its partitions, and the planner decides again from their current
/// replicas.
inline constexpr int32_t not_started_code = 85;
inline constexpr const char* not_started_name = "NO_REASSIGNMENT_IN_PROGRESS";

}  // namespace ballast::actors
