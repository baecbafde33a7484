#include "actors/router_actor.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/broker_actor.h"
#include "actors/partition_shard.h"

namespace ballast::actors {

namespace {

using RouterSelf = caf::stateful_actor<RouterState>;

constexpr uint64_t throttle_check_every = 256;
/// A shard's queued updates are sent once this many wait, even mid-batch,
/// so that shards apply while the router routes a long batch (a cluster
/// appearing: 10,000 events a batch).
constexpr size_t shard_batch_max = 1024;

uint64_t partition_key(uint32_t topic, int32_t partition) {
    return (static_cast<uint64_t>(topic) << 32) | static_cast<uint32_t>(partition);
}

uint32_t ensure_topic(RouterState& st, const std::string& name) {
    auto [it, inserted] = st.topic_index.emplace(name, static_cast<uint32_t>(st.topics.size()));
    if (inserted) {
        st.topics.push_back(name);
        st.topic_slots.emplace_back();
    }
    return it->second;
}

caf::actor& broker(RouterSelf* self, int32_t id) {
    auto it = self->state.brokers.find(id);
    if (it == self->state.brokers.end()) {
        // First heard of through something other than a registration (a
        // replica list, a metrics report): gone until it registers.
        BrokerRecord initial;
        initial.id = id;
        initial.liveness = goals::Liveness::gone;
        it = self->state.brokers.emplace(id, self->spawn(broker_actor, initial)).first;
    }
    return it->second;
}

/// Queues an update for the slot's shard; `send_partition_batches` sends
/// what is queued (at the end of every routed batch, before the router
/// waits for anything, and when an epoch closes).
void send_to_partition(RouterSelf* self, uint32_t slot, PartitionUpdate update) {
    RouterState& st = self->state;
    update.epoch = st.table->epoch();
    update.slot = slot;
    const uint32_t shard = shard_of(slot);
    PartitionBatch& batch = st.shard_batches[shard];
    batch.push_back(std::move(update));
    if (batch.size() >= shard_batch_max) {
        self->send(st.shards[shard], apply_atom::value, std::move(batch));
        batch = PartitionBatch();
    }
    st.partition_messages_sent++;
    st.epoch_messages_sent++;
    if (!st.dirty_flag[slot]) {
        st.dirty_flag[slot] = 1;
        st.dirty.push_back(slot);
    }
}

/// Sends each shard the updates queued for it: one message per shard per
/// routed batch, all of one epoch.
void send_partition_batches(RouterSelf* self) {
    RouterState& st = self->state;
    for (uint32_t shard = 0; shard < partition_shard_count; shard++) {
        PartitionBatch& batch = st.shard_batches[shard];
        if (batch.empty()) continue;
        self->send(st.shards[shard], apply_atom::value, std::move(batch));
        batch = PartitionBatch();
    }
}

/// The slot of (topic, partition), creating it on first sight.
uint32_t ensure_partition(RouterSelf* self, uint32_t topic, int32_t partition) {
    RouterState& st = self->state;
    const uint64_t key = partition_key(topic, partition);
    auto it = st.slot_of.find(key);
    if (it != st.slot_of.end()) return it->second;
    const uint32_t slot = st.table->add();
    PartitionRecord& record = st.table->at(slot);
    record.topic = topic;
    record.partition = partition;
    st.dirty_flag.push_back(0);
    st.slot_of.emplace(key, slot);
    st.topic_slots[topic].push_back(slot);
    return slot;
}

/// Sends a broker its report time held back, if any.
void flush_report(RouterSelf* self, int32_t id) {
    auto it = self->state.pending_reports.find(id);
    if (it == self->state.pending_reports.end()) return;
    self->send(broker(self, id), apply_atom::value, std::move(it->second));
    self->state.pending_reports.erase(it);
}

void broker_update(RouterSelf* self, int32_t id, BrokerUpdate update) {
    flush_report(self, id);
    self->send(broker(self, id), apply_atom::value, std::move(update));
}

void broker_liveness(RouterSelf* self, const events::Event& e, int32_t id, BrokerUpdate::Kind kind) {
    BrokerUpdate update;
    update.kind = kind;
    update.seq = e.seq;
    update.time_ms = e.time_ms;
    if (const auto* registered = std::get_if<events::BrokerRegistered>(&e.body)) {
        update.rack = registered->rack;
    }
    broker_update(self, id, std::move(update));
    RouterMemory& m = self->state.memory;
    m.brokers_changed = true;
    if (kind == BrokerUpdate::Kind::fenced || kind == BrokerUpdate::Kind::unregistered) {
        // Plan again when the grace runs out, not a detect interval later.
        m.replan_at_ms = std::min(m.replan_at_ms,
                                  e.time_ms + self->state.settings.planner.broker_failure_grace_ms);
    }
}

void route_partition_changed(RouterSelf* self, const events::Event& e, const events::PartitionChanged& c) {
    if (c.replicas.size() > replicas_max || c.isr.size() > replicas_max) {
        spdlog::error("seq {}: partition {}-{} lists {} replicas, more than the {} Ballast tracks; "
                      "ignored",
                      e.seq, c.topic, c.partition, c.replicas.size(), replicas_max);
        return;
    }
    // The planner's model has rules metadata from a healthy cluster keeps; a
    // change that breaks them is refused here, loudly, so that one odd
    // partition never stops planning for the whole cluster.
    std::set<int32_t> distinct(c.replicas.begin(), c.replicas.end());
    if (c.replicas.empty() || distinct.size() != c.replicas.size() || *distinct.begin() < 0 ||
        c.partition < 0) {
        spdlog::error("seq {}: partition {}-{}: replicas must be distinct broker ids and at least "
                      "one; ignored",
                      e.seq, c.topic, c.partition);
        return;
    }
    RouterState& st = self->state;
    const uint32_t slot = ensure_partition(self, ensure_topic(st, c.topic), c.partition);
    PartitionUpdate update;
    update.kind = PartitionUpdate::Kind::changed;
    update.seq = e.seq;
    update.time_ms = e.time_ms;
    // A leader outside the replica list is no leader the planner can use.
    update.leader = distinct.count(c.leader) ? c.leader : -1;
    update.replica_count = static_cast<uint8_t>(c.replicas.size());
    std::copy(c.replicas.begin(), c.replicas.end(), update.replicas.begin());
    update.isr_count = static_cast<uint8_t>(c.isr.size());
    std::copy(c.isr.begin(), c.isr.end(), update.isr.begin());
    send_to_partition(self, slot, std::move(update));
}

void route_partition_metrics(RouterSelf* self, const events::Event& e, const events::PartitionMetrics& m) {
    RouterState& st = self->state;
    // A broker's freshness moves only forward: a report no newer than the
    // last one passed on changes nothing, and is not sent (a reporter that
    // writes one event per partition would otherwise double the messages).
    bool newer = false;
    if (m.broker_id >= 0) {
        auto [it, first] = st.reported_ms.try_emplace(m.broker_id, m.sample_time_ms);
        newer = first || m.sample_time_ms > it->second;
        it->second = std::max(it->second, m.sample_time_ms);
    }
    if (newer) {
        // Held back until a barrier or the broker's next other update: a
        // flood of one-sample reports would otherwise send a broker message
        // for nearly every partition message.
        BrokerUpdate& reported = st.pending_reports[m.broker_id];
        reported.kind = BrokerUpdate::Kind::reported;
        reported.seq = e.seq;
        reported.time_ms = e.time_ms;
        reported.sample_time_ms = m.sample_time_ms;
    }
    // Topic names resolve once per report, not once per sample.
    std::vector<uint32_t> topics(m.topics.size(), UINT32_MAX);
    for (size_t i = 0; i < m.topics.size(); i++) {
        auto it = st.topic_index.find(m.topics[i]);
        if (it != st.topic_index.end()) topics[i] = it->second;
    }
    for (const events::PartitionSample& sample : m.samples) {
        const uint32_t topic = topics[sample.topic_index];  // verified in range
        auto slot = topic == UINT32_MAX ? st.slot_of.end()
                                        : st.slot_of.find(partition_key(topic, sample.partition));
        if (slot == st.slot_of.end()) {
            // Metrics can run ahead of metadata; the next report brings it again.
            st.progress->partition_samples_dropped.fetch_add(1, std::memory_order_relaxed);
            continue;
        }
        const bool sane = std::isfinite(sample.bytes_in_per_s) && sample.bytes_in_per_s >= 0 &&
                          std::isfinite(sample.bytes_out_per_s) && sample.bytes_out_per_s >= 0 &&
                          std::isfinite(sample.messages_in_per_s) && sample.messages_in_per_s >= 0;
        if (!sane) {
            spdlog::warn("seq {}: sample for {}-{} has a negative or non-finite rate; ignored",
                         e.seq, m.topics[sample.topic_index], sample.partition);
            continue;
        }
        PartitionUpdate update;
        update.kind = PartitionUpdate::Kind::sample;
        update.seq = e.seq;
        update.time_ms = e.time_ms;
        update.sample = sample;
        update.reporting_broker = m.broker_id;
        update.sample_time_ms = m.sample_time_ms;
        send_to_partition(self, slot->second, std::move(update));
    }
}

void to_scheduler(RouterSelf* self, const events::Event& e) {
    self->send(self->state.scheduler, control_atom::value, std::make_shared<const events::Event>(e));
}

void to_executor(RouterSelf* self, const events::Event& e) {
    self->send(self->state.executor, control_atom::value, std::make_shared<const events::Event>(e));
}

/// Whether a Tick at `tick_ms` makes a planning round due: the detect
/// interval passed, a broker changed, a fenced broker's grace ran out, or
/// the last round held work back and the execution interval passed. Pure,
/// so that a barrier can ask before the Tick is routed.
bool round_due_at(const RouterState& st, int64_t tick_ms) {
    const RouterMemory& m = st.memory;
    const int64_t now_ms = std::max(m.now_ms, tick_ms);
    return m.last_plan_ms < 0 || now_ms - m.last_plan_ms >= st.settings.detect_interval_ms ||
           m.brokers_changed || now_ms >= m.replan_at_ms ||
           (m.more_to_do && now_ms - m.last_plan_ms >= st.settings.gate.execution_interval_ms);
}

/// Routes one event. Returns true when a barrier must happen right after it.
bool route(RouterSelf* self, const events::Event& e) {
    RouterState& st = self->state;
    RouterMemory& m = st.memory;
    // Decisions are applied where they were made (at their barrier); a
    // journal read back in recovery or replay holds them, and they are skipped.
    if (events::is_decision(e.source)) return false;
    bool plan_due = false;
    std::visit(
        [&](const auto& body) {
            using T = std::decay_t<decltype(body)>;
            if constexpr (std::is_same_v<T, events::BrokerRegistered>) {
                broker_liveness(self, e, body.broker_id, BrokerUpdate::Kind::registered);
            } else if constexpr (std::is_same_v<T, events::BrokerFenced>) {
                broker_liveness(self, e, body.broker_id, BrokerUpdate::Kind::fenced);
            } else if constexpr (std::is_same_v<T, events::BrokerUnfenced>) {
                broker_liveness(self, e, body.broker_id, BrokerUpdate::Kind::unfenced);
            } else if constexpr (std::is_same_v<T, events::BrokerUnregistered>) {
                broker_liveness(self, e, body.broker_id, BrokerUpdate::Kind::unregistered);
            } else if constexpr (std::is_same_v<T, events::TopicCreated>) {
                ensure_topic(st, body.topic);
            } else if constexpr (std::is_same_v<T, events::TopicDeleted>) {
                auto it = st.topic_index.find(body.topic);
                if (it == st.topic_index.end()) return;
                for (const uint32_t slot : st.topic_slots[it->second]) {
                    PartitionUpdate update;
                    update.kind = PartitionUpdate::Kind::deleted;
                    update.seq = e.seq;
                    update.time_ms = e.time_ms;
                    send_to_partition(self, slot, std::move(update));
                    st.slot_of.erase(partition_key(it->second, st.table->at(slot).partition));
                }
                // A topic created again under the same name gets new slots.
                st.topic_slots[it->second].clear();
            } else if constexpr (std::is_same_v<T, events::PartitionChanged>) {
                route_partition_changed(self, e, body);
            } else if constexpr (std::is_same_v<T, events::BrokerMetrics>) {
                for (const events::BrokerSample& sample : body.samples) {
                    BrokerUpdate update;
                    update.kind = BrokerUpdate::Kind::sample;
                    update.seq = e.seq;
                    update.time_ms = e.time_ms;
                    update.sample = sample;
                    update.sample_time_ms = body.sample_time_ms;
                    broker_update(self, sample.broker_id, std::move(update));
                }
            } else if constexpr (std::is_same_v<T, events::PartitionMetrics>) {
                route_partition_metrics(self, e, body);
            } else if constexpr (std::is_same_v<T, events::Tick>) {
                // One round at a time: a Tick before the open round's
                // decision takes effect only moves the clock on.
                plan_due = !st.round.active && round_due_at(st, body.now_ms);
                m.now_ms = std::max(m.now_ms, body.now_ms);
                to_executor(self, e);
            } else if constexpr (std::is_same_v<T, events::ConfigChanged>) {
                for (const std::string& problem : apply_config_change(st.config, body, st.overrides)) {
                    spdlog::warn("seq {}: config change skipped: {}", e.seq, problem);
                }
                st.settings = settings_from(st.config);
                to_scheduler(self, e);
                self->send(st.executor, control_atom::value, st.settings.executor);
            } else if constexpr (std::is_same_v<T, events::OperatorCommand>) {
                to_scheduler(self, e);
                to_executor(self, e);
            } else if constexpr (std::is_same_v<T, events::LeadershipAcquired>) {
                to_executor(self, e);
            } else if constexpr (std::is_same_v<T, events::ActionCompleted>) {
                to_executor(self, e);
                m.more_to_do |= m.held_last_round;
                st.round.outcomes_passed |= st.round.active;
                auto it = st.action_slots.find(body.action_id);
                if (it == st.action_slots.end()) return;
                for (const uint32_t slot : it->second) {
                    PartitionUpdate update;
                    update.kind = PartitionUpdate::Kind::moved;
                    update.seq = e.seq;
                    update.time_ms = e.time_ms;
                    send_to_partition(self, slot, std::move(update));
                }
                st.action_slots.erase(it);
            } else if constexpr (std::is_same_v<T, events::ActionFailed>) {
                to_executor(self, e);
                m.more_to_do |= m.held_last_round;
                st.round.outcomes_passed |= st.round.active;
            } else {
                // ActionsPlanned, ActionSubmitted, ActionTimedOut, ActionCancelled
                // come only from the engine itself (filtered above).
            }
        },
        e.body);
    m.last_seq = e.seq;
    return plan_due;
}

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
                self->request(st.journal, caf::infinite, snapshot_atom::value, snapshot,
                              st.barrier.now_ms, st.settings.retention_ms)
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
    m.more_to_do = decision.held_any && (!decision.accepted.empty() || r.outcomes_passed);
    if (decision.planned) {
        for (const TrackedAction& t : decision.accepted) {
            st.action_slots[t.action.action_id] = t.partition_slots;
        }
        self->send(st.executor, execute_atom::value, r.decision);
    }
    st.progress->barriers.fetch_add(1, std::memory_order_relaxed);
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
/// time). Before, every snapshot at 1M partitions stopped the stream at the
/// next Tick until the copy was done (over a second on a loaded machine).
/// A dry run (`ballast plan`, on an idle engine) lets only state pass.
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

/// Another `snapshot_interval_events` routed since the last snapshot, and
/// none being written. (Which seqs get snapshots depends on how fast they
/// are written; decisions do not: a snapshot barrier plans nothing.)
bool snapshot_due(const RouterState& st) {
    const RouterMemory& m = st.memory;
    // Not while a round's decision waits for its place: the snapshot would
    // hold the scheduler's memory of it but not its effects.
    return st.snapshots && !st.barrier.active && !st.round.active && !st.snapshot_writing &&
           m.last_seq > st.quiet_until_seq &&
           m.last_seq - m.last_snapshot_seq >= st.settings.snapshot_interval_events;
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
            if (g == Gate::decision_first) apply_decision(self);
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
    RouterState& st = self->state;
    st.table = setup.table;
    st.scheduler = std::move(setup.scheduler);
    st.executor = std::move(setup.executor);
    st.progress = setup.progress;
    st.config = std::move(setup.config);
    st.overrides = std::move(setup.overrides);
    st.settings = settings_from(st.config);
    st.quiet_until_seq = setup.quiet_until_seq;
    st.snapshots = setup.snapshots;
    assert(setup.partition_backlog_max >= 1);
    st.partition_backlog_max = setup.partition_backlog_max;
    for (uint32_t shard = 0; shard < partition_shard_count; shard++) {
        st.shards.push_back(self->spawn(partition_shard_actor, st.table, caf::actor_cast<caf::actor>(self)));
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
            st.brokers.emplace(record.id, self->spawn(broker_actor, record));
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
    };
}

}  // namespace ballast::actors
