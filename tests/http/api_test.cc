/// The HTTP API's contract, end to end: `ballast sim --realtime` as a real
/// process on a free port (ballast.http.listen=127.0.0.1:0, the port read
/// from what it prints), asked over HTTP as an operator's tools would and
/// with `ballast ctl`: every verb, every error status, the token rules, and
/// that each command is in the journal and replays to the same decisions.
///
/// The simulated cluster is api_client.h's. The tests of `HttpApi` share
/// one process and run in their order; the last stops it and replays its
/// journal.

#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/http/api_client.h"
#include "tests/support/ballast_cli.h"
#include "tests/support/ballast_process.h"
#include "tests/support/temp_dir.h"

namespace ballast::http {
namespace {

using nlohmann::json;
using testing::BallastProcess;
using testing::TempDir;
using testing::contains;
using namespace api_testing;

std::set<std::string> keys_of(const json& object) {
    std::set<std::string> keys;
    for (const auto& [key, value] : object.items()) keys.insert(key);
    return keys;
}

class HttpApi : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir = new TempDir();
        sim = new Sim(start_sim(*dir, {}));
    }
    static void TearDownTestSuite() {
        delete sim;
        delete dir;
    }
    static Reply get(const std::string& path) { return call(sim->url, "GET", path); }
    static Reply post(const std::string& path, const std::string& body = "") { return call(sim->url, "POST", path, body); }
    static Reply put(const std::string& path, const std::string& body) { return call(sim->url, "PUT", path, body); }
    static json broker(int32_t id) {
        const json state = get("/v1/state").body;  // kept: a range-for would not keep the temporary
        for (const json& b : state.at("cluster").at("brokers")) {
            if (b.at("broker_id") == id) return b;
        }
        return nullptr;
    }

    static inline TempDir* dir = nullptr;
    static inline Sim* sim = nullptr;
    /// A partition the drain moved ("topic-N"), and what the API explained of it.
    static inline std::string drained_partition;
    static inline std::string drained_explanation;
};

TEST_F(HttpApi, TheProbesAnswerAndTheStateNamesTheCluster) {
    ASSERT_FALSE(sim->url.empty()) << sim->process->log();
    EXPECT_EQ(get("/healthz").body, (json{{"status", "ok"}}));
    Reply ready = get("/readyz");
    EXPECT_EQ(ready.status, 200);
    EXPECT_EQ(ready.body.at("role"), "simulation");
    EXPECT_TRUE(ready.body.at("ready").get<bool>());

    Reply state = get("/v1/state");
    ASSERT_EQ(state.status, 200) << state.body;
    EXPECT_EQ(state.body.at("journal").at("path"), sim->journal);
    EXPECT_EQ(state.body.at("cluster").at("topics"), 1);
    EXPECT_EQ(state.body.at("cluster").at("partitions"), 6);
    ASSERT_EQ(state.body.at("cluster").at("brokers").size(), 3u);
    EXPECT_EQ(state.body.at("cluster").at("brokers")[0].at("rack"), "a");
    EXPECT_EQ(state.body.at("cluster").at("brokers")[0].at("state"), "alive");
    EXPECT_FALSE(state.body.at("engine").at("paused").get<bool>());
}

TEST_F(HttpApi, AWrongPathMethodOrParameterIsNamed) {
    Reply missing = get("/v1/nothing");
    EXPECT_EQ(missing.status, 404);
    EXPECT_TRUE(contains(missing.body.at("message"), "no route for GET /v1/nothing; the routes are: GET /healthz"));
    Reply wrong = call(sim->url, "DELETE", "/v1/state");
    EXPECT_EQ(wrong.status, 405);
    EXPECT_EQ(wrong.body.at("error"), "method_not_allowed");
    EXPECT_EQ(header(wrong.headers, "Allow"), "GET");
    EXPECT_EQ(post("/v1/state").status, 405);
    EXPECT_EQ(get("/v1/pause").status, 405);

    Reply since = get("/v1/decisions?since=yesterday");
    EXPECT_EQ(since.status, 400);
    EXPECT_EQ(since.body.at("message"), "since 'yesterday' is not a number in [0, 18446744073709551615]");
    EXPECT_EQ(get("/v1/actions?limit=-1").status, 400);
    Reply state = get("/v1/actions?state=running");
    EXPECT_EQ(state.status, 400);
    EXPECT_TRUE(contains(state.body.at("message"), "state 'running' is not one of planned, submitted, in_flight"));
}

