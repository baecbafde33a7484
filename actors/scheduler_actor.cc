#include "actors/scheduler_actor.h"

#include <algorithm>
#include <numeric>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/scheduler_model.h"
#include "actors/thread_priority.h"
#include "actors/supervision.h"

namespace ballast::actors {

namespace {

using SchedulerSelf = caf::stateful_actor<SchedulerState>;

/// How many held-back actions an ActionsPlanned lists one by one; the counts
/// per reason always cover all of them.
constexpr size_t held_listed_max = 1'000;

bool broker_excluded(const SchedulerState& st, int32_t id) {
    const auto& listed = st.settings.excluded_broker_ids;
    return std::find(listed.begin(), listed.end(), id) != listed.end() ||
           st.memory.operator_excluded_brokers.count(id) > 0;
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
        broker.fenced_ms = b.fenced_ms;
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
/// list changes, not every round (nor again while recovery replays what
/// was logged before: `log` false). Returns whether it changed; a dry run
/// (`commit` false) remembers nothing.
bool report_unfixable(SchedulerState& st, const goals::Plan& plan, bool commit, bool log,
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
    for (const std::string& line : lines) {
        if (log) spdlog::warn("cannot fix {}", line);
    }
    if (log && lines.empty()) spdlog::info("nothing left that cannot be fixed");
    st.memory.unfixable = std::move(lines);
    return true;
}

/// Brokers the plan treats differently than their liveness says (a
/// flapping broker's raised grace, an unstable broker): one info line each
/// when that starts or changes and when it ends, and journaled with the
/// round, not every round (nor logged again while recovery replays: `log`
/// false). Returns whether they changed; a dry run (`commit` false)
/// remembers nothing.
bool report_broker_notes(SchedulerState& st, const goals::Plan& plan, bool commit, bool log,
                         std::vector<events::BrokerNote>* out) {
    std::vector<std::string> lines;
    for (const goals::BrokerNote& n : plan.broker_notes) {
        lines.push_back(std::to_string(n.broker_id) + ": " + n.reason);
        out->push_back({n.broker_id, n.reason});
    }
    if (lines == st.memory.broker_notes) return false;
    if (!commit) return true;
    for (const std::string& line : lines) {
        if (log && std::find(st.memory.broker_notes.begin(), st.memory.broker_notes.end(), line) ==
                       st.memory.broker_notes.end()) {
            spdlog::info("broker {}", line);
        }
    }
    for (const std::string& was : st.memory.broker_notes) {
        const std::string id = was.substr(0, was.find(':'));
        const bool still = std::any_of(lines.begin(), lines.end(),
                                       [&](const std::string& line) { return line.substr(0, line.find(':')) == id; });
        if (log && !still) spdlog::info("broker {}: nothing to note any more (alive and stable, or fenced within its grace)", id);
    }
    st.memory.broker_notes = std::move(lines);
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
caf::result<DecisionPtr> plan_round(SchedulerSelf* self, const PlanInput& input) {
    SchedulerState& st = self->state;
    st.model.as_of_seq = input.seq;
    st.model.now_ms = input.now_ms;
    update_partitions(st, input);
    st.table->mark_read(input.epoch);
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
        report_unfixable(st, plan, !input.dry_run, !input.quiet, &unfixable, &unfixable_lines);
    std::vector<events::BrokerNote> broker_notes;
    const bool notes_changed = report_broker_notes(st, plan, !input.dry_run, !input.quiet, &broker_notes);
    if (!input.dry_run && gated.accepted.empty() && gated.held.empty() && !unfixable_changed && !notes_changed) {
        auto nothing = std::make_shared<Decision>();
        nothing->replan_at_ms = plan.replan_at_ms;
        return DecisionPtr(nothing);
    }

    // Numbers are taken from the memory only when the round is real.
    uint64_t round = st.memory.round + 1;
    uint64_t next_action_id = st.memory.next_action_id;
    auto decision = std::make_shared<Decision>();
    decision->barrier_seq = input.seq;
    decision->planned = !gated.accepted.empty() || !gated.held.empty() || unfixable_changed || notes_changed;
    decision->replan_at_ms = plan.replan_at_ms;
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
    planned.broker_notes = std::move(broker_notes);
    decision->event = events::Event{0, input.now_ms, events::Source::engine, std::move(planned)};
    if (input.dry_run) {
        summarize(st, plan, gated, *decision);
        decision->unfixable = unfixable_lines;
        for (const TrackedAction& t : input.executor->inflight) decision->in_flight.push_back(t.action);
        decision->pending = input.pending;
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

/// On its own thread (the engine spawns it detached), gives the stream the
/// cores first when asked to. On a shared CAF worker it leaves the priority
/// alone: that thread runs every other actor too.
void lower_thread_priority(SchedulerSelf* self, BackgroundPriority background_priority) {
    if (self->getf(caf::abstract_actor::is_detached_flag)) {
        lower_this_thread_priority("scheduler", background_priority);
    }
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
        case events::CommandKind::rebalance: break;       // the router's: a round at the next Tick
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
                              std::function<void(const events::Event&)> on_decision,
                              BackgroundPriority background_priority) {
    end_with_exception_text(self);
    SchedulerState& st = self->state;
    lower_thread_priority(self, background_priority);
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
            st.table->mark_read(epoch);
            draft->scheduler = st.memory;
            return SnapshotPtr(draft);
        },
        // Engine::status: this actor's memory, as of what it has applied.
        [=](status_atom) -> SchedulerMemory { return self->state.memory; },
    };
}

}  // namespace ballast::actors
