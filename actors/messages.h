#pragma once

/// What the engine's actors say to each other. Payloads that are large or
/// shared travel as shared pointers to immutable values, so a message costs
/// one allocation however many events it carries.

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>

#include "actors/admin_port.h"
#include "actors/partition_table.h"
#include "events/event.h"
#include "goals/planner_types.h"

namespace ballast::actors {

/// What is under way inside the engine, kept by the actors that do it, so
/// that a simulated crash (Engine::crash_after_messages) can say which of
/// these it interrupted. Relaxed: read once the actors have stopped.
struct InFlight {
    std::atomic<int64_t> inputs_unjournaled{0};   // fed (engine), not yet appended (journal actor)
    std::atomic<int32_t> round_open{0};           // a round begun, its decision not yet applied (router)
    std::atomic<int32_t> snapshot_open{0};        // a snapshot asked for, not yet written and retained (journal actor)
    std::atomic<int32_t> intents_unsubmitted{0};  // intents on their way to the journal (executor)
    std::atomic<int32_t> actions_in_flight{0};    // submitted, no outcome yet (executor)
};

// ---------------------------------------------------------------- atoms

using feed_atom = caf::atom_constant<caf::atom("feed")>;          // engine -> journal: inputs
using record_atom = caf::atom_constant<caf::atom("record")>;      // -> journal: engine-made events
using flush_atom = caf::atom_constant<caf::atom("flush")>;        // journal -> itself
using route_atom = caf::atom_constant<caf::atom("route")>;        // journal -> router
using apply_atom = caf::atom_constant<caf::atom("apply")>;        // router -> broker / partition shard
using barrier_atom = caf::atom_constant<caf::atom("barrier")>;    // router -> broker / executor
using drained_atom = caf::atom_constant<caf::atom("drained")>;    // partition shard -> router
using plan_atom = caf::atom_constant<caf::atom("plan")>;          // router -> scheduler
using control_atom = caf::atom_constant<caf::atom("control")>;    // router -> scheduler / executor
using execute_atom = caf::atom_constant<caf::atom("execute")>;    // router -> executor
using snapshot_atom = caf::atom_constant<caf::atom("snapshot")>;  // state capture and writes
using idle_atom = caf::atom_constant<caf::atom("idle")>;          // engine -> router: caught up?
using adopt_atom = caf::atom_constant<caf::atom("adopt")>;        // engine -> executor: after recovery
using follow_atom = caf::atom_constant<caf::atom("follow")>;    // engine -> journal: a leader's runs (standby)
using epoch_atom = caf::atom_constant<caf::atom("epoch")>;        // partition shard -> router: epoch applied
using status_atom = caf::atom_constant<caf::atom("status")>;      // engine -> router -> scheduler: what is your state?

using EventBatch = std::vector<events::Event>;
using BatchPtr = std::shared_ptr<const EventBatch>;
using MutableBatchPtr = std::shared_ptr<EventBatch>;  // to the journal, which assigns seqs
using EventPtr = std::shared_ptr<const events::Event>;

// ---------------------------------------------------------------- brokers

struct BrokerRecord {
    int32_t id = -1;
    std::string rack;
    goals::Liveness liveness = goals::Liveness::alive;
    int64_t liveness_changed_ms = 0;
    int64_t metrics_time_ms = -1;
    bool registered = false;  // false: known only from a replica list or metrics
    events::BrokerSample sample;  // the newest broker-level sample
    uint64_t applied_seq = 0;
    /// When it was last fenced, newest first (-1: none), for flapping
    /// (goals/broker_stability.h).
    std::array<int64_t, goals::Broker::fence_history> fenced_ms = {-1, -1, -1, -1, -1, -1, -1, -1};
};

/// One thing that happened to a broker, cut out of an event by the router.
struct BrokerUpdate {
    enum class Kind : uint8_t { registered, fenced, unfenced, unregistered, sample, reported };
    Kind kind = Kind::reported;
    uint64_t seq = 0;
    int64_t time_ms = 0;
    std::string rack;              // registered
    events::BrokerSample sample;   // sample
    int64_t sample_time_ms = -1;   // sample, reported
};

// ---------------------------------------------------------------- partitions

/// One thing that happened to a partition, cut out of an event by the router.
struct PartitionUpdate {
    enum class Kind : uint8_t { changed, sample, moved, deleted };
    Kind kind = Kind::changed;
    uint64_t seq = 0;
    int64_t time_ms = 0;
    uint32_t epoch = 0;  // the router's epoch when it was sent (partition_table.h)
    uint32_t slot = 0;   // the partition's slot in the table
    // changed (fixed arrays: no allocation per message, and a million of
    // these can be in flight while a cluster first appears)
    int32_t leader = -1;
    uint8_t replica_count = 0;
    uint8_t isr_count = 0;
    std::array<int32_t, replicas_max> replicas{};
    std::array<int32_t, replicas_max> isr{};
    // sample
    events::PartitionSample sample;
    int32_t reporting_broker = -1;
    int64_t sample_time_ms = -1;
    // sample: the load window as of this update's seq (the router's settings),
    // so that a reconfigured window applies from its ConfigChanged on.
    uint32_t window_bucket_ms = 0;  // 0: no window, the sample is the load
    int32_t window_percentile = 0;
};

/// A routed batch's updates for one partition shard, in routing order.
using PartitionBatch = std::vector<PartitionUpdate>;

// ---------------------------------------------------------------- executor

/// An action the executor tracks until it completes, fails for good, times
/// out or is cancelled.
struct TrackedAction {
    events::Action action;
    std::vector<uint32_t> partition_slots;  // slots of the partitions it touches
    uint32_t attempt = 0;
    int64_t started_ms = 0;      // engine time the decision was made
    int64_t next_retry_ms = -1;  // -1: not waiting to retry
};

/// A partition whose last moves ended without completing (timed out,
/// failed for good, cancelled), counted until one completes. The scheduler
/// holds it for base x 2^(failures-1), at most 64 x base (base: the longer
/// of the cooldown and the action timeout): a move that cannot finish (too
/// slow a throttle, a stuck controller) is retried less and less often.
struct MoveBackoff {
    uint32_t failures = 0;
    int64_t last_failed_ms = 0;
    bool operator==(const MoveBackoff&) const = default;
};

/// What the executor has in flight, as of a barrier.
struct ExecutorView {
    std::vector<TrackedAction> inflight;  // by action id
    int64_t last_batch_ms = -1;
    bool leading = false;
    std::map<uint32_t, MoveBackoff> backoff;  // by partition slot
    /// The executor's clock (the newest Tick). Not in the snapshot's bytes:
    /// a restore takes the router's clock, which the same Ticks advance.
    int64_t now_ms = 0;
};
using ExecutorViewPtr = std::shared_ptr<const ExecutorView>;

// ---------------------------------------------------------------- planning

/// Everything the scheduler needs for one round, gathered by the router's
/// barrier as of `seq`.
struct PlanInput {
    uint64_t seq = 0;
    int64_t now_ms = 0;
    bool quiet = false;                      // recovery: the journal already holds what follows
    bool dry_run = false;                    // `ballast plan`: decide, change nothing
    size_t pending = 0;                      // dry run: the last executor->inflight wait for their Tick
    std::vector<BrokerRecord> brokers;       // sorted by id
    /// The table as of the barrier: read slots below `slot_count` with
    /// `PartitionTable::read(slot, epoch)`; the actors may be past it.
    uint32_t epoch = 0;
    uint32_t slot_count = 0;
    std::vector<uint32_t> dirty_slots;       // partitions changed since the last barrier
    std::vector<std::string> topics;         // the router's topic names, by index, as of the barrier
    ExecutorViewPtr executor;
};
using PlanInputPtr = std::shared_ptr<const PlanInput>;

/// A broker's load before and after the actions a plan accepted.
struct BrokerSummary {
    int32_t id = -1;
    std::string rack;
    goals::Liveness liveness = goals::Liveness::alive;
    /// A sample newer than metrics.delay.ms: without one the broker neither
    /// gives nor takes load.
    bool metrics_fresh = false;
    goals::BrokerLoad before;
    goals::BrokerLoad after;
};

/// The scheduler's answer: the journaled ActionsPlanned (when it planned),
/// and the accepted actions with the slots they touch.
struct Decision {
    uint64_t barrier_seq = 0;
    bool planned = false;
    bool quiet = false;   // recovery: track the actions, do not act or record
    bool held_any = false;  // the gate held actions back, or goals remain unmet after the plan
    /// When the plan would change by the clock alone (goals::Plan::replan_at_ms).
    int64_t replan_at_ms = INT64_MAX;
    events::Event event;  // ActionsPlanned, with the seq the journal gave it
    std::vector<TrackedAction> accepted;
    // Dry runs only: what `ballast plan` prints.
    std::vector<BrokerSummary> brokers;
    std::vector<std::string> unfixable;
    std::vector<std::string> violated_before;
    std::vector<std::string> violated_after;
    /// The actions the dry run planned around as in flight: running ones, and
    /// (the last `pending` of them) a decided round's still waiting for its
    /// Tick, so `ballast plan` says what its round comes after.
    std::vector<events::Action> in_flight;
    size_t pending = 0;
};
using DecisionPtr = std::shared_ptr<const Decision>;

}  // namespace ballast::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ballast::actors::BatchPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ballast::actors::MutableBatchPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<const std::string>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ballast::actors::EventPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ballast::actors::BrokerRecord)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ballast::actors::BrokerUpdate)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ballast::actors::PartitionUpdate)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ballast::actors::PartitionBatch)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ballast::actors::ExecutorViewPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ballast::actors::PlanInputPtr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ballast::actors::DecisionPtr)
