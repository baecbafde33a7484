#pragma once

/// The router: takes journaled batches in sequence order and hands each
/// event to the actors it concerns (brokers, partitions, scheduler,
/// executor). It owns the barrier: when a Tick makes a planning round due
/// (the detect interval passed, a broker changed, a fenced broker's grace
/// ran out) or a snapshot is due, it gathers the state as of that event's
/// sequence number and passes on only partition and broker state (which
/// the gathering is protected from, see partition_table.h) until the scheduler's decision has been journaled and
/// handed to the executor. So a decision always takes effect at the same
/// point of the stream, live or in a replay. See actors/README.md for why
/// and what it costs.

#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <unordered_map>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>
#include <caf/response_promise.hpp>

#include "actors/engine_config.h"
#include "actors/engine_snapshot.h"
#include "actors/messages.h"
#include "actors/partition_table.h"

namespace ballast::actors {

/// Counters the engine reads from outside the actor system.
struct RouterProgress {
    std::atomic<uint64_t> events_routed{0};
    std::atomic<uint64_t> last_seq{0};
    std::atomic<uint64_t> barriers{0};
    std::atomic<uint64_t> partition_samples_dropped{0};  // samples for partitions never seen
    std::atomic<uint64_t> throttled{0};  // pauses for the partition backlog cap
    /// Updates sent to partition shards so far: with the partition table's
    /// applied() count, an observer (`ballast storm`) can tell when
    /// everything routed up to a point has been applied.
    std::atomic<uint64_t> partition_messages_sent{0};
};

struct RouterState {
    static inline const char* name = "router";

    // Wiring.
    PartitionTable* table = nullptr;
    caf::actor scheduler;
    caf::actor executor;
    caf::actor journal;
    RouterProgress* progress = nullptr;
    InFlight* in_flight = nullptr;

    // Settings, kept in step with ConfigChanged events.
    events::Config config = events::Config::defaults();
    std::vector<std::string> overrides;
    EngineSettings settings;
    uint64_t quiet_until_seq = 0;
    bool snapshots = true;
    uint64_t partition_backlog_max = 0;
    /// A captured snapshot is being written (beside the stream): no next
    /// one until it is, and idle waits for it.
    bool snapshot_writing = false;
    /// Partition samples routed since the newest snapshot's event: they, not
    /// the events, are most of what a restart replays. Not in the snapshot:
    /// a recovery starts counting at its snapshot, as the live run did.
    uint64_t samples_since_snapshot = 0;

    // Topology.
    std::vector<std::string> topics;                     // router topic index -> name
    std::unordered_map<std::string, uint32_t> topic_index;
    std::vector<std::vector<uint32_t>> topic_slots;      // router topic index -> slots
    std::unordered_map<uint64_t, uint32_t> slot_of;      // (topic << 32 | partition) -> slot
    std::vector<caf::actor> shards;                      // partition shards (partition_shard.h)
    std::vector<PartitionBatch> shard_batches;           // updates not yet sent, by shard
    std::map<int32_t, caf::actor> brokers;               // by id
    /// Per broker: the newest metrics report time passed on (not in the
    /// snapshot: after a restart the first report is passed on again, a no-op).
    std::unordered_map<int32_t, int64_t> reported_ms;
    /// Per broker: the newest report time not yet sent. Only a barrier reads
    /// a broker's freshness, so it is sent at the next barrier, or before
    /// the next other update to that broker (order within a broker stays).
    std::unordered_map<int32_t, BrokerUpdate> pending_reports;

    // What changed since the last planning barrier.
    std::vector<uint32_t> dirty;
    std::vector<uint8_t> dirty_flag;  // by slot
    uint64_t partition_messages_sent = 0;
    uint64_t epoch_messages_sent = 0;  // in the table's current epoch
    uint64_t events_routed = 0;        // published to RouterProgress once per batch
    uint64_t next_throttle_check = 0;

    // Flow control: routing pauses while more than partition_backlog_max
    // partition messages wait in mailboxes, until the actors have worked
    // the backlog down to half (see throttle() in router_actor.cc).
    bool throttled = false;
    uint64_t throttle_target = 0;

    // Clock and triggers (see router_actor.cc).
    RouterMemory memory;
    std::map<uint64_t, std::vector<uint32_t>> action_slots;  // in-flight action -> slots

    // The stream: batches not yet routed, and where in the front one we are.
    std::deque<BatchPtr> queue;
    size_t cursor = 0;

    // The barrier in progress. It closes the table's epoch and takes what
    // the round needs from the router as of its event; partition and broker
    // state go on being routed while it waits for answers and the decision.
    struct Barrier {
        bool active = false;
        bool snapshot = false;
        bool dry_run = false;
        caf::response_promise dry_run_promise;
        uint64_t seq = 0;
        int64_t now_ms = 0;    // the clock at its event (Ticks may pass it)
        uint32_t waiting = 0;  // answers still to come
        uint32_t epoch = 0;    // the table epoch it closed
        uint32_t slot_count = 0;
        bool partitions_drained = false;
        std::vector<uint32_t> dirty;
        std::vector<std::string> topics;
        std::shared_ptr<EngineSnapshot> snapshot_draft;  // snapshot barriers: the router's part
        std::vector<BrokerRecord> brokers;
        ExecutorViewPtr executor;
    } barrier;

    /// A planning round from its barrier until its decision takes effect.
    /// With `ballast.planner.decision.delay.ms` = 0 (`at_once`) that is
    /// right after the barrier's event: everything but partition and broker
    /// state waits for the decision. With a delay, it is just before the
    /// first event that must see it, a Tick at or past `apply_at_ms` or an
    /// event for the scheduler; everything else flows past (see `gate` in
    /// router_actor.cc), so the stream waits for the planner only when
    /// planning takes longer than the delay. Either way the decision's
    /// place is a place in the stream, never a moment in time: a replay
    /// decides the same.
    struct Round {
        bool active = false;
        bool at_once = true;       // no delay: takes effect when it comes
        int64_t now_ms = 0;        // the clock at its barrier
        int64_t apply_at_ms = 0;   // the first Tick at or past this takes the decision
        DecisionPtr decision;      // null while the scheduler plans
        bool outcomes_passed = false;  // an action finished or failed meanwhile
    } round;
    std::vector<caf::response_promise> idle_waiters;
};

struct RouterSetup {
    PartitionTable* table = nullptr;
    caf::actor scheduler;
    caf::actor executor;
    RouterProgress* progress = nullptr;
    InFlight* in_flight = nullptr;
    events::Config config = events::Config::defaults();
    std::vector<std::string> overrides;
    /// State to start from, or null. Shared: the actor reads it when it first
    /// runs, which may be after the caller has moved on.
    std::shared_ptr<const EngineSnapshot> restore;
    /// Recovery: events up to here were journaled and acted on before the
    /// restart; their barriers decide again but act quietly.
    uint64_t quiet_until_seq = 0;
    bool snapshots = true;                    // false in replay: nothing to write to
    uint64_t partition_backlog_max = 1u << 16;  // EngineOptions::partition_backlog_max
};

caf::behavior router_actor(caf::stateful_actor<RouterState>* self, RouterSetup setup);

}  // namespace ballast::actors
