#include "tools/http/journal_tally.h"

#include <algorithm>
#include <variant>

#include "events/event.h"
#include "store/journal.h"

namespace ballast::http {

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
        events::Result<std::vector<events::Event>> read = journal.read(from, to);
        if (!read) return read.error();
        for (const events::Event& e : *read) {
            const auto type = static_cast<events::EventType>(e.body.index());
            _figures.events[{events::type_name(type), events::source_name(e.source)}]++;
            auto end = [&](uint64_t action_id, const char* outcome, bool final) {
                auto it = _open_actions.find(action_id);
                const std::pair<std::string, std::string> what =
                    it == _open_actions.end() ? std::pair<std::string, std::string>{"unknown", "unknown"} : it->second;
                _figures.outcomes[{what.first, what.second, outcome}]++;
                if (final && it != _open_actions.end()) _open_actions.erase(it);
            };
            if (const auto* planned = std::get_if<events::ActionsPlanned>(&e.body)) {
                for (const events::Action& a : planned->actions) {
                    std::pair<std::string, std::string> what{events::action_kind_name(a.kind), a.goal};
                    _figures.actions_planned[what]++;
                    if (_open_actions.size() >= open_actions_max) {
                        _open_actions.erase(std::min_element(_open_actions.begin(), _open_actions.end())->first);
                    }
                    _open_actions[a.action_id] = std::move(what);
                }
            } else if (const auto* submitted = std::get_if<events::ActionSubmitted>(&e.body)) {
                auto it = _open_actions.find(submitted->action_id);
                _figures.submissions[it == _open_actions.end() ? std::pair<std::string, std::string>{"unknown", "unknown"}
                                                               : it->second]++;
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
        _figures.counted_to_seq = to;
    }
    _figures.behind_events = last > _figures.counted_to_seq ? last - _figures.counted_to_seq : 0;
    return _figures;
}

}  // namespace ballast::http
