#include "tools/http/journal_tally.h"

#include <algorithm>
#include <optional>
#include <span>
#include <variant>

#include "events/event.h"
#include "store/journal.h"

namespace ballast::http {

JournalTally::KindGoal JournalTally::kind_goal(uint64_t action_id) const {
    auto it = _open_actions.find(action_id);
    return it == _open_actions.end() ? KindGoal{"unknown", "unknown"} : it->second;
}

void JournalTally::count_action_event(const events::Event& e) {
    auto end = [&](uint64_t action_id, const char* outcome, bool final) {
        const KindGoal what = kind_goal(action_id);
        _figures.outcomes[{what.first, what.second, outcome}]++;
        if (final) _open_actions.erase(action_id);
    };
    if (const auto* planned = std::get_if<events::ActionsPlanned>(&e.body)) {
        for (const events::Action& a : planned->actions) {
            KindGoal what{events::action_kind_name(a.kind), a.goal};
            _figures.actions_planned[what]++;
            if (_open_actions.size() >= open_actions_max) _open_actions.erase(_open_actions.begin());
            _open_actions[a.action_id] = std::move(what);
        }
    } else if (const auto* submitted = std::get_if<events::ActionSubmitted>(&e.body)) {
        _figures.submissions[kind_goal(submitted->action_id)]++;
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

events::Result<TallyFigures> JournalTally::update(const store::Journal& journal, uint64_t start_after_seq) {
    std::lock_guard lock(_mutex);
    if (!_started) {
        _figures.counted_to_seq = start_after_seq;
        _started = true;
    }
    // Retention may have cut what was never counted: count on from what is left.
    const uint64_t from = std::max(_figures.counted_to_seq + 1, journal.first_seq());
    const uint64_t last = journal.last_seq();
    if (from <= last) {
        const uint64_t to = std::min(last, from + _events_per_scrape_max - 1);
        // Each record's header is read in place; only the decisions about
        // actions are decoded (a metrics report may hold thousands of samples).
        std::optional<events::Error> failure;
        const events::Status scanned = journal.scan(from, to, [&](uint64_t seq, std::span<const uint8_t> bytes) {
            const events::Header header = events::header(events::view(bytes));
            _figures.events[{events::type_name(header.type), events::source_name(header.source)}]++;
            // ActionsPlanned and the outcomes are the last types of `Body`.
            static_assert(static_cast<uint8_t>(events::EventType::action_cancelled) == events::event_type_count - 1);
            if (header.type >= events::EventType::actions_planned) {
                events::Result<events::Event> decoded = events::decode(bytes);
                if (!decoded) {
                    failure = decoded.error();
                    return false;
                }
                count_action_event(*decoded);
            }
            _figures.counted_to_seq = seq;
            return true;
        });
        if (!scanned) return scanned.error();
        if (failure) return *failure;
    }
    _figures.behind_events = last > _figures.counted_to_seq ? last - _figures.counted_to_seq : 0;
    return _figures;
}

}  // namespace ballast::http