TEST_F(HttpApi, PauseAndResumeAreCommandsTheStateShows) {
    Reply paused = post("/v1/pause", R"({"reason": "maintenance window"})");
    ASSERT_EQ(paused.status, 200) << paused.body;
    EXPECT_EQ(paused.body.at("command"), "pause");
    EXPECT_EQ(paused.body.at("reason"), "maintenance window");
    EXPECT_GT(paused.body.at("applied_by_seq").get<uint64_t>(), 0u);
    EXPECT_TRUE(get("/v1/state").body.at("engine").at("paused").get<bool>());

    // A real round while paused would hold everything: refused, named.
    Reply rebalance = post("/v1/rebalance?dryrun=false");
    EXPECT_EQ(rebalance.status, 409);
    EXPECT_TRUE(contains(rebalance.body.at("message"), "balancing is paused: POST /v1/resume first"));
    EXPECT_EQ(post("/v1/pause", "not json").status, 400);
    EXPECT_EQ(post("/v1/pause", "[1]").body.at("message"), "the body is not a JSON object: [1]");

    Reply resumed = post("/v1/resume");
    ASSERT_EQ(resumed.status, 200) << resumed.body;
    EXPECT_EQ(resumed.body.at("reason"), "HTTP API, from 127.0.0.1");
    EXPECT_FALSE(get("/v1/state").body.at("engine").at("paused").get<bool>());
}

TEST_F(HttpApi, TheConfigIsCheckedAsSetChecksItAndChangesAsAJournaledInput) {
    Reply config = get("/v1/config");
    ASSERT_EQ(config.status, 200);
    std::map<std::string, json> by_key;
    for (const json& entry : config.body.at("config")) by_key[entry.at("key")] = entry;
    EXPECT_EQ(by_key.at("ballast.http.listen").at("value"), "127.0.0.1:0");
    EXPECT_EQ(by_key.at("ballast.http.listen").at("origin"), "--set");
    EXPECT_EQ(by_key.at("ballast.partition.cooldown.ms").at("value"), "60000");
    EXPECT_TRUE(by_key.at("ballast.tick.interval.ms").at("start_only").get<bool>());

    Reply changed = put("/v1/config", R"({"ballast.partition.cooldown.ms": 120000})");
    ASSERT_EQ(changed.status, 200) << changed.body;
    EXPECT_EQ(changed.body.at("changed"),
              (json::array({{{"key", "ballast.partition.cooldown.ms"}, {"value", "120000"}, {"was", "60000"}}})));
    const json after = get("/v1/config").body;
    for (const json& entry : after.at("config")) {
        if (entry.at("key") != "ballast.partition.cooldown.ms") continue;
        EXPECT_EQ(entry.at("value"), "120000");
        EXPECT_EQ(entry.at("origin"), "ConfigChanged");
    }
    // The same value again changes nothing and journals nothing.
    Reply same = put("/v1/config", R"({"ballast.partition.cooldown.ms": "120000"})");
    EXPECT_EQ(same.body, (json{{"changed", json::array()}}));

    Reply unknown = put("/v1/config", R"({"ballast.partition.cooldown.ms": 1, "ballast.partition.coldown.ms": 5})");
    EXPECT_EQ(unknown.status, 400);
    EXPECT_EQ(unknown.body.at("message"),
              "unknown config key 'ballast.partition.coldown.ms' (did you mean 'ballast.partition.cooldown.ms'?)");
    EXPECT_EQ(unknown.body.at("did_you_mean"), "ballast.partition.cooldown.ms");
    Reply bad = put("/v1/config", R"({"ballast.partition.cooldown.ms": "soon"})");
    EXPECT_EQ(bad.status, 400);
    EXPECT_EQ(bad.body.at("message"), "config key 'ballast.partition.cooldown.ms': value 'soon' is not an integer "
                                      "(expected an integer in [0, 86400000])");
    Reply at_start = put("/v1/config", R"({"ballast.tick.interval.ms": 500})");
    EXPECT_EQ(at_start.status, 409);
    EXPECT_TRUE(contains(at_start.body.at("message"), "restart with --set ballast.tick.interval.ms=..."));
    EXPECT_EQ(put("/v1/config", R"({"ballast.http.auth.token": "mine"})").status, 409);
    EXPECT_EQ(put("/v1/config", "{}").status, 400);
    EXPECT_EQ(put("/v1/config", "{").status, 400);
    // None of the refused requests changed anything (all or nothing).
    const json unchanged = get("/v1/config").body;
    for (const json& entry : unchanged.at("config")) {
        if (entry.at("key") == "ballast.partition.cooldown.ms") {
            EXPECT_EQ(entry.at("value"), "120000");
        }
    }
}

