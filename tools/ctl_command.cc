/// `ballast ctl`: a thin client of the HTTP API (tools/http/) of a running
/// `ballast run` or `ballast sim --realtime`: each word is one request, its
/// answer printed for people, or as the API's JSON with --json. The URL and
/// the token come from --url and --token, else from the same settings the
/// server reads (`ballast.http.listen`, `ballast.http.auth.token[.file]`), so
/// `ballast --config ballast.properties ctl status` finds the server that
/// configuration starts.

#include <cinttypes>
#include <cstdio>
#include <memory>

#include <CLI/CLI.hpp>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "events/event_from_json.h"
#include "tools/cli_common.h"
#include "tools/commands.h"
#include "tools/driver/text_format.h"
#include "tools/http/server.h"

namespace ballast::tools {

namespace {

using Json = nlohmann::ordered_json;

struct CtlOptions {
    std::string url;
    std::string token;
    bool json = false;
    std::string id;                     // drain, exclude, include, cancel; explain's TOPIC-PARTITION
    std::vector<std::string> settings;  // config key=value
};

/// A request's answer: the status and the JSON, or why there is none.
struct Answer {
    int status = 0;
    Json body;
};

/// The server `config` starts: its listen address, a wildcard as loopback.
std::string default_url(const events::Config& config) {
    events::Result<events::ListenAddress> listen = events::parse_listen_address(config.get_string("ballast.http.listen"));
    if (!listen) return "http://127.0.0.1:9470";
    if (listen->host == "0.0.0.0") listen->host = "127.0.0.1";
    if (listen->host == "::") listen->host = "::1";
    return "http://" + listen->text();
}

class Client {
public:
    Client(std::string url, const std::string& token) : _url(std::move(url)), _client(_url) {
        _client.set_connection_timeout(5, 0);
        _client.set_read_timeout(120, 0);  // a dry run of a large cluster
        if (!token.empty()) _client.set_bearer_token_auth(token);
    }

