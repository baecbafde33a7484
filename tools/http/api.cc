#include "tools/http/api.h"

#include <optional>

#include "actors/engine.h"
#include "tools/driver/journal_explain.h"
#include "tools/driver/plan_json.h"
#include "tools/driver/text_format.h"
#include "tools/http/api_internal.h"
#include "tools/http/journal_query.h"

namespace ballast::http {

namespace {

/// `since` and `limit` of the listing endpoints.
struct Paging {
    std::optional<uint64_t> since;
    size_t limit = items_default;
};
std::optional<Paging> parse_paging(const Request& request, Response* error) {
    Paging paging;
    if (auto it = request.query.find("since"); it != request.query.end()) {
        paging.since = parse_number<uint64_t>(it->second, 0, UINT64_MAX, "since", error);
        if (!paging.since) return std::nullopt;
    }
    if (auto it = request.query.find("limit"); it != request.query.end()) {
        const std::optional<size_t> limit = parse_number<size_t>(it->second, 0, items_max, "limit", error);
        if (!limit) return std::nullopt;
        paging.limit = std::max<size_t>(*limit, 1);
    }
    return paging;
}

Json window_json(const Window& w) {
    return {{"from_seq", w.from_seq}, {"to_seq", w.to_seq}, {"next_since", w.next_since}, {"more", w.more}};
}

Json broker_json(const actors::BrokerRecord& b, const actors::EngineStatus& s) {
    const std::vector<int32_t>& excluded_by_config = s.config.get_int_list("autobalancer.controller.exclude.broker.ids");
    const bool excluded = s.scheduler.operator_excluded_brokers.count(b.id) > 0 ||
                          std::find(excluded_by_config.begin(), excluded_by_config.end(), b.id) != excluded_by_config.end();
    return {{"broker_id", b.id},
            {"rack", b.rack},
            {"state", driver::liveness_name(b.liveness)},
            {"since_ms", b.liveness_changed_ms},
            {"registered", b.registered},
            {"draining", s.scheduler.draining_brokers.count(b.id) > 0},
            {"excluded", excluded},
            {"metrics_time_ms", b.metrics_time_ms},
            {"bytes_in_per_s", b.sample.bytes_in_per_s},
            {"bytes_out_per_s", b.sample.bytes_out_per_s},
            {"size_bytes", b.sample.size_bytes}};
}

Json state_json(const actors::EngineStatus& s, const store::Journal* journal, const Readiness& readiness) {
    Json out;
    out["instance"] = readiness_json(readiness);
    if (journal) {
        out["journal"] = {{"path", journal->path()},
                          {"first_seq", journal->first_seq()},
                          {"last_seq", journal->last_seq()}};
    }
    const actors::SchedulerMemory& m = s.scheduler;
    out["engine"] = {{"routed_seq", s.router.last_seq},
                     {"now_ms", s.router.now_ms},
                     {"last_plan_ms", s.router.last_plan_ms},
                     {"rounds_journaled", m.round},
                     {"next_action_id", m.next_action_id},
                     {"paused", m.paused},
                     {"execution_enabled", s.config.get_bool("autobalancer.controller.enable")},
                     {"draining_brokers", m.draining_brokers},
                     {"excluded_brokers", m.operator_excluded_brokers},
                     {"excluded_topics", m.operator_excluded_topics},
                     {"unfixable", m.unfixable},
                     {"broker_notes", m.broker_notes}};
    Json brokers = Json::array();
    for (const actors::BrokerRecord& b : s.brokers) brokers.push_back(broker_json(b, s));
    out["cluster"] = {{"brokers", brokers}, {"topics", s.topics}, {"partitions", s.partitions}};
    Json in_flight = Json::array();
    for (const actors::TrackedAction& t : s.in_flight) {
        in_flight.push_back({{"action_id", t.action.action_id},
                             {"description", driver::describe_action(t.action)},
                             {"attempt", t.attempt},
                             {"started_ms", t.started_ms},
                             {"retry_at_ms", t.next_retry_ms}});
    }
    out["in_flight"] = in_flight;
    return out;
}

/// One action as `log show --json` prints it inside its ActionsPlanned.
Json action_json(const events::Action& action) {
    const events::Event wrapper{0, 0, events::Source::engine, events::ActionsPlanned{0, 0, {action}, {}, {}, {}, {}}};
    return Json::parse(events::to_json(wrapper)).at("actions").at(0);
}

Json action_record_json(const ActionRecord& r) {
    Json out = {{"action_id", r.action.action_id},
                {"state", r.state},
                {"description", driver::describe_action(r.action)},
                {"planned_seq", r.planned_seq},
                {"planned_ms", r.planned_ms},
                {"attempts", r.attempts},
                {"ended_ms", r.ended_ms},
                {"retry_at_ms", r.retry_at_ms},
                {"detail", r.detail}};
    out["action"] = action_json(r.action);
    return out;
}

Response get_state(EngineAccess& access, const ApiOptions& options) {
    return with_engine(access, options, [&](actors::Engine& engine, int64_t) {
        events::Result<actors::EngineStatusPtr> status = engine.status();
        if (!status) return engine_error(status.error());
        return json_response(200, state_json(**status, engine.journal(), access.readiness()));
    });
}

Response get_config(EngineAccess& access, const ApiOptions& options) {
    return with_engine(access, options, [&](actors::Engine& engine, int64_t) {
        events::Result<actors::EngineStatusPtr> status = engine.status();
        if (!status) return engine_error(status.error());
        return json_response(200, config_json((*status)->config, options.process_config));
    });
}

Response get_decisions(EngineAccess& access, const ApiOptions& options, const Request& request) {
    Response error;
    const std::optional<Paging> paging = parse_paging(request, &error);
    if (!paging) return error;
    return with_engine(access, options, [&](actors::Engine& engine, int64_t) {
        if (!engine.journal()) return error_response(503, "this engine has no journal");
        events::Result<DecisionsPage> page = read_decisions(*engine.journal(), paging->since, paging->limit);
        if (!page) return engine_error(page.error());
        Json decisions = Json::array();
        for (const events::Event& e : page->decisions) decisions.push_back(Json::parse(events::to_json(e)));
        Json out = window_json(page->window);
        out["decisions"] = decisions;
        return json_response(200, out);
    });
}

Response get_actions(EngineAccess& access, const ApiOptions& options, const Request& request) {
    Response error;
    const std::optional<Paging> paging = parse_paging(request, &error);
    if (!paging) return error;
    std::string state;
    if (auto it = request.query.find("state"); it != request.query.end()) {
        state = it->second;
        const std::vector<std::string>& known = action_states();
        if (std::find(known.begin(), known.end(), state) == known.end()) {
            std::string names;
            for (const std::string& s : known) names += (names.empty() ? "" : ", ") + s;
            return error_response(400, "state '" + state + "' is not one of " + names, Json{{"states", known}});
        }
    }
    return with_engine(access, options, [&](actors::Engine& engine, int64_t) {
        if (!engine.journal()) return error_response(503, "this engine has no journal");
        events::Result<actors::EngineStatusPtr> status = engine.status();
        if (!status) return engine_error(status.error());
        events::Result<ActionsPage> page =
            read_actions(*engine.journal(), paging->since, paging->limit, state, (*status)->in_flight);
        if (!page) return engine_error(page.error());
        Json actions = Json::array();
        for (const ActionRecord& r : page->actions) actions.push_back(action_record_json(r));
        Json out = window_json(page->window);
        out["actions"] = actions;
        return json_response(200, out);
    });
}

/// GET /v1/explain/{topic}/{partition}: every decision about one partition,
/// as `ballast replay --explain` prints it, from the journal's partition
/// index (a few events read, whatever the journal's length).
Response get_explain(EngineAccess& access, const ApiOptions& options, const Request& request) {
    const std::string& topic = request.params.at("topic");
    Response error;
    const std::optional<int32_t> partition =
        parse_number<int32_t>(request.params.at("partition"), 0, INT32_MAX, "partition", &error);
    if (!partition) return error;
    return with_engine(access, options, [&](actors::Engine& engine, int64_t) {
        if (!engine.journal()) return error_response(503, "this engine has no journal");
        driver::ExplainRequest explain;
        explain.topic = topic;
        explain.partition = *partition;
        events::Result<driver::Explanation> answer = driver::explain_partition(*engine.journal(), explain);
        if (!answer) return engine_error(answer.error());
        return json_response(200, Json{{"topic", topic},
                                       {"partition", *partition},
                                       {"explanation", answer->text},
                                       {"how", answer->how},
                                       {"events_read", answer->events_read}});
    });
}

}  // namespace

Json readiness_json(const Readiness& r) { return {{"role", r.role}, {"ready", r.ready}, {"detail", r.detail}}; }

Response engine_error(const events::Error& error) {
    return error_response(error.code == events::ErrorCode::invalid_argument ? 400 : 503, error.message);
}

Response with_engine(EngineAccess& access, const ApiOptions& options,
                     const std::function<Response(actors::Engine&, int64_t)>& handle) {
    Response response;
    const events::Status called = access.call(
        [&](actors::Engine* engine, int64_t now_ms) {
            if (engine == nullptr) {
                const Readiness r = access.readiness();
                response = error_response(503, "no engine to ask: this instance is " + r.role +
                                                   (r.detail.empty() ? "" : " (" + r.detail + ")"),
                                          Json{{"instance", readiness_json(r)}});
                return;
            }
            response = handle(*engine, now_ms);
        },
        options.engine_timeout_ms);
    if (!called) return error_response(503, called.error().message);
    return response;
}

Json config_json(const events::Config& engine_config, const events::Config& process_config) {
    Json entries = Json::array();
    for (const events::KeySpec& spec : events::config_keys()) {
        const std::string key(spec.key);
        // The engine's settings as it applies them now; the process's own as it started.
        const events::Config& source = spec.journaled ? engine_config : process_config;
        const bool changed = spec.journaled && engine_config.value_text(key) != process_config.value_text(key);
        entries.push_back({{"key", key},
                           {"value", source.display_text(key)},
                           {"origin", changed ? std::string("ConfigChanged") : process_config.origin(key)},
                           {"start_only", spec.start_only}});
    }
    return Json{{"config", entries}};
}

void add_api_routes(Router& router, EngineAccess& access, const ApiOptions& options) {
    router.add("GET", "/healthz", Access::open, [&access, options](const Request&) {
        // Alive: the process answers and its engine, when there is one, has not stopped.
        Response response = json_response(200, {{"status", "ok"}});
        const events::Status called = access.call(
            [&](actors::Engine* engine, int64_t) {
                if (engine == nullptr) return;
                if (events::Status health = engine->health(); !health) {
                    response = error_response(503, health.error().message);
                }
            },
            options.engine_timeout_ms);
        if (!called) return error_response(503, called.error().message);
        return response;
    });
    router.add("GET", "/readyz", Access::open, [&access](const Request&) {
        const Readiness r = access.readiness();
        return json_response(r.ready ? 200 : 503, readiness_json(r));
    });
    router.add("GET", "/v1/state", Access::read, [&access, options](const Request&) { return get_state(access, options); });
    router.add("GET", "/v1/config", Access::read,
               [&access, options](const Request&) { return get_config(access, options); });
    router.add("GET", "/v1/decisions", Access::read,
               [&access, options](const Request& r) { return get_decisions(access, options, r); });
    router.add("GET", "/v1/actions", Access::read,
               [&access, options](const Request& r) { return get_actions(access, options, r); });
    router.add("GET", "/v1/explain/{topic}/{partition}", Access::read,
               [&access, options](const Request& r) { return get_explain(access, options, r); });
    router.add("GET", "/v1/proposals", Access::read, [&access, options](const Request&) {
        return with_engine(access, options, [](actors::Engine& engine, int64_t) { return dry_run(engine); });
    });
    add_command_routes(router, access, options);
    add_metrics_routes(router, access, options);
    add_history_routes(router, access, options);
}

Response dry_run(actors::Engine& engine) {
    events::Result<actors::DecisionPtr> decision = engine.plan_now();
    if (!decision) return engine_error(decision.error());
    return json_response(200, driver::dry_run_json(**decision));
}

}  // namespace ballast::http