TEST_F(HttpApi, ProposalsAreTheDryRunBallastPlanPrints) {
    Reply proposals = get("/v1/proposals");
    ASSERT_EQ(proposals.status, 200) << proposals.body;
    const testing::CliOutcome plan = testing::ballast("plan --json --journal " + sim->journal);
    ASSERT_EQ(plan.exit_code, 0) << plan.out;
    const json planned = json::parse(plan.out.substr(plan.out.find('{')));
    EXPECT_EQ(keys_of(proposals.body), keys_of(planned));
    EXPECT_EQ(proposals.body.at("plan").at("type"), "actions_planned");
    EXPECT_EQ(proposals.body.at("brokers").size(), 3u);
    // POST /v1/rebalance is the same dry run unless told otherwise.
    EXPECT_EQ(keys_of(post("/v1/rebalance").body), keys_of(planned));
    Reply maybe = post("/v1/rebalance?dryrun=maybe");
    EXPECT_EQ(maybe.status, 400);
    EXPECT_EQ(maybe.body.at("message"), "dryrun 'maybe' is not true or false");
}

TEST_F(HttpApi, ADrainedBrokersPartitionsMoveAtTheRebalanceAndOneIsCancelled) {
    EXPECT_EQ(post("/v1/brokers/three/drain").status, 400);
    Reply unknown = post("/v1/brokers/9/drain");
    EXPECT_EQ(unknown.status, 404);
    EXPECT_EQ(unknown.body.at("message"), "no broker 9 in the cluster (brokers: 1, 2, 3)");

    // The dry run plans nothing: the cluster is even.
    EXPECT_TRUE(get("/v1/proposals").body.at("plan").at("actions").empty());
    Reply drained = post("/v1/brokers/3/drain");
    ASSERT_EQ(drained.status, 200) << drained.body;
    EXPECT_EQ(drained.body.at("command"), "drain_brokers");
    EXPECT_TRUE(broker(3).at("draining").get<bool>());
    EXPECT_EQ(get("/v1/proposals").body.at("plan").at("actions").size(), 2u);

    const uint64_t before = get("/v1/decisions").body.at("next_since");
    Reply rebalance = post("/v1/rebalance?dryrun=false");
    ASSERT_EQ(rebalance.status, 202) << rebalance.body;
    EXPECT_EQ(rebalance.body.at("command"), "rebalance");
    json in_flight;
    ASSERT_TRUE(eventually([&] {
        in_flight = get("/v1/actions?state=in_flight").body.at("actions");
        return in_flight.size() == 2;
    })) << in_flight;
    for (const json& a : in_flight) {
        EXPECT_EQ(a.at("action").at("source_broker"), 3);
        EXPECT_TRUE(contains(a.at("description"), "[Evacuation]"));
        EXPECT_EQ(a.at("attempts"), 1);
    }
    // The round is a decision after `before`.
    Reply decisions = get("/v1/decisions?since=" + std::to_string(before));
    ASSERT_EQ(decisions.body.at("decisions").size(), 1u) << decisions.body;
    const json& round = decisions.body.at("decisions")[0];
    EXPECT_EQ(round.at("actions").size(), 2u);
    const uint64_t round_seq = round.at("seq");
    EXPECT_TRUE(get("/v1/decisions?since=" + std::to_string(round_seq)).body.at("decisions").empty());

    drained_partition = in_flight[1].at("action").at("topic").get<std::string>() + "-" +
                        std::to_string(in_flight[1].at("action").at("partition").get<int32_t>());
    const uint64_t id = in_flight[0].at("action_id");
    Reply cancelled = post("/v1/actions/" + std::to_string(id) + "/cancel", R"({"reason": "wrong broker"})");
    ASSERT_EQ(cancelled.status, 200) << cancelled.body;
    EXPECT_EQ(cancelled.body.at("command"), "cancel_actions");
    json listed = get("/v1/actions?state=cancelled").body.at("actions");
    ASSERT_EQ(listed.size(), 1u) << listed;
    EXPECT_EQ(listed[0].at("action_id"), id);
    EXPECT_EQ(listed[0].at("detail"), "wrong broker");
    EXPECT_EQ(get("/v1/state").body.at("in_flight").size(), 1u);

    Reply again = post("/v1/actions/" + std::to_string(id) + "/cancel");
    EXPECT_EQ(again.status, 409);
    EXPECT_TRUE(contains(again.body.at("message"), "is not in flight"));
    EXPECT_EQ(post("/v1/actions/999999/cancel").status, 404);
    EXPECT_EQ(post("/v1/actions/first/cancel").status, 400);
}

