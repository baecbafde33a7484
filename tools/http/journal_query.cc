#include "tools/http/journal_query.h"

#include <algorithm>
#include <map>

namespace ballast::http {

namespace {

/// The window of a request (see the header).
Window choose_window(const store::Journal& journal, std::optional<uint64_t> since) {
    const uint64_t first = journal.first_seq();
    const uint64_t last = journal.last_seq();
    Window w;
    if (since) {
        w.from_seq = std::max(first, *since + 1);
        w.to_seq = w.from_seq > last ? w.from_seq - 1 : std::min(last, w.from_seq + scan_events_max - 1);
        w.next_since = std::max(*since, w.to_seq);
        w.more = w.to_seq < last;
    } else {
        w.to_seq = last;
        w.from_seq = last + 1 > scan_events_max ? std::max(first, last + 1 - scan_events_max) : first;
        w.next_since = last;
    }
    return w;
}

/// Visits the window's events of the types `wanted`, decoded, in order;
/// `visit` returns false to stop.
template <typename Visit>
events::Status scan_types(const store::Journal& journal, const Window& w, std::initializer_list<events::EventType> wanted,
                          Visit&& visit) {
    if (w.from_seq > w.to_seq) return {};
    return journal.scan(w.from_seq, w.to_seq, [&](uint64_t, std::span<const uint8_t> bytes) {
        const events::Header header = events::header(events::view(bytes));
        if (std::find(wanted.begin(), wanted.end(), header.type) == wanted.end()) return true;
        return visit(events::from_flatbuffer(events::view(bytes)));
    });
}

}  // namespace

events::Result<DecisionsPage> read_decisions(const store::Journal& journal, std::optional<uint64_t> since,
                                             size_t limit) {
    DecisionsPage page;
    page.window = choose_window(journal, since);
    events::Status scanned =
        scan_types(journal, page.window, {events::EventType::actions_planned}, [&](events::Event e) {
            page.decisions.push_back(std::move(e));
            // After `since` the oldest come first, and the next request goes on after the last answered.
            if (since && page.decisions.size() == limit) {
                page.window.more = page.window.more || page.decisions.back().seq < page.window.to_seq;
                page.window.next_since = page.decisions.back().seq;
                return false;
            }
            return true;
        });
    if (!scanned) return scanned.error();
    if (!since && page.decisions.size() > limit) {
        page.decisions.erase(page.decisions.begin(), page.decisions.end() - static_cast<std::ptrdiff_t>(limit));
    }
    return page;
}

const std::vector<std::string>& action_states() {
    static const std::vector<std::string> states = {"planned", "submitted", "in_flight", "completed",
                                                    "failed",  "timed_out", "cancelled"};
    return states;
}

events::Result<ActionsPage> read_actions(const store::Journal& journal, std::optional<uint64_t> since, size_t limit,
                                         const std::string& state, const std::vector<actors::TrackedAction>& in_flight) {
    ActionsPage page;
    page.window = choose_window(journal, since);
    std::map<uint64_t, ActionRecord> records;
    using T = events::EventType;
    events::Status scanned = scan_types(
        journal, page.window,
        {T::actions_planned, T::action_submitted, T::action_completed, T::action_failed, T::action_timed_out,
         T::action_cancelled},
        [&](const events::Event& e) {
            if (const auto* plan = std::get_if<events::ActionsPlanned>(&e.body)) {
                for (const events::Action& a : plan->actions) {
                    records[a.action_id] = ActionRecord{a, e.seq, e.time_ms, "planned", 0, -1, -1, ""};
                }
                return true;
            }
            const uint64_t id = std::visit(
                [](const auto& body) -> uint64_t {
                    if constexpr (requires { body.action_id; }) {
                        return body.action_id;
                    } else {
                        return 0;
                    }
                },
                e.body);
            auto it = records.find(id);
            if (it == records.end()) return true;  // planned before the window
            ActionRecord& r = it->second;
            if (std::holds_alternative<events::ActionSubmitted>(e.body)) {
                r.attempts++;
                r.state = "submitted";
                r.ended_ms = -1;
            } else if (std::holds_alternative<events::ActionCompleted>(e.body)) {
                r.state = "completed";
                r.ended_ms = e.time_ms;
            } else if (const auto* failed = std::get_if<events::ActionFailed>(&e.body)) {
                // For good unless the executor still tracks it (below): a retry comes.
                r.state = "failed";
                r.ended_ms = e.time_ms;
                r.detail = failed->error_name + ": " + failed->message;
            } else if (const auto* timed_out = std::get_if<events::ActionTimedOut>(&e.body)) {
                r.state = "timed_out";
                r.ended_ms = e.time_ms;
                r.detail = "not finished after " + std::to_string(timed_out->timeout_ms) + " ms";
            } else if (const auto* cancelled = std::get_if<events::ActionCancelled>(&e.body)) {
                r.state = "cancelled";
                r.ended_ms = e.time_ms;
                r.detail = cancelled->reason;
            }
            return true;
        });
    if (!scanned) return scanned.error();
    for (const actors::TrackedAction& t : in_flight) {
        auto it = records.find(t.action.action_id);
        if (it == records.end()) {
            if (since) continue;  // planned before the window: not new since then
            it = records.emplace(t.action.action_id, ActionRecord{t.action, 0, t.started_ms, "", 0, -1, -1, ""}).first;
        }
        ActionRecord& r = it->second;
        r.state = "in_flight";
        r.ended_ms = -1;
        r.attempts = std::max(r.attempts, t.attempt);
        r.retry_at_ms = t.next_retry_ms;
    }
    for (auto& [id, record] : records) {
        if (state.empty() || record.state == state) page.actions.push_back(std::move(record));
    }
    if (page.actions.size() > limit) {
        if (since) {
            // Whole decisions, oldest first: the next request goes on after the last one answered.
            // One decision larger than the limit is answered whole.
            const uint64_t cut_seq = page.actions[limit].planned_seq;
            const bool whole_first = page.actions.front().planned_seq == cut_seq;
            while (whole_first ? page.actions.back().planned_seq > cut_seq : page.actions.back().planned_seq >= cut_seq) {
                page.actions.pop_back();
            }
            page.window.next_since = page.actions.back().planned_seq;
            page.window.more = true;
        } else {
            page.actions.erase(page.actions.begin(), page.actions.end() - static_cast<std::ptrdiff_t>(limit));
        }
    }
    return page;
}

}  // namespace ballast::http
