#pragma once

/// The counters `/metrics` reads from the journal: what was journaled since
/// this process began counting, by type, and the actions planned and their
/// outcomes by kind and goal. The journal is the record of every input and
/// decision, so counting it (from the server's side, with the journal's
/// readers, safe beside its writer) costs the engine nothing and changes
/// no decision; a replay would count the same.
///
/// Counting starts after the seq the engine recovered up to (what this
/// process journals, as a Prometheus counter restarts with its process) and
/// reads a bounded number of events a scrape (each record's header in place;
/// only ActionsPlanned and the outcomes decoded); a tally further behind
/// catches up over the next scrapes (`behind_events` says by how much).

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>

#include "events/event.h"
#include "events/result.h"

namespace ballast::store {
class Journal;
}

namespace ballast::http {

struct TallyFigures {
    /// Events journaled, by (type, source).
    std::map<std::pair<std::string, std::string>, uint64_t> events;
    /// Actions planned, by (kind, goal).
    std::map<std::pair<std::string, std::string>, uint64_t> actions_planned;
    /// Submissions (each attempt), by (kind, goal).
    std::map<std::pair<std::string, std::string>, uint64_t> submissions;
    /// Ends, by (kind, goal, outcome: completed, failed, timed_out, cancelled).
    std::map<std::tuple<std::string, std::string, std::string>, uint64_t> outcomes;
    uint64_t counted_to_seq = 0;  // the newest seq counted
    uint64_t behind_events = 0;   // journaled and not yet counted
};

class JournalTally {
public:
    /// Reads at most `events_per_scrape_max` events a scrape (by default a
    /// window of the journal reads, tools/http/README.md's `scan_events_max`).
    explicit JournalTally(uint64_t events_per_scrape_max = 100'000) : _events_per_scrape_max(events_per_scrape_max) {}
    /// Actions whose end is not yet journaled, remembered for their kind
    /// and goal; past this the oldest are forgotten (their ends then count
    /// as kind and goal `unknown`).
    static constexpr size_t open_actions_max = 100'000;

    /// Counts what the journal holds past what was counted (from
    /// `start_after_seq` the first time) and answers the counts.
    events::Result<TallyFigures> update(const store::Journal& journal, uint64_t start_after_seq);

private:
    using KindGoal = std::pair<std::string, std::string>;
    KindGoal kind_goal(uint64_t action_id) const;
    /// An ActionsPlanned or an action's outcome.
    void count_action_event(const events::Event& event);

    const uint64_t _events_per_scrape_max;
    std::mutex _mutex;
    bool _started = false;
    TallyFigures _figures;
    std::map<uint64_t, std::pair<std::string, std::string>> _open_actions;  // id: kind, goal; oldest first
};

}  // namespace ballast::http