TEST_F(HttpApi, ExplainAnswersFromThePartitionIndex) {
    ASSERT_FALSE(drained_partition.empty());
    const size_t dash = drained_partition.rfind('-');
    const std::string topic = drained_partition.substr(0, dash);
    const std::string partition = drained_partition.substr(dash + 1);
    Reply explained = get("/v1/explain/" + topic + "/" + partition);
    ASSERT_EQ(explained.status, 200) << explained.body;
    EXPECT_EQ(explained.body.at("topic"), topic);
    EXPECT_EQ(std::to_string(explained.body.at("partition").get<int32_t>()), partition);
    drained_explanation = explained.body.at("explanation").get<std::string>();
    EXPECT_TRUE(contains(drained_explanation, "MOVE " + drained_partition + " 3 -> ")) << drained_explanation;
    EXPECT_TRUE(contains(drained_explanation, "[Evacuation]")) << drained_explanation;
    EXPECT_TRUE(contains(explained.body.at("how").get<std::string>(), "partition index")) << explained.body;
    EXPECT_GT(explained.body.at("events_read").get<uint64_t>(), 0u);

    Reply not_a_number = get("/v1/explain/" + topic + "/first");
    EXPECT_EQ(not_a_number.status, 400);
    EXPECT_EQ(not_a_number.body.at("message"), "partition 'first' is not a number in [0, 2147483647]");
    EXPECT_EQ(get("/v1/explain/" + topic).status, 404);
}

