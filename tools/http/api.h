#pragma once

/// The HTTP API's endpoints (tools/http/README.md has each one's answer):
///
///   GET  /healthz, /readyz                      open: the probes
///   GET  /v1/state, /v1/config, /v1/actions, /v1/decisions, /v1/proposals,
///        /v1/explain/{topic}/{partition}, /v1/brokers/history, /metrics
///   POST /v1/pause, /v1/resume, /v1/rebalance[?dryrun=false]
///   POST /v1/brokers/{id}/drain, /exclude, /include, /v1/actions/{id}/cancel
///   PUT  /v1/config
///
/// Each is work handed to the engine through `EngineAccess`; a change is an
/// input the engine journals (an OperatorCommand or a ConfigChanged from
/// source `operator`), so a replay of the journal makes the same decisions.

#include "events/config.h"
#include "tools/http/engine_access.h"
#include "tools/http/router.h"

namespace ballast::http {

struct ApiOptions {
    /// The settings the process started with: the keys it alone reads
    /// (kafka.*, ballast.http.*) are answered from here, the engine's from
    /// the engine; secrets as [hidden].
    events::Config process_config = events::Config::defaults();
    /// How long a request waits for the engine to take it (owner_thread: the
    /// driver's step ahead of it).
    int64_t engine_timeout_ms = 10'000;
};

void add_api_routes(Router& router, EngineAccess& access, const ApiOptions& options);

/// The dashboard (ui_route.cc): GET / and its files under /ui/, open (the
/// page holds no data; it reads /v1/* with the token the operator types).
/// `token_required`: the page asks for the token before it reads anything.
void add_ui_routes(Router& router, bool token_required);

}  // namespace ballast::http
