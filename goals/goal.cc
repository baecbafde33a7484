#include "goals/goal.h"

#include <array>
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

GoalContext::GoalContext(PlanningState& state, GoalKind goal, std::vector<const Goal*> guards, Findings& findings)
    : _state(state), _goal(goal), _guards(std::move(guards)), _findings(findings) {
    for (const Goal* guard : _guards) {
        if (guard->judges_placement()) _placement_guards.push_back(guard);
        if (guard->refuses_pairs()) _pair_guards.push_back(guard);
    }
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

bool GoalContext::try_apply_group(std::span<const Candidate> actions) {
    _last_refusal = nullptr;
    if (_state.action_count() + actions.size() > _state.config().actions_max) return false;
    // The soft guards judge the net change from where the group starts:
    // first, since most groups tried (leadership chains) end there, and the
    // trial run below costs more.
    net_changes(actions, _net);
    for (const Goal* guard : _guards) {
        if (guard->hard()) continue;
        if (!guard->accepts_net_changes(_state, _net)) {
            _last_refusal = guard;
            return false;
        }
    }
    // A trial run: each action valid, within budget (a broker in several
    // spends one per action), accepted by every hard guard (the executor
    // may run the actions apart, so a hard goal must hold after each) and
    // placed as the placement guards allow, on the state the ones before
    // it left. Then taken back.
    size_t tried = 0;
    auto take_back = [&] {
        for (; tried > 0; tried--) _state.undo_trial();
    };
    for (const Candidate& c : actions) {
        assert(c.kind != ActionKind::swap);
        if (!_state.within_broker_budget(c) || !_state.valid(c, false)) {
            take_back();
            return false;
        }
        for (const Goal* guard : _guards) {
            const bool judges_each = guard->hard() || (c.kind == ActionKind::move && guard->judges_placement());
            if (judges_each && !guard->accepts(_state, c)) {
                take_back();
                _last_refusal = guard;
                return false;
            }
        }
        _state.apply_trial(c);
        tried++;
    }
    take_back();
    for (const Candidate& c : actions) _state.apply(c, _goal);
    return true;
}

bool GoalContext::placement_allows(const Candidate& c) const {
    if (!_state.within_broker_budget(c) || !_state.valid(c, false)) return false;
    for (const Goal* guard : _placement_guards) {
        if (!guard->accepts(_state, c)) return false;
    }
    return true;
}

bool GoalContext::moves_refused(uint32_t s, uint32_t d, const Load& least) const {
    // The guard that refused last is asked first: a search's refusals come
    // in runs from one guard (a load goal whose band the walk's partners
    // stand at the edge of), and the answer is the same in any order.
    const size_t count = _pair_guards.size();
    for (size_t i = 0; i < count; i++) {
        // (start + i) mod count, without a division per guard asked.
        const size_t at = _last_move_refuser + i < count ? _last_move_refuser + i : _last_move_refuser + i - count;
        if (_pair_guards[at]->refuses_every_move(_state, s, d, least)) {
            _last_move_refuser = at;
            return true;
        }
    }
    return false;
}

bool GoalContext::gives_refused(uint32_t s, const Load& least) const {
    for (const Goal* guard : _pair_guards) {
        if (guard->refuses_giving(_state, s, least)) return true;
    }
    return false;
}

bool GoalContext::takes_refused(uint32_t d, const Load& least) const {
    for (const Goal* guard : _pair_guards) {
        if (guard->refuses_taking(_state, d, least)) return true;
    }
    return false;
}

GoalContext::Placement::Placement(const GoalContext& context, uint32_t p, uint32_t s)
    : _context(context), _p(p), _s(s) {
    assert(context._placement_guards.size() <= 32);
    const size_t guards = context._placement_guards.size();
    _by_rack_all = guards == 32 ? UINT32_MAX : (uint32_t{1} << guards) - 1;
    for (size_t i = 0; i < guards; i++) {
        if (const std::optional<uint64_t> racks = context._placement_guards[i]->refused_racks(context._state, p, s)) {
            _racks |= *racks;
            _by_rack |= uint32_t{1} << i;
        }
    }
}

bool GoalContext::Placement::refused_beyond_racks(uint32_t d) const {
    for (size_t i = 0; i < _context._placement_guards.size(); i++) {
        const Goal* guard = _context._placement_guards[i];
        if (!(_by_rack >> i & 1) && guard->refuses_move(_context._state, _p, _s, d)) return true;
    }
    return false;
}

const Goal* GoalContext::move_refuser(uint32_t p, uint32_t s, uint32_t d) const {
    for (const Goal* guard : _placement_guards) {
        if (guard->refuses_move(_state, p, s, d)) return guard;
    }
    return nullptr;
}

bool GoalContext::try_apply_chain(const Candidate& first, const Candidate& second) {
    assert(first.kind == ActionKind::leader && second.kind == ActionKind::leader);
    assert(first.partition != second.partition);
    const std::array<Candidate, 2> chain{first, second};
    return try_apply_group(chain);
}

void GoalContext::undo_to(size_t mark) {
    assert(mark <= _state.action_count());
    while (_state.action_count() > mark) _state.undo_last();
}

bool refused_by_rack(const GoalContext& context) {
    return context.last_refusal() != nullptr && context.last_refusal()->kind() == GoalKind::rack_aware;
}

}  // namespace ballast::goals
