#pragma once

/// The journal actor: the only writer of the journal. Input batches are
/// appended with the next sequence numbers and then handed to the router;
/// batches that arrive while one is being written wait in the mailbox and go
/// out together in the next WriteBatch (group commit). Events the engine
/// makes itself (decisions, execution records) and snapshots are written on
/// request and not routed: the actor that made them has already applied them.
///
/// A snapshot is encoded and written by a helper on a thread of its own
/// (`snapshot_writer`, linked to the journal actor), so appends go on while
/// it is written: at 1M partitions it is ~160 MB and takes ~1 s, which would
/// hold the whole stream if the journal actor wrote it. (An engine whose actors
/// run on the caller's thread has no other thread: the helper is an actor
/// like the rest, and the step that takes a snapshot waits for it.)
/// Retention, which may delete old events, runs on the helper too, once the
/// write is done: it waits for a compaction that gives the space back
/// (store/journal_retention.cc), hundreds of milliseconds that the appends
/// must not wait for. The journal actor hands its report to `on_retention`.
///
/// With a replica (a leader in high availability), an append is published
/// and committed to the replica before it is written here and routed, and
/// an engine-made event (a decision, an intent) before the actor that made
/// it hears it is journaled: an admin call is never made for an intent the
/// replica does not hold. The publication is a blocking call (a Kafka
/// transaction's commit), so the engine gives this actor a thread of its own.
/// A standby's journal actor appends the leader's runs (`follow_atom`) and
/// answers the engine's own events without writing them: the leader's copy
/// of each is in the runs.

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>
#include <caf/response_promise.hpp>

#include "actors/engine_snapshot.h"
#include "actors/ha_ports.h"
#include "actors/messages.h"
#include "store/journal.h"

namespace ballast::actors {

/// Threads of their own for background work (the snapshot writer here, the
/// scheduler in the engine), and their priority (thread_priority.h).
struct HelperThreads {
    bool own_threads = true;
    store::BackgroundPriority background_priority = store::BackgroundPriority::normal;
};

/// High availability (ha_ports.h): a leader publishes every append to its
/// replica first; a standby appends what the leader shipped and writes
/// nothing of its own.
struct Replication {
    JournalReplica* replica = nullptr;  // the leader's; null: none
    bool follow = false;                // a standby
    std::function<void(const events::Event&)> on_followed;  // a standby: the leader's own events
    /// The engine's count of events fed and not yet routed (its backlog):
    /// a standby's runs are counted whole when followed, and what the journal
    /// already held is taken off here, since it is not routed.
    std::atomic<uint64_t>* events_fed = nullptr;
};

struct JournalActorState {
    static inline const char* name = "journal";
    store::Journal* journal = nullptr;   // owned by the engine; null in replay (nothing is written)
    caf::actor router;
    std::vector<MutableBatchPtr> pending;  // inputs waiting for the next group commit
    bool flush_scheduled = false;
    /// Called with a fatal error (the journal refused a write): the engine
    /// stops, since nothing may act on an event that is not durable.
    std::function<void(const events::Error&)> on_fatal;
    /// Called with what each retention deleted (not when it deleted nothing).
    std::function<void(const store::RetentionReport&)> on_retention;
    caf::actor snapshot_writer;  // spawned at first use
    HelperThreads helpers;       // the snapshot writer's thread
    InFlight* in_flight = nullptr;  // the engine's
    Replication replication;
};

caf::behavior journal_actor(caf::stateful_actor<JournalActorState>* self, store::Journal* journal,
                            caf::actor router, std::function<void(const events::Error&)> on_fatal,
                            std::function<void(const store::RetentionReport&)> on_retention,
                            HelperThreads helpers, InFlight* in_flight, Replication replication = {});

}  // namespace ballast::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ballast::store::RetentionPolicy)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ballast::store::RetentionReport)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<const std::vector<ballast::store::ShippedRun>>)
