#include "actors/router_actor.h"

#include <algorithm>

#include <caf/all.hpp>

#include "actors/broker_actor.h"
#include "actors/engine_status.h"
#include "actors/journal_actor.h"
#include "actors/partition_shard.h"
#include "actors/router_routing.h"
#include "actors/supervision.h"

namespace ballast::actors {

namespace {

using routing::RouterSelf;
using routing::ensure_topic;
using routing::flush_report;
using routing::partition_key;
using routing::round_due_at;
using routing::route;
using routing::send_partition_batches;

constexpr uint64_t throttle_check_every = 256;

enum class BarrierKind { round, dry_run, snapshot };
void start_barrier(RouterSelf* self, BarrierKind kind);
void process(RouterSelf* self);
void deliver_idle(RouterSelf* self);
void apply_decision(RouterSelf* self);

/// Every answer is in and every partition message of the barrier's epoch
/// is applied: plan (or snapshot), and let everything through again once
/// the decision (or the capture) is back.
void finish_barrier(RouterSelf* self) {
    RouterState& st = self->state;
    RouterState::Barrier& b = st.barrier;
    std::sort(b.brokers.begin(), b.brokers.end(),
              [](const BrokerRecord& x, const BrokerRecord& y) { return x.id < y.id; });
    // Forget slots of actions the executor no longer tracks (timed out,
    // cancelled, failed for good).
    for (auto it = st.action_slots.begin(); it != st.action_slots.end();) {
        const bool tracked = std::any_of(
            b.executor->inflight.begin(), b.executor->inflight.end(),
            [&](const TrackedAction& t) { return t.action.action_id == it->first; });
        it = tracked ? std::next(it) : st.action_slots.erase(it);
    }

    if (b.snapshot) {
        // The scheduler adds the partition records as of the barrier (it
        // reads the table beside the stream, as for a round) and its memory.
        b.snapshot_draft->brokers = std::move(b.brokers);
        b.snapshot_draft->executor = *b.executor;
        self->request(st.scheduler, caf::infinite, snapshot_atom::value, std::move(b.snapshot_draft),
                      b.epoch, b.slot_count)
            .then([=](const SnapshotPtr& snapshot) {
                RouterState& st = self->state;
                // The capture is all the stream waits for: the journal writes
                // it beside the appends, and the next one waits for this one.
                st.snapshot_writing = true;
                // Retention by the clock of the snapshot's event, not of
                // the Ticks that passed while it was copied.
                const store::RetentionPolicy retention{.retention_ms = st.settings.retention_ms,
                                                       .retention_bytes = st.settings.retention_bytes,
                                                       .snapshot_spacing_ms = st.settings.snapshot_spacing_ms};
                self->request(st.journal, caf::infinite, snapshot_atom::value, snapshot, st.barrier.now_ms,
                              retention)
                    .then([=](bool) {
                        self->state.snapshot_writing = false;
                        if (!self->state.barrier.active) process(self);
                    });
                st.memory.last_snapshot_seq = st.barrier.seq;
                st.barrier.active = false;
                process(self);
            });
        return;
    }

    auto input = std::make_shared<PlanInput>();
    input->seq = b.seq;
    input->now_ms = b.now_ms;
    input->brokers = std::move(b.brokers);
    input->epoch = b.epoch;
    input->slot_count = b.slot_count;
    input->dirty_slots = std::move(b.dirty);
    input->topics = std::move(b.topics);
    input->executor = b.executor;
    if (b.dry_run && st.round.active && !st.round.decision->accepted.empty()) {
        // A decision waiting for its Tick is as good as handed over: the dry
        // run plans with its actions in flight, as the next round will.
        auto view = std::make_shared<ExecutorView>(*b.executor);
        for (const TrackedAction& t : st.round.decision->accepted) view->inflight.push_back(t);
        input->pending = st.round.decision->accepted.size();
        input->executor = std::move(view);
    }
    input->quiet = b.seq <= st.quiet_until_seq;
    input->dry_run = b.dry_run;
    self->request(st.scheduler, caf::infinite, plan_atom::value, PlanInputPtr(input))
        .then([=](const DecisionPtr& decision) {
            RouterState& st = self->state;
            if (st.barrier.dry_run) {
                // A dry run changes nothing: no clock of its own, no executor.
                st.barrier.dry_run_promise.deliver(decision);
                st.barrier.active = false;
                process(self);
                return;
            }
            // The gathering is over; the decision waits for its place in
            // the stream (RouterState::Round), which may already be here.
            st.round.decision = decision;
            st.barrier.active = false;
            // Without a delay its place is right after the barrier's event,
            // and everything since has waited for it.
            if (st.round.at_once) apply_decision(self);
            process(self);
        });
}

/// The open round's decision takes effect: at the first Tick at or past
/// its `apply_at_ms`, or before an event for the scheduler.
void apply_decision(RouterSelf* self) {
    RouterState& st = self->state;
    RouterState::Round& r = st.round;
    assert(r.active && r.decision);
    const Decision& decision = *r.decision;
    RouterMemory& m = st.memory;
    m.last_plan_ms = r.now_ms;
    // Progress made and more held back: go on at the execution interval.
    // Everything held (caps full): wait for an action to finish, unless one
    // finished while the round planned (its outcome could not see this).
    m.held_last_round = decision.held_any;
    // A flapping broker's raised grace runs out, or an unstable one becomes
    // stable: plan then, not a detect interval later.
    m.replan_at_ms = std::min(m.replan_at_ms, decision.replan_at_ms);
    m.more_to_do = decision.held_any && (!decision.accepted.empty() || r.outcomes_passed);
    if (decision.planned) {
        for (const TrackedAction& t : decision.accepted) {
            st.action_slots[t.action.action_id] = t.partition_slots;
        }
        self->send(st.executor, execute_atom::value, r.decision);
    }
    st.progress->barriers.fetch_add(1, std::memory_order_relaxed);
    st.in_flight->round_open.store(0, std::memory_order_relaxed);
    r = RouterState::Round{};
}

void answered(RouterSelf* self) {
    RouterState::Barrier& b = self->state.barrier;
    assert(b.waiting > 0);
    if (--b.waiting == 0) finish_barrier(self);
}

/// Gathers the state as of the last routed event. Closes the table's epoch
/// (later partition messages belong to the next one) and takes the router's
/// own part now, so that routing may go on at once with the events
/// `gate` lets through.
void start_barrier(RouterSelf* self, BarrierKind kind) {
    RouterState& st = self->state;
    RouterState::Barrier& b = st.barrier;
    assert(!b.active);
    b = RouterState::Barrier{};
    b.active = true;
    const bool snapshot = kind == BarrierKind::snapshot;
    b.snapshot = snapshot;
    b.dry_run = kind == BarrierKind::dry_run;
    if (kind == BarrierKind::round) {
        // This round sees every broker change up to here; one routed while
        // it plans (they pass, see gate) is for the next.
        RouterMemory& m = st.memory;
        m.brokers_changed = false;
        if (m.replan_at_ms <= m.now_ms) m.replan_at_ms = INT64_MAX;
        assert(!st.round.active);
        st.round = RouterState::Round{};
        st.round.active = true;
        st.in_flight->round_open.store(1, std::memory_order_relaxed);
        st.round.now_ms = m.now_ms;
        st.round.apply_at_ms = m.now_ms + st.settings.decision_delay_ms;
        st.round.at_once = st.settings.decision_delay_ms == 0;
    }
    b.seq = st.memory.last_seq;
    b.now_ms = st.memory.now_ms;
    send_partition_batches(self);  // one epoch per batch
    b.epoch = st.table->close_epoch(st.epoch_messages_sent);
    st.epoch_messages_sent = 0;
    b.slot_count = st.table->size();
    b.topics = st.topics;
    if (!snapshot) {
        // What changed since the last round, in this epoch or the ones of
        // snapshots since (read as of this one, they are up to date).
        b.dirty = std::move(st.dirty);
        st.dirty.clear();
        for (const uint32_t slot : b.dirty) st.dirty_flag[slot] = 0;
    } else {
        b.snapshot_draft = std::make_shared<EngineSnapshot>();
        EngineSnapshot& draft = *b.snapshot_draft;
        draft.seq = b.seq;
        draft.router = st.memory;
        draft.router.last_snapshot_seq = b.seq;
        st.samples_since_snapshot = 0;
        draft.config_properties = st.config.to_properties_text();
        draft.topics = st.topics;
    }
    // Brokers and executor answer in mailbox order: as of this event,
    // whatever is routed after the request.
    while (!st.pending_reports.empty()) flush_report(self, st.pending_reports.begin()->first);
    b.waiting = static_cast<uint32_t>(st.brokers.size()) + 2;  // + executor + partition shards
    for (auto& [id, actor] : st.brokers) {
        self->request(actor, caf::infinite, barrier_atom::value).then([=](const BrokerRecord& record) {
            self->state.barrier.brokers.push_back(record);
            answered(self);
        });
    }
    self->request(st.executor, caf::infinite, barrier_atom::value)
        .then([=](const ExecutorViewPtr& view) {
            self->state.barrier.executor = view;
            answered(self);
        });
    if (st.table->epoch_drained(b.epoch)) {
        b.partitions_drained = true;
        answered(self);
    }
}

/// Answers every idle request once nothing is left to do.
void deliver_idle(RouterSelf* self) {
    RouterState& st = self->state;
    // A decided round waiting for its Tick is idle: nothing is left to do
    // until more events come.
    if (st.idle_waiters.empty() || st.barrier.active || st.snapshot_writing || !st.queue.empty() ||
        (st.round.active && !st.round.decision)) {
        return;
    }
    if (st.table->applied() < st.partition_messages_sent) {
        st.table->set_drain_target(st.partition_messages_sent);
        if (st.table->applied() < st.partition_messages_sent) return;  // a drained message follows
    }
    // The executor and scheduler have all they were sent once they answer.
    auto waiters = std::make_shared<std::vector<caf::response_promise>>(std::move(st.idle_waiters));
    st.idle_waiters.clear();
    self->request(st.executor, caf::infinite, idle_atom::value).then([=](bool) {
        for (caf::response_promise& waiter : *waiters) waiter.deliver(true);
    });
}

/// Over the backlog cap: pause until the partition shards have applied all
/// but half of it (the total counter's target, which idle uses too: idle
/// waits only when nothing is queued, so never while throttled). Returns
/// whether routing must pause.
bool throttle(RouterSelf* self) {
    RouterState& st = self->state;
    // Looked at every `throttle_check_every` messages (a quarter of a small
    // cap), not every event: the applied counter's cache line is the one
    // every partition shard writes.
    if (st.partition_messages_sent < st.next_throttle_check) return false;
    st.next_throttle_check =
        st.partition_messages_sent +
        std::min<uint64_t>(throttle_check_every, std::max<uint64_t>(1, st.partition_backlog_max / 4));
    if (st.partition_messages_sent - st.table->applied() <= st.partition_backlog_max) return false;
    st.throttle_target = st.partition_messages_sent - st.partition_backlog_max / 2;
    st.table->set_drain_target(st.throttle_target);
    // Set, then check: an actor that levelled the count before the target
    // was set sent nothing.
    if (st.table->applied() >= st.throttle_target) return false;
    st.throttled = true;
    st.progress->throttled.fetch_add(1, std::memory_order_relaxed);
    return true;
}

/// What an event may do while a barrier gathers or a round's decision waits
/// for its place in the stream: pass, wait, or let the decision take effect
/// first. What passes cannot change what the barrier gathers or what the
/// decision updates; what waits, waits so that everyone sees it in stream
/// order, as if the barrier had stopped the stream.
enum class Gate { pass, hold, decision_first };

/// Every barrier lets partition and broker state through: it reads those as
/// of its event (partition slots by epoch, brokers in mailbox order). Broker
/// liveness marks the next round due (`brokers_changed`, `replan_at_ms`),
/// which a round resets when it starts, not when its decision comes.
///
/// A round without a delay holds everything else until its decision (which
/// then takes effect right after the barrier's event). A round with a delay
/// lets Ticks before its `apply_at_ms` and action outcomes through too: the
/// executor and the router's clock see them before the decision, at the
/// same place in every run. Events for the scheduler (config changes,
/// operator commands) and the first Tick at or past `apply_at_ms` take the
/// decision first, and wait for it if the scheduler is still planning. At
/// 1M partitions a round plans for ~150 ms on a quiet machine and over a
/// second on a loaded one, and without a delay the next Tick stops the
/// stream for whatever is left of that.
///
/// A snapshot decides nothing: the executor answered as of its event
/// (mailbox order) and the router's part was taken at its start, so Ticks,
/// action outcomes and leadership pass. Two kinds wait: events for the
/// scheduler, whose memory the snapshot takes only once it has copied the
/// partition records, and a Tick that makes a round due (one barrier at a
/// time). Were Ticks held too, every snapshot at 1M partitions would stop
/// the stream at the next Tick until the copy is done (over a second on a
/// loaded machine).
/// A dry run (`ballast plan`, on an idle engine) lets only state pass.
/// A ConfigChanged that leaves the configuration as it is.
bool changes_nothing(const RouterState& st, const events::ConfigChanged& change) {
    events::Config after = st.config;
    (void)apply_config_change(after, change, st.overrides);
    return after.to_properties_text() == st.config.to_properties_text();
}

Gate gate(const RouterState& st, const events::Event& e) {
    const RouterState::Barrier& b = st.barrier;
    if (!b.active && !st.round.active) return Gate::pass;
    switch (e.type()) {
        case events::EventType::partition_metrics:
        case events::EventType::broker_metrics:
        case events::EventType::partition_changed:
        case events::EventType::topic_created:
        case events::EventType::topic_deleted:
        case events::EventType::broker_registered:
        case events::EventType::broker_fenced:
        case events::EventType::broker_unfenced:
        case events::EventType::broker_unregistered: return Gate::pass;
        default: break;
    }
    if (events::is_decision(e.source)) return Gate::pass;  // skipped by route()
    if (e.type() == events::EventType::config_changed && changes_nothing(st, std::get<events::ConfigChanged>(e.body))) {
        // Every start journals its whole configuration, most often the one
        // in force: were that to take an open round's decision first, a
        // recovered engine would apply it before its Tick, where the
        // uninterrupted run did not.
        return Gate::pass;
    }
    const bool outcome = e.type() == events::EventType::action_completed ||
                         e.type() == events::EventType::action_failed ||
                         e.type() == events::EventType::leadership_acquired;
    const int64_t tick_ms = e.type() == events::EventType::tick ? std::get<events::Tick>(e.body).now_ms : 0;
    if (b.active && b.dry_run) return Gate::hold;
    if (b.active && b.snapshot) {
        if (e.type() == events::EventType::tick) return round_due_at(st, tick_ms) ? Gate::hold : Gate::pass;
        return outcome ? Gate::pass : Gate::hold;
    }
    // A round, planning or decided.
    assert(st.round.active);
    if (st.round.at_once) return Gate::decision_first;
    if (e.type() == events::EventType::tick) {
        return tick_ms >= st.round.apply_at_ms ? Gate::decision_first : Gate::pass;
    }
    return outcome ? Gate::pass : Gate::decision_first;
}

/// Another `snapshot_interval_events` (or `snapshot_interval_samples`)
/// routed since the last snapshot, and none being written. (Which seqs get snapshots depends on how fast they
/// are written; decisions do not: a snapshot barrier plans nothing.)
bool snapshot_due(const RouterState& st) {
    const RouterMemory& m = st.memory;
    // Not while a round's decision waits for its place: the snapshot would
    // hold the scheduler's memory of it but not its effects.
    return st.snapshots && !st.barrier.active && !st.round.active && !st.snapshot_writing &&
           m.last_seq > st.quiet_until_seq &&
           (m.last_seq - m.last_snapshot_seq >= st.settings.snapshot_interval_events ||
            st.samples_since_snapshot >= st.settings.snapshot_interval_samples);
}

/// Tells observers outside the actor system how far routing got, once per
/// batch rather than per event (three stores to lines other threads read).
/// Messages first: whoever sees an event counted as routed sees the
/// partition messages it caused counted as sent.
void publish_progress(RouterSelf* self) {
    RouterState& st = self->state;
    // Every exit from routing comes here: whatever the router waits for
    // next (a drain, an epoch, idle) counts updates that have been sent.
    send_partition_batches(self);
    st.progress->partition_messages_sent.store(st.partition_messages_sent, std::memory_order_release);
    st.progress->last_seq.store(st.memory.last_seq, std::memory_order_release);
    st.progress->events_routed.store(st.events_routed, std::memory_order_release);
}

/// Routes queued events until the queue is empty, an event must wait for
/// the active barrier's decision, or the partition backlog is full.
void process(RouterSelf* self) {
    RouterState& st = self->state;
    while (!st.throttled && !st.queue.empty()) {
        const EventBatch& batch = *st.queue.front();
        while (st.cursor < batch.size()) {
            if (throttle(self)) {
                publish_progress(self);
                return;
            }
            const Gate g = gate(st, batch[st.cursor]);
            if (g == Gate::hold || (g == Gate::decision_first && !st.round.decision)) {
                publish_progress(self);
                return;  // the barrier's end or the decision calls process() again
            }
            if (g == Gate::decision_first) {
                apply_decision(self);
                // Rounds back to back (a decision delay, more to do): the
                // event that applies a decision is most often the Tick that
                // opens the next round, and no snapshot is due while one is
                // open. Between the two is the only place one can be taken;
                // the Tick waits for it if it makes a round due.
                if (snapshot_due(st)) {
                    start_barrier(self, BarrierKind::snapshot);
                    continue;
                }
            }
            const events::Event& e = batch[st.cursor++];
            const bool plan_due = route(self, e);
            st.events_routed++;
            // Only a Tick makes a round due, never while a round is open,
            // and such a Tick waits for any other barrier: barriers never
            // overlap.
            assert(!(plan_due && (st.barrier.active || st.round.active)));
            if (plan_due) {
                start_barrier(self, BarrierKind::round);
            } else if (snapshot_due(st)) {
                start_barrier(self, BarrierKind::snapshot);
            }
        }
        st.queue.pop_front();
        st.cursor = 0;
        publish_progress(self);
    }
    // A snapshot that fell due while the last one was written is taken now.
    if (st.queue.empty() && snapshot_due(st)) {
        start_barrier(self, BarrierKind::snapshot);
        return;
    }
    deliver_idle(self);
}

}  // namespace

caf::behavior router_actor(caf::stateful_actor<RouterState>* self, RouterSetup setup) {
    end_with_exception_text(self);
    RouterState& st = self->state;
    st.table = setup.table;
    st.scheduler = std::move(setup.scheduler);
    st.executor = std::move(setup.executor);
    st.progress = setup.progress;
    st.in_flight = setup.in_flight;
    st.config = std::move(setup.config);
    st.overrides = std::move(setup.overrides);
    st.settings = settings_from(st.config);
    st.quiet_until_seq = setup.quiet_until_seq;
    st.snapshots = setup.snapshots;
    assert(setup.partition_backlog_max >= 1);
    st.partition_backlog_max = setup.partition_backlog_max;
    for (uint32_t shard = 0; shard < partition_shard_count; shard++) {
        st.shards.push_back(self->spawn<caf::linked>(partition_shard_actor, st.table, caf::actor_cast<caf::actor>(self)));
    }
    st.shard_batches.resize(partition_shard_count);
    if (const EngineSnapshot* s = setup.restore.get()) {
        // The table already holds the snapshot's records; bring back the
        // maps and one actor per slot and per broker.
        st.memory = s->router;
        for (const std::string& topic : s->topics) ensure_topic(st, topic);
        for (uint32_t slot = 0; slot < st.table->size(); slot++) {
            const PartitionRecord& record = st.table->at(slot);
            st.dirty_flag.push_back(0);
            if (record.exists) {
                st.slot_of.emplace(partition_key(record.topic, record.partition), slot);
                st.topic_slots[record.topic].push_back(slot);
            }
        }
        for (const BrokerRecord& record : s->brokers) {
            st.brokers.emplace(record.id, self->spawn<caf::linked>(broker_actor, record));
        }
        for (const TrackedAction& t : s->executor.inflight) {
            st.action_slots[t.action.action_id] = t.partition_slots;
        }
    }
    return {
        [=](control_atom, const caf::actor& journal) { self->state.journal = journal; },
        [=](route_atom, const BatchPtr& batch) {
            self->state.queue.push_back(batch);
            if (!self->state.throttled) process(self);
        },
        [=](drained_atom, uint64_t target) {
            RouterState& st = self->state;
            if (st.throttled && target == st.throttle_target) {
                st.throttled = false;
                process(self);
                return;
            }
            deliver_idle(self);
        },
        [=](epoch_atom, uint32_t epoch) {
            RouterState::Barrier& b = self->state.barrier;
            // A second notice (the actor and the router both saw the level)
            // or one for an epoch long closed changes nothing.
            if (b.active && !b.partitions_drained && epoch == b.epoch) {
                b.partitions_drained = true;
                answered(self);
            }
        },
        // `ballast plan`: a round now, as of everything routed; the caller
        // waits for idle first, so nothing is queued.
        [=](plan_atom) -> caf::result<DecisionPtr> {
            RouterState& st = self->state;
            if (st.barrier.active || !st.queue.empty() || (st.round.active && !st.round.decision)) {
                return caf::make_error(caf::sec::runtime_error, "engine busy: wait for idle first");
            }
            caf::response_promise promise = self->make_response_promise();
            start_barrier(self, BarrierKind::dry_run);
            st.barrier.dry_run_promise = promise;
            return promise;
        },
        [=](idle_atom) {
            RouterState& st = self->state;
            caf::response_promise promise = self->make_response_promise();
            st.idle_waiters.push_back(promise);
            deliver_idle(self);
            return promise;
        },
        // Engine::status: the router's own part now, the brokers', the
        // executor's and the scheduler's as each answers (read-only requests,
        // the same the barrier makes; routing goes on meanwhile).
        [=](status_atom) {
            RouterState& st = self->state;
            auto status = std::make_shared<EngineStatus>();
            status->router = st.memory;
            status->config = st.config;
            status->topics = static_cast<uint32_t>(st.topics.size());
            status->partitions = st.slot_of.size();
            caf::response_promise promise = self->make_response_promise();
            auto waiting = std::make_shared<size_t>(st.brokers.size() + 2);  // + executor + scheduler
            auto answered = [status, waiting, promise]() mutable {
                if (--*waiting > 0) return;
                std::sort(status->brokers.begin(), status->brokers.end(),
                          [](const BrokerRecord& x, const BrokerRecord& y) { return x.id < y.id; });
                promise.deliver(EngineStatusPtr(status));
            };
            for (auto& [id, actor] : st.brokers) {
                self->request(actor, caf::infinite, barrier_atom::value)
                    .then([=](const BrokerRecord& record) mutable {
                        status->brokers.push_back(record);
                        answered();
                    });
            }
            self->request(st.executor, caf::infinite, barrier_atom::value)
                .then([=](const ExecutorViewPtr& view) mutable {
                    status->in_flight = view->inflight;
                    answered();
                });
            self->request(st.scheduler, caf::infinite, status_atom::value)
                .then([=](const SchedulerMemory& memory) mutable {
                    status->scheduler = memory;
                    answered();
                });
            return promise;
        },
    };
}

}  // namespace ballast::actors
