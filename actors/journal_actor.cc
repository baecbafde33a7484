#include "actors/journal_actor.h"

#include <caf/all.hpp>

namespace ballast::actors {

namespace {

/// Appends every pending input batch as one WriteBatch and routes it.
void flush(caf::stateful_actor<JournalActorState>* self) {
    auto& st = self->state;
    st.flush_scheduled = false;
    if (st.pending.empty()) return;
    auto batch = std::make_shared<EventBatch>();
    if (st.pending.size() == 1) {
        batch = std::move(st.pending.front());
    } else {
        size_t total = 0;
        for (const auto& b : st.pending) total += b->size();
        batch->reserve(total);
        for (auto& b : st.pending) {
            for (auto& e : *b) batch->push_back(std::move(e));
        }
    }
    st.pending.clear();
    if (st.journal) {
        events::Result<uint64_t> last = st.journal->append(*batch);
        if (!last) {
            st.on_fatal(last.error());
            self->quit(caf::exit_reason::user_shutdown);
            return;
        }
    }
    self->send(st.router, route_atom::value, BatchPtr(std::move(batch)));
}

}  // namespace

caf::behavior journal_actor(caf::stateful_actor<JournalActorState>* self, store::Journal* journal,
                            caf::actor router, std::function<void(const events::Error&)> on_fatal) {
    self->state.journal = journal;
    self->state.router = std::move(router);
    self->state.on_fatal = std::move(on_fatal);
    return {
        [=](control_atom, const caf::actor& router) { self->state.router = router; },
        // Inputs from outside. The flush message goes to the back of the
        // mailbox, so every batch already queued joins this commit.
        [=](feed_atom, const MutableBatchPtr& batch) {
            self->state.pending.push_back(batch);
            if (!self->state.flush_scheduled) {
                self->state.flush_scheduled = true;
                self->send(self, flush_atom::value);
            }
        },
        [=](flush_atom) { flush(self); },
        // Events the engine made: written after the inputs already queued,
        // not routed. Replies with the last seq (0 in replay: nothing written).
        [=](record_atom, const MutableBatchPtr& batch) -> caf::result<uint64_t> {
            flush(self);
            if (!self->state.journal) return uint64_t{0};
            events::Result<uint64_t> last = self->state.journal->append(*batch);
            if (!last) {
                self->state.on_fatal(last.error());
                self->quit(caf::exit_reason::user_shutdown);
                return caf::make_error(caf::sec::runtime_error, last.error().to_string());
            }
            return *last;
        },
        [=](snapshot_atom, uint64_t seq, int64_t now_ms, int64_t retention_ms,
            const std::shared_ptr<const std::string>& bytes) -> caf::result<bool> {
            if (!self->state.journal) return true;
            store::Journal& journal = *self->state.journal;
            events::Status status = journal.write_snapshot(
                seq, {reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size()});
            if (status) {
                // Retention rides on snapshots: only they make old events unneeded.
                events::Result<store::RetentionReport> retained =
                    journal.apply_retention(now_ms, retention_ms);
                if (!retained) status = retained.status();
            }
            if (!status) {
                self->state.on_fatal(status.error());
                self->quit(caf::exit_reason::user_shutdown);
                return caf::make_error(caf::sec::runtime_error, status.error().to_string());
            }
            return true;
        },
        // Already-journaled events (recovery and replay): straight to the router.
        [=](route_atom, const BatchPtr& batch) {
            flush(self);
            self->send(self->state.router, route_atom::value, batch);
        },
        // "Is everything so far applied?": commit what is pending, then ask
        // the router, which answers once it has applied it.
        [=](idle_atom) {
            flush(self);
            return self->delegate(self->state.router, idle_atom::value);
        },
    };
}

}  // namespace ballast::actors
