/// The API's write verbs. Each is an input the engine journals before it
/// acts (an OperatorCommand or a ConfigChanged from source `operator`),
/// handed to it as `ballast sim` hands the scenario's commands, so a replay
/// of the journal makes the same decisions; each answers once the engine
/// has applied it (its seq is at most `applied_by_seq`).

#include <charconv>
#include <optional>

#include "actors/engine.h"
#include "events/properties.h"
#include "tools/http/api_internal.h"

namespace ballast::http {

namespace {

using events::CommandKind;

/// The body of a write: nothing, or a JSON object (a `reason`, PUT /v1/config's keys).
std::optional<Json> parse_body(const Request& request, Response* error) {
    if (request.body.find_first_not_of(" \t\r\n") == std::string::npos) return Json::object();
    Json body = Json::parse(request.body, nullptr, false);
    if (body.is_discarded()) {
        *error = error_response(400, "the body is not JSON: " + request.body.substr(0, 80));
        return std::nullopt;
    }
    if (!body.is_object()) {
        *error = error_response(400, "the body is not a JSON object: " + body.dump().substr(0, 80));
        return std::nullopt;
    }
    return body;
}

/// The reason journaled with a command: the body's or the query's, else who sent it.
std::string reason_of(const Request& request, const Json& body) {
    if (auto it = body.find("reason"); it != body.end() && it->is_string() && !it->get<std::string>().empty()) {
        return it->get<std::string>();
    }
    if (auto it = request.query.find("reason"); it != request.query.end() && !it->second.empty()) return it->second;
    return "HTTP API, from " + request.remote_address;
}

/// Journals `command` at the engine's time now, waits until it is applied.
Response feed_command(actors::Engine& engine, int64_t now_ms, events::OperatorCommand command, Json answer,
                      int status = 200) {
    const std::string kind = events::command_kind_name(command.command);
    const std::string reason = command.reason;
    std::vector<events::Event> batch;
    batch.push_back(events::Event{0, now_ms, events::Source::operator_, std::move(command)});
    if (events::Status fed = engine.feed(std::move(batch)); !fed) return engine_error(fed.error());
    if (events::Status idle = engine.wait_idle(); !idle) return engine_error(idle.error());
    answer["command"] = kind;
    answer["reason"] = reason;
    answer["applied_by_seq"] = engine.journal() ? engine.journal()->last_seq() : 0;
    return json_response(status, answer);
}

/// A route whose work needs the request's body and the engine.
using CommandHandler = std::function<Response(const Request&, const Json& body, actors::Engine&, int64_t now_ms)>;
Handler command_route(EngineAccess& access, const ApiOptions& options, CommandHandler handle) {
    return [&access, options, handle = std::move(handle)](const Request& request) {
        Response error;
        const std::optional<Json> body = parse_body(request, &error);
        if (!body) return error;
        return with_engine(access, options, [&](actors::Engine& engine, int64_t now_ms) {
            return handle(request, *body, engine, now_ms);
        });
    };
}

/// A simple command: pause, resume.
Handler plain_command(EngineAccess& access, const ApiOptions& options, CommandKind kind) {
    return command_route(access, options, [kind](const Request& request, const Json& body, actors::Engine& engine,
                                                 int64_t now_ms) {
        events::OperatorCommand command;
        command.command = kind;
        command.reason = reason_of(request, body);
        return feed_command(engine, now_ms, std::move(command), Json::object());
    });
}

/// POST /v1/brokers/{id}/...: a broker the engine knows.
Handler broker_command(EngineAccess& access, const ApiOptions& options, CommandKind kind) {
    return command_route(access, options, [kind](const Request& request, const Json& body, actors::Engine& engine,
                                                 int64_t now_ms) {
        const std::string& text = request.params.at("id");
        int32_t id = -1;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
        if (ec != std::errc() || end != text.data() + text.size() || id < 0) {
            return error_response(400, "broker id '" + text + "' is not a broker id (an integer, 0 or more)");
        }
        events::Result<actors::EngineStatusPtr> status = engine.status();
        if (!status) return engine_error(status.error());
        std::vector<int32_t> known;
        for (const actors::BrokerRecord& b : (*status)->brokers) known.push_back(b.id);
        if (std::find(known.begin(), known.end(), id) == known.end()) {
            std::string names;
            for (const int32_t k : known) names += (names.empty() ? "" : ", ") + std::to_string(k);
            return error_response(404, "no broker " + text + " in the cluster (brokers: " +
                                           (names.empty() ? std::string("none yet") : names) + ")",
                                  Json{{"brokers", known}});
        }
        events::OperatorCommand command;
        command.command = kind;
        command.broker_ids = {id};
        command.reason = reason_of(request, body);
        return feed_command(engine, now_ms, std::move(command), Json{{"broker_id", id}});
    });
}

/// POST /v1/actions/{id}/cancel: an action in flight.
Response cancel_action(const Request& request, const Json& body, actors::Engine& engine, int64_t now_ms) {
    const std::string& text = request.params.at("id");
    uint64_t id = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
    if (ec != std::errc() || end != text.data() + text.size() || id == 0) {
        return error_response(400, "action id '" + text + "' is not an action id (an integer, 1 or more)");
    }
    events::Result<actors::EngineStatusPtr> status = engine.status();
    if (!status) return engine_error(status.error());
    const actors::EngineStatus& s = **status;
    const bool in_flight = std::any_of(s.in_flight.begin(), s.in_flight.end(),
                                       [&](const actors::TrackedAction& t) { return t.action.action_id == id; });
    if (!in_flight) {
        if (id >= s.scheduler.next_action_id) {
            return error_response(404, "no action " + text + (s.scheduler.next_action_id == 1
                                                                  ? std::string(": none has been planned yet")
                                                                  : " (the newest is " +
                                                                        std::to_string(s.scheduler.next_action_id - 1) +
                                                                        ")"));
        }
        return error_response(409, "action " + text + " is not in flight: it completed, failed, timed out or was "
                                       "cancelled (GET /v1/actions says which)");
    }
    events::OperatorCommand command;
    command.command = CommandKind::cancel_actions;
    command.action_ids = {id};
    command.reason = reason_of(request, body);
    return feed_command(engine, now_ms, std::move(command), Json{{"action_id", id}});
}

/// POST /v1/rebalance: a dry run unless dryrun=false; then a round at the next Tick.
Response rebalance(const Request& request, const Json& body, actors::Engine& engine, int64_t now_ms) {
    std::string dryrun = "true";
    if (auto it = request.query.find("dryrun"); it != request.query.end()) dryrun = it->second;
    if (auto it = body.find("dryrun"); it != body.end()) {
        dryrun = it->is_boolean() ? (it->get<bool>() ? "true" : "false") : it->is_string() ? it->get<std::string>() : it->dump();
    }
    if (dryrun != "true" && dryrun != "false") {
        return error_response(400, "dryrun '" + dryrun + "' is not true or false");
    }
    if (dryrun == "true") return dry_run(engine);
    events::Result<actors::EngineStatusPtr> status = engine.status();
    if (!status) return engine_error(status.error());
    if ((*status)->scheduler.paused) {
        return error_response(409, "balancing is paused: POST /v1/resume first (a round now would hold every action)");
    }
    events::OperatorCommand command;
    command.command = CommandKind::rebalance;
    command.reason = reason_of(request, body);
    return feed_command(engine, now_ms, std::move(command),
                        Json{{"message", "a round plans at the next Tick; GET /v1/decisions shows it"}}, 202);
}

/// PUT /v1/config {"key": value, ...}: checked as `--set` checks it, all
/// or nothing; null puts a key back to its default. Journaled as one
/// ConfigChanged of the keys whose value changes.
Response put_config(const Request&, const Json& body, actors::Engine& engine, int64_t now_ms) {
    if (body.empty()) return error_response(400, "the body names no key: send {\"key\": \"value\", ...}");
    events::Result<actors::EngineStatusPtr> status = engine.status();
    if (!status) return engine_error(status.error());
    const events::Config& current = (*status)->config;
    events::Config staged = current;
    events::ConfigChanged change;
    Json changed = Json::array();
    for (const auto& [key, value] : body.items()) {
        const events::KeySpec* spec = events::find_key(key);
        if (spec == nullptr) {
            std::vector<std::string_view> known;
            for (const events::KeySpec& s : events::config_keys()) known.push_back(s.key);
            const std::string closest = events::closest_name(key, known);
            const events::Status set = staged.set(key, "", "PUT /v1/config");  // the message --set gives
            return error_response(400, set.error().message,
                                  Json{{"key", key}, {"did_you_mean", closest.empty() ? Json() : Json(closest)}});
        }
        if (spec->start_only) {
            return error_response(409, "config key '" + key + "' is read when the process starts (" +
                                           (spec->journaled ? "the journal, the adapters' threads and clients"
                                                            : "this process's own setting, never journaled") +
                                           "): it cannot change while Ballast runs; restart with --set " + key + "=...",
                                  Json{{"key", key}});
        }
        std::string text;
        bool reset = false;
        if (value.is_null()) {
            reset = true;
            text = std::string(spec->default_value);
        } else if (value.is_string()) {
            text = value.get<std::string>();
        } else if (value.is_array()) {
            for (const Json& element : value) {
                text += (text.empty() ? "" : ",") + (element.is_string() ? element.get<std::string>() : element.dump());
            }
        } else if (value.is_object()) {
            return error_response(400, "config key '" + key + "': a value is text, a number, a boolean, a list or "
                                           "null (the default), not an object",
                                  Json{{"key", key}});
        } else {
            text = value.dump();  // numbers and booleans as JSON writes them
        }
        if (events::Status set = staged.set(key, text, "PUT /v1/config"); !set) {
            return error_response(400, set.error().message, Json{{"key", key}});
        }
        const std::string was = current.value_text(key);
        const std::string now = staged.value_text(key);
        if (was == now) continue;
        change.entries.push_back(events::ConfigEntry{key, reset ? std::string() : now, reset});
        changed.push_back({{"key", key}, {"value", now}, {"was", was}});
    }
    Json answer{{"changed", changed}};
    if (change.entries.empty()) return json_response(200, answer);  // nothing to journal
    std::vector<events::Event> batch;
    batch.push_back(events::Event{0, now_ms, events::Source::operator_, std::move(change)});
    if (events::Status fed = engine.feed(std::move(batch)); !fed) return engine_error(fed.error());
    if (events::Status idle = engine.wait_idle(); !idle) return engine_error(idle.error());
    answer["applied_by_seq"] = engine.journal() ? engine.journal()->last_seq() : 0;
    return json_response(200, answer);
}

}  // namespace

void add_command_routes(Router& router, EngineAccess& access, const ApiOptions& options) {
    router.add("POST", "/v1/pause", Access::write, plain_command(access, options, CommandKind::pause));
    router.add("POST", "/v1/resume", Access::write, plain_command(access, options, CommandKind::resume));
    router.add("POST", "/v1/rebalance", Access::write, command_route(access, options, rebalance));
    router.add("POST", "/v1/brokers/{id}/drain", Access::write,
               broker_command(access, options, CommandKind::drain_brokers));
    router.add("POST", "/v1/brokers/{id}/exclude", Access::write,
               broker_command(access, options, CommandKind::exclude_brokers));
    router.add("POST", "/v1/brokers/{id}/include", Access::write,
               broker_command(access, options, CommandKind::include_brokers));
    router.add("POST", "/v1/actions/{id}/cancel", Access::write, command_route(access, options, cancel_action));
    router.add("PUT", "/v1/config", Access::write, command_route(access, options, put_config));
}

}  // namespace ballast::http
