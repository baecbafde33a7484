#pragma once

/// The decisions and actions `GET /v1/decisions` and `GET /v1/actions`
/// answer, read from the journal (its readers are safe beside the writer,
/// store/journal.h), never from the actors. A read looks at a bounded window
/// of the journal so that a request costs the same on a journal of a day or
/// of a year:
///
/// - with `since` (a seq): the events after it, at most `scan_events_max`;
///   the answer's `next_since` is where the next request goes on;
/// - without: the newest `scan_events_max` events (many days of a live run:
///   a tick a second and a metrics report per broker per sample interval),
///   of which the newest `limit` items are answered.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "actors/messages.h"
#include "events/event.h"
#include "events/result.h"
#include "store/journal.h"

namespace ballast::http {

/// Events one request reads at most (~100 ms on this machine's journals).
inline constexpr uint64_t scan_events_max = 100'000;
/// Items one request answers at most, and by default.
inline constexpr size_t items_max = 1000;
inline constexpr size_t items_default = 100;

struct Window {
    uint64_t from_seq = 0;   // the first event read
    uint64_t to_seq = 0;     // the last event read
    uint64_t next_since = 0;  // `since` for the next request
    bool more = false;       // events after next_since were not read yet
};

struct DecisionsPage {
    Window window;
    std::vector<events::Event> decisions;  // ActionsPlanned, oldest first
};

/// The ActionsPlanned events of the window, at most `limit`.
events::Result<DecisionsPage> read_decisions(const store::Journal& journal, std::optional<uint64_t> since, size_t limit);

/// One action as the journal tells it, and the executor when it is in flight.
struct ActionRecord {
    events::Action action;
    uint64_t planned_seq = 0;
    int64_t planned_ms = 0;
    /// planned, in_flight, completed, failed, timed_out, cancelled.
    std::string state;
    uint32_t attempts = 0;    // submissions seen
    int64_t ended_ms = -1;    // when it completed, failed for good, timed out or was cancelled
    int64_t retry_at_ms = -1;  // in flight, waiting to be tried again
    std::string detail;       // the failure, the cancellation's reason
};

/// The known states, for a `state=` that is none of them.
const std::vector<std::string>& action_states();

struct ActionsPage {
    Window window;
    std::vector<ActionRecord> actions;  // by action id
};

/// The actions planned in the window, with what the window says of each,
/// then what the executor says of those in flight (`in_flight`, from
/// Engine::status). Without `since` the actions in flight that were planned
/// before the window are answered too. `state`: only those in it ("": all).
events::Result<ActionsPage> read_actions(const store::Journal& journal, std::optional<uint64_t> since, size_t limit,
                                         const std::string& state, const std::vector<actors::TrackedAction>& in_flight);

}  // namespace ballast::http
