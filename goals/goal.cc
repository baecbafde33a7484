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

void GoalContext::undo_to(size_t mark) {
    assert(mark <= _state.action_count());
    while (_state.action_count() > mark) _state.undo_last();
}

bool refused_by_rack(const GoalContext& context) {
    return context.last_refusal() != nullptr && context.last_refusal()->kind() == GoalKind::rack_aware;
}

}  // namespace ballast::goals