TEST_F(HttpApi, TheBrokersHistoryAnswersEachBrokersSeriesTheBandAndTheMoves) {
    // The drain's moves are in the window; every broker has reported at least once.
    json history;
    ASSERT_TRUE(eventually([&] {
        history = get("/v1/brokers/history?window_ms=3600000&points=2").body;
        return history.contains("brokers") && history.at("brokers").size() == 3;
    })) << history;
    EXPECT_EQ(history.at("window_ms"), 3'600'000);
    EXPECT_EQ(history.at("points_max"), 2);
    EXPECT_EQ(history.at("to_ms").get<int64_t>() - history.at("from_ms").get<int64_t>(), 3'600'000);
    EXPECT_TRUE(history.at("complete").get<bool>());
    EXPECT_GT(history.at("events_read").get<uint64_t>(), 0u);
    EXPECT_LE(history.at("events_read").get<uint64_t>(),
              history.at("to_seq").get<uint64_t>() - history.at("from_seq").get<uint64_t>() + 1);
    for (const json& broker : history.at("brokers")) {
        EXPECT_GE(broker.at("points").size(), 1u) << broker;
        EXPECT_LE(broker.at("points").size(), 2u) << broker;
        for (const json& p : broker.at("points")) {
            EXPECT_GE(p.at(0).get<int64_t>(), history.at("from_ms").get<int64_t>());
            EXPECT_LE(p.at(0).get<int64_t>(), history.at("to_ms").get<int64_t>());
            EXPECT_GT(p.at(1).get<double>(), 0) << "each broker leads partitions that take traffic in";
        }
    }
    EXPECT_EQ(history.at("band").at("allowed_deviation_in"), 0.1);
    EXPECT_EQ(history.at("band").at("mean").size(), history.at("brokers").at(0).at("points").size());
    // The drain's two evacuations, one cancelled, marked with when they were planned.
    int evacuations = 0;
    for (const json& m : history.at("moves")) {
        if (m.at("goal") != "Evacuation") continue;
        evacuations++;
        EXPECT_EQ(m.at("source_broker"), 3);
        EXPECT_GE(m.at("planned_ms").get<int64_t>(), history.at("from_ms").get<int64_t>());
    }
    EXPECT_EQ(evacuations, 2) << history.at("moves");

    Reply word = get("/v1/brokers/history?window_ms=hour");
    EXPECT_EQ(word.status, 400);
    EXPECT_EQ(word.body.at("message"), "window_ms 'hour' is not a number in [1000, 604800000]");
    Reply tiny = get("/v1/brokers/history?window_ms=10");
    EXPECT_EQ(tiny.status, 400);
    EXPECT_EQ(tiny.body.at("message"), "window_ms '10' is not a number in [1000, 604800000]");
    EXPECT_EQ(get("/v1/brokers/history?window_ms=604800001").status, 400);
    EXPECT_EQ(get("/v1/brokers/history?points=0").body.at("message"), "points '0' is not a number in [1, 1000]");
    EXPECT_EQ(get("/v1/brokers/history?points=1001").status, 400);
    EXPECT_EQ(post("/v1/brokers/history").status, 405);
}

TEST_F(HttpApi, TheDashboardIsServedOpenWithItsContentTypesAndOnlyItsOwnSources) {
    httplib::Client client(sim->url);
    const httplib::Result page = client.Get("/");
    ASSERT_TRUE(page) << httplib::to_string(page.error());
    EXPECT_EQ(page->status, 200);
    EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
    EXPECT_TRUE(contains(page->get_header_value("Content-Security-Policy"), "default-src 'self'; script-src 'self'"));
    EXPECT_EQ(page->get_header_value("X-Content-Type-Options"), "nosniff");
    EXPECT_TRUE(contains(page->body, "<script src=\"/ui/dashboard.js\" defer></script>"));
    // No token configured: the page reads at once.
    EXPECT_TRUE(contains(page->body, "data-token=\"none\"")) << page->body;
    EXPECT_FALSE(contains(page->body, "http://") || contains(page->body, "https://")) << "nothing from elsewhere";
    for (const auto& [file, type] : std::vector<std::pair<std::string, std::string>>{
             {"dashboard.js", "text/javascript; charset=utf-8"},
             {"chart.js", "text/javascript; charset=utf-8"},
             {"dashboard.css", "text/css; charset=utf-8"},
             {"favicon.svg", "image/svg+xml"}}) {
        const httplib::Result asset = client.Get("/ui/" + file);
        ASSERT_TRUE(asset);
        EXPECT_EQ(asset->status, 200) << file;
        EXPECT_EQ(asset->get_header_value("Content-Type"), type) << file;
        EXPECT_FALSE(asset->body.empty()) << file;
    }
    Reply missing = get("/ui/jquery.js");
    EXPECT_EQ(missing.status, 404);
    EXPECT_EQ(missing.body.at("message"),
              "no dashboard file 'jquery.js'; the files are: chart.js, dashboard.css, dashboard.js, favicon.svg");
    EXPECT_EQ(get("/ui/index.html").status, 404);
    EXPECT_EQ(post("/").status, 405);
}

TEST_F(HttpApi, ExcludeAndIncludeABroker) {
    ASSERT_EQ(post("/v1/brokers/2/exclude").status, 200);
    EXPECT_TRUE(broker(2).at("excluded").get<bool>());
    ASSERT_EQ(post("/v1/brokers/2/include").status, 200);
    EXPECT_FALSE(broker(2).at("excluded").get<bool>());
    EXPECT_EQ(post("/v1/brokers/-1/exclude").status, 400);
}

