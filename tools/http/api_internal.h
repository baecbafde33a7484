#pragma once

/// What the API's two files share (api.cc: the reads and the table;
/// api_commands.cc: the writes). Not for use outside tools/http/.

#include <charconv>
#include <functional>
#include <optional>
#include <string>

#include "events/config.h"
#include "events/result.h"
#include "tools/http/api.h"
#include "tools/http/engine_access.h"
#include "tools/http/router.h"

namespace ballast::actors {
class Engine;
}

namespace ballast::http {

/// Runs `handle` with the engine and the engine's time now; a 503 naming
/// why when there is no engine (starting, a standby, the run ended) or it
/// did not take the work in time.
Response with_engine(EngineAccess& access, const ApiOptions& options,
                     const std::function<Response(actors::Engine&, int64_t now_ms)>& handle);

/// The engine refused or could not answer: 400 for an input it refused,
/// 503 otherwise (it stopped, it did not answer).
Response engine_error(const events::Error& error);

/// An integer parameter in [min, max], or the 400 that names it and the range.
template <typename Int>
std::optional<Int> parse_number(const std::string& text, Int min, Int max, const std::string& what, Response* error) {
    Int value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < min || value > max ||
        text[0] == '-') {
        *error = error_response(400, what + " '" + text + "' is not a number in [" + std::to_string(min) + ", " +
                                         std::to_string(max) + "]");
        return std::nullopt;
    }
    return value;
}

Json readiness_json(const Readiness& readiness);

/// Every key, its value (the engine's for the journaled keys, the
/// process's for the rest; secrets as [hidden]), its origin, whether it is
/// read at start only.
Json config_json(const events::Config& engine_config, const events::Config& process_config);

/// A dry-run round now: `ballast plan --json`'s object.
Response dry_run(actors::Engine& engine);

/// POST /v1/pause, /v1/resume, /v1/rebalance, /v1/brokers/{id}/..., /v1/actions/{id}/cancel, PUT /v1/config.
void add_command_routes(Router& router, EngineAccess& access, const ApiOptions& options);

/// GET /metrics (metrics_route.cc).
void add_metrics_routes(Router& router, EngineAccess& access, const ApiOptions& options);

/// GET /v1/brokers/history (history_route.cc).
void add_history_routes(Router& router, EngineAccess& access, const ApiOptions& options);

}  // namespace ballast::http
