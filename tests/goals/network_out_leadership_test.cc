/// Network out balanced by leadership: with RF > 1 a partition's out
/// (consumers plus a copy per follower) is all on its leader, so a leader
/// change moves it without copying data. These cases check that the out goal
/// uses leader changes wherever they reach the band, moves only where they
/// cannot, and never elects a replica Kafka would refuse.

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "goals/planner_types.h"
#include "tests/goals/model_builder.h"

namespace ballast::goals {
namespace {

using test_support::apply;
using test_support::broker_loads;
using test_support::mib;
using test_support::ModelBuilder;
using test_support::out_of;

constexpr int64_t now_ms = 100'000;

size_t count_kind(const Plan& result, ActionKind kind) {
    return static_cast<size_t>(std::count_if(result.actions.begin(), result.actions.end(),
                                             [&](const Action& a) { return a.kind == kind; }));
}

/// Every eligible broker's out within mean x (1 ± deviation) after `result`.
::testing::AssertionResult out_within_band(const ClusterModel& model, const Plan& result,
                                           const PlannerConfig& config) {
    const std::vector<Load> loads = broker_loads(apply(model, result, config.flavor));
    double total = 0;
    for (const Load& load : loads) total += out_of(load);
    const double mean = total / static_cast<double>(loads.size());
    for (size_t b = 0; b < loads.size(); b++) {
        const double out = out_of(loads[b]);
        if (std::abs(out - mean) > mean * config.network_out_avg_deviation + 1) {
            return ::testing::AssertionFailure() << "broker " << model.brokers[b].id << " ends at "
                                                 << out / mib << " MiB/s out, mean " << mean / mib;
        }
    }
    return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------- in-sync followers only

TEST(NetworkOutLeadership, LeadershipGoesOnlyToAFollowerInTheIsr) {
    // Broker 1 leads everything; broker 2 is the only light follower, but
    // its replicas are catching up (out of the ISR): Kafka would refuse
    // to elect it, so leadership goes to broker 3 or not at all.
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 3; id++) builder.broker(id);
    builder.topic("t");
    for (int i = 0; i < 6; i++) {
        Partition& p = builder.partition({1, 2, 3}, 1 * mib, 2 * mib);
        p.out_of_sync_slots = 0b010;  // broker 2's replica
    }
    const ClusterModel model = builder.build();
    const Plan result = plan(model, PlannerConfig{});
    ASSERT_FALSE(result.actions.empty());
    for (const Action& action : result.actions) {
        EXPECT_NE(action.destination, 2) << "leadership of partition " << action.partition << " to a lagging replica";
    }
}

}  // namespace
}  // namespace ballast::goals
