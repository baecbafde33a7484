#pragma once

/// The inverse of `events::to_json`: reads one JSON object, as `ballast log
/// show --json` prints it, back into an `Event`. `ballast log append` uses it
/// to write hand-made or scripted events into a journal.

#include <string_view>

#include "events/event.h"
#include "events/result.h"

namespace ballast::events {

/// Parses one event. "type" is required; "seq" is optional (the journal
/// assigns sequence numbers on append); "time_ms" defaults to 0, "source" to
/// "tool", and every body field missing from the object takes its default.
/// A field the event kind does not have, a wrong JSON type, or a value out of
/// range is an error naming the field: "field 'broker_id': expected an
/// integer in [-2147483648, 2147483647], got \"x\"".
events::Result<events::Event> event_from_json(std::string_view json);

}  // namespace ballast::events
