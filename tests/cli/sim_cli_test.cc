/// `ballast demo`, `ballast sim` and `ballast storm` end to end, as a
/// person runs them: what they print, the files they write, their errors.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/ballast_cli.h"
#include "tests/support/temp_dir.h"

namespace ballast::tools {
namespace {

using testing::TempDir;
using Outcome = testing::CliOutcome;
using testing::ballast;
using testing::contains;

TEST(SimCli, TheDemoShowsBothSeedScenariosAndWritesItsChartAndJournals) {
    TempDir dir;
    Outcome demo = ballast("demo --out " + dir.path());
    ASSERT_EQ(demo.exit_code, 0) << demo.out;
    EXPECT_TRUE(contains(demo.out, "== 1. Node change")) << demo.out;
    EXPECT_TRUE(contains(demo.out, "Topic: self-balancing-topic\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1")) << demo.out;
    EXPECT_TRUE(contains(demo.out, "after broker 3 stopped: every partition on brokers 1 and 2")) << demo.out;
    EXPECT_TRUE(contains(demo.out, "== 2. Traffic skew")) << demo.out;
    EXPECT_TRUE(contains(demo.out, "<- skew")) << demo.out;
    EXPECT_TRUE(contains(demo.out, "inside the +-10% band")) << demo.out;
    const std::string svg = dir / "ballast-demo/traffic-skew.svg";
    ASSERT_TRUE(std::filesystem::exists(svg));
    std::ifstream in(svg);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_TRUE(contains(text.str(), "<svg")) << "an SVG file";
    EXPECT_TRUE(contains(text.str(), "broker 1"));
    // The journals replay to the same decisions.
    Outcome replay = ballast("replay --journal " + (dir / "ballast-demo/node-change.journal"));
    EXPECT_EQ(replay.exit_code, 0) << replay.out;
    EXPECT_TRUE(contains(replay.out, "identical to the journal")) << replay.out;
}

TEST(SimCli, ARandomSeedRunsWithItsChecksAndNamesItsVerdict) {
    TempDir dir;
    Outcome sim = ballast("sim --random-seed 3 --check --quiet --journal " + (dir / "j"));
    EXPECT_EQ(sim.exit_code, 0) << sim.out;
    EXPECT_TRUE(contains(sim.out, "check random-3: ok")) << sim.out;
    EXPECT_TRUE(contains(sim.out, "replay: all")) << sim.out;
    // The journal is kept: a second run into it is refused, not mixed in.
    Outcome again = ballast("sim --random-seed 3 --journal " + (dir / "j"));
    EXPECT_EQ(again.exit_code, 1);
    EXPECT_TRUE(contains(again.out, "already holds a journal")) << again.out;
}

TEST(SimCli, AScenarioFileWithAMistakeIsNamed) {
    TempDir dir;
    const std::string file = dir / "bad.json";
    std::ofstream(file) << R"({"brokers": [{"id": 1}], "events": [{"at": "1s", "stop_broker": 9}]})";
    Outcome sim = ballast("sim --scenario " + file);
    EXPECT_EQ(sim.exit_code, 1);
    EXPECT_TRUE(contains(sim.out, file + ": events[0]: broker 9 is not defined")) << sim.out;
    Outcome neither = ballast("sim");
    EXPECT_EQ(neither.exit_code, 1);
    EXPECT_TRUE(contains(neither.out, "give --scenario FILE")) << neither.out;
}

/// `out` without the lines that name the journal (each run has its own).
std::string without_journal(const std::string& out) {
    std::istringstream lines(out);
    std::string line;
    std::string kept;
    while (std::getline(lines, line)) {
        if (!contains(line, "journal")) kept += line + "\n";
    }
    return kept;
}

TEST(SimCli, ATomlScenarioRunsAsItsJsonTwinAndItsMistakesNameTheLine) {
    const char* scenarios = std::getenv("BALLAST_SCENARIOS_DIR");
    ASSERT_NE(scenarios, nullptr) << "BALLAST_SCENARIOS_DIR names adapters/sim/scenarios (meson sets it)";
    TempDir dir;
    const std::string seed = std::string(scenarios) + "/node-change";
    Outcome toml = ballast("sim --quiet --scenario " + seed + ".toml --journal " + (dir / "toml"));
    ASSERT_EQ(toml.exit_code, 0) << toml.out;
    EXPECT_TRUE(contains(toml.out, "scenario node-change (automq, 3 brokers, 1 topics)")) << toml.out;
    Outcome json = ballast("sim --quiet --scenario " + seed + ".json --journal " + (dir / "json"));
    ASSERT_EQ(json.exit_code, 0) << json.out;
    EXPECT_EQ(without_journal(toml.out), without_journal(json.out)) << "the same run, whichever file";

    const std::string file = dir / "bad.toml";
    std::ofstream(file) << "[[brokers]]\nid = 1\n\n[[events]]\nat = \"1s\"\nstop_broker = 9\n";
    Outcome bad = ballast("sim --scenario " + file);
    EXPECT_EQ(bad.exit_code, 1);
    EXPECT_TRUE(contains(bad.out, file + ":4: events[0]: broker 9 is not defined")) << bad.out;
    std::ofstream(dir / "scenario.yaml") << "brokers: [1]\n";
    Outcome yaml = ballast("sim --scenario " + (dir / "scenario.yaml"));
    EXPECT_EQ(yaml.exit_code, 1);
    EXPECT_TRUE(contains(yaml.out, "unknown extension .yaml (a scenario is a .json or a .toml file)")) << yaml.out;
}

/// Timing is for benchmarks: this checks what the storm reports and that no
/// invariant broke, not whether this machine kept up.
TEST(SimCli, AStormReportsItsFiguresAsJson) {
    Outcome storm = ballast("storm --brokers 5 --partitions 200 --rate 2000 --duration 2 --pattern mixed --json");
    const size_t start = storm.out.find('{');
    ASSERT_NE(start, std::string::npos) << storm.out;
    const nlohmann::json j = nlohmann::json::parse(storm.out.substr(start));
    EXPECT_EQ(j["pattern"], "mixed");
    EXPECT_EQ(j["partitions"], 200);
    EXPECT_GT(j["events"].get<uint64_t>(), 0u);
    EXPECT_TRUE(j["breaks"].empty()) << storm.out;
    EXPECT_GE(j["latency_ms"]["p99"].get<double>(), j["latency_ms"]["p50"].get<double>());
    EXPECT_EQ(j["background_priority"], "idle");  // the default: the stream first
    Outcome bad = ballast("storm --pattern hurricane");
    EXPECT_EQ(bad.exit_code, 1);
    EXPECT_TRUE(contains(bad.out, "--pattern hurricane: expected metrics-flood, broker-flap, topic-churn or mixed"))
        << bad.out;
    Outcome bad_priority = ballast("storm --background-priority urgent");
    EXPECT_EQ(bad_priority.exit_code, 1);
    EXPECT_TRUE(contains(bad_priority.out, "--background-priority urgent: expected idle, low or normal"))
        << bad_priority.out;
}

}  // namespace
}  // namespace ballast::tools
