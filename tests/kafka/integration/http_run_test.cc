// `ballast run` against the real cluster, told what to do through its HTTP
// API as an operator would: paused, a broker drained while paused (nothing
// submitted, Kafka reassigns nothing), resumed (the broker's partitions leave
// it), all of it in the journal and replayed to the same decisions. Waits are
// bounded, never a pass/fail on speed. The fixture is run_test.cc's.

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "tests/kafka/integration/api_client.h"
#include "tests/kafka/integration/run_fixture.h"
#include "tests/support/ballast_cli.h"
#include "tools/metrics/exposition_check.h"

namespace ballast::kafka {
namespace {

using nlohmann::json;
using Reply = testing::ApiReply;

Reply call(const std::string& url, const std::string& method, const std::string& path) {
    return testing::api_call(url, method, path);
}

TEST_F(RunOnKafka, ABrokerDrainedThroughTheApiWhilePausedKeepsItsPartitionsUntilResumedAndMetricsShowTheMoves) {
    // Six RF1 partitions, two a broker: nothing to balance.
    const std::string topic = "ballast-http-drain-" + std::to_string(::getpid());
    create_topic(topic, {{1}, {2}, {3}, {1}, {2}, {3}});
    testing::CountingProducer producer(_bootstrap, topic, 6, 100, 500);
    testing::BallastProcess& ballast = start_ballast(quick_settings());
    const std::string url = testing::api_url(ballast.log());
    ASSERT_FALSE(url.empty()) << ballast.log();
    ASSERT_TRUE(testing::eventually([&] { return call(url, "GET", "/readyz").status == 200; }, 60'000))
        << "never ready: " << call(url, "GET", "/readyz").body;
    EXPECT_EQ(call(url, "GET", "/readyz").body.at("role"), "single");
    auto on_three = [&] { return replicas_per_broker(topic, 6).at(3); };

    // Paused, with nothing of ours in flight.
    ASSERT_EQ(call(url, "POST", "/v1/pause").status, 200);
    ASSERT_TRUE(testing::eventually(
        [&] { return reassigning(topic).empty() && call(url, "GET", "/v1/state").body.at("in_flight").empty(); },
        60'000));
    ASSERT_EQ(on_three(), 2) << "moved before the test began";
    const Reply drained = call(url, "POST", "/v1/brokers/3/drain");
    ASSERT_EQ(drained.status, 200) << drained.body;
    EXPECT_EQ(call(url, "POST", "/v1/rebalance?dryrun=false").status, 409) << "paused";
    // Three detect intervals: the rounds hold every action.
    std::this_thread::sleep_for(std::chrono::seconds(12));
    EXPECT_EQ(on_three(), 2) << "a partition left broker 3 while paused";
    EXPECT_TRUE(reassigning(topic).empty());
    EXPECT_TRUE(call(url, "GET", "/v1/state").body.at("engine").at("paused").get<bool>());
    EXPECT_TRUE(call(url, "GET", "/v1/proposals").body.at("plan").at("actions").empty()) << "the gate releases nothing";

    // Resumed: broker 3's two partitions leave it, and Ballast journals both moves completed.
    ASSERT_EQ(call(url, "POST", "/v1/resume").status, 200);
    ASSERT_TRUE(testing::eventually([&] { return on_three() == 0 && reassigning(topic).empty(); }, 180'000))
        << "broker 3 still holds " << on_three() << " of the topic's partitions";
    Reply completed;
    const auto both_completed = [&] {
        completed = call(url, "GET", "/v1/actions?state=completed");
        int from_three = 0;
        for (const json& a : completed.body.at("actions")) {
            from_three += a.at("action").at("topic") == topic && a.at("action").at("source_broker") == 3;
        }
        return from_three == 2;
    };
    EXPECT_TRUE(testing::eventually(both_completed, 60'000)) << completed.body;

    // What Prometheus scrapes from the same run: valid text, Kafka's three
    // brokers, the producer's traffic, the metadata polled and the moves made.
    const Reply scrape = call(url, "GET", "/metrics");
    ASSERT_EQ(scrape.status, 200);
    EXPECT_EQ(metrics::check_exposition(scrape.text), std::vector<std::string>{});
    EXPECT_EQ(testing::metric_sum(scrape.text, "ballast_role", "role=\"single\""), 1);
    EXPECT_EQ(testing::metric_sum(scrape.text, "ballast_brokers", "state=\"alive\""), 3) << scrape.text;
    EXPECT_GT(testing::metric_sum(scrape.text, "ballast_broker_network_in_bytes_per_second"), 0) << scrape.text;
    EXPECT_GT(testing::metric_sum(scrape.text, "ballast_events_total", "source=\"kafka_metadata\""), 0);
    EXPECT_GE(testing::metric_sum(scrape.text, "ballast_actions_ended_total", "outcome=\"completed\""), 2)
        << scrape.text;
    producer.stop();
    EXPECT_EQ(ballast.terminate(), 0);

    // The journal: no submission between the pause and the resume; the
    // rounds between held what the drain asked for; a replay decides the same.
    uint64_t paused_seq = 0, resumed_seq = 0;
    bool held_while_paused = false;
    const std::vector<json> events = testing::journal_events(journal());
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
    const testing::CliOutcome replay = testing::ballast("replay --journal " + journal());
    EXPECT_EQ(replay.exit_code, 0) << replay.out;
    EXPECT_NE(replay.out.find("identical to the journal"), std::string::npos) << replay.out;
}

}  // namespace
}  // namespace ballast::kafka
