#pragma once

/// What the journal's appends wrote, counted as they write it: events by
/// type and source, actions planned by kind and goal, their submissions,
/// and their ends by outcome. `/metrics` reads these counters
/// (tools/http/metrics_route.cc). Counted in the append, a scrape costs the
/// same however fast events come, and the counters are never behind; the
/// writer pays a store per event and a map update per decision about an
/// action (a few per round). No decision reads them, so replay is unchanged.
///
/// What an open of the journal appended, not what it recovered: Prometheus
/// counters restart with their process. `appended` is the writer's (one
/// thread, as appends are); `figures` from any thread.

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <tuple>
#include <utility>

#include "events/event.h"

namespace ballast::store {

struct TallyFigures {
    /// Events appended, by (type, source); only those with some.
    std::map<std::pair<std::string, std::string>, uint64_t> events;
    /// Actions planned, by (kind, goal).
    std::map<std::pair<std::string, std::string>, uint64_t> actions_planned;
    /// Submissions (each attempt), by (kind, goal).
    std::map<std::pair<std::string, std::string>, uint64_t> submissions;
    /// Ends, by (kind, goal, outcome: completed, failed, timed_out, cancelled).
    std::map<std::tuple<std::string, std::string, std::string>, uint64_t> outcomes;
};

class AppendTally {
public:
    /// Actions whose end is not yet appended, remembered for their kind and
    /// goal; past this the oldest are forgotten (their ends then count as
    /// kind and goal `unknown`).
    static constexpr size_t open_actions_max = 100'000;

    void appended(std::span<const events::Event> batch);
    TallyFigures figures() const;

private:
    using KindGoal = std::pair<std::string, std::string>;
    KindGoal kind_goal(uint64_t action_id) const;
    /// An ActionsPlanned or an action's outcome; under `_mutex`.
    void count_action_event(const events::Event& event);

    // By type * source_count + source. One writer: a relaxed load and store,
    // not a locked add; readers see each count whole.
    std::array<std::atomic<uint64_t>, events::event_type_count * events::source_count> _events{};
    mutable std::mutex _mutex;  // what follows
    TallyFigures _actions;      // its `events` stays empty
    std::map<uint64_t, KindGoal> _open_actions;  // id: kind, goal; oldest first
};

}  // namespace ballast::store
