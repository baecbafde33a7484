// `ballast run` against the real cluster, told what to do through its HTTP
// API as an operator would: paused, a broker drained while paused (nothing
// submitted, Kafka reassigns nothing), resumed (the broker's partitions leave
// it), all of it in the journal and replayed to the same decisions. Waits are
// bounded, never a pass/fail on speed.

#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <thread>

#include "adapters/kafka/wire/admin_client.h"
#include "tests/kafka/integration/kafka_cluster.h"
#include "tests/kafka/integration/run_support.h"
#include "tests/support/ballast_cli.h"
#include "tests/support/temp_dir.h"

namespace ballast::kafka {
namespace {

using nlohmann::json;
using testing::BallastProcess;

constexpr int64_t reassignments_timeout_ms = 15'000;

struct Reply {
    int status = 0;
    json body;
};

class HttpRunOnKafka : public ::testing::Test {
protected:
    void SetUp() override {
        _bootstrap = testing::bootstrap_servers_from_env();
        ASSERT_FALSE(_bootstrap.empty()) << testing::no_cluster_message();
        events::Result<std::vector<wire::BrokerAddress>> servers = wire::parse_bootstrap_servers(_bootstrap);
        ASSERT_TRUE(servers.ok()) << servers.error().to_string();
        wire::ClientOptions options;
        options.bootstrap_servers = *servers;
        _admin = std::make_unique<wire::AdminClient>(options);
        _rdkafka = std::make_unique<testing::RdKafka>(_bootstrap);
    }
    void TearDown() override {
        if (_ballast && _ballast->running()) _ballast->kill();
        if (HasFailure() && _ballast) {
            const std::string log = _ballast->log();
            std::fprintf(stderr, "---- ballast run, last lines of its log:\n%s\n",
                         log.substr(log.size() > 60000 ? log.size() - 60000 : 0).c_str());
        }
        if (!_topic.empty()) (void)_rdkafka->delete_topic(_topic);
    }

    Reply call(const std::string& method, const std::string& path) {
        httplib::Client client(_url);
        client.set_read_timeout(60, 0);
        httplib::Result r = method == "GET" ? client.Get(path) : client.Post(path, "", "application/json");
        Reply reply;
        if (!r) return reply;
        reply.status = r->status;
        reply.body = json::parse(r->body, nullptr, false);
        return reply;
    }
    int on_broker(int32_t broker) {
        int n = 0;
        for (int32_t p = 0; p < 6; p++) {
            auto state = _rdkafka->partition(_topic, p);
            if (!state.ok()) return -1;
            for (int32_t b : state->replicas) n += b == broker;
        }
        return n;
    }
    bool reassigning() {
        auto listed = _admin->list_partition_reassignments({}, reassignments_timeout_ms);
        if (!listed) return true;
        for (const auto& t : listed->topics) {
            if (t.name == _topic && !t.partitions.empty()) return true;
        }
        return false;
    }

