#include "store/append_tally.h"

#include <variant>

namespace ballast::store {

void AppendTally::appended(std::span<const events::Event> batch) {
    // ActionsPlanned and the outcomes are the last types of `Body`.
    static_assert(static_cast<uint8_t>(events::EventType::action_cancelled) == events::event_type_count - 1);
    for (const events::Event& e : batch) {
        const events::EventType type = e.type();
        std::atomic<uint64_t>& n =
            _events[static_cast<size_t>(type) * events::source_count + static_cast<size_t>(e.source)];
        n.store(n.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        if (type >= events::EventType::actions_planned) {
            std::lock_guard lock(_mutex);
            count_action_event(e);
        }
    }
}

TallyFigures AppendTally::figures() const {
    TallyFigures out;
    for (size_t type = 0; type < events::event_type_count; type++) {
        for (size_t source = 0; source < events::source_count; source++) {
            const uint64_t n = _events[type * events::source_count + source].load(std::memory_order_relaxed);
            if (n == 0) continue;
            out.events[{events::type_name(static_cast<events::EventType>(type)),
                        events::source_name(static_cast<events::Source>(source))}] = n;
        }
    }
    std::lock_guard lock(_mutex);
    out.actions_planned = _actions.actions_planned;
    out.submissions = _actions.submissions;
    out.outcomes = _actions.outcomes;
    return out;
}

AppendTally::KindGoal AppendTally::kind_goal(uint64_t action_id) const {
    auto it = _open_actions.find(action_id);
    return it == _open_actions.end() ? KindGoal{"unknown", "unknown"} : it->second;
}

void AppendTally::count_action_event(const events::Event& e) {
    auto end = [&](uint64_t action_id, const char* outcome, bool final) {
        const KindGoal what = kind_goal(action_id);
        _actions.outcomes[{what.first, what.second, outcome}]++;
        if (final) _open_actions.erase(action_id);
    };
    if (const auto* planned = std::get_if<events::ActionsPlanned>(&e.body)) {
        for (const events::Action& a : planned->actions) {
            KindGoal what{events::action_kind_name(a.kind), a.goal};
            _actions.actions_planned[what]++;
            if (_open_actions.size() >= open_actions_max) _open_actions.erase(_open_actions.begin());
            _open_actions[a.action_id] = std::move(what);
        }
    } else if (const auto* submitted = std::get_if<events::ActionSubmitted>(&e.body)) {
        _actions.submissions[kind_goal(submitted->action_id)]++;
    } else if (const auto* completed = std::get_if<events::ActionCompleted>(&e.body)) {
        end(completed->action_id, "completed", true);
    } else if (const auto* failed = std::get_if<events::ActionFailed>(&e.body)) {
        end(failed->action_id, "failed", !failed->retriable);  // a retriable one may be tried again
    } else if (const auto* timed_out = std::get_if<events::ActionTimedOut>(&e.body)) {
        end(timed_out->action_id, "timed_out", true);
    } else if (const auto* cancelled = std::get_if<events::ActionCancelled>(&e.body)) {
        end(cancelled->action_id, "cancelled", true);
    }
}

}  // namespace ballast::store
