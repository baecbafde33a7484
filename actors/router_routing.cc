#include "actors/router_routing.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/broker_actor.h"
#include "actors/partition_shard.h"

namespace ballast::actors::routing {

namespace {

/// A shard's queued updates are sent once this many wait, even mid-batch,
/// so that shards apply while the router routes a long batch (a cluster
/// appearing: 10,000 events a batch).
constexpr size_t shard_batch_max = 1024;

caf::actor& broker(RouterSelf* self, int32_t id) {
    auto it = self->state.brokers.find(id);
    if (it == self->state.brokers.end()) {
        // First heard of through something other than a registration (a
        // replica list, a metrics report): gone until it registers.
        BrokerRecord initial;
        initial.id = id;
        initial.liveness = goals::Liveness::gone;
        it = self->state.brokers.emplace(id, self->spawn<caf::linked>(broker_actor, initial)).first;
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
    const std::string rack = update.rack;
    broker_update(self, id, std::move(update));
    RouterState& st = self->state;
    if (e.seq > st.quiet_until_seq) {
        // One line per change for the operator (recovery replays them quietly).
        switch (kind) {
            case BrokerUpdate::Kind::registered: spdlog::info("broker {} registered (rack '{}')", id, rack); break;
            case BrokerUpdate::Kind::fenced:
                spdlog::info("broker {} fenced: its replicas move to other brokers if it stays fenced for its failure "
                             "grace ({} ms, longer if it keeps coming and going)",
                             id, st.settings.planner.broker_failure_grace_ms);
                break;
            case BrokerUpdate::Kind::unfenced: spdlog::info("broker {} unfenced: alive again", id); break;
            case BrokerUpdate::Kind::unregistered: spdlog::info("broker {} unregistered", id); break;
            default: break;
        }
    }
    RouterMemory& m = st.memory;
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
    st.samples_since_snapshot += m.samples.size();
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
    const uint32_t window_bucket_ms = LoadWindow::bucket_ms_of(st.settings.load_window.window_ms);
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
        update.window_bucket_ms = window_bucket_ms;
        update.window_percentile = st.settings.load_window.percentile;
        send_to_partition(self, slot->second, std::move(update));
    }
}

void to_scheduler(RouterSelf* self, const events::Event& e) {
    self->send(self->state.scheduler, control_atom::value, std::make_shared<const events::Event>(e));
}

void to_executor(RouterSelf* self, const events::Event& e) {
    self->send(self->state.executor, control_atom::value, std::make_shared<const events::Event>(e));
}

}  // namespace

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

void send_partition_batches(RouterSelf* self) {
    RouterState& st = self->state;
    for (uint32_t shard = 0; shard < partition_shard_count; shard++) {
        PartitionBatch& batch = st.shard_batches[shard];
        if (batch.empty()) continue;
        self->send(st.shards[shard], apply_atom::value, std::move(batch));
        batch = PartitionBatch();
    }
}

void flush_report(RouterSelf* self, int32_t id) {
    auto it = self->state.pending_reports.find(id);
    if (it == self->state.pending_reports.end()) return;
    self->send(broker(self, id), apply_atom::value, std::move(it->second));
    self->state.pending_reports.erase(it);
}

bool round_due_at(const RouterState& st, int64_t tick_ms) {
    const RouterMemory& m = st.memory;
    const int64_t now_ms = std::max(m.now_ms, tick_ms);
    return m.last_plan_ms < 0 || now_ms - m.last_plan_ms >= st.settings.detect_interval_ms ||
           m.brokers_changed || now_ms >= m.replan_at_ms ||
           (m.more_to_do && now_ms - m.last_plan_ms >= st.settings.gate.execution_interval_ms);
}

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
                // The operator asked for a round now: at the next Tick, as
                // after a broker change (a replay plans it at the same place).
                if (body.command == events::CommandKind::rebalance) m.brokers_changed = true;
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
                // An action that never started (found so after a restart)
                // leaves its partitions as they were: decided again at once.
                m.more_to_do |= m.held_last_round || body.error_code == not_started_code;
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

}  // namespace ballast::actors::routing
