/// `ballast replay` and `ballast plan` end to end, on journals an engine
/// wrote from seeded event streams.

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "actors/engine.h"
#include "tests/support/ballast_cli.h"
#include "tests/support/cluster_events.h"
#include "tests/support/fake_port.h"
#include "tests/support/temp_dir.h"

namespace ballast::tools {
namespace {

using testing::TempDir;
using Outcome = testing::CliOutcome;
using testing::ballast;
using testing::contains;

/// A journal written by a live engine from a seeded stream, with decisions.
void write_journal(const std::string& path, uint64_t seed, std::vector<std::string> settings = {},
                   int64_t duration_ms = 120'000) {
    events::Config config = events::Config::defaults();
    for (const char* s : {"ballast.cluster.flavor=automq", "ballast.journal.sync=false",
                          "autobalancer.controller.anomaly.detect.interval.ms=10000",
                          "autobalancer.controller.execution.interval.ms=0",
                          "autobalancer.controller.metrics.delay.ms=120000"}) {
        ASSERT_TRUE(config.apply_override(s).ok());
    }
    for (const std::string& s : settings) ASSERT_TRUE(config.apply_override(s).ok()) << s;
    testing::FakePort port;
    actors::EngineOptions options;
    options.config = config;
    options.journal_path = path;
    options.port = &port;
    auto engine = actors::Engine::start(std::move(options));
    ASSERT_TRUE(engine.ok()) << engine.error().to_string();
    ASSERT_TRUE((*engine)->feed(testing::random_stream(seed, duration_ms)).ok());
    ASSERT_TRUE((*engine)->wait_idle().ok());
}

TEST(EngineCli, ReplayOfAnUnchangedJournalFindsEveryDecisionIdentical) {
    TempDir dir;
    write_journal(dir / "j", 7);
    Outcome replay = ballast("replay --journal " + (dir / "j"));
    EXPECT_EQ(replay.exit_code, 0) << replay.out;
    EXPECT_TRUE(contains(replay.out, "identical to the journal")) << replay.out;
    EXPECT_FALSE(contains(replay.out, " 0 decision(s) replayed")) << replay.out;
}

TEST(EngineCli, ReplayFromASnapshotOfARetainedJournal) {
    TempDir dir;
    write_journal(dir / "j", 8, {"ballast.snapshot.interval.events=40", "ballast.journal.retention.ms=0"});
    Outcome replay = ballast("replay --journal " + (dir / "j"));
    EXPECT_EQ(replay.exit_code, 0) << replay.out;
    EXPECT_TRUE(contains(replay.out, "from the snapshot at seq")) << replay.out;
    EXPECT_TRUE(contains(replay.out, "identical to the journal")) << replay.out;
}

TEST(EngineCli, ReplayWithAChangedSettingShowsWhereDecisionsDiffer) {
    TempDir dir;
    write_journal(dir / "j", 9);
    Outcome replay = ballast("replay --journal " + (dir / "j") +
                             " --set ballast.cluster.flavor=apache --set "
                             "autobalancer.controller.goals=NetworkOutUsageDistributionGoal");
    EXPECT_EQ(replay.exit_code, 0) << replay.out;
    EXPECT_TRUE(contains(replay.out, "differ (with the --set changes)")) << replay.out;
    EXPECT_TRUE(contains(replay.out, "journal:")) << replay.out;
}

TEST(EngineCli, ExplainListsTheDecisionsAboutOnePartition) {
    TempDir dir;
    write_journal(dir / "j", 7);
    // Find a partition that moved, from the journal itself.
    Outcome planned = ballast("log show --json --type actions_planned --journal " + (dir / "j"));
    const size_t at = planned.out.find("\"topic\":\"");
    ASSERT_NE(at, std::string::npos) << planned.out;
    const size_t topic_end = planned.out.find('"', at + 9);
    const std::string topic = planned.out.substr(at + 9, topic_end - at - 9);
    const size_t p = planned.out.find("\"partition\":", topic_end);
    const int partition = std::atoi(planned.out.c_str() + p + 12);
    const std::string name = topic + "-" + std::to_string(partition);

    Outcome explain = ballast("replay --journal " + (dir / "j") + " --explain " + name);
    EXPECT_EQ(explain.exit_code, 0) << explain.out;
    EXPECT_TRUE(contains(explain.out, name + ": every decision about it")) << explain.out;
    EXPECT_TRUE(contains(explain.out, "round ")) << explain.out;
    EXPECT_TRUE(contains(explain.out, "metadata: replicas [")) << explain.out;
    EXPECT_TRUE(contains(explain.out, "submitted (attempt 1)")) << explain.out;

    // Read from the partition index, it is what deciding again through a
    // fresh engine says, to the byte.
    Outcome full = ballast("replay --journal " + (dir / "j") + " --explain " + name + " --full-replay");
    EXPECT_EQ(full.exit_code, 0) << full.out;
    auto answer = [&](const std::string& out) {
        const size_t from = out.find(name + ": every decision about it");
        return from == std::string::npos ? std::string() : out.substr(from);
    };
    EXPECT_FALSE(answer(explain.out).empty());
    EXPECT_EQ(answer(explain.out), answer(full.out));

    Outcome bad = ballast("replay --journal " + (dir / "j") + " --explain orders");
    EXPECT_EQ(bad.exit_code, 1);
    EXPECT_TRUE(contains(bad.out, "expected TOPIC-PARTITION")) << bad.out;
}

TEST(EngineCli, PlanPrintsActionsAndBrokerLoadsBeforeAndAfter) {
    TempDir dir;
    write_journal(dir / "j", 7);
    Outcome plan = ballast("plan --journal " + (dir / "j"));
    EXPECT_EQ(plan.exit_code, 0) << plan.out;
    EXPECT_TRUE(contains(plan.out, "plan as of seq ")) << plan.out;
    EXPECT_TRUE(contains(plan.out, "in (before -> after)")) << plan.out;
    Outcome json = ballast("plan --json --journal " + (dir / "j"));
    EXPECT_EQ(json.exit_code, 0) << json.out;
    EXPECT_TRUE(contains(json.out, "\"brokers\":[{\"broker_id\":1")) << json.out;
}

/// The fake port completes nothing: every action the journal's rounds
/// submitted is still running at its end, and the plan lists them as what
/// its round comes after (else "0 actions" reads as "nothing to do").
TEST(EngineCli, PlanListsTheActionsInFlightItPlansAround) {
    TempDir dir;
    write_journal(dir / "j", 7);
    Outcome planned = ballast("log show --json --type actions_planned --journal " + (dir / "j"));
    ASSERT_EQ(planned.exit_code, 0) << planned.out;
    std::set<uint64_t> submitted;
    std::istringstream lines(planned.out);
    for (std::string line; std::getline(lines, line);) {
        if (line.empty() || line[0] != '{') continue;
        const nlohmann::json event = nlohmann::json::parse(line);
        for (const auto& a : event["actions"]) submitted.insert(a["action_id"].get<uint64_t>());
    }
    ASSERT_GT(submitted.size(), 0u) << planned.out;

    Outcome plan = ballast("plan --journal " + (dir / "j"));
    EXPECT_EQ(plan.exit_code, 0) << plan.out;
    EXPECT_TRUE(contains(plan.out, "planned around " + std::to_string(submitted.size()) + " action(s) in flight:"))
        << plan.out;
    EXPECT_FALSE(contains(plan.out, "waiting for")) << "no decision delay: every decision took effect at once";
    EXPECT_FALSE(contains(plan.out, " registered (rack")) << "the replay's history is not the plan:\n" << plan.out;
    Outcome json = ballast("plan --json --journal " + (dir / "j"));
    ASSERT_EQ(json.exit_code, 0) << json.out;
    EXPECT_EQ(nlohmann::json::parse(json.out)["in_flight"].size(), submitted.size()) << json.out;
}

/// With a decision delay, a journal that ends after a round decided and
/// before the Tick that lets the decision take effect: the dry run plans
/// with those actions in flight (the next round will), and says they wait.
TEST(EngineCli, PlanNamesADecisionStillWaitingForItsTick) {
    bool found = false;
    // The stream's length decides where it ends; some lengths end inside a
    // round's delay.
    for (int64_t seconds = 15; seconds <= 60 && !found; seconds++) {
        TempDir dir;
        write_journal(dir / "j", 7, {"ballast.planner.decision.delay.ms=5000"}, seconds * 1000);
        Outcome json = ballast("plan --json --journal " + (dir / "j"));
        ASSERT_EQ(json.exit_code, 0) << json.out;
        size_t waiting = 0;
        const nlohmann::json out = nlohmann::json::parse(json.out);
        for (const auto& a : out["in_flight"]) waiting += a["waiting_for_tick"].get<bool>();
        if (waiting == 0) continue;
        found = true;
        Outcome plan = ballast("plan --journal " + (dir / "j"));
        EXPECT_TRUE(contains(plan.out, "(the last " + std::to_string(waiting) +
                                           " decided, waiting for their Tick to take effect)"))
            << plan.out;
        EXPECT_TRUE(contains(plan.out, "  (waiting for its Tick)")) << plan.out;
    }
    EXPECT_TRUE(found) << "no stream length from 15 s to 60 s ended inside a round's decision delay";
}

/// Only broker 1 reports metrics: the plan names brokers 2 and 3 stale,
/// which is why nothing moves to them although they carry nothing.
TEST(EngineCli, PlanNamesBrokersWhoseMetricsAreStale) {
    TempDir dir;
    const std::string input = dir / "events.jsonl";
    {
        FILE* f = std::fopen(input.c_str(), "w");
        ASSERT_NE(f, nullptr);
        for (int b = 1; b <= 3; b++) {
            std::fprintf(f, "{\"type\":\"broker_registered\",\"time_ms\":0,\"source\":\"simulator\","
                            "\"broker_id\":%d,\"rack\":\"r%d\",\"endpoints\":[]}\n", b, b);
        }
        std::fprintf(f, "{\"type\":\"topic_created\",\"time_ms\":0,\"source\":\"simulator\","
                        "\"topic\":\"t\",\"partition_count\":1,\"replication_factor\":1}\n");
        std::fprintf(f, "{\"type\":\"partition_changed\",\"time_ms\":0,\"source\":\"simulator\","
                        "\"topic\":\"t\",\"partition\":0,\"replicas\":[1],\"leader\":1,\"isr\":[1],"
                        "\"leader_epoch\":0}\n");
        std::fprintf(f, "{\"type\":\"broker_metrics\",\"time_ms\":1000,\"source\":\"simulator\","
                        "\"sample_time_ms\":1000,\"samples\":[{\"broker_id\":1,\"bytes_in_per_s\":9e6,"
                        "\"bytes_out_per_s\":9e6,\"messages_in_per_s\":1,\"size_bytes\":1}]}\n");
        std::fprintf(f, "{\"type\":\"tick\",\"time_ms\":2000,\"source\":\"clock\",\"now_ms\":2000}\n");
        std::fclose(f);
    }
    Outcome append = ballast("log append --journal " + (dir / "j") + " --input " + input);
    ASSERT_EQ(append.exit_code, 0) << append.out;
    Outcome plan = ballast("plan --journal " + (dir / "j"));
    EXPECT_EQ(plan.exit_code, 0) << plan.out;
    EXPECT_TRUE(contains(plan.out, "\n1       r1         alive   fresh ")) << plan.out;
    EXPECT_TRUE(contains(plan.out, "\n2       r2         alive   stale ")) << plan.out;
    EXPECT_TRUE(contains(plan.out, "\n3       r3         alive   stale ")) << plan.out;
    Outcome json = ballast("plan --json --journal " + (dir / "j"));
    EXPECT_TRUE(contains(json.out, "\"broker_id\":2,\"rack\":\"r2\",\"state\":\"alive\","
                                   "\"metrics_fresh\":false")) << json.out;
}

}  // namespace
}  // namespace ballast::tools