    std::string _bootstrap;
    std::unique_ptr<wire::AdminClient> _admin;
    std::unique_ptr<testing::RdKafka> _rdkafka;
    testing::TempDir _dir;
    std::string _topic;
    std::string _url;
    std::unique_ptr<BallastProcess> _ballast;
};

TEST_F(HttpRunOnKafka, ABrokerDrainedWhilePausedKeepsItsPartitionsUntilResumed) {
    // Six RF1 partitions, two a broker: nothing to balance.
    _topic = "ballast-http-drain-" + std::to_string(::getpid());
    ASSERT_TRUE(_rdkafka->create_topic(_topic, {{1}, {2}, {3}, {1}, {2}, {3}}).ok());
    testing::CountingProducer producer(_bootstrap, _topic, 6, 100, 500);
    const std::string journal = _dir / "journal";
    std::vector<std::string> args;
    for (const char* s : {"ballast.http.listen=127.0.0.1:0", "autobalancer.controller.anomaly.detect.interval.ms=4000",
                          "autobalancer.controller.execution.interval.ms=1000", "ballast.metrics.sample.interval.ms=2000",
                          "ballast.metrics.window.ms=8000", "ballast.metadata.poll.ms=500", "ballast.tick.interval.ms=500"}) {
        args.push_back("--set");
        args.push_back(s);
    }
    args.insert(args.end(), {"run", "--bootstrap-server", _bootstrap, "--journal", journal});
    _ballast = std::make_unique<BallastProcess>(args, _dir / "run.log");
    ASSERT_TRUE(_ballast->wait_for_log("HTTP API on http://", 30'000)) << _ballast->log();
    {
        const std::string log = _ballast->log();
        const size_t from = log.find("HTTP API on ") + std::string("HTTP API on ").size();
        _url = log.substr(from, log.find(' ', from) - from);
    }
    ASSERT_TRUE(testing::eventually([&] { return call("GET", "/readyz").status == 200; }, 60'000))
        << "never ready: " << call("GET", "/readyz").body;
    EXPECT_EQ(call("GET", "/readyz").body.at("role"), "single");

    // Paused, with nothing of ours in flight.
    ASSERT_EQ(call("POST", "/v1/pause").status, 200);
    ASSERT_TRUE(testing::eventually([&] { return !reassigning() && call("GET", "/v1/state").body.at("in_flight").empty(); },
                                    60'000));
    ASSERT_EQ(on_broker(3), 2) << "moved before the test began";
    Reply drained = call("POST", "/v1/brokers/3/drain");
    ASSERT_EQ(drained.status, 200) << drained.body;
    EXPECT_EQ(call("POST", "/v1/rebalance?dryrun=false").status, 409) << "paused";
    // Three detect intervals: the rounds hold every action.
    std::this_thread::sleep_for(std::chrono::seconds(12));
    EXPECT_EQ(on_broker(3), 2) << "a partition left broker 3 while paused";
    EXPECT_FALSE(reassigning());
    EXPECT_TRUE(call("GET", "/v1/state").body.at("engine").at("paused").get<bool>());
    EXPECT_EQ(call("GET", "/v1/proposals").body.at("plan").at("actions").size(), 0u) << "the gate releases nothing";

    // Resumed: broker 3's two partitions leave it.
    ASSERT_EQ(call("POST", "/v1/resume").status, 200);
    ASSERT_TRUE(testing::eventually([&] { return on_broker(3) == 0 && !reassigning(); }, 180'000))
        << "broker 3 still holds " << on_broker(3) << " of the topic's partitions";
    // Ballast journals each completion once its poller has seen it.
    Reply completed;
    const auto both_completed = [&] {
        completed = call("GET", "/v1/actions?state=completed");
        int from_three = 0;
        for (const json& a : completed.body.at("actions")) {
            from_three += a.at("action").at("topic") == _topic && a.at("action").at("source_broker") == 3;
        }
        return from_three == 2;
    };
    EXPECT_TRUE(testing::eventually(both_completed, 60'000)) << completed.body;
    producer.stop();
    EXPECT_EQ(_ballast->terminate(), 0);

    // The journal: no submission between the pause and the resume; the
    // rounds between held what the drain asked for; a replay decides the same.
    uint64_t paused_seq = 0, resumed_seq = 0;
    bool held_while_paused = false;
    std::vector<json> events = testing::journal_events(journal);
    for (const json& e : events) {
        if (e.at("type") != "operator_command") continue;
        if (e.at("command") == "pause") paused_seq = e.at("seq");
        if (e.at("command") == "resume") resumed_seq = e.at("seq");
    }
    ASSERT_GT(paused_seq, 0u);
    ASSERT_GT(resumed_seq, paused_seq);
    for (const json& e : events) {
        const uint64_t seq = e.at("seq");
        if (seq <= paused_seq || seq >= resumed_seq) continue;
        EXPECT_NE(e.at("type"), "action_submitted") << e;
        if (e.at("type") == "actions_planned") {
            EXPECT_TRUE(e.at("actions").empty()) << e;
            held_while_paused |= !e.at("held").empty();
        }
    }
    EXPECT_TRUE(held_while_paused) << "no round held the drain's moves while paused";
    testing::CliOutcome replay = testing::ballast("replay --journal " + journal);
    EXPECT_EQ(replay.exit_code, 0) << replay.out;
    EXPECT_NE(replay.out.find("identical to the journal"), std::string::npos) << replay.out;
}

}  // namespace
}  // namespace ballast::kafka
