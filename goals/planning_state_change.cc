/// PlanningState's candidates (what an action would change) and their
/// apply and undo: the one place the state changes after it is built.

#include <algorithm>
#include <cassert>

#include "goals/planning_state.h"

namespace ballast::goals {

// ---------------------------------------------------------------- candidates

Candidate PlanningState::move(uint32_t p, uint32_t source, uint32_t destination,
                              bool evacuation) const {
    Candidate c;
    c.kind = ActionKind::move;
    c.partition = p;
    c.source = source;
    c.destination = destination;
    c.evacuation = evacuation;
    const Partition& partition = _model.partitions[p];
    const bool source_leads = _leader[p] == static_cast<int32_t>(source);
    // The destination takes the source's slot. If the source led, the
    // destination leads after (Kafka elects the first in-sync target
    // replica). An offline partition evacuated on shared storage comes back
    // online on its destination.
    const bool revives = _leader[p] == no_leader && evacuation && _config.flavor == Flavor::automq;
    c.leader_after = (source_leads || revives) ? static_cast<int32_t>(destination) : _leader[p];
    const bool destination_leads = c.leader_after == static_cast<int32_t>(destination);
    c.load_delta[0] = Load{} - replica_load(partition, source_leads);
    c.load_delta[1] = replica_load(partition, destination_leads);
    c.replica_delta[0] = -1;
    c.replica_delta[1] = +1;
    c.leader_delta[0] = source_leads ? -1 : 0;
    c.leader_delta[1] = destination_leads ? +1 : 0;
    return c;
}

Candidate PlanningState::swap(uint32_t p, uint32_t source, uint32_t q, uint32_t destination) const {
    Candidate c;
    c.kind = ActionKind::swap;
    c.partition = p;
    c.swap_partition = q;
    c.source = source;
    c.destination = destination;
    const bool p_led = _leader[p] == static_cast<int32_t>(source);
    const bool q_led = _leader[q] == static_cast<int32_t>(destination);
    c.leader_after = p_led ? static_cast<int32_t>(destination) : _leader[p];
    c.swap_leader_after = q_led ? static_cast<int32_t>(source) : _leader[q];
    const Load p_load = replica_load(_model.partitions[p], p_led);
    const Load q_load = replica_load(_model.partitions[q], q_led);
    c.load_delta[0] = q_load - p_load;
    c.load_delta[1] = p_load - q_load;
    c.leader_delta[0] = static_cast<int32_t>(q_led) - static_cast<int32_t>(p_led);
    c.leader_delta[1] = -c.leader_delta[0];
    return c;
}

Candidate PlanningState::leader_change(uint32_t p, uint32_t source, uint32_t destination) const {
    Candidate c;
    c.kind = ActionKind::leader;
    c.partition = p;
    c.source = source;
    c.destination = destination;
    c.leader_after = static_cast<int32_t>(destination);
    const Partition& partition = _model.partitions[p];
    const Load shift = replica_load(partition, true) - replica_load(partition, false);
    c.load_delta[0] = Load{} - shift;
    c.load_delta[1] = shift;
    c.leader_delta[0] = -1;
    c.leader_delta[1] = +1;
    return c;
}

bool PlanningState::valid(const Candidate& c, bool repair) const {
    if (c.source >= broker_count() || c.destination >= broker_count()) return false;
    if (c.source == c.destination || c.partition >= partition_count()) return false;
    const BrokerState& source = _brokers[c.source];
    const BrokerState& destination = _brokers[c.destination];
    const bool source_gives = repair ? source.gives_for_repair() : source.eligible;
    switch (c.kind) {
        case ActionKind::move:
            if (!holds(c.source, c.partition) || holds(c.destination, c.partition)) return false;
            if (!copyable(c.partition)) return false;
            if (c.evacuation) {
                return source.evacuating() && destination.hosts_evacuees() &&
                       !excluded(c.partition) && !in_flight(c.partition);
            }
            return movable(c.partition) && source_gives && destination.eligible &&
                   (repair || !returns_early(c.partition, c.destination));
        case ActionKind::swap:
            if (!_config.swaps_allowed) return false;
            if (c.swap_partition >= partition_count() || c.swap_partition == c.partition) return false;
            if (!copyable(c.partition) || !copyable(c.swap_partition)) return false;
            if (!repair && (returns_early(c.partition, c.destination) || returns_early(c.swap_partition, c.source))) {
                return false;
            }
            return movable(c.partition) && movable(c.swap_partition) && source_gives &&
                   destination.eligible && holds(c.source, c.partition) &&
                   !holds(c.destination, c.partition) && holds(c.destination, c.swap_partition) &&
                   !holds(c.source, c.swap_partition);
        case ActionKind::leader:
            if (!_config.leader_changes_allowed) return false;
            if (!repair && leadership_returns_early(c.partition, c.destination)) return false;
            return movable(c.partition) && partition(c.partition).replica_count > 1 &&
                   _leader[c.partition] == static_cast<int32_t>(c.source) &&
                   holds(c.destination, c.partition) && in_sync(c.partition, c.destination) && source_gives &&
                   destination.eligible;
    }
    return false;
}

// ---------------------------------------------------------------- apply / undo

namespace {
std::vector<int32_t> ids_of(const PlanningState& state, std::span<const uint32_t> slots) {
    std::vector<int32_t> ids;
    ids.reserve(slots.size());
    for (uint32_t b : slots) ids.push_back(state.broker_id(b));
    return ids;
}
}  // namespace

Action PlanningState::describe(const Candidate& c, GoalKind goal) const {
    Action action;
    action.kind = c.kind;
    action.partition = c.partition;
    action.source = broker_id(c.source);
    action.destination = broker_id(c.destination);
    action.replicas_before = ids_of(*this, replicas(c.partition));
    if (c.kind == ActionKind::swap) {
        action.swap_partition = c.swap_partition;
        action.swap_replicas_before = ids_of(*this, replicas(c.swap_partition));
    }
    action.goal = goal;
    action.evacuation = c.evacuation;
    action.loads.reserve(2);  // one allocation: a plan records an action per step
    action.loads.push_back({broker_id(c.source), broker_load(c.source), {}});
    action.loads.push_back({broker_id(c.destination), broker_load(c.destination), {}});
    return action;
}

void PlanningState::count_action(const Candidate& c, int32_t delta) {
    for (int side = 0; side < 2; side++) {
        if (!counts_against_budget(c, side)) continue;
        const uint32_t b = c.broker(side);
        const bool before = broker_budget_left(b);
        assert(delta > 0 || _broker_actions[b] > 0);
        _broker_actions[b] = static_cast<uint32_t>(static_cast<int64_t>(_broker_actions[b]) + delta);
        const bool after = broker_budget_left(b);
        if (!_brokers[b].eligible || before == after) continue;
        uint32_t& in_rack = _rack_eligible_with_budget[_brokers[b].rack];
        if (after) {
            _eligible_with_budget++;
            in_rack++;
        } else {
            assert(_eligible_with_budget > 0 && in_rack > 0);
            _eligible_with_budget--;
            in_rack--;
        }
    }
    assert(_eligible_with_budget <= _eligible_count);
}

void PlanningState::apply(const Candidate& c, GoalKind goal) {
    assert(_trials == 0 && "a trial is taken back before anything else applies");
    Action action = describe(c, goal);
    apply_change(c);
    action.replicas_after = ids_of(*this, replicas(c.partition));
    if (c.kind == ActionKind::swap) {
        action.swap_replicas_after = ids_of(*this, replicas(c.swap_partition));
    }
    action.loads[0].after = broker_load(c.source);
    action.loads[1].after = broker_load(c.destination);
    _actions.push_back(std::move(action));
}

void PlanningState::undo_last() {
    assert(_trials == 0 && !_actions.empty());
    _actions.pop_back();
    undo_change();
    _undone++;
}

void PlanningState::apply_trial(const Candidate& c) {
    apply_change(c);
    _trials++;
}

void PlanningState::undo_trial() {
    assert(_trials > 0);
    _trials--;
    undo_change();
}

void PlanningState::apply_change(const Candidate& c) {
    assert(valid(c, true));
    assert(within_broker_budget(c));
    Undo undo;
    undo.candidate = c;
    undo.leader_before = _leader[c.partition];
    const Partition& partition = _model.partitions[c.partition];
    uint32_t* slots = _replicas.data() + partition.replica_begin;
    // Holders change for a move or swap: the partitions' racks are judged
    // again once they stand (rack_open).
    rack_open_change(c, -1);
    holders_changed(c);  // before: the holders that lose an untouched replica
    switch (c.kind) {
        case ActionKind::move:
            undo.slot = slot_of(c.partition, c.source);
            slots[undo.slot] = c.destination;
            topic_add(partition.topic, c.destination, +1);
            topic_add(partition.topic, c.source, -1);
            break;
        case ActionKind::swap: {
            const Partition& other = _model.partitions[c.swap_partition];
            undo.swap_leader_before = _leader[c.swap_partition];
            undo.slot = slot_of(c.partition, c.source);
            undo.swap_slot = slot_of(c.swap_partition, c.destination);
            slots[undo.slot] = c.destination;
            _replicas[other.replica_begin + undo.swap_slot] = c.source;
            _leader[c.swap_partition] = c.swap_leader_after;
            touch(c.swap_partition, +1);
            topic_add(partition.topic, c.destination, +1);
            topic_add(partition.topic, c.source, -1);
            topic_add(other.topic, c.source, +1);
            topic_add(other.topic, c.destination, -1);
            break;
        }
        case ActionKind::leader:
            // The new leader becomes the preferred replica: first in the
            // list, the others keep their order.
            undo.slot = slot_of(c.partition, c.destination);
            std::rotate(slots, slots + undo.slot, slots + undo.slot + 1);
            break;
    }
    rack_open_change(c, +1);
    _leader[c.partition] = c.leader_after;
    touch(c.partition, +1);
    undo.source_load_before = _brokers[c.source].load;
    undo.destination_load_before = _brokers[c.destination].load;
    undo.eligible_load_before = _eligible_load;
    change_broker(c.source, c.load_delta[0], c.replica_delta[0], c.leader_delta[0]);
    change_broker(c.destination, c.load_delta[1], c.replica_delta[1], c.leader_delta[1]);
    totals_changed();
    _undo.push_back(undo);
    count_action(c, +1);
}

void PlanningState::undo_change() {
    assert(!_undo.empty());
    const Undo undo = _undo.back();
    const Candidate& c = undo.candidate;
    _undo.pop_back();
    count_action(c, -1);
    const Partition& partition = _model.partitions[c.partition];
    uint32_t* slots = _replicas.data() + partition.replica_begin;
    rack_open_change(c, -1);
    restore_broker(c.source, undo.source_load_before, -c.replica_delta[0], -c.leader_delta[0]);
    restore_broker(c.destination, undo.destination_load_before, -c.replica_delta[1], -c.leader_delta[1]);
    _eligible_load = undo.eligible_load_before;
    totals_changed();
    switch (c.kind) {
        case ActionKind::move:
            slots[undo.slot] = c.source;
            topic_add(partition.topic, c.source, +1);
            topic_add(partition.topic, c.destination, -1);
            break;
        case ActionKind::swap: {
            const Partition& other = _model.partitions[c.swap_partition];
            slots[undo.slot] = c.source;
            _replicas[other.replica_begin + undo.swap_slot] = c.destination;
            _leader[c.swap_partition] = undo.swap_leader_before;
            touch(c.swap_partition, -1);
            topic_add(partition.topic, c.source, +1);
            topic_add(partition.topic, c.destination, -1);
            topic_add(other.topic, c.destination, +1);
            topic_add(other.topic, c.source, -1);
            break;
        }
        case ActionKind::leader:
            std::rotate(slots, slots + 1, slots + undo.slot + 1);
            break;
    }
    rack_open_change(c, +1);
    holders_changed(c);  // after: the holders that get an untouched replica back
    _leader[c.partition] = undo.leader_before;
    touch(c.partition, -1);
}

}  // namespace ballast::goals