    /// The answer, or the error that names the URL and why it failed.
    events::Result<Answer> call(const std::string& method, const std::string& path, const Json& body = nullptr) {
        httplib::Result result = method == "GET" ? _client.Get(path)
                                 : method == "PUT"
                                     ? _client.Put(path, body.is_null() ? std::string() : body.dump(), "application/json")
                                     : _client.Post(path, body.is_null() ? std::string() : body.dump(), "application/json");
        if (!result) {
            return events::make_error(events::ErrorCode::io_error,
                                      "cannot reach the Ballast API at " + _url + " (" + httplib::to_string(result.error()) +
                                          "): is `ballast run` (or `ballast sim --realtime`) running there? --url "
                                          "or ballast.http.listen says where");
        }
        Answer answer;
        answer.status = result->status;
        answer.body = Json::parse(result->body, nullptr, false);
        if (answer.body.is_discarded()) {
            return events::make_error(events::ErrorCode::io_error, _url + path + " answered " +
                                                                       std::to_string(result->status) +
                                                                       " with something that is not JSON");
        }
        return answer;
    }

private:
    std::string _url;
    httplib::Client _client;
};

std::string text_of(const Json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

/// What an action in the API's JSON does, as `ballast plan` prints it.
std::string describe(const Json& action) {
    Json wrapper = {{"type", "actions_planned"}, {"actions", Json::array({action})}};
    events::Result<events::Event> e = events::event_from_json(wrapper.dump());
    if (!e) return action.dump();
    return driver::describe_action(std::get<events::ActionsPlanned>(e->body).actions.at(0));
}

void print_status(const Json& s) {
    const Json& i = s.at("instance");
    std::printf("instance: %s, %s%s\n", text_of(i.at("role")).c_str(), i.at("ready").get<bool>() ? "ready" : "not ready",
                i.at("detail").get<std::string>().empty() ? "" : (" (" + text_of(i.at("detail")) + ")").c_str());
    if (s.contains("journal")) {
        const Json& j = s.at("journal");
        std::printf("journal: %s, seq %s..%s\n", text_of(j.at("path")).c_str(), text_of(j.at("first_seq")).c_str(),
                    text_of(j.at("last_seq")).c_str());
    }
    const Json& e = s.at("engine");
    std::printf("engine: clock %s, last round %s, balancing %s\n",
                driver::format_time_ms(e.at("now_ms").get<int64_t>()).c_str(),
                e.at("last_plan_ms").get<int64_t>() < 0 ? "never"
                                                        : driver::format_time_ms(e.at("last_plan_ms").get<int64_t>()).c_str(),
                e.at("paused").get<bool>() ? "PAUSED" : e.at("execution_enabled").get<bool>() ? "on" : "off (observing)");
    if (!e.at("excluded_topics").empty()) std::printf("topics excluded: %s\n", e.at("excluded_topics").dump().c_str());
    for (const Json& u : e.at("unfixable")) std::printf("cannot fix: %s\n", text_of(u).c_str());
    const Json& c = s.at("cluster");
    std::printf("\n%s topics, %s partitions\n", text_of(c.at("topics")).c_str(), text_of(c.at("partitions")).c_str());
    std::printf("%-7s %-10s %-7s %-12s %-12s %s\n", "broker", "rack", "state", "in", "out", "");
    for (const Json& b : c.at("brokers")) {
        std::string marks = b.at("draining").get<bool>() ? "draining" : "";
        if (b.at("excluded").get<bool>()) marks += marks.empty() ? "excluded" : ", excluded";
        std::printf("%-7s %-10s %-7s %-12s %-12s %s\n", text_of(b.at("broker_id")).c_str(), text_of(b.at("rack")).c_str(),
                    text_of(b.at("state")).c_str(), driver::mib_per_s(b.at("bytes_in_per_s").get<double>()).c_str(),
                    driver::mib_per_s(b.at("bytes_out_per_s").get<double>()).c_str(), marks.c_str());
    }
    std::printf("\n%zu action(s) in flight\n", s.at("in_flight").size());
    for (const Json& a : s.at("in_flight")) {
        std::printf("  %s: %s (attempt %s)\n", text_of(a.at("action_id")).c_str(), text_of(a.at("description")).c_str(),
                    text_of(a.at("attempt")).c_str());
    }
}

void print_proposals(const Json& p) {
    std::printf("plan as of seq %s (%s)\n", text_of(p.at("as_of_seq")).c_str(),
                driver::format_time_ms(p.at("time_ms").get<int64_t>()).c_str());
    const Json& plan = p.at("plan");
    std::printf("%zu action(s) the gate would release now:\n", plan.at("actions").size());
    for (const Json& a : plan.at("actions")) std::printf("  %s\n", describe(a).c_str());
    if (!plan.at("held").empty()) {
        std::printf("%zu more held back by the gate:\n", plan.at("held").size());
        for (const Json& h : plan.at("held")) {
            std::printf("  %s  (%s)\n", describe(h.at("action")).c_str(), text_of(h.at("reason")).c_str());
        }
    }
    for (const Json& u : p.at("unfixable")) std::printf("cannot fix: %s\n", text_of(u).c_str());
}

void print_config(const Json& c) {
    for (const Json& entry : c.at("config")) {
        const std::string origin = text_of(entry.at("origin"));
        std::printf("%s=%s%s%s\n", text_of(entry.at("key")).c_str(), text_of(entry.at("value")).c_str(),
                    origin == "default" ? "" : "    # from ", origin == "default" ? "" : origin.c_str());
    }
}

/// One request and its answer: printed as JSON (--json) or by `print`.
int run_request(const Context& ctx, const CtlOptions& options, const std::string& method, const std::string& path,
                const Json& body, const std::function<void(const Json&)>& print) {
    events::Result<events::Config> config = load_config(ctx.global);
    if (!config) return report_error(config.error());
    std::string token = options.token;
    if (token.empty()) {
        events::Result<std::string> configured = http::configured_token(*config);
        if (!configured) return report_error(configured.error());
        token = *configured;
    }
    Client client(options.url.empty() ? default_url(*config) : options.url, token);
    events::Result<Answer> answer = client.call(method, path, body);
    if (!answer) return report_error(answer.error());
    if (options.json) std::printf("%s\n", answer->body.dump().c_str());
    if (answer->status >= 400) {
        const std::string message = answer->body.contains("message") ? text_of(answer->body.at("message"))
                                                                     : answer->body.dump();
        return report_error(method + " " + path + ": " + std::to_string(answer->status) + " " + message);
    }
    if (!options.json) print(answer->body);
    return exit_ok;
}

/// "paused (applied by seq 1234)".
std::function<void(const Json&)> done(const std::string& what) {
    return [what](const Json& body) {
        std::printf("%s (applied by seq %s)\n", what.c_str(), text_of(body.value("applied_by_seq", Json(0))).c_str());
    };
}

}  // namespace

void register_ctl_command(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<CtlOptions>();
    CLI::App* ctl = app.add_subcommand("ctl", "Ask or tell a running ballast (run, sim --realtime) through its HTTP API");
    ctl->add_option("--url", options->url,
                    "The API, e.g. http://127.0.0.1:9470 (default: from ballast.http.listen)");
    ctl->add_option("--token", options->token,
                    "The bearer token (default: ballast.http.auth.token or ballast.http.auth.token.file)");
    ctl->add_flag("--json", options->json, "Print the API's JSON answer");
    ctl->require_subcommand(1);
    ctl->fallthrough();  // --url, --token and --json after the word too

    auto add = [&](const char* name, const char* description, auto request) {
        CLI::App* command = ctl->add_subcommand(name, description);
        command->callback([&ctx, options, request] { ctx.exit_code = request(ctx, *options); });
        return command;
    };
    add("status", "The instance, the engine, every broker and the actions in flight (GET /v1/state)",
        [](const Context& c, const CtlOptions& o) { return run_request(c, o, "GET", "/v1/state", nullptr, print_status); });
    add("proposals", "A dry-run round now: the actions it would take (GET /v1/proposals)",
        [](const Context& c, const CtlOptions& o) {
            return run_request(c, o, "GET", "/v1/proposals", nullptr, print_proposals);
        });
    add("pause", "Plan nothing and execute nothing new until resumed (POST /v1/pause)",
        [](const Context& c, const CtlOptions& o) { return run_request(c, o, "POST", "/v1/pause", nullptr, done("paused")); });
    add("resume", "Balance again (POST /v1/resume)", [](const Context& c, const CtlOptions& o) {
        return run_request(c, o, "POST", "/v1/resume", nullptr, done("resumed"));
    });
    struct Verb {
        const char* name;
        const char* path;
        const char* description;
        const char* done;
    };
    for (const Verb& verb : {Verb{"drain", "drain", "Move every replica off broker ID (POST /v1/brokers/ID/drain)", "draining broker"},
                             Verb{"exclude", "exclude", "Leave broker ID out of balancing (POST /v1/brokers/ID/exclude)",
                                  "excluded broker"},
                             Verb{"include", "include", "End broker ID's drain or exclusion (POST /v1/brokers/ID/include)",
                                  "included broker"}}) {
        CLI::App* command = add(verb.name, verb.description, [verb](const Context& c, const CtlOptions& o) {
            return run_request(c, o, "POST", "/v1/brokers/" + o.id + "/" + verb.path, nullptr,
                               done(std::string(verb.done) + " " + o.id));
        });
        command->add_option("ID", options->id, "The broker id")->required();
    }
    CLI::App* cancel = add("cancel", "Cancel an action in flight (POST /v1/actions/ACTION/cancel)",
                           [](const Context& c, const CtlOptions& o) {
                               return run_request(c, o, "POST", "/v1/actions/" + o.id + "/cancel", nullptr,
                                                  done("cancelled action " + o.id));
                           });
    cancel->add_option("ACTION", options->id, "The action id (ctl status lists those in flight)")->required();
    CLI::App* config = add(
        "config", "The running configuration (GET /v1/config); with key=value, change it (PUT /v1/config)",
        [](const Context& c, const CtlOptions& o) {
            if (o.settings.empty()) return run_request(c, o, "GET", "/v1/config", nullptr, print_config);
            Json body = Json::object();
            for (const std::string& setting : o.settings) {
                const size_t equals = setting.find('=');
                if (equals == std::string::npos) return report_error("config '" + setting + "': expected key=value");
                body[setting.substr(0, equals)] = setting.substr(equals + 1);
            }
            return run_request(c, o, "PUT", "/v1/config", body, [](const Json& answer) {
                if (answer.at("changed").empty()) std::printf("no change\n");
                for (const Json& change : answer.at("changed")) {
                    std::printf("%s: %s -> %s\n", text_of(change.at("key")).c_str(), text_of(change.at("was")).c_str(),
                                text_of(change.at("value")).c_str());
                }
                if (answer.contains("applied_by_seq")) {
                    std::printf("(applied by seq %s)\n", text_of(answer.at("applied_by_seq")).c_str());
                }
            });
        });
    config->add_option("SETTING", options->settings, "key=value (repeatable; checked as --set checks it)");
    CLI::App* explain = add(
        "explain", "Every decision about one partition, as replay --explain prints it (GET /v1/explain/TOPIC/PARTITION)",
        [](const Context& c, const CtlOptions& o) {
            std::string topic;
            int32_t partition = -1;
            if (!driver::parse_topic_partition(o.id, &topic, &partition)) {
                return report_error("explain " + o.id + ": expected TOPIC-PARTITION, e.g. orders-3");
            }
            return run_request(c, o, "GET", "/v1/explain/" + topic + "/" + std::to_string(partition), nullptr,
                               [](const Json& answer) { std::fputs(text_of(answer.at("explanation")).c_str(), stdout); });
        });
    explain->add_option("TOPIC-PARTITION", options->id, "The partition, e.g. orders-3")->required();
}

}  // namespace ballast::tools
