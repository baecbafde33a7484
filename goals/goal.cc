#include "goals/goal.h"

#include <cassert>

#include "goals/goal_search.h"

namespace ballast::goals {

void Findings::add(uint32_t partition, int32_t broker_id, GoalKind goal, std::string reason) {
    if (_list.size() >= _max) {
        _omitted++;
        return;
    }
    _list.push_back({partition, broker_id, goal, std::move(reason)});
}

bool GoalContext::try_apply(const Candidate& c, bool repair) {
    _last_refusal = nullptr;
    // The budgets first: they are the cheapest checks, and the one choke
    // point every goal and the evacuation go through.
    if (!plan_has_room() || !_state.within_broker_budget(c) || !_state.valid(c, repair)) return false;
    for (const Goal* guard : _guards) {
        if (!guard->accepts(_state, c)) {
            _last_refusal = guard;
            return false;
        }
    }
    _state.apply(c, _goal);
    return true;
}

bool GoalContext::try_apply_chain(const Candidate& first, const Candidate& second) {
    _last_refusal = nullptr;
    assert(first.kind == ActionKind::leader && second.kind == ActionKind::leader);
    assert(first.partition != second.partition);
    if (_state.action_count() + 2 > _state.config().actions_max) return false;
    // Different partitions: neither leg changes whether the other is valid.
    if (!_state.valid(first, false) || !_state.valid(second, false)) return false;
    if (!_state.within_broker_budget(first)) return false;
    const NetChanges net = net_changes(first, second);
    for (const Goal* guard : _guards) {
        if (!guard->accepts_leader_changes(_state, net.span())) {
            _last_refusal = guard;
            return false;
        }
    }
    _state.apply(first, _goal);
    // The budget counts actions: a broker in both legs spends two.
    if (!_state.within_broker_budget(second)) {
        _state.undo_last();
        return false;
    }
    _state.apply(second, _goal);
    return true;
}

void GoalContext::undo_to(size_t mark) {
    assert(mark <= _state.action_count());
    while (_state.action_count() > mark) _state.undo_last();
}

bool refused_by_rack(const GoalContext& context) {
    return context.last_refusal() != nullptr && context.last_refusal()->kind() == GoalKind::rack_aware;
}

}  // namespace ballast::goals
