#pragma once

/// A dry run's answer as one JSON object: what `ballast plan --json` prints
/// and what the HTTP API's `GET /v1/proposals` and `POST /v1/rebalance`
/// answer (tools/http/), one shape for both.

#include <nlohmann/json.hpp>

#include "actors/messages.h"

namespace ballast::driver {

/// as_of_seq, time_ms, the plan (its ActionsPlanned as `log show --json`
/// prints it), the goals violated before and after, what cannot be fixed,
/// the actions it planned around, and every broker's load before and after.
nlohmann::ordered_json dry_run_json(const actors::Decision& decision);

/// "alive", "fenced" or "gone".
const char* liveness_name(goals::Liveness liveness);

}  // namespace ballast::driver
