/// The fault tests' checker on hand-made plans: it must report a plan that
/// breaks a capacity limit (else a green soak proves nothing about
/// capacity), and leave alone the plans the capacity goals allow.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "adapters/sim/sim_cluster.h"
#include "tools/driver/sim_checks.h"

namespace ballast::driver {
namespace {

constexpr double mib = 1 << 20;

/// Three brokers, six RF1 partitions of 1 MiB/s in (2 MiB/s per broker),
/// partition p on broker p % 3 + 1.
sim::Scenario three_brokers() {
    sim::Scenario s;
    s.name = "capacity";
    s.duration_ms = 600'000;
    for (int32_t b = 1; b <= 3; b++) s.brokers.push_back({b, "", true, {}});
    sim::TopicSpec t;
    t.name = "orders";
    t.partitions = 6;
    t.traffic.bytes_in_per_s = 6 * mib;
    for (int32_t p = 0; p < 6; p++) t.assignment.push_back({p % 3 + 1});
    s.topics.push_back(t);
    return s;
}

events::Config config_with(const std::vector<std::pair<std::string, std::string>>& settings) {
    events::Config config = events::Config::defaults();
    for (const auto& [key, value] : settings) EXPECT_TRUE(config.set(key, value, "test").ok()) << key;
    return config;
}

events::Action move(uint64_t id, int32_t partition, int32_t from, int32_t to) {
    events::Action a;
    a.action_id = id;
    a.kind = events::ActionKind::move;
    a.topic = "orders";
    a.partition = partition;
    a.source_broker = from;
    a.destination_broker = to;
    a.replicas_before = {from};
    a.replicas_after = {to};
    a.goal = "NetworkInUsageDistributionGoal";
    return a;
}

events::Event plan_of(uint64_t round, int64_t time_ms, std::vector<events::Action> actions) {
    events::ActionsPlanned plan;
    plan.round = round;
    plan.actions = std::move(actions);
    events::Event e;
    e.time_ms = time_ms;
    e.source = events::Source::engine;
    e.body = std::move(plan);
    return e;
}

/// Runs the cluster's first step, then each plan as a step of its own
/// (the cluster does not advance: the moves stay in flight), and returns
/// the breaks.
std::vector<std::string> breaks_of(const events::Config& config, const std::vector<events::Event>& plans) {
    const sim::Scenario scenario = three_brokers();
    sim::SimCluster cluster(scenario);
    SimChecker checker(scenario, config);
    const std::vector<events::Event> started = cluster.start();  // metadata and the first metrics, at 0
    const std::vector<events::Event> none;
    checker.step(SimStep{0, cluster, started, none});
    for (const events::Event& plan : plans) {
        const std::vector<events::Event> decided{plan};
        checker.step(SimStep{plan.time_ms, cluster, none, decided});
    }
    return checker.finish("", SimRunSummary{}).breaks;
}

bool has(const std::vector<std::string>& breaks, const std::string& part) {
    for (const std::string& b : breaks) {
        if (b.find(part) != std::string::npos) return true;
    }
    return false;
}

std::string joined(const std::vector<std::string>& breaks) {
    std::string out;
    for (const std::string& b : breaks) out += b + "\n";
    return out;
}

TEST(SimChecks, APlanThatTakesABrokerOverItsNetworkLimitIsABreak) {
    // 3 MiB/s x 0.8: a 2.4 MiB/s limit; broker 2 goes from 2 to 3 MiB/s.
    const events::Config config = config_with({{"ballast.broker.capacity.network.in.bytes.per.s", "3145728"}});
    const std::vector<std::string> breaks = breaks_of(config, {plan_of(1, 10'000, {move(1, 0, 1, 2)})});
    ASSERT_EQ(breaks.size(), 1u) << joined(breaks);
    EXPECT_TRUE(has(breaks, "capacity: round 1 takes broker 2 over its NetworkInCapacityGoal limit of 2.4 MiB/s: "
                            "2.0 MiB/s -> 3.0 MiB/s, by MOVE orders-0 1 -> 2"))
        << joined(breaks);
}

TEST(SimChecks, MovesInFlightCountAsDone) {
    // A 3.2 MiB/s limit: one move onto broker 2 fits (3 MiB/s), a second one
    // while the first still runs does not, though the cluster shows 2 MiB/s.
    const events::Config config = config_with({{"ballast.broker.capacity.network.in.bytes.per.s", "4194304"}});
    EXPECT_TRUE(breaks_of(config, {plan_of(1, 10'000, {move(1, 0, 1, 2)})}).empty());
    const std::vector<std::string> breaks =
        breaks_of(config, {plan_of(1, 10'000, {move(1, 0, 1, 2)}), plan_of(2, 20'000, {move(2, 3, 1, 2)})});
    ASSERT_EQ(breaks.size(), 1u) << joined(breaks);
    EXPECT_TRUE(has(breaks, "round 2 takes broker 2 over its NetworkInCapacityGoal limit of 3.2 MiB/s: "
                            "3.0 MiB/s -> 4.0 MiB/s"))
        << joined(breaks);
}

TEST(SimChecks, ReplicaLimitsAreJudgedWithoutMetricsAndLoadLimitsOnlyWithFreshOnes) {
    const events::Config config = config_with({{"ballast.broker.capacity.network.in.bytes.per.s", "3145728"},
                                               {"ballast.broker.capacity.replicas.max", "2"}});
    // At 10 s the metrics of 0 s are fresh: both limits broken.
    std::vector<std::string> breaks = breaks_of(config, {plan_of(1, 10'000, {move(1, 0, 1, 2)})});
    EXPECT_TRUE(has(breaks, "NetworkInCapacityGoal")) << joined(breaks);
    EXPECT_TRUE(has(breaks, "over its ReplicaCapacityGoal limit of 2 replicas: 2 replicas -> 3 replicas"))
        << joined(breaks);
    // At 2 min they are older than the 60 s metrics delay: the load is not
    // known, and the network goal does not judge it; replica counts still.
    breaks = breaks_of(config, {plan_of(1, 120'000, {move(1, 0, 1, 2)})});
    EXPECT_FALSE(has(breaks, "NetworkInCapacityGoal")) << joined(breaks);
    EXPECT_TRUE(has(breaks, "ReplicaCapacityGoal")) << joined(breaks);
}

TEST(SimChecks, PlansWithinTheLimitsOrWithoutLimitsAreNoBreak) {
    // Broker 1 sheds to 2 while 2 sheds to 3 and 3 to 1: each stays at 2 MiB/s.
    const std::vector<events::Event> rotation{
        plan_of(1, 10'000, {move(1, 0, 1, 2), move(2, 1, 2, 3), move(3, 2, 3, 1)})};
    const events::Config tight = config_with({{"ballast.broker.capacity.network.in.bytes.per.s", "3145728"}});
    EXPECT_TRUE(breaks_of(tight, rotation).empty()) << joined(breaks_of(tight, rotation));
    // No capacity configured: nothing to judge.
    EXPECT_TRUE(breaks_of(events::Config::defaults(), {plan_of(1, 10'000, {move(1, 0, 1, 2)})}).empty());
    // Every broker over already (2 MiB/s, limit 1.6 MiB/s): the invariant is
    // about a limit that held, and none did.
    const events::Config tighter = config_with({{"ballast.broker.capacity.network.in.bytes.per.s", "2097152"}});
    EXPECT_TRUE(breaks_of(tighter, {plan_of(1, 10'000, {move(1, 0, 1, 2)})}).empty());
}

events::Event fed(int64_t time_ms, events::Body body) {
    events::Event e;
    e.time_ms = time_ms;
    e.source = events::Source::simulator;
    e.body = std::move(body);
    return e;
}

events::PartitionChanged orders_0(std::vector<int32_t> replicas, int32_t leader, std::vector<int32_t> isr) {
    return {"orders", 0, std::move(replicas), leader, std::move(isr), -1};
}

/// Partition orders-0 on [1, 2] led by 1; the engine moves its replica on 2
/// to 3, and as the move completes leadership passes to 3, with broker 1 in
/// the ISR (`leader_kept_in_sync`) or out of it; then the engine hands
/// leadership back to 1. The thrash breaks the run found.
std::vector<std::string> leadership_handed_back(bool leader_kept_in_sync) {
    const sim::Scenario scenario = three_brokers();
    sim::SimCluster cluster(scenario);
    SimChecker checker(scenario, events::Config::defaults(), 0);
    const std::vector<events::Event> none;
    checker.step(SimStep{0, cluster, {fed(0, orders_0({1, 2}, 1, {1, 2}))}, none});
    events::Action moved = move(1, 0, 2, 3);
    moved.replicas_before = {1, 2};
    moved.replicas_after = {1, 3};
    checker.step(SimStep{10'000, cluster, none, {plan_of(1, 10'000, {moved})}});
    const std::vector<int32_t> isr = leader_kept_in_sync ? std::vector<int32_t>{1, 3} : std::vector<int32_t>{3};
    checker.step(SimStep{20'000, cluster, {fed(20'000, orders_0({1, 3}, 3, isr)), fed(20'000, events::ActionCompleted{1})},
                         none});
    events::Action back;
    back.action_id = 2;
    back.kind = events::ActionKind::leader;
    back.topic = "orders";
    back.partition = 0;
    back.source_broker = 3;
    back.destination_broker = 1;
    back.replicas_before = {1, 3};
    back.replicas_after = {1, 3};
    back.goal = "NetworkOutUsageDistributionGoal";
    checker.step(SimStep{60'000, cluster, none, {plan_of(2, 60'000, {back})}});
    checker.step(SimStep{61'000, cluster,
                         {fed(61'000, orders_0({1, 3}, 1, {1, 3})), fed(61'000, events::ActionCompleted{2})}, none});
    return checker.finish("", SimRunSummary{}).breaks;
}

TEST(SimChecks, LeadershipHandedBackIsThrashUnlessItWasLostToAFailure) {
    // The engine's move took leadership from a broker still in sync:
    // handing it straight back is a ping-pong.
    EXPECT_TRUE(has(leadership_handed_back(true), "handed leadership straight back to broker 1"));
    // Broker 1 fell out of the ISR as the move completed: it lost the
    // leadership to a failure, which the engine may undo.
    const std::vector<std::string> breaks = leadership_handed_back(false);
    EXPECT_FALSE(has(breaks, "thrash")) << joined(breaks);
}

}  // namespace
}  // namespace ballast::driver