TEST_F(HttpApi, CtlIsAThinClientOfTheSameApi) {
    const std::string url = " --url " + sim->url + " ";
    testing::CliOutcome status = testing::ballast("ctl" + url + "status");
    ASSERT_EQ(status.exit_code, 0) << status.out;
    EXPECT_TRUE(contains(status.out, "instance: simulation, ready")) << status.out;
    EXPECT_TRUE(contains(status.out, "draining")) << status.out;  // broker 3, from the test before
    testing::CliOutcome as_json = testing::ballast("ctl status --json" + url);
    ASSERT_EQ(as_json.exit_code, 0) << as_json.out;
    EXPECT_EQ(json::parse(as_json.out).at("cluster").at("partitions"), 6);

    testing::CliOutcome paused = testing::ballast("ctl" + url + "pause");
    EXPECT_EQ(paused.exit_code, 0) << paused.out;
    EXPECT_TRUE(contains(paused.out, "paused (applied by seq ")) << paused.out;
    EXPECT_TRUE(contains(testing::ballast("ctl" + url + "resume").out, "resumed (applied by seq "));
    testing::CliOutcome proposals = testing::ballast("ctl" + url + "proposals");
    EXPECT_TRUE(contains(proposals.out, "action(s) the gate would release now")) << proposals.out;

    testing::CliOutcome config = testing::ballast("ctl" + url + "config ballast.partition.cooldown.ms=90000");
    EXPECT_EQ(config.exit_code, 0) << config.out;
    EXPECT_TRUE(contains(config.out, "ballast.partition.cooldown.ms: 120000 -> 90000")) << config.out;
    EXPECT_TRUE(contains(testing::ballast("ctl" + url + "config").out,
                         "ballast.partition.cooldown.ms=90000    # from ConfigChanged"));

    testing::CliOutcome explained = testing::ballast("ctl" + url + "explain " + drained_partition);
    EXPECT_EQ(explained.exit_code, 0) << explained.out;
    EXPECT_TRUE(contains(explained.out, "MOVE " + drained_partition + " 3 -> ")) << explained.out;
    testing::CliOutcome no_partition = testing::ballast("ctl" + url + "explain orders");
    EXPECT_EQ(no_partition.exit_code, 1);
    EXPECT_TRUE(contains(no_partition.out, "explain orders: expected TOPIC-PARTITION")) << no_partition.out;

    testing::CliOutcome unknown = testing::ballast("ctl" + url + "drain 9");
    EXPECT_EQ(unknown.exit_code, 1);
    EXPECT_TRUE(contains(unknown.out, "ballast: error: POST /v1/brokers/9/drain: 404 no broker 9")) << unknown.out;
    testing::CliOutcome nobody = testing::ballast("ctl --url http://127.0.0.1:1 status");
    EXPECT_EQ(nobody.exit_code, 1);
    EXPECT_TRUE(contains(nobody.out, "cannot reach the Ballast API at http://127.0.0.1:1")) << nobody.out;
}

