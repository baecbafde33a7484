/// GET /v1/brokers/history?window_ms=MS&points=N: each broker's bytes in and
/// out over the window (broker_history.h), the band the network
/// distribution goals hold them within, and the actions to mark. The
/// dashboard's chart opens with it, so the last hour is there at once, not
/// only what the browser saw since it opened.

#include <optional>

#include "actors/engine.h"
#include "tools/driver/text_format.h"
#include "tools/http/api_internal.h"
#include "tools/http/broker_history.h"

namespace ballast::http {

namespace {

Json history_json(const BrokerHistory& h, const events::Config& config) {
    Json brokers = Json::array();
    for (const auto& [id, points] : h.brokers) {
        Json series = Json::array();
        for (const HistoryPoint& p : points) series.push_back({p.time_ms, p.bytes_in_per_s, p.bytes_out_per_s});
        brokers.push_back({{"broker_id", id}, {"points", series}});
    }
    Json mean = Json::array();
    for (const BandPoint& b : h.band) mean.push_back({b.time_ms, b.mean_bytes_in_per_s, b.mean_bytes_out_per_s});
    Json moves = Json::array();
    for (const HistoryMove& m : h.moves) {
        moves.push_back({{"action_id", m.action.action_id},
                         {"description", driver::describe_action(m.action)},
                         {"goal", m.action.goal},
                         {"topic", m.action.topic},
                         {"partition", m.action.partition},
                         {"source_broker", m.action.source_broker},
                         {"destination_broker", m.action.destination_broker},
                         {"planned_seq", m.planned_seq},
                         {"planned_ms", m.planned_ms},
                         {"ended_ms", m.ended_ms},
                         {"state", m.state}});
    }
    return {{"from_ms", h.from_ms},
            {"to_ms", h.to_ms},
            {"slice_ms", h.slice_ms},
            {"from_seq", h.from_seq},
            {"to_seq", h.to_seq},
            {"events_read", h.events_read},
            {"complete", h.complete},
            {"points_are", {"time_ms", "bytes_in_per_s", "bytes_out_per_s"}},
            {"brokers", brokers},
            {"band",
             {{"mean", mean},
              {"allowed_deviation_in",
               config.get_double("autobalancer.controller.network.in.distribution.detect.avg.deviation")},
              {"allowed_deviation_out",
               config.get_double("autobalancer.controller.network.out.distribution.detect.avg.deviation")}}},
            {"moves", moves}};
}

/// The query parameter `name` within [min, max], `fallback` when absent;
/// else the 400 that names it and the range.
std::optional<int64_t> parameter(const Request& request, const std::string& name, int64_t min, int64_t max,
                                 int64_t fallback, Response* error) {
    auto it = request.query.find(name);
    if (it == request.query.end()) return fallback;
    return parse_number<int64_t>(it->second, min, max, name, error);
}

Response get_history(EngineAccess& access, const ApiOptions& options, const Request& request) {
    Response error;
    const std::optional<int64_t> window_ms = parameter(request, "window_ms", history_window_ms_min,
                                                       history_window_ms_max, history_window_ms_default, &error);
    if (!window_ms) return error;
    const std::optional<int64_t> points = parameter(request, "points", 1, static_cast<int64_t>(history_points_max),
                                                    static_cast<int64_t>(history_points_default), &error);
    if (!points) return error;
    return with_engine(access, options, [&](actors::Engine& engine, int64_t now_ms) {
        if (!engine.journal()) return error_response(503, "this engine has no journal");
        events::Result<actors::EngineStatusPtr> status = engine.status();
        if (!status) return engine_error(status.error());
        events::Result<BrokerHistory> history = read_broker_history(*engine.journal(), now_ms, *window_ms,
                                                                     static_cast<size_t>(*points));
        if (!history) return engine_error(history.error());
        Json out = history_json(*history, (*status)->config);
        out["window_ms"] = *window_ms;
        out["points_max"] = *points;
        return json_response(200, out);
    });
}

}  // namespace

void add_history_routes(Router& router, EngineAccess& access, const ApiOptions& options) {
    router.add("GET", "/v1/brokers/history", Access::read,
               [&access, options](const Request& r) { return get_history(access, options, r); });
}

}  // namespace ballast::http
