/// The cooldown gate, one rule at a time.

#include <gtest/gtest.h>

#include <vector>

#include "goals/planner_types.h"
#include "tests/goals/model_builder.h"

namespace ballast::goals {
namespace {

using test_support::ModelBuilder;

constexpr int64_t now_ms = 100'000;

/// Brokers 1..6 (broker 6 fenced); topic "a" with 8 partitions, "b" with 1,
/// "c" with 3, all on broker 1.
ClusterModel gate_model() {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 6; id++) builder.broker(id);
    builder.model().brokers[5].liveness = Liveness::fenced;
    builder.topic("a");
    for (int i = 0; i < 8; i++) builder.partition({1}, 0, 0);
    builder.topic("b");
    builder.partition({1}, 0, 0);
    builder.topic("c");
    for (int i = 0; i < 3; i++) builder.partition({1}, 0, 0);
    return builder.build();
}

Action move(uint32_t partition, int32_t source, int32_t destination, bool evacuation = false) {
    Action action;
    action.kind = ActionKind::move;
    action.partition = partition;
    action.source = source;
    action.destination = destination;
    action.evacuation = evacuation;
    return action;
}

Plan plan_of(std::vector<Action> actions) {
    Plan result;
    result.status = Plan::Status::actions_planned;
    result.actions = std::move(actions);
    return result;
}

GateConfig wide_open() {
    GateConfig config;
    config.concurrency_max = 100;
    config.broker_inflight_max = 100;
    config.topic_batch_fraction_max = 1.0;
    return config;
}

uint32_t held(const GateResult& result, HoldReason reason) {
    return result.held_count[static_cast<size_t>(reason)];
}

TEST(Gate, PausedHoldsEverything) {
    GateConfig config = wide_open();
    config.paused = true;
    const GateResult result = apply_gate(plan_of({move(0, 1, 2), move(1, 1, 3)}), gate_model(), {}, config);
    EXPECT_TRUE(result.accepted.empty());
    EXPECT_EQ(held(result, HoldReason::paused), 2u);
}

TEST(Gate, HoldsEverythingWithinTheExecutionInterval) {
    GateState state;
    state.last_batch_ms = now_ms - 1'000;
    const GateResult soon = apply_gate(plan_of({move(0, 1, 2)}), gate_model(), state, wide_open());
    EXPECT_EQ(held(soon, HoldReason::execution_interval), 1u);
    state.last_batch_ms = now_ms - 5'000;
    EXPECT_EQ(apply_gate(plan_of({move(0, 1, 2)}), gate_model(), state, wide_open()).accepted.size(), 1u);
    state.last_batch_ms = -1;
    EXPECT_EQ(apply_gate(plan_of({move(0, 1, 2)}), gate_model(), state, wide_open()).accepted.size(), 1u);
}

TEST(Gate, CooldownHoldsAllButEvacuations) {
    ClusterModel model = gate_model();
    model.partitions[0].last_moved_ms = now_ms - 1'000;
    model.partitions[1].last_moved_ms = now_ms - 1'000;
    const GateResult result =
        apply_gate(plan_of({move(0, 1, 2), move(1, 1, 2, true)}), model, {}, wide_open());
    ASSERT_EQ(result.held.size(), 1u);
    EXPECT_EQ(result.held[0].reason, HoldReason::cooldown);
    EXPECT_EQ(result.held[0].action.partition, 0u);
    ASSERT_EQ(result.accepted.size(), 1u);
    EXPECT_EQ(result.accepted[0].partition, 1u);
}

TEST(Gate, InFlightAndRepeatedPartitionsWait) {
    ClusterModel model = gate_model();
    model.partitions[0].in_flight = true;
    const GateResult result = apply_gate(
        plan_of({move(0, 1, 2, true), move(1, 1, 2), move(1, 2, 3)}), model, {}, wide_open());
    EXPECT_EQ(held(result, HoldReason::in_flight), 2u);
    ASSERT_EQ(result.accepted.size(), 1u);
    EXPECT_EQ(result.accepted[0].partition, 1u);
    EXPECT_EQ(result.accepted[0].destination, 2);
}

TEST(Gate, ConcurrencyCapCountsWhatRuns) {
    GateConfig config = wide_open();
    config.concurrency_max = 5;
    GateState state;
    state.inflight_actions = 3;
    std::vector<Action> actions;
    for (uint32_t p = 0; p < 6; p++) actions.push_back(move(p, 1, 2 + p % 4));
    const GateResult result = apply_gate(plan_of(actions), gate_model(), state, config);
    EXPECT_EQ(result.accepted.size(), 2u);
    EXPECT_EQ(held(result, HoldReason::concurrency_cap), 4u);
    EXPECT_EQ(result.accepted[0].partition, 0u);  // in plan order
    EXPECT_EQ(result.accepted[1].partition, 1u);
}

TEST(Gate, BrokerCapCountsSourceAndDestination) {
    GateConfig config = wide_open();
    config.broker_inflight_max = 2;
    GateState state;
    state.broker_inflight = {{2, 1}};
    const GateResult result = apply_gate(
        plan_of({move(0, 1, 2), move(1, 3, 2), move(2, 1, 4), move(3, 1, 5)}), gate_model(), state, config);
    // Broker 2: 1 running + 1 accepted = cap. Broker 1: 2 accepted = cap.
    ASSERT_EQ(result.accepted.size(), 2u);
    EXPECT_EQ(result.accepted[0].partition, 0u);
    EXPECT_EQ(result.accepted[1].partition, 2u);
    EXPECT_EQ(held(result, HoldReason::broker_cap), 2u);
}

TEST(Gate, ADeadSourceIsNotCountedAgainstTheBrokerCap) {
    GateConfig config = wide_open();
    config.broker_inflight_max = 1;
    std::vector<Action> actions;
    for (uint32_t p = 0; p < 4; p++) actions.push_back(move(p, 6, 2 + p, true));
    actions.push_back(move(4, 6, 2, true));  // broker 2 already has one in this batch
    const GateResult result = apply_gate(plan_of(actions), gate_model(), {}, config);
    EXPECT_EQ(result.accepted.size(), 4u);
    EXPECT_EQ(held(result, HoldReason::broker_cap), 1u);
}

TEST(Gate, TopicCapIsHalfRoundedDownButAtLeastOne) {
    GateConfig config = wide_open();
    config.topic_batch_fraction_max = 0.5;
    std::vector<Action> actions;
    for (uint32_t p = 0; p < 8; p++) actions.push_back(move(p, 1, 2 + p % 4));  // topic a: 8 -> 4
    actions.push_back(move(8, 1, 2));                                         // topic b: 1 -> 1
    for (uint32_t p = 9; p < 12; p++) actions.push_back(move(p, 1, 3));        // topic c: 3 -> 1
    const GateResult result = apply_gate(plan_of(actions), gate_model(), {}, config);
    int per_topic[3] = {0, 0, 0};
    for (const Action& action : result.accepted) {
        per_topic[action.partition < 8 ? 0 : action.partition == 8 ? 1 : 2]++;
    }
    EXPECT_EQ(per_topic[0], 4);
    EXPECT_EQ(per_topic[1], 1);
    EXPECT_EQ(per_topic[2], 1);
    EXPECT_EQ(held(result, HoldReason::topic_cap), 6u);
}

TEST(Gate, NothingLandsWhereAHeldActionWasToTakeLoadOff) {
    // The plan unloads broker 1 (partition 0, cooling down: held), then moves
    // partition 1 from 3 onto 1, chosen as if 1 had been unloaded: held too.
    // Moving more off 1, or onto another broker, relies on nothing held.
    ClusterModel model = gate_model();
    model.partitions[0].last_moved_ms = now_ms - 1'000;
    Action leader = move(0, 1, 2);
    leader.kind = ActionKind::leader;
    const GateResult result = apply_gate(
        plan_of({leader, move(1, 3, 1), move(2, 1, 4), move(3, 5, 4)}), model, {}, wide_open());
    ASSERT_EQ(result.held.size(), 2u);
    EXPECT_EQ(result.held[0].reason, HoldReason::cooldown);
    EXPECT_EQ(result.held[1].reason, HoldReason::after_held);
    EXPECT_EQ(result.held[1].action.partition, 1u);
    ASSERT_EQ(result.accepted.size(), 2u);
    EXPECT_EQ(result.accepted[0].partition, 2u);
    EXPECT_EQ(result.accepted[1].partition, 3u);
    // Transitively: the held move 3 -> 1 was to unload 3, so a swap that
    // puts load on 3 waits as well.
    Action swap = move(4, 4, 3);
    swap.kind = ActionKind::swap;
    swap.swap_partition = 5;
    const GateResult chained = apply_gate(plan_of({leader, move(1, 3, 1), swap}), model, {}, wide_open());
    EXPECT_EQ(held(chained, HoldReason::after_held), 2u);
    EXPECT_TRUE(chained.accepted.empty());
    EXPECT_STREQ(hold_reason_name(HoldReason::after_held), "after_held");
}

TEST(Gate, SwapsTouchBothPartitions) {
    ClusterModel model = gate_model();
    model.partitions[9].last_moved_ms = now_ms - 10;
    Action swap = move(0, 1, 2);
    swap.kind = ActionKind::swap;
    swap.swap_partition = 9;
    const GateResult result = apply_gate(plan_of({swap}), model, {}, wide_open());
    EXPECT_EQ(held(result, HoldReason::cooldown), 1u);
}

TEST(Gate, IsPure) {
    const ClusterModel model = gate_model();
    const Plan actions = plan_of({move(0, 1, 2), move(1, 1, 3), move(8, 1, 2)});
    GateConfig config;
    config.broker_inflight_max = 1;
    EXPECT_EQ(apply_gate(actions, model, {}, config), apply_gate(actions, model, {}, config));
}

}  // namespace
}  // namespace ballast::goals
