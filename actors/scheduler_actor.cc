#include "actors/scheduler_actor.h"

#include <algorithm>
#include <numeric>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

namespace ballast::actors {

namespace {

using Self = caf::stateful_actor<SchedulerState>;

/// How many held-back actions an ActionsPlanned lists one by one; the counts
/// per reason always cover all of them.
constexpr size_t held_listed_max = 1'000;

bool topic_excluded(const SchedulerState& st, const std::string& topic) {
    const auto& listed = st.settings.excluded_topics;
    return std::find(listed.begin(), listed.end(), topic) != listed.end() ||
           st.memory.operator_excluded_topics.count(topic) > 0;
}

bool broker_excluded(const SchedulerState& st, int32_t id) {
    const auto& listed = st.settings.excluded_broker_ids;
    return std::find(listed.begin(), listed.end(), id) != listed.end() ||
           st.memory.operator_excluded_brokers.count(id) > 0;
}

void fill_partition(const SchedulerState& st, const PartitionRecord& record, uint32_t topic,
                    goals::Partition& p) {
    p.topic = topic;
    p.partition = record.partition;
    p.leader = record.leader;
    p.replica_count = record.replica_count;
    p.load.bytes_in_per_s = record.bytes_in_per_s;
    p.load.bytes_out_per_s = record.bytes_out_per_s;
    p.load.size_bytes = record.size_bytes;
    p.last_moved_ms = record.last_moved_ms;
    p.left_broker = record.left_broker;
    p.left_ms = record.left_ms;
    p.left_leader = record.left_leader;
    p.left_leader_ms = record.left_leader_ms;
    p.held_until_ms = -1;  // set from the executor's backoff afterwards
    p.in_flight = false;  // overlaid from the executor's view afterwards
    p.excluded = topic_excluded(st, st.model.topics[topic]);
}

/// Rebuilds the partition arrays from every live slot, sorted by (topic
/// name, partition). Needed only when partitions appear, disappear or change
/// replication factor: O(P log P), rare. Slots are read as of the barrier
/// (the actors may be running ahead), in two passes: which exist, then
/// their contents.
void rebuild_partitions(SchedulerState& st, const PlanInput& input) {
    const uint32_t slots = input.slot_count;
    // Order by (topic name, partition) through integer keys: each router
    // topic's rank by name, then the partition. Slots are mostly added in
    // that order already, so the sort usually finds them sorted (1M
    // partitions: a few ms instead of ~300 ms of string compares).
    std::vector<uint32_t> by_name(st.router_topics.size());
    std::iota(by_name.begin(), by_name.end(), 0u);
    std::sort(by_name.begin(), by_name.end(),
              [&](uint32_t a, uint32_t b) { return st.router_topics[a] < st.router_topics[b]; });
    std::vector<uint64_t> rank(st.router_topics.size());
    for (size_t i = 0; i < by_name.size(); i++) rank[by_name[i]] = i;
    struct Keyed {
        uint64_t key;  // rank << 32 | partition
        uint32_t slot;
        bool operator<(const Keyed& o) const { return key < o.key; }
    };
    std::vector<Keyed> keyed;
    keyed.reserve(slots);
    for (uint32_t slot = 0; slot < slots; slot++) {
        st.table->visit(slot, input.epoch, [&](const PartitionRecord& r) {
            if (r.exists && r.topic < st.router_topics.size()) {
                keyed.push_back({rank[r.topic] << 32 | static_cast<uint32_t>(r.partition), slot});
            }
        });
    }
    if (!std::is_sorted(keyed.begin(), keyed.end())) std::sort(keyed.begin(), keyed.end());
    std::vector<uint32_t> live;
    live.reserve(keyed.size());
    for (const Keyed& k : keyed) live.push_back(k.slot);
    goals::ClusterModel& m = st.model;
    m.topics.clear();
    m.partitions.assign(live.size(), goals::Partition{});
    m.replicas.clear();
    st.model_slots = live;
    st.slot_to_model.assign(slots, UINT32_MAX);
    uint32_t last_router_topic = UINT32_MAX;
    for (uint32_t i = 0; i < live.size(); i++) {
        st.table->visit(live[i], input.epoch, [&](const PartitionRecord& r) {
            if (r.topic != last_router_topic) {
                m.topics.push_back(st.router_topics[r.topic]);
                last_router_topic = r.topic;
            }
            goals::Partition& p = m.partitions[i];
            fill_partition(st, r, static_cast<uint32_t>(m.topics.size() - 1), p);
            p.replica_begin = static_cast<uint32_t>(m.replicas.size());
            m.replicas.insert(m.replicas.end(), r.replicas.begin(), r.replicas.begin() + r.replica_count);
        });
        st.slot_to_model[live[i]] = i;
    }
    st.structure_dirty = false;
}

/// Plans as if every action in flight completes: the partition's replicas
/// (and leader) are the action's target, so its load already counts on the
/// brokers it is going to. Without this a round that runs while earlier
/// moves are still copying sees their destinations as emptier than they
/// are, plans more moves onto them, and the next rounds swing back: the
/// oscillation Cruise Control and Redpanda avoid the same way. A target of
/// another replication factor (the partition changed under the action) is
/// not projected.
void project(SchedulerState& st, uint32_t index, const events::Action& action, bool swap_side) {
    const std::vector<int32_t>& target = swap_side ? action.swap_replicas_after : action.replicas_after;
    goals::Partition& p = st.model.partitions[index];
    if (target.size() != p.replica_count) return;
    int32_t* replicas = st.model.replicas.data() + p.replica_begin;
    bool leader_stays = false;
    for (size_t r = 0; r < target.size(); r++) {
        replicas[r] = target[r];
        leader_stays = leader_stays || target[r] == p.leader;
    }
    // A leader change elects the first replica; a move keeps a leader that stays.
    if (action.kind == events::ActionKind::leader || !leader_stays) p.leader = target.empty() ? -1 : target[0];
    st.projected.push_back(index);
}

/// Patches the partitions that changed since the last barrier, or rebuilds
/// when the structure changed.
void update_partitions(SchedulerState& st, const PlanInput& input) {
    if (input.topics.size() != st.router_topics.size()) st.router_topics = input.topics;
    if (!st.structure_dirty) {
        for (const uint32_t slot : input.dirty_slots) {
            const PartitionRecord r = st.table->read(slot, input.epoch);
            const uint32_t index = slot < st.slot_to_model.size() ? st.slot_to_model[slot] : UINT32_MAX;
            if (index == UINT32_MAX || !r.exists ||
                st.model.partitions[index].replica_count != r.replica_count) {
                st.structure_dirty = true;
                break;
            }
            goals::Partition& p = st.model.partitions[index];
            fill_partition(st, r, p.topic, p);
            std::copy(r.replicas.begin(), r.replicas.begin() + r.replica_count,
                      st.model.replicas.begin() + p.replica_begin);
        }
    }
    if (st.structure_dirty) {
        rebuild_partitions(st, input);
        st.projected.clear();
    }
    // Projections of the last barrier: back to what the slots say.
    for (const uint32_t index : st.projected) {
        const PartitionRecord r = st.table->read(st.model_slots[index], input.epoch);
        goals::Partition& p = st.model.partitions[index];
        fill_partition(st, r, p.topic, p);
        std::copy(r.replicas.begin(), r.replicas.begin() + r.replica_count,
                  st.model.replicas.begin() + p.replica_begin);
    }
    st.projected.clear();

    // In flight: what the executor runs, as of this barrier.
    for (goals::Partition& p : st.model.partitions) p.in_flight = false;
    for (const TrackedAction& tracked : input.executor->inflight) {
        for (size_t i = 0; i < tracked.partition_slots.size(); i++) {
            const uint32_t slot = tracked.partition_slots[i];
            if (slot >= st.slot_to_model.size() || st.slot_to_model[slot] == UINT32_MAX) continue;
            const uint32_t index = st.slot_to_model[slot];
            st.model.partitions[index].in_flight = true;
            project(st, index, tracked.action, i == 1);
        }
    }
    // Backoff: a partition whose moves keep ending unfinished is held for
    // base x 2^(failures-1) from its last failure: no action on it, not even
    // an evacuation (one that timed out would otherwise be resubmitted at
    // once, forever). Restored like a projection at the next barrier.
    //
    // The base is the longer of the cooldown and the action timeout: a move
    // that hung for a whole timeout (an apache copy that cannot catch up with
    // its producers) is not worth trying again sooner than it took to fail,
    // and while it is in flight every plan counts it as done, so each try
    // moves other partitions to match a state that never comes (fault
    // simulation seed 5082 traded a partition between two brokers that way).
    const int64_t hold_base_ms = st.settings.executor.hold_base_ms;
    for (const auto& [slot, backoff] : input.executor->backoff) {
        if (slot >= st.slot_to_model.size() || st.slot_to_model[slot] == UINT32_MAX) continue;
        assert(backoff.failures >= 1);
        const uint32_t index = st.slot_to_model[slot];
        const int64_t hold_ms = hold_base_ms << std::min<uint32_t>(backoff.failures - 1, 6);
        goals::Partition& p = st.model.partitions[index];
        p.held_until_ms = backoff.last_failed_ms + hold_ms;
        st.projected.push_back(index);
    }
}

void update_brokers(SchedulerState& st, const PlanInput& input) {
    goals::ClusterModel& m = st.model;
    // Brokers named in replica lists but never registered are gone since
    // time 0: their replicas are to be moved off like any dead broker's.
    // input.brokers is sorted by id: a binary search per replica, and the
    // rare unknown id remembered in a set (1M replicas: ~1 ms, not a set
    // insert each).
    std::vector<int32_t> known;
    known.reserve(input.brokers.size());
    for (const BrokerRecord& b : input.brokers) known.push_back(b.id);
    assert(std::is_sorted(known.begin(), known.end()));
    std::set<int32_t> ids;
    std::vector<BrokerRecord> records = input.brokers;
    int32_t last_checked = -1;
    for (const int32_t id : m.replicas) {
        if (id < 0 || id == last_checked) continue;
        last_checked = id;
        if (std::binary_search(known.begin(), known.end(), id)) continue;
        if (ids.insert(id).second) {
            BrokerRecord unknown;
            unknown.id = id;
            unknown.liveness = goals::Liveness::gone;
            records.push_back(unknown);
        }
    }
    std::sort(records.begin(), records.end(),
              [](const BrokerRecord& a, const BrokerRecord& b) { return a.id < b.id; });
    std::set<std::string> racks;
    for (const BrokerRecord& b : records) racks.insert(b.rack);
    m.racks.assign(racks.begin(), racks.end());
    m.brokers.clear();
    for (const BrokerRecord& b : records) {
        goals::Broker broker;
        broker.id = b.id;
        broker.rack = static_cast<uint32_t>(
            std::lower_bound(m.racks.begin(), m.racks.end(), b.rack) - m.racks.begin());
        broker.liveness = b.liveness;
        broker.liveness_changed_ms = b.liveness_changed_ms;
        broker.metrics_time_ms = b.metrics_time_ms;
        broker.excluded = broker_excluded(st, b.id);
        broker.draining = st.memory.draining_brokers.count(b.id) > 0;
        broker.capacity = capacity_of(st.settings, b.id);
        m.brokers.push_back(broker);
    }
}

events::Load to_event_load(const goals::BrokerLoad& l) {
    return events::Load{l.load.bytes_in_per_s, l.load.bytes_out_per_s,
                        static_cast<uint64_t>(std::max(0.0, l.load.size_bytes)), l.replica_count,
                        l.leader_count};
}

goals::GateState gate_state(const ExecutorView& view) {
    goals::GateState state;
    state.inflight_actions = static_cast<uint32_t>(view.inflight.size());
    std::map<int32_t, uint32_t> per_broker;
    for (const TrackedAction& tracked : view.inflight) {
        if (tracked.action.source_broker >= 0) per_broker[tracked.action.source_broker]++;
        if (tracked.action.destination_broker >= 0) per_broker[tracked.action.destination_broker]++;
    }
    state.broker_inflight.assign(per_broker.begin(), per_broker.end());
    state.last_batch_ms = view.last_batch_ms;
    return state;
}

std::vector<uint32_t> slots_of(const SchedulerState& st, const goals::Action& action) {
    std::vector<uint32_t> slots{st.model_slots[action.partition]};
    if (action.kind == goals::ActionKind::swap) slots.push_back(st.model_slots[action.swap_partition]);
    return slots;
}

/// What no action can fix, named for people. Logged and journaled when the
/// list changes, not every round. Returns whether it changed; a dry run
/// (`commit` false) remembers nothing.
bool report_unfixable(SchedulerState& st, const goals::Plan& plan, bool commit,
                      std::vector<events::Unfixable>* out, std::vector<std::string>* named_lines) {
    std::vector<std::string> lines;
    for (const goals::Unfixable& u : plan.unfixable) {
        events::Unfixable named;
        named.broker_id = u.broker_id;
        named.goal = goals::goal_name(u.goal);
        named.reason = u.reason;
        std::string what = "broker " + std::to_string(u.broker_id);
        if (u.partition < st.model.partitions.size()) {
            const goals::Partition& p = st.model.partitions[u.partition];
            named.topic = st.model.topics[p.topic];
            named.partition = p.partition;
            what = named.topic + "-" + std::to_string(p.partition);
        }
        lines.push_back(what + " (" + named.goal + "): " + u.reason);
        out->push_back(std::move(named));
    }
    *named_lines = lines;
    if (lines == st.memory.unfixable) return false;
    if (!commit) return true;
    for (const std::string& line : lines) spdlog::warn("cannot fix {}", line);
    if (lines.empty()) spdlog::info("nothing left that cannot be fixed");
    st.memory.unfixable = std::move(lines);
    return true;
}

/// Broker loads before and after the accepted actions, for `ballast plan`.
void summarize(const SchedulerState& st, const goals::Plan& plan, const goals::GateResult& gated,
               Decision& decision) {
    const goals::ClusterModel& m = st.model;
    // Each partition's replicas and leader after the accepted actions.
    std::map<uint32_t, std::pair<std::vector<int32_t>, int32_t>> changed;
    for (const goals::Action& a : gated.accepted) {
        changed[a.partition] = {a.replicas_after, a.replicas_after.empty() ? -1 : a.replicas_after[0]};
        if (a.kind == goals::ActionKind::swap) {
            changed[a.swap_partition] = {a.swap_replicas_after, a.swap_replicas_after.empty()
                                                                    ? -1
                                                                    : a.swap_replicas_after[0]};
        }
        if (a.kind == goals::ActionKind::leader) changed[a.partition].second = a.destination;
    }
    std::map<int32_t, BrokerSummary> brokers;
    for (const goals::Broker& b : m.brokers) {
        BrokerSummary& summary = brokers[b.id];
        summary.id = b.id;
        summary.rack = m.racks[b.rack];
        summary.liveness = b.liveness;
        // The planner's rule (goals/planning_state.cc).
        summary.metrics_fresh = b.metrics_time_ms >= 0 &&
                                b.metrics_time_ms >= m.now_ms - st.settings.planner.metrics_delay_ms;
    }
    auto add = [&](goals::BrokerLoad& to, const goals::Partition& p, bool leader) {
        const goals::Load l = goals::replica_load(p, leader);
        to.load.bytes_in_per_s += l.bytes_in_per_s;
        to.load.bytes_out_per_s += l.bytes_out_per_s;
        to.load.size_bytes += l.size_bytes;
        to.replica_count++;
        to.leader_count += leader ? 1 : 0;
    };
    for (uint32_t i = 0; i < m.partitions.size(); i++) {
        const goals::Partition& p = m.partitions[i];
        const int32_t* replicas = m.replicas_of(p);
        for (uint16_t r = 0; r < p.replica_count; r++) add(brokers[replicas[r]].before, p, replicas[r] == p.leader);
        auto it = changed.find(i);
        if (it == changed.end()) {
            for (uint16_t r = 0; r < p.replica_count; r++) add(brokers[replicas[r]].after, p, replicas[r] == p.leader);
        } else {
            for (const int32_t id : it->second.first) add(brokers[id].after, p, id == it->second.second);
        }
    }
    for (auto& [id, summary] : brokers) decision.brokers.push_back(summary);
    for (const goals::GoalKind g : plan.violated_before) decision.violated_before.push_back(goals::goal_name(g));
    for (const goals::GoalKind g : plan.violated_after) decision.violated_after.push_back(goals::goal_name(g));
}

/// One planning round: model, plan, gate, journal, answer.
caf::result<DecisionPtr> plan_round(Self* self, const PlanInput& input) {
    SchedulerState& st = self->state;
    st.model.as_of_seq = input.seq;
    st.model.now_ms = input.now_ms;
    update_partitions(st, input);
    update_brokers(st, input);

    const goals::Plan plan = goals::plan(st.model, st.settings.planner);
    if (plan.status == goals::Plan::Status::invalid_input) {
        // The model is built from events the router checked; this is a bug
        // to report loudly, not a reason to stop the engine.
        spdlog::error("round at seq {}: the planner refused the model: {}", input.seq, plan.error);
    }
    goals::GateConfig gate_config = st.settings.gate;
    gate_config.paused = st.memory.paused || !st.settings.execution_enabled;
    const goals::GateResult gated =
        goals::apply_gate(plan, st.model, gate_state(*input.executor), gate_config);
    std::vector<events::Unfixable> unfixable;
    std::vector<std::string> unfixable_lines;
    const bool unfixable_changed =
        report_unfixable(st, plan, !input.dry_run, &unfixable, &unfixable_lines);
    if (!input.dry_run && gated.accepted.empty() && gated.held.empty() && !unfixable_changed) {
        return DecisionPtr(std::make_shared<Decision>());
    }

    // Numbers are taken from the memory only when the round is real.
    uint64_t round = st.memory.round + 1;
    uint64_t next_action_id = st.memory.next_action_id;
    auto decision = std::make_shared<Decision>();
    decision->barrier_seq = input.seq;
    decision->planned = !gated.accepted.empty() || !gated.held.empty() || unfixable_changed;
    // More to do: the gate held actions back, or the plan was cut short (the
    // per-broker budget, actions_max) with goals still unmet after it. Either
    // way the next round comes at the execution interval once an action
    // finishes, not a whole detect interval later.
    decision->held_any = !gated.held.empty() || (!gated.accepted.empty() && !plan.violated_after.empty());
    decision->quiet = input.quiet;
    events::ActionsPlanned planned;
    planned.round = round;
    planned.barrier_seq = input.seq;
    for (const goals::Action& action : gated.accepted) {
        TrackedAction tracked;
        tracked.action = to_event_action(st.model, action, next_action_id++);
        tracked.partition_slots = slots_of(st, action);
        planned.actions.push_back(tracked.action);
        decision->accepted.push_back(std::move(tracked));
    }
    for (uint8_t reason = 0; reason < goals::hold_reason_count; reason++) {
        if (gated.held_count[reason] > 0) {
            planned.rejections.push_back(
                {goals::hold_reason_name(static_cast<goals::HoldReason>(reason)),
                 gated.held_count[reason]});
        }
    }
    for (size_t i = 0; i < gated.held.size() && i < held_listed_max; i++) {
        planned.held.push_back({to_event_action(st.model, gated.held[i].action, 0),
                                goals::hold_reason_name(gated.held[i].reason)});
    }
    planned.unfixable = std::move(unfixable);
    decision->event = events::Event{0, input.now_ms, events::Source::engine, std::move(planned)};
    if (input.dry_run) {
        summarize(st, plan, gated, *decision);
        decision->unfixable = unfixable_lines;
        return DecisionPtr(decision);
    }
    st.memory.round = round;
    st.memory.next_action_id = next_action_id;

    // Recovering: the journal holds this decision already (unless the crash
    // came between the barrier and its write: then it is written now).
    if (input.quiet && st.journaled_barriers.count(input.seq)) {
        st.on_decision(decision->event);
        return DecisionPtr(decision);
    }
    // Journal it before anyone acts on it, then answer the router.
    caf::response_promise promise = self->make_response_promise();
    auto batch = std::make_shared<EventBatch>(EventBatch{decision->event});
    self->request(st.journal, caf::infinite, record_atom::value, batch)
        .then(
            [=](uint64_t seq) mutable {
                decision->event.seq = seq;
                self->state.on_decision(decision->event);
                promise.deliver(DecisionPtr(decision));
            },
            [=](caf::error& error) mutable { promise.deliver(std::move(error)); });
    return promise;
}

void on_command(SchedulerState& st, const events::OperatorCommand& c) {
    switch (c.command) {
        case events::CommandKind::pause: st.memory.paused = true; break;
        case events::CommandKind::resume: st.memory.paused = false; break;
        case events::CommandKind::drain_brokers:
            st.memory.draining_brokers.insert(c.broker_ids.begin(), c.broker_ids.end());
            break;
        case events::CommandKind::exclude_brokers:
            st.memory.operator_excluded_brokers.insert(c.broker_ids.begin(), c.broker_ids.end());
            break;
        case events::CommandKind::include_brokers:
            for (const int32_t id : c.broker_ids) {
                st.memory.operator_excluded_brokers.erase(id);
                st.memory.draining_brokers.erase(id);
            }
            break;
        case events::CommandKind::exclude_topics:
            st.memory.operator_excluded_topics.insert(c.topics.begin(), c.topics.end());
            st.structure_dirty = true;
            break;
        case events::CommandKind::include_topics:
            for (const std::string& topic : c.topics) st.memory.operator_excluded_topics.erase(topic);
            st.structure_dirty = true;
            break;
        case events::CommandKind::cancel_actions: break;  // the executor's
    }
}

}  // namespace

events::Action to_event_action(const goals::ClusterModel& model, const goals::Action& action,
                               uint64_t action_id) {
    const goals::Partition& p = model.partitions[action.partition];
    events::Action out;
    out.action_id = action_id;
    out.kind = static_cast<events::ActionKind>(action.kind);
    out.topic = model.topics[p.topic];
    out.partition = p.partition;
    out.source_broker = action.source;
    out.destination_broker = action.destination;
    out.replicas_before = action.replicas_before;
    out.replicas_after = action.replicas_after;
    if (action.kind == goals::ActionKind::swap) {
        const goals::Partition& q = model.partitions[action.swap_partition];
        out.swap_topic = model.topics[q.topic];
        out.swap_partition = q.partition;
        out.swap_replicas_before = action.swap_replicas_before;
        out.swap_replicas_after = action.swap_replicas_after;
    }
    // An evacuation serves no one goal: it empties a dead or draining broker.
    out.goal = action.evacuation ? "Evacuation" : goals::goal_name(action.goal);
    for (const goals::BrokerLoadChange& c : action.loads) {
        out.loads.push_back({c.broker_id, to_event_load(c.before), to_event_load(c.after)});
    }
    return out;
}

caf::behavior scheduler_actor(caf::stateful_actor<SchedulerState>* self, const PartitionTable* table,
                              caf::actor journal, events::Config config,
                              std::vector<std::string> overrides, SchedulerMemory memory,
                              std::set<uint64_t> journaled_barriers,
                              std::function<void(const events::Event&)> on_decision) {
    SchedulerState& st = self->state;
    st.journaled_barriers = std::move(journaled_barriers);
    st.table = table;
    st.journal = std::move(journal);
    st.config = std::move(config);
    st.overrides = std::move(overrides);
    st.settings = settings_from(st.config);
    st.memory = std::move(memory);
    st.on_decision = std::move(on_decision);
    return {
        [=](plan_atom, const PlanInputPtr& input) { return plan_round(self, *input); },
        [=](control_atom, const EventPtr& event) {
            SchedulerState& st = self->state;
            if (const auto* change = std::get_if<events::ConfigChanged>(&event->body)) {
                for (const std::string& problem :
                     apply_config_change(st.config, *change, st.overrides)) {
                    spdlog::warn("seq {}: config change skipped: {}", event->seq, problem);
                }
                st.settings = settings_from(st.config);
                st.structure_dirty = true;  // exclusions may have changed
            } else if (const auto* command = std::get_if<events::OperatorCommand>(&event->body)) {
                on_command(st, *command);
            }
        },
        // A snapshot barrier: the router's part, completed with the
        // partition records as of the barrier and this actor's memory.
        [=](snapshot_atom, const SnapshotDraftPtr& draft, uint32_t epoch, uint32_t slot_count) {
            SchedulerState& st = self->state;
            draft->partitions.reserve(slot_count);
            for (uint32_t slot = 0; slot < slot_count; slot++) {
                draft->partitions.push_back(st.table->read(slot, epoch));
            }
            draft->scheduler = st.memory;
            return SnapshotPtr(draft);
        },
    };
}

}  // namespace ballast::actors