// Last: stops the simulation and reads what the tests before did in its journal.
TEST_F(HttpApi, EveryCommandIsInTheJournalAndReplaysToTheSameDecisions) {
    EXPECT_EQ(sim->process->terminate(), 0) << sim->process->log();
    EXPECT_TRUE(contains(sim->process->log(), "stopped by SIGTERM at t+")) << sim->process->log();
    std::vector<std::string> commands;
    bool cooldown_changed = false;
    for (const json& e : testing::journal_events(sim->journal)) {
        if (e.at("type") == "operator_command") {
            EXPECT_EQ(e.at("source"), "operator");
            commands.push_back(e.at("command").get<std::string>() + ":" + e.at("reason").get<std::string>());
        }
        if (e.at("type") == "config_changed" && e.at("entries").size() == 1 &&
            e.at("entries")[0].at("key") == "ballast.partition.cooldown.ms") {
            cooldown_changed |= e.at("entries")[0].at("value") == "120000";
        }
    }
    EXPECT_TRUE(cooldown_changed);
    for (const char* expected :
         {"pause:maintenance window", "resume:HTTP API, from 127.0.0.1", "drain_brokers:HTTP API, from 127.0.0.1",
          "rebalance:HTTP API, from 127.0.0.1", "cancel_actions:wrong broker", "exclude_brokers:HTTP API, from 127.0.0.1",
          "include_brokers:HTTP API, from 127.0.0.1"}) {
        EXPECT_NE(std::find(commands.begin(), commands.end(), expected), commands.end()) << expected;
    }
    testing::CliOutcome replay = testing::ballast("replay --journal " + sim->journal);
    EXPECT_EQ(replay.exit_code, 0) << replay.out;
    EXPECT_TRUE(contains(replay.out, "identical to the journal")) << replay.out;

    // What the API explained then, line by line, is what replay --explain
    // prints now (after its heading, which names the seqs read).
    testing::CliOutcome explain = testing::ballast("replay --journal " + sim->journal + " --explain " + drained_partition);
    EXPECT_EQ(explain.exit_code, 0) << explain.out;
    ASSERT_FALSE(drained_explanation.empty());
    std::istringstream lines(drained_explanation);
    std::string line;
    std::getline(lines, line);  // the heading
    size_t at = 0;
    while (std::getline(lines, line)) {
        const size_t found = explain.out.find(line + "\n", at);
        ASSERT_NE(found, std::string::npos) << "not in replay --explain after the last line found: " << line << "\n"
                                            << explain.out;
        at = found + line.size();
    }
}

// ---------------------------------------------------------------- the token and the listener

TEST(HttpApiAccess, ATokenGuardsEveryRouteButTheProbesAndIsNeverShownOrJournaled) {
    TempDir dir;
    Sim sim = start_sim(dir, {"ballast.http.auth.token=s3cret-token"});
    ASSERT_FALSE(sim.url.empty());
    EXPECT_TRUE(contains(sim.process->log(), "(bearer token required)")) << sim.process->log();
    EXPECT_EQ(call(sim.url, "GET", "/healthz").status, 200);
    EXPECT_EQ(call(sim.url, "GET", "/readyz").status, 200);
    // The page is open, and says it must ask for the token before it reads.
    const httplib::Result page = httplib::Client(sim.url).Get("/");
    ASSERT_TRUE(page);
    EXPECT_EQ(page->status, 200);
    EXPECT_TRUE(contains(page->body, "data-token=\"required\""));
    EXPECT_EQ(call(sim.url, "GET", "/v1/brokers/history").status, 401);
    Reply none = call(sim.url, "GET", "/v1/state");
    EXPECT_EQ(none.status, 401);
    EXPECT_EQ(header(none.headers, "WWW-Authenticate"), "Bearer realm=\"ballast\"");
    EXPECT_EQ(call(sim.url, "GET", "/v1/state", "", "wrong").status, 401);
    EXPECT_EQ(call(sim.url, "POST", "/v1/pause", "", "wrong").status, 401);
    EXPECT_EQ(call(sim.url, "GET", "/v1/state", "", "s3cret-token").status, 200);
    EXPECT_EQ(call(sim.url, "POST", "/v1/pause", "", "s3cret-token").status, 200);
    const json config = call(sim.url, "GET", "/v1/config", "", "s3cret-token").body;
    for (const json& entry : config.at("config")) {
        if (entry.at("key") == "ballast.http.auth.token") {
            EXPECT_EQ(entry.at("value"), "[hidden]");
        }
    }
    // ctl: --token, or the setting the server reads.
    EXPECT_EQ(testing::ballast("ctl --url " + sim.url + " --token s3cret-token resume").exit_code, 0);
    testing::CliOutcome from_setting =
        testing::ballast("--set ballast.http.auth.token=s3cret-token ctl --url " + sim.url + " status");
    EXPECT_EQ(from_setting.exit_code, 0) << from_setting.out;
    testing::CliOutcome refused = testing::ballast("ctl --url " + sim.url + " status");
    EXPECT_EQ(refused.exit_code, 1);
    EXPECT_TRUE(contains(refused.out, "401 this API needs a bearer token")) << refused.out;

    EXPECT_EQ(sim.process->terminate(), 0);
    EXPECT_FALSE(contains(sim.process->log(), "s3cret-token"));
    for (const json& e : testing::journal_events(sim.journal)) EXPECT_FALSE(contains(e.dump(), "s3cret")) << e;
}

