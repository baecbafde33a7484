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

#include <functional>
#include <memory>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>
#include <caf/response_promise.hpp>

#include "actors/engine_snapshot.h"
#include "actors/messages.h"
#include "store/journal.h"

namespace ballast::actors {

/// Threads of their own for background work (the snapshot writer here, the
/// scheduler in the engine), and their priority (thread_priority.h).
struct HelperThreads {
    bool own_threads = true;
    store::BackgroundPriority background_priority = store::BackgroundPriority::normal;
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
};

caf::behavior journal_actor(caf::stateful_actor<JournalActorState>* self, store::Journal* journal,
                            caf::actor router, std::function<void(const events::Error&)> on_fatal,
                            std::function<void(const store::RetentionReport&)> on_retention,
                            HelperThreads helpers, InFlight* in_flight);

}  // namespace ballast::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ballast::store::RetentionPolicy)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ballast::store::RetentionReport)
