/// `ballast plan --model FILE.json`: the planner on a cluster described in
/// JSON, one round or complete, the totals it prints and the assignment it
/// writes for kafka-reassign-partitions; bad models named field by field.

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/ballast_cli.h"
#include "tests/support/temp_dir.h"

namespace ballast::tools {
namespace {

using json = nlohmann::json;
using testing::ballast;
using testing::contains;
using testing::TempDir;

constexpr double mib = 1 << 20;

/// Six brokers on three racks; `partitions` of RF2 crowded onto brokers
/// 1-3, with loads that differ from partition to partition.
json crowded_model(int partitions) {
    json brokers = json::array();
    for (int id = 1; id <= 6; id++) brokers.push_back({{"id", id}, {"rack", "r" + std::to_string(id % 3)}});
    json list = json::array();
    for (int p = 0; p < partitions; p++) {
        const int a = 1 + p % 3;
        const int b = 1 + (p + 1) % 3;
        list.push_back({{"topic", p % 2 ? "orders" : "payments"},
                        {"partition", p / 2},
                        {"replicas", {a, b}},
                        {"leader", a},
                        {"bytes_in_per_s", (1 + p % 7) * mib},
                        {"bytes_out_per_s", (1 + p % 5) * 2 * mib},
                        {"size_bytes", (1 + p % 11) * 64 * mib}});
    }
    return {{"brokers", brokers}, {"partitions", list}};
}

std::string write(const TempDir& dir, const std::string& name, const json& doc) {
    const std::string path = dir / name;
    std::ofstream(path) << doc.dump();
    return path;
}

TEST(PlanModel, ACompletePlanBalancesTheDescribedClusterAndWritesItsAssignment) {
    TempDir dir;
    const json model = crowded_model(120);
    const std::string path = write(dir, "model.json", model);
    const std::string assignment = dir / "assignment.json";
    const auto run = ballast("plan --model " + path + " --complete --json --assignment-out " + assignment);
    ASSERT_EQ(run.exit_code, 0) << run.out;
    const json out = json::parse(run.out);
    EXPECT_TRUE(out["converged"].get<bool>()) << run.out;
    EXPECT_GT(out["moves"].get<uint64_t>(), 0u);
    EXPECT_GT(out["bytes_moved"].get<double>(), 0);
    EXPECT_DOUBLE_EQ(out["before"]["network_in_min_mean"].get<double>(), 0) << "brokers 4-6 start empty";
    EXPECT_LT(out["after"]["network_in_max_mean"].get<double>(), 1.15) << run.out;
    EXPECT_GT(out["after"]["network_in_min_mean"].get<double>(), 0.85) << run.out;
    EXPECT_EQ(out["after"]["rack_violations"].get<uint32_t>(), 0u);

    // The assignment: every partition whose replicas or leader changed, the
    // leader first, and nothing else; applied to the model it gives the
    // plan's replicas per broker.
    std::ifstream in(assignment);
    const json written = json::parse(in);
    EXPECT_EQ(written["version"], 1);
    std::map<std::pair<std::string, int>, std::vector<int>> final_replicas;
    for (const json& p : model["partitions"]) {
        std::vector<int> replicas = p["replicas"].get<std::vector<int>>();
        final_replicas[{p["topic"], p["partition"]}] = replicas;
    }
    for (const json& p : written["partitions"]) {
        auto it = final_replicas.find({p["topic"], p["partition"]});
        ASSERT_NE(it, final_replicas.end()) << p.dump();
        const std::vector<int> replicas = p["replicas"].get<std::vector<int>>();
        ASSERT_EQ(replicas.size(), 2u) << p.dump();
        EXPECT_NE(replicas[0], replicas[1]);
        it->second = replicas;
    }
    EXPECT_GE(written["partitions"].size(), out["partitions_moved"].get<size_t>());
    std::map<int, int> per_broker;
    for (const auto& [key, replicas] : final_replicas) {
        for (int b : replicas) per_broker[b]++;
    }
    EXPECT_EQ(per_broker.size(), 6u) << "every broker holds replicas after it";
    for (const auto& [b, n] : per_broker) {
        EXPECT_GE(n, out["after"]["replicas_min"].get<int>()) << "broker " << b;
        EXPECT_LE(n, out["after"]["replicas_max"].get<int>()) << "broker " << b;
    }
}

TEST(PlanModel, OneRoundIsCappedAsALiveRoundAndTheCapCanBeRaised) {
    TempDir dir;
    // 2,000 RF1 partitions all on broker 1 of four: ~1,500 moves to spread.
    json brokers = json::array({{{"id", 1}}, {{"id", 2}}, {{"id", 3}}, {{"id", 4}}});
    json list = json::array();
    for (int p = 0; p < 2000; p++) {
        list.push_back({{"topic", "t"}, {"partition", p}, {"replicas", {1}}, {"bytes_in_per_s", mib},
                        {"bytes_out_per_s", mib}, {"size_bytes", 0}});
    }
    const std::string path = write(dir, "model.json", {{"brokers", brokers}, {"partitions", list}});
    const std::string uncapped_broker = " --set ballast.broker.max.inflight.moves=100000";
    auto moves = [&](const std::string& more) {
        const auto run = ballast("plan --model " + path + " --json" + uncapped_broker + more);
        EXPECT_EQ(run.exit_code, 0) << run.out;
        return run.exit_code == 0 ? json::parse(run.out)["moves"].get<uint64_t>() : 0;
    };
    EXPECT_EQ(moves(""), 200u) << "four times the execution concurrency (50)";
    EXPECT_GT(moves(" --set ballast.planner.actions.max=5000"), 1000u);
    const auto complete = ballast("plan --model " + path + " --complete --json");
    ASSERT_EQ(complete.exit_code, 0) << complete.out;
    EXPECT_GT(json::parse(complete.out)["moves"].get<uint64_t>(), 1000u) << "no caps in a complete plan";
}

TEST(PlanModel, ABadModelIsNamedFieldByField) {
    TempDir dir;
    auto error_of = [&](const json& doc) {
        const auto run = ballast("plan --model " + write(dir, "bad.json", doc));
        EXPECT_NE(run.exit_code, 0) << run.out;
        return run.out;
    };
    json unknown = crowded_model(2);
    unknown["partitions"][1]["bytes_in"] = 1;
    EXPECT_TRUE(contains(error_of(unknown),
                         "partitions[1].bytes_in: unknown field (valid: topic, partition, replicas, leader, "
                         "bytes_in_per_s, bytes_out_per_s, size_bytes)"))
        << error_of(unknown);
    json stranger = crowded_model(2);
    stranger["partitions"][0]["replicas"] = {1, 9};
    EXPECT_TRUE(contains(error_of(stranger), "partitions[0].replicas[1]: broker 9 is not among the brokers"));
    json leader = crowded_model(2);
    leader["partitions"][0]["leader"] = 5;
    EXPECT_TRUE(contains(error_of(leader), "partitions[0].leader: broker 5 is not one of its replicas"));
    json negative = crowded_model(2);
    negative["partitions"][1]["size_bytes"] = -3;
    EXPECT_TRUE(contains(error_of(negative), "partitions[1].size_bytes: expected a finite number >= 0, got -3"));
    json twice = crowded_model(2);
    twice["partitions"][1] = twice["partitions"][0];
    EXPECT_TRUE(contains(error_of(twice), "partitions[1]: payments-0 is listed twice"));
    const auto journal_only = ballast("plan --complete");
    EXPECT_NE(journal_only.exit_code, 0);
    EXPECT_TRUE(contains(journal_only.out, "--complete, --assignment-out and --score-assignment need --model FILE.json"))
        << journal_only.out;
}

TEST(PlanModel, AnotherBalancersAssignmentIsScoredWithTheSameTotals) {
    TempDir dir;
    const json model = crowded_model(120);
    const std::string path = write(dir, "model.json", model);
    const std::string assignment = dir / "assignment.json";
    const auto planned = ballast("plan --model " + path + " --complete --json --assignment-out " + assignment);
    ASSERT_EQ(planned.exit_code, 0) << planned.out;
    const json plan = json::parse(planned.out);

    // The plan's own answer, scored: the same data moved and the same
    // balance after, with nothing planned.
    const auto scored = ballast("plan --model " + path + " --score-assignment " + assignment + " --json");
    ASSERT_EQ(scored.exit_code, 0) << scored.out;
    const json score = json::parse(scored.out);
    EXPECT_EQ(score["rounds"], 0) << scored.out;
    EXPECT_EQ(score["moves"], 0);
    for (const char* key : {"partitions_moved", "replicas_moved", "bytes_moved", "leaders_changed", "after"}) {
        EXPECT_EQ(score[key], plan[key]) << key;
    }

    // A hand-made answer: one partition's replicas swapped for two empty
    // brokers' and its leadership given to the second, as a peer would write.
    const json first = model["partitions"][0];
    const std::string mine = write(dir, "mine.json", {{"version", 1},
                                                      {"partitions", {{{"topic", first["topic"]},
                                                                       {"partition", first["partition"]},
                                                                       {"replicas", {5, 4}}}}}});
    const auto one = ballast("plan --model " + path + " --score-assignment " + mine + " --json");
    ASSERT_EQ(one.exit_code, 0) << one.out;
    const json moved = json::parse(one.out);
    EXPECT_EQ(moved["partitions_moved"], 1);
    EXPECT_EQ(moved["replicas_moved"], 2);
    EXPECT_DOUBLE_EQ(moved["bytes_moved"].get<double>(), 2 * first["size_bytes"].get<double>());
    EXPECT_EQ(moved["leaders_changed"], 1);
    EXPECT_EQ(moved["after"]["replicas_min"], 0) << "broker 6 still holds nothing";

    auto error_of = [&](const json& doc) {
        const auto run = ballast("plan --model " + path + " --score-assignment " + write(dir, "bad.json", doc));
        EXPECT_NE(run.exit_code, 0) << run.out;
        return run.out;
    };
    const json stranger = {{"partitions", {{{"topic", "orders"}, {"partition", 0}, {"replicas", {1, 9}}}}}};
    EXPECT_TRUE(contains(error_of(stranger), "partitions[0].replicas[1]: 9 is not a broker of the model"));
    const json shrunk = {{"partitions", {{{"topic", "orders"}, {"partition", 0}, {"replicas", {1}}}}}};
    EXPECT_TRUE(contains(error_of(shrunk), "partitions[0].replicas: 1 replicas where the model has 2"));
    const json missing = {{"partitions", {{{"topic", "orders"}, {"partition", 999}, {"replicas", {1, 2}}}}}};
    EXPECT_TRUE(contains(error_of(missing), "partitions[0]: orders-999 is not in the model"));
    const auto both = ballast("plan --model " + path + " --complete --score-assignment " + mine);
    EXPECT_NE(both.exit_code, 0) << "scoring plans nothing: --complete makes no sense with it";
}

/// Topic "pile" has 8 of its replicas on broker 1 of 4: its mean is 2 and
/// its band's upper end max(ceil(2 x 1.5), 2 + 1) = 3, so 5 are over; topic
/// "even" has one on each broker, none over. Moving two of the pile to
/// broker 2 (which then holds 2) leaves 3 over.
TEST(PlanModel, TopicSpreadIsScoredAsReplicasOverTheTopicBand) {
    TempDir dir;
    json brokers = json::array();
    for (int id = 1; id <= 4; id++) brokers.push_back({{"id", id}});
    json partitions = json::array();
    for (int p = 0; p < 8; p++) {
        partitions.push_back({{"topic", "pile"}, {"partition", p}, {"replicas", {1}}, {"bytes_in_per_s", mib},
                              {"bytes_out_per_s", 0}, {"size_bytes", mib}});
    }
    for (int p = 0; p < 4; p++) {
        partitions.push_back({{"topic", "even"}, {"partition", p}, {"replicas", {p + 1}}, {"bytes_in_per_s", mib},
                              {"bytes_out_per_s", 0}, {"size_bytes", mib}});
    }
    const std::string path = write(dir, "model.json", {{"brokers", brokers}, {"partitions", partitions}});
    json moves = json::array();
    for (int p = 0; p < 2; p++) moves.push_back({{"topic", "pile"}, {"partition", p}, {"replicas", {2}}});
    const std::string two = write(dir, "two.json", {{"version", 1}, {"partitions", moves}});
    const auto scored = ballast("plan --model " + path + " --score-assignment " + two + " --json");
    ASSERT_EQ(scored.exit_code, 0) << scored.out;
    const json score = json::parse(scored.out);
    EXPECT_EQ(score["before"]["topic_replicas_over_band"], 5) << scored.out;
    EXPECT_EQ(score["after"]["topic_replicas_over_band"], 3) << scored.out;
    const auto text = ballast("plan --model " + path + " --score-assignment " + two);
    EXPECT_TRUE(contains(text.out, "topic replicas over band")) << text.out;
}

}  // namespace
}  // namespace ballast::tools