TEST(HttpApiAccess, BeyondLoopbackWithoutATokenOnlyReadsAnswerAndATokenFileOpensWrites) {
    TempDir dir;
    {
        Sim open = start_sim(dir, {}, "0.0.0.0:0");
        ASSERT_FALSE(open.url.empty());
        EXPECT_TRUE(contains(open.process->log(), "write verbs refused until ballast.http.auth.token is set"));
        EXPECT_EQ(call(open.url, "GET", "/v1/state").status, 200);
        Reply refused = call(open.url, "POST", "/v1/pause");
        EXPECT_EQ(refused.status, 403);
        EXPECT_TRUE(contains(refused.body.at("message"), "set ballast.http.auth.token"));
        EXPECT_EQ(call(open.url, "PUT", "/v1/config", R"({"ballast.partition.cooldown.ms": 1})").status, 403);
    }
    TempDir second;
    const std::string token_file = second / "token";
    std::ofstream(token_file) << "from-a-file\n";
    Sim guarded = start_sim(second, {"ballast.http.auth.token.file=" + token_file}, "0.0.0.0:0");
    ASSERT_FALSE(guarded.url.empty());
    EXPECT_EQ(call(guarded.url, "POST", "/v1/pause").status, 401);
    EXPECT_EQ(call(guarded.url, "POST", "/v1/pause", "", "from-a-file").status, 200);
}

TEST(HttpApiAccess, AnAddressInUseOrNotAnAddressIsRefusedAtStartNamingTheKey) {
    TempDir dir;
    std::ofstream(dir / "scenario.json") << scenario_json;
    // A port this test holds.
    const int holder = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(holder, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(holder, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    ASSERT_EQ(::listen(holder, 1), 0);
    socklen_t length = sizeof address;
    ASSERT_EQ(::getsockname(holder, reinterpret_cast<sockaddr*>(&address), &length), 0);
    const std::string taken = "127.0.0.1:" + std::to_string(ntohs(address.sin_port));
    const std::string sim = " sim --realtime --until 1s --scenario " + (dir / "scenario.json") + " --journal ";
    testing::CliOutcome in_use = testing::ballast("--set ballast.http.listen=" + taken + sim + (dir / "j1"));
    ::close(holder);
    EXPECT_EQ(in_use.exit_code, 1);
    EXPECT_TRUE(contains(in_use.out, "ballast.http.listen=" + taken + ": cannot listen there")) << in_use.out;

    // Another Ballast on the port: refused, not shared (cpp-httplib's
    // default SO_REUSEPORT would let both listen, each taking some requests).
    TempDir first_dir;
    Sim first = start_sim(first_dir, {});
    ASSERT_FALSE(first.url.empty());
    const std::string its_port = first.url.substr(std::string("http://").size());
    testing::CliOutcome second = testing::ballast("--set ballast.http.listen=" + its_port + sim + (dir / "j4"));
    EXPECT_EQ(second.exit_code, 1);
    EXPECT_TRUE(contains(second.out, "ballast.http.listen=" + its_port + ": cannot listen there (Address already in use)"))
        << second.out;
    EXPECT_EQ(first.process->terminate(), 0);

    testing::CliOutcome malformed = testing::ballast("--set ballast.http.listen=localhost" + sim + (dir / "j2"));
    EXPECT_EQ(malformed.exit_code, 1);
    EXPECT_TRUE(contains(malformed.out, "config key 'ballast.http.listen': value 'localhost' is not HOST:PORT"))
        << malformed.out;
    // Empty: no API, and the run goes on.
    testing::CliOutcome none = testing::ballast("--set ballast.http.listen=" + sim + (dir / "j3"));
    EXPECT_EQ(none.exit_code, 0) << none.out;
    EXPECT_FALSE(contains(none.out, "HTTP API on"));
}

}  // namespace
}  // namespace ballast::http
