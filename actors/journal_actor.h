#pragma once

/// The journal actor: the only writer of the journal. Input batches are
/// appended with the next sequence numbers and then handed to the router;
/// batches that arrive while one is being written wait in the mailbox and go
/// out together in the next WriteBatch (group commit). Events the engine
/// makes itself (decisions, execution records) and snapshots are written on
/// request and not routed: the actor that made them has already applied them.

#include <functional>
#include <memory>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>
#include <caf/response_promise.hpp>

#include "actors/messages.h"
#include "store/journal.h"

namespace ballast::actors {

struct JournalActorState {
    static inline const char* name = "journal";
    store::Journal* journal = nullptr;   // owned by the engine; null in replay (nothing is written)
    caf::actor router;
    std::vector<MutableBatchPtr> pending;  // inputs waiting for the next group commit
    bool flush_scheduled = false;
    /// Called with a fatal error (the journal refused a write): the engine
    /// stops, since nothing may act on an event that is not durable.
    std::function<void(const events::Error&)> on_fatal;
};

caf::behavior journal_actor(caf::stateful_actor<JournalActorState>* self, store::Journal* journal,
                            caf::actor router, std::function<void(const events::Error&)> on_fatal);

}  // namespace ballast::actors
