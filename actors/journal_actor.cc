#include "actors/journal_actor.h"

#include <caf/all.hpp>

#include <spdlog/spdlog.h>

#include "actors/thread_priority.h"
#include "actors/supervision.h"

namespace ballast::actors {

namespace {

/// The most events one group commit gathers from several inputs (one larger
/// input is appended whole). Behind a burst, a commit of everything queued
/// would hold the stream until all of it is written (20,000-76,000 events,
/// 40-140 ms, in a storm at 1M partitions); in parts, the router routes one
/// while the next is written.
constexpr size_t group_commit_events_max = 4096;
/// With a replica each group commit is also a Kafka transaction, ~15 a
/// second back to back on three brokers (the coordinator finishes one
/// before it takes the next): 4,096 events a commit would cap a leader at
/// ~60,000 events/s, so a leader's commits take up to 65,536.
constexpr size_t replicated_group_commit_events_max = 65'536;

/// Appends to the journal, published to the replica first if there is one.
events::Result<uint64_t> append(JournalActorState& st, EventBatch& batch) {
    if (!st.replication.replica) return st.journal->append(batch);
    JournalReplica* replica = st.replication.replica;
    return st.journal->append(batch, [replica](const std::vector<store::ShippedRun>& runs) {
        return replica->publish(runs);
    });
}

/// Appends pending input batches as one WriteBatch and routes them: all of
/// them, or the first that hold `group_commit_events_max` events, the rest
/// at the next flush (at the back of the mailbox, as new inputs are).
/// false once the journal failed (the actor is quitting).
bool flush(caf::stateful_actor<JournalActorState>* self) {
    auto& st = self->state;
    st.flush_scheduled = false;
    if (st.pending.empty()) return true;
    size_t take = 0;
    size_t total = 0;
    const size_t events_max = st.replication.replica ? replicated_group_commit_events_max : group_commit_events_max;
    while (take < st.pending.size() && (take == 0 || total < events_max)) {
        total += st.pending[take]->size();
        take++;
    }
    auto batch = std::make_shared<EventBatch>();
    if (take == 1) {
        batch = std::move(st.pending.front());
    } else {
        batch->reserve(total);
        for (size_t i = 0; i < take; i++) {
            for (auto& e : *st.pending[i]) batch->push_back(std::move(e));
        }
    }
    st.pending.erase(st.pending.begin(), st.pending.begin() + static_cast<std::ptrdiff_t>(take));
    if (!st.pending.empty()) {
        st.flush_scheduled = true;
        self->send(self, flush_atom::value);
    }
    if (st.journal) {
        events::Result<uint64_t> last = append(st, *batch);
        if (!last) {
            st.on_fatal(last.error());
            self->quit(caf::exit_reason::user_shutdown);
            return false;
        }
    }
    st.in_flight->inputs_unjournaled.fetch_sub(static_cast<int64_t>(batch->size()), std::memory_order_relaxed);
    self->send(st.router, route_atom::value, BatchPtr(std::move(batch)));
    return true;
}

/// Encodes and writes one snapshot at a time, beside the appends (see the
/// header). Store::Journal allows one snapshot write beside its appender.
caf::behavior snapshot_writer(caf::event_based_actor* self, store::Journal* journal,
                             BackgroundPriority background_priority, JournalReplica* replica) {
    // Detached (its own thread): encoding and writing 160 MB at 1M
    // partitions takes a core for most of a second; in a storm the stream
    // goes first. Not detached, the thread is everyone's: left alone.
    if (self->getf(caf::abstract_actor::is_detached_flag)) {
        lower_this_thread_priority("snapshot writer", background_priority);
    }
    return {
        // The snapshot, then retention (see the header): replies with what
        // retention deleted.
        [=](snapshot_atom, const SnapshotPtr& snapshot, int64_t now_ms,
            const store::RetentionPolicy& retention) -> caf::result<store::RetentionReport> {
            // Encoded and written piece by piece: ~1 MiB in memory at a time,
            // not the whole state (~160 MB at 1M partitions) two or three times.
            events::Result<std::unique_ptr<store::SnapshotWriter>> writer = journal->begin_snapshot(snapshot->seq);
            events::Status status = writer ? events::Status() : events::Status(writer.error());
            if (status) {
                status = encode_snapshot(*snapshot, [&](std::string_view piece) {
                    return (*writer)->append({reinterpret_cast<const uint8_t*>(piece.data()), piece.size()});
                });
            }
            if (status) status = (*writer)->finish();
            if (!status) return caf::make_error(caf::sec::runtime_error, status.error().to_string());
            if (replica) {
                // For instances that join later. Not fatal: the leader's
                // journal is whole without it, and a fenced leader finds out
                // at its next append.
                events::Result<store::Snapshot> written = journal->read_snapshot(snapshot->seq);
                events::Status published = written ? replica->publish_snapshot(
                                                         snapshot->seq, {reinterpret_cast<const uint8_t*>(written->bytes.data()),
                                                                         written->bytes.size()})
                                                   : events::Status(written.error());
                if (!published) {
                    spdlog::warn("snapshot at seq {} not published to the journal's replica: {}", snapshot->seq,
                                 published.error().to_string());
                }
            }
            // Retention rides on snapshots: only they make old events unneeded.
            events::Result<store::RetentionReport> retained = journal->apply_retention(now_ms, retention);
            if (!retained) return caf::make_error(caf::sec::runtime_error, retained.error().to_string());
            return *retained;
        },
    };
}

/// Every pending input, appended and routed: before anything that must come
/// after all of them (an engine-made event, a replayed batch, idle).
void flush_all(caf::stateful_actor<JournalActorState>* self) {
    while (!self->state.pending.empty() && flush(self)) {
    }
}

void fail(caf::stateful_actor<JournalActorState>* self, const events::Error& error) {
    self->state.on_fatal(error);
    self->quit(caf::exit_reason::user_shutdown);
}

}  // namespace

caf::behavior journal_actor(caf::stateful_actor<JournalActorState>* self, store::Journal* journal,
                            caf::actor router, std::function<void(const events::Error&)> on_fatal,
                            std::function<void(const store::RetentionReport&)> on_retention,
                            HelperThreads helpers, InFlight* in_flight, Replication replication) {
    end_with_exception_text(self);
    self->state.in_flight = in_flight;
    self->state.journal = journal;
    self->state.helpers = helpers;
    self->state.router = std::move(router);
    self->state.on_fatal = std::move(on_fatal);
    self->state.on_retention = std::move(on_retention);
    self->state.replication = std::move(replication);
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
        [=](flush_atom) { (void)flush(self); },
        // Events the engine made: written after the inputs already queued,
        // not routed. Replies with the last seq (0 in replay: nothing written).
        [=](record_atom, const MutableBatchPtr& batch) -> caf::result<uint64_t> {
            flush_all(self);
            // A standby: the leader's copy of this event comes in its runs.
            if (!self->state.journal || self->state.replication.follow) return uint64_t{0};
            events::Result<uint64_t> last = append(self->state, *batch);
            if (!last) {
                self->state.on_fatal(last.error());
                self->quit(caf::exit_reason::user_shutdown);
                return caf::make_error(caf::sec::runtime_error, last.error().to_string());
            }
            return *last;
        },
        // A snapshot: written by the helper, then retention, by the helper
        // too. Replies once both are done (the router waits for it before
        // the next one).
        [=](snapshot_atom, const SnapshotPtr& snapshot, int64_t now_ms,
            const store::RetentionPolicy& retention) -> caf::result<bool> {
            auto& st = self->state;
            if (!st.journal) return true;
            if (!st.snapshot_writer) {
                const BackgroundPriority priority = st.helpers.background_priority;
                JournalReplica* replica = st.replication.replica;
                st.snapshot_writer =
                    st.helpers.own_threads
                        ? self->spawn<caf::detached + caf::linked>(snapshot_writer, st.journal, priority, replica)
                        : self->spawn<caf::linked>(snapshot_writer, st.journal, priority, replica);
            }
            caf::response_promise done = self->make_response_promise();
            st.in_flight->snapshot_open.store(1, std::memory_order_relaxed);
            self->request(st.snapshot_writer, caf::infinite, snapshot_atom::value, snapshot, now_ms, retention)
                .then(
                    [=](const store::RetentionReport& retained) mutable {
                        self->state.in_flight->snapshot_open.store(0, std::memory_order_relaxed);
                        if (retained.cut_by != store::RetentionBound::none && self->state.on_retention) {
                            self->state.on_retention(retained);
                        }
                        done.deliver(true);
                    },
                    [=](caf::error& error) mutable {
                        fail(self, events::make_error(events::ErrorCode::io_error,
                                                      "snapshot at seq " + std::to_string(snapshot->seq) + ": " +
                                                          self->system().render(error)));
                        done.deliver(error);
                    });
            return done;
        },
        // A standby: the leader's runs, checked and appended as they are,
        // then routed like recovery's tail (the router skips the leader's
        // own events; this engine makes them again).
        [=](follow_atom, const std::shared_ptr<const std::vector<store::ShippedRun>>& runs) {
            auto& st = self->state;
            flush_all(self);
            uint64_t counted = 0;
            for (const store::ShippedRun& run : *runs) {
                if (auto bounds = store::shipped_run_bounds(run)) counted += bounds->second - bounds->first + 1;
            }
            events::Result<std::vector<events::Event>> appended = st.journal->append_shipped(*runs);
            if (!appended) {
                fail(self, appended.error());
                return;
            }
            if (st.replication.events_fed) st.replication.events_fed->fetch_sub(counted - appended->size());
            if (st.replication.on_followed) {
                for (const events::Event& e : *appended) {
                    if (events::is_decision(e.source)) st.replication.on_followed(e);
                }
            }
            if (appended->empty()) return;
            self->send(st.router, route_atom::value,
                       BatchPtr(std::make_shared<const EventBatch>(std::move(*appended))));
        },
        // Already-journaled events (recovery and replay): straight to the router.
        [=](route_atom, const BatchPtr& batch) {
            flush_all(self);
            self->send(self->state.router, route_atom::value, batch);
        },
        // "Is everything so far applied?": commit what is pending, then ask
        // the router, which answers once it has applied it.
        [=](idle_atom) {
            flush_all(self);
            return self->delegate(self->state.router, idle_atom::value);
        },
    };
}

}  // namespace ballast::actors
