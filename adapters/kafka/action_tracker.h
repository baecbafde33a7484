#pragma once

/// When is an action done? The admin port's decisions about one action it
/// follows, as a pure function of what Kafka says (ListPartitionReassignments)
/// and what the metadata poller reported (ClusterState), so that the unit
/// tests can walk every path.
///
/// The state machine of one action:
///
///   MOVE, SWAP:  reassigning --(every part: no longer listed AND the report
///                               shows the target replicas, all in the ISR)--> complete
///   LEADER:      reordering  --(no longer listed AND the report shows the
///                               target order)--> electing (ElectLeaders, preferred)
///                electing    --(the report shows target[0] leading)--> complete
///   any part not listed and not at its target for `abandon_after_ms`
///   (someone cancelled or replaced the reassignment; or, electing, the
///   leader never changed) --> abandoned (the port reports it failed)
///
/// "The report shows" rather than "metadata shows": the port completes an
/// action only after the poller has fed the new replicas, so the engine
/// never sees an ActionCompleted before the change it completes.

#include <cstdint>
#include <string>
#include <vector>

#include "adapters/kafka/metadata/cluster_state.h"
#include "adapters/kafka/wire/messages/list_partition_reassignments.h"
#include "events/event.h"

namespace ballast::kafka {

struct TrackedPart {
    std::string topic;
    int32_t partition = -1;
    std::vector<int32_t> target;  // preference order
    bool done = false;
    int64_t stray_since_ms = -1;  // not listed and not at the target since (steady ms)
};

enum class TrackPhase : uint8_t { reassigning, reordering, electing };

struct TrackedAction {
    events::Action action;
    uint32_t attempt = 0;
    TrackPhase phase = TrackPhase::reassigning;
    std::vector<TrackedPart> parts;
    int64_t electing_since_ms = -1;
    /// Adopted after a restart rather than submitted by this port, and
    /// whether Kafka has listed it running since: an adopted action never
    /// seen running and not at its target never started.
    bool adopted = false;
    bool seen_running = false;
};

/// The parts of an action (one partition; two for a swap) and its first phase.
TrackedAction track(const events::Action& action, uint32_t attempt);

enum class TrackStep : uint8_t {
    wait,       // nothing to do yet
    elect,      // LEADER: the order is in place; ask for the preferred leader now
    complete,   // report ActionCompleted
    abandoned,  // report ActionFailed (see `why`)
};

/// Advances `tracked` given Kafka's reassignments and the poller's report,
/// at steady time `now_ms`. On `abandoned`, `why` says what was seen.
TrackStep next_step(TrackedAction& tracked, const wire::messages::ListPartitionReassignmentsResponse& moving,
                    const metadata::ClusterState& reported, int64_t now_ms, int64_t abandon_after_ms, std::string* why);

}  // namespace ballast::kafka
