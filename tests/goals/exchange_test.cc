/// Actions judged together (GoalContext::try_apply_group), the count goals'
/// exchanges built on them, and the network goals' cheapest copies: where
/// single actions are refused because a broker sits at the edge of a load
/// band, and which replicas a shed copies.

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <vector>

#include "goals/goal.h"
#include "goals/planner_types.h"
#include "tests/goals/model_builder.h"

namespace ballast::goals {
namespace {

using test_support::apply;
using test_support::broker_loads;
using test_support::mib;
using test_support::ModelBuilder;
using test_support::only;
using test_support::replica_counts;

constexpr int64_t now_ms = 100'000;
constexpr double gib = 1024.0 * 1024 * 1024;

/// Brokers 1-3 at 44, 36 and 40 MiB/s in (mean 40, band [36, 44]): broker 1
/// in 5 heavy replicas, broker 2 in 36 light ones. Either broker giving the
/// other a replica alone leaves the band.
ClusterModel edge_of_band_model() {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 3; id++) builder.broker(id);
    builder.topic("heavy");
    for (int i = 0; i < 5; i++) builder.partition({1}, 8.8 * mib, 0);
    builder.topic("light");
    for (int i = 0; i < 36; i++) builder.partition({2}, 1.0 * mib, 0);
    builder.topic("even");
    for (int i = 0; i < 20; i++) builder.partition({3}, 2.0 * mib, 0);
    return builder.build();
}

/// Brokers by id in edge_of_band_model: index = id - 1.
struct GroupFixture {
    ClusterModel model = edge_of_band_model();
    PlannerConfig config = only({GoalKind::network_in_usage_distribution, GoalKind::replica_count_distribution});
    PlanningState state{model, config, false};
    std::unique_ptr<Goal> network = make_goal(GoalKind::network_in_usage_distribution);
    std::unique_ptr<Goal> rack = make_goal(GoalKind::rack_aware);
    Findings findings{16};
    GoalContext context{state, GoalKind::replica_count_distribution, {rack.get(), network.get()}, findings};
};

TEST(ActionGroup, IsJudgedByItsNetChangeWhereEachActionAloneIsRefused) {
    GroupFixture f;
    // Heavy partition 0 from broker 1 to 2, light partitions 5..12 back.
    const Candidate give = f.state.move(0, 0, 1, false);
    ASSERT_FALSE(f.context.try_apply(give));
    EXPECT_EQ(f.context.last_refusal(), f.network.get());
    std::vector<Candidate> group{give};
    for (uint32_t p = 5; p < 13; p++) {
        const Candidate take = f.state.move(p, 1, 0, false);
        ASSERT_FALSE(f.context.try_apply(take));
        group.push_back(take);
    }
    ASSERT_TRUE(f.context.try_apply_group(group));
    EXPECT_EQ(f.state.action_count(), group.size());
    EXPECT_EQ(f.state.broker(0).replica_count, 12);
    EXPECT_EQ(f.state.broker(1).replica_count, 29);
    EXPECT_NEAR(f.state.broker(0).load.bytes_in_per_s, 43.2 * mib, 1.0);
}

TEST(ActionGroup, WhoseNetChangeLeavesTheBandAppliesNothing) {
    GroupFixture f;
    // One light replica back for the heavy one: broker 1 ends at 36.2,
    // broker 2 at 43.8, in the band; a second heavy one takes broker 1 out.
    std::vector<Candidate> group{f.state.move(0, 0, 1, false), f.state.move(1, 0, 1, false),
                                 f.state.move(5, 1, 0, false)};
    EXPECT_FALSE(f.context.try_apply_group(group));
    EXPECT_EQ(f.context.last_refusal(), f.network.get());
    EXPECT_EQ(f.state.action_count(), 0u);
    EXPECT_EQ(f.state.broker(0).replica_count, 5);
}

TEST(ActionUndo, RestoresTheLoadSumsBitForBit) {
    // 0.1 + 0.2 - 0.2 is 0.10000000000000003 in doubles: an undo that
    // subtracts what its action added leaves that behind, and every trial
    // run taken back would shift the sums later decisions compare.
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 2; id++) builder.broker(id);
    builder.topic("t");
    builder.partition({1}, 0.2, 0.2);
    builder.partition({2}, 0.1, 0.1);
    const ClusterModel model = builder.build();
    const PlannerConfig config = only({GoalKind::network_in_usage_distribution});
    PlanningState state(model, config, false);
    Findings findings(16);
    GoalContext context(state, GoalKind::network_in_usage_distribution, {}, findings);
    const Load before = state.broker(1).load;
    const double total_before = state.eligible_total(Resource::network_in);
    ASSERT_EQ(before.bytes_in_per_s, 0.1);
    const size_t mark = context.mark();
    ASSERT_TRUE(context.try_apply(state.move(0, 0, 1, false)));
    ASSERT_NE(state.broker(1).load.bytes_in_per_s - 0.2, 0.1);  // the case this test is about
    context.undo_to(mark);
    EXPECT_EQ(state.broker(1).load.bytes_in_per_s, before.bytes_in_per_s);
    EXPECT_EQ(state.broker(1).load.bytes_out_per_s, before.bytes_out_per_s);
    EXPECT_EQ(state.eligible_total(Resource::network_in), total_before);
}

TEST(ActionGroup, WithAMoveThePlacementGuardRefusesAppliesNothing) {
    ModelBuilder builder(now_ms);
    builder.racks({"a", "b"});
    builder.broker(1, 0);
    builder.broker(2, 0);
    builder.broker(3, 1);
    builder.topic("t");
    builder.partition({1, 3}, 1.0 * mib, 0);
    builder.partition({2}, 1.0 * mib, 0);
    const ClusterModel model = builder.build();
    const PlannerConfig config = only({GoalKind::rack_aware, GoalKind::replica_count_distribution});
    PlanningState state(model, config, false);
    const std::unique_ptr<Goal> rack = make_goal(GoalKind::rack_aware);
    Findings findings(16);
    GoalContext context(state, GoalKind::replica_count_distribution, {rack.get()}, findings);
    // Partition 1 from broker 2 to broker 3 is fine; partition 0's replica
    // on broker 3 (rack b) to broker 2 puts both its replicas in rack a.
    const Candidate fine = state.move(1, 1, 2, false);
    const Candidate crowds = state.move(0, 2, 1, false);
    ASSERT_TRUE(context.placement_allows(fine));
    ASSERT_FALSE(context.placement_allows(crowds));
    const std::vector<Candidate> group{fine, crowds};
    EXPECT_FALSE(context.try_apply_group(group));
    EXPECT_EQ(context.last_refusal(), rack.get());
    EXPECT_EQ(state.action_count(), 0u);
}

TEST(ReplicaCountExchange, ABrokerShortOfReplicasAtTheTopOfTheLoadBandTradesOneHeavyForSeveralLight) {
    const ClusterModel model = edge_of_band_model();
    const PlannerConfig config =
        only({GoalKind::network_in_usage_distribution, GoalKind::replica_count_distribution});
    const Plan result = plan(model, config);
    EXPECT_TRUE(result.violated_after.empty());
    const ClusterModel after = apply(model, result, config.flavor);
    const std::vector<int32_t> counts = replica_counts(after);
    const std::vector<Load> loads = broker_loads(after);
    // Count band for 61 replicas on 3 brokers: [18, 23]; load band [36, 44].
    for (size_t b = 0; b < 3; b++) {
        EXPECT_GE(counts[b], 18) << "broker " << b + 1;
        EXPECT_LE(counts[b], 23) << "broker " << b + 1;
        EXPECT_GE(loads[b].bytes_in_per_s, 36 * mib - 1) << "broker " << b + 1;
        EXPECT_LE(loads[b].bytes_in_per_s, 44 * mib + 1) << "broker " << b + 1;
    }
    // Broker 1 gave heavy replicas away: only an exchange lets it.
    bool gave_heavy = false;
    for (const Action& action : result.actions) gave_heavy = gave_heavy || (action.source == 1);
    EXPECT_TRUE(gave_heavy);
}

TEST(LeaderCountExchange, ABrokerShortOfLeadersAtTheTopOfTheOutBandHandsOneHeavyLeadershipForSeveralLight) {
    // RF2, out traffic only. Broker 1 leads 6 heavy partitions (6.5 MiB/s
    // each: 39), followed by broker 6, and follows every light partition of
    // brokers 2-5 (30 each of 1.5 MiB/s: 45); broker 6 leads 10 of 3.9
    // MiB/s (39). Out mean 43, band [38.7, 47.3]; leader band [20, 25].
    // One at a time broker 1 takes 5 light leaderships (46.5) and a sixth
    // would carry it past the band: it hands a heavy one to broker 6 and
    // takes four light ones for it.
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 6; id++) builder.broker(id);
    builder.topic("heavy");
    for (int i = 0; i < 6; i++) builder.partition({1, 6}, 0, 6.5 * mib);
    builder.topic("light");
    for (int32_t leader = 2; leader <= 5; leader++) {
        for (int i = 0; i < 30; i++) builder.partition({leader, 1}, 0, 1.5 * mib);
    }
    builder.topic("medium");
    for (int i = 0; i < 10; i++) builder.partition({6, 2}, 0, 3.9 * mib);
    const ClusterModel model = builder.build();
    const PlannerConfig config =
        only({GoalKind::network_out_usage_distribution, GoalKind::leader_count_distribution});
    const Plan result = plan(model, config);
    bool handed_heavy = false;
    for (const Action& action : result.actions) {
        EXPECT_EQ(action.kind, ActionKind::leader);
        handed_heavy = handed_heavy || (action.source == 1 && action.destination == 6);
    }
    EXPECT_TRUE(handed_heavy);
    const ClusterModel after = apply(model, result, config.flavor);
    std::vector<int32_t> leaders(6, 0);
    for (const Partition& p : after.partitions) leaders[static_cast<size_t>(p.leader - 1)]++;
    // One at a time, broker 1 reaches 11 leaders and stops there.
    EXPECT_GT(leaders[0], 11);
    const std::vector<Load> loads = broker_loads(after);
    for (size_t b = 0; b < 6; b++) {
        EXPECT_LE(loads[b].bytes_out_per_s, 47.3 * mib) << "broker " << b + 1;
        EXPECT_GE(loads[b].bytes_out_per_s, 38.7 * mib) << "broker " << b + 1;
    }
}

TEST(LeaderCountExchange, ABrokerWithLeadersToSpareAtTheBottomOfTheOutTargetTakesOneHeavyLeadershipForSeveralLight) {
    // RF2, out traffic only. Broker 1 leads 20 light partitions (1 MiB/s
    // each, followed by brokers 2-5) and 2 big ones (10): 22 leaders, 40
    // MiB/s. Brokers 2-6 each lead one partition of 3 MiB/s that broker 1
    // follows and 13 of 3.1 followed by the next of them: 14 leaders, 43.3.
    // Out mean 42.75, target [39.76, 45.74]; leader band [13, 17]. Handing
    // off any one leadership takes broker 1 below the out target: it takes
    // a 3 MiB/s leadership and hands three light ones for it.
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 6; id++) builder.broker(id);
    builder.topic("light");
    for (int i = 0; i < 20; i++) builder.partition({1, 2 + i % 4}, 0, 1.0 * mib);
    builder.topic("big");
    for (int i = 0; i < 2; i++) builder.partition({1, 2}, 0, 10.0 * mib);
    builder.topic("heavy");
    for (int32_t leader = 2; leader <= 6; leader++) builder.partition({leader, 1}, 0, 3.0 * mib);
    builder.topic("medium");
    for (int32_t leader = 2; leader <= 6; leader++) {
        for (int i = 0; i < 13; i++) builder.partition({leader, leader == 6 ? 2 : leader + 1}, 0, 3.1 * mib);
    }
    const ClusterModel model = builder.build();
    const PlannerConfig config =
        only({GoalKind::network_out_usage_distribution, GoalKind::leader_count_distribution});
    const Plan result = plan(model, config);
    EXPECT_TRUE(result.violated_after.empty());
    bool took_heavy = false;
    for (const Action& action : result.actions) {
        EXPECT_EQ(action.kind, ActionKind::leader);
        took_heavy = took_heavy || action.destination == 1;
    }
    EXPECT_TRUE(took_heavy);
    const ClusterModel after = apply(model, result, config.flavor);
    std::vector<int32_t> leaders(6, 0);
    for (const Partition& p : after.partitions) leaders[static_cast<size_t>(p.leader - 1)]++;
    const std::vector<Load> loads = broker_loads(after);
    for (size_t b = 0; b < 6; b++) {
        EXPECT_GE(leaders[b], 13) << "broker " << b + 1;
        EXPECT_LE(leaders[b], 17) << "broker " << b + 1;
        EXPECT_GE(loads[b].bytes_out_per_s, 39.75 * mib) << "broker " << b + 1;
        EXPECT_LE(loads[b].bytes_out_per_s, 45.75 * mib) << "broker " << b + 1;
    }
}

TEST(ReplicaCountExchange, TakesTheReplicasLightestInLoadNotTheSmallestInBytes) {
    // Network in only (out is not judged): broker 1 at the top of the in
    // target (44 MiB/s; mean 41.2, target [38.3, 44.1]) holds 5 replicas,
    // broker 2 holds 70: 65 tiny ones (0.01 GiB) that producers write at
    // 0.5 MiB/s and consumers read at 1 MiB/s, and 5 of 1.4 MiB/s that
    // nobody reads, 1 GiB each. Broker 1 gives a heavy replica (8.8 MiB/s
    // in, nothing out) for light ones: only the unread ones fit in the out
    // it gives up (none). The 65 smallest in bytes all carry out, and a
    // walk through them ends before reaching the others.
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 3; id++) builder.broker(id);
    builder.topic("heavy");
    for (int i = 0; i < 5; i++) builder.partition({1}, 8.8 * mib, 0, 10 * gib);
    builder.topic("read");
    for (int i = 0; i < 65; i++) builder.partition({2}, 0.5 * mib, 1.0 * mib, 0.01 * gib);
    builder.topic("unread");
    for (int i = 0; i < 5; i++) builder.partition({2}, 1.4 * mib, 0, 1 * gib);
    builder.topic("even");
    for (int i = 0; i < 20; i++) builder.partition({3}, 2.0 * mib, 0, 1 * gib);
    const ClusterModel model = builder.build();
    const PlannerConfig config =
        only({GoalKind::network_in_usage_distribution, GoalKind::replica_count_distribution});
    const Plan result = plan(model, config);
    bool took_unread = false;
    for (const Action& a : result.actions) {
        took_unread = took_unread || (model.topics[model.partitions[a.partition].topic] == "unread" &&
                                      a.source == 2 && a.destination == 1);
    }
    EXPECT_TRUE(took_unread);
    EXPECT_GE(replica_counts(apply(model, result, config.flavor))[0], 9);
}

/// Broker 1 holds a "long" retention topic and a "short" one; brokers 2 and
/// 3 hold 30 replicas of "others" each.
struct RetentionMix {
    int long_count;
    double long_rate, long_size;
    int short_count;
    double short_rate, short_size;
    double other_rate, other_size;
};

ClusterModel retention_mix_model(const RetentionMix& mix) {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 3; id++) builder.broker(id);
    builder.topic("long");
    for (int i = 0; i < mix.long_count; i++) builder.partition({1}, mix.long_rate, 0, mix.long_size);
    builder.topic("short");
    for (int i = 0; i < mix.short_count; i++) builder.partition({1}, mix.short_rate, 0, mix.short_size);
    builder.topic("others");
    for (int b = 2; b <= 3; b++) {
        for (int i = 0; i < 30; i++) builder.partition({b}, mix.other_rate, 0, mix.other_size);
    }
    return builder.build();
}

/// Network in alone balances `model` by moving "short" replicas only.
void expect_only_short_replicas_shed(const ClusterModel& model) {
    const Plan result = plan(model, only({GoalKind::network_in_usage_distribution}));
    ASSERT_FALSE(result.actions.empty());
    EXPECT_TRUE(result.violated_after.empty());
    for (const Action& action : result.actions) {
        EXPECT_EQ(model.topics[model.partitions[action.partition].topic], "short");
    }
}

TEST(CheapestCopy, ABrokerOverTheBandShedsTheReplicasThatCopyTheFewestBytesForTheirLoad) {
    // Broker 1: 25 MiB/s in 10 replicas of 2 MiB/s holding 10 GiB each and
    // 20 of 0.25 MiB/s holding 0.1 GiB each; brokers 2 and 3: 18 MiB/s in
    // 30 disk-heavy replicas. Counts are even; load band [18.3, 22.4]:
    // broker 1 sheds about 3 MiB/s. Best fit takes a 2 MiB/s replica
    // first, 10 GiB a copy; the light ones carry 25 times the load per byte.
    expect_only_short_replicas_shed(retention_mix_model({10, 2 * mib, 10 * gib, 20, 0.25 * mib, 0.1 * gib,
                                                         0.6 * mib, 10 * gib}));
}

TEST(CheapestCopy, ABrokerWhoseDiskIsWithinTwentyPercentOfTheMeanShedsItsCheapestCopies) {
    // Broker 1: 23 MiB/s (1.13 of the mean, outside the band) in 20
    // replicas of 1 MiB/s holding 5 GiB each and 15 of 0.2 MiB/s holding
    // 0.08 GiB; brokers 2 and 3: 19 MiB/s and 78 GiB each. Broker 1's disk
    // share (1.18) is above its load share, but disk within 20% of the mean
    // is even enough: it sheds the light replicas, 60 times cheaper per
    // byte/s, not the 1 MiB/s ones best fit would take.
    expect_only_short_replicas_shed(retention_mix_model({20, 1 * mib, 5 * gib, 15, 0.2 * mib, 0.08 * gib,
                                                         19.0 / 30 * mib, 2.6 * gib}));
}

TEST(CheapestCopy, NotOffABrokerAtTheReplicaCountFloor) {
    // Broker 1: 12.5 MiB/s in 9 replicas, 5 of 0.5 MiB/s holding 0.01 GiB
    // and 4 of 2.5 MiB/s holding 3 GiB; brokers 2-4: 2.2 MiB/s in 11
    // replicas each. Load target [4.44, 5.11]: broker 1 sheds 7.4 MiB/s.
    // Count band [9, 12]: broker 1 stands at its floor. Its cheapest copies
    // are the five small ones, each taking its count further below the
    // band, to be filled back by the count goal at a copy each: the load
    // goal sheds three of 2.5 MiB/s instead (best fit). The count goal
    // fills broker 1 back in the next plan: the 1 GiB replicas it would
    // copy are over half the mean replica size, and copies that large wait
    // while a goal above it copies (copy_bytes_max).
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 4; id++) builder.broker(id);
    builder.topic("small");
    for (int i = 0; i < 5; i++) builder.partition({1}, 0.5 * mib, 0, 0.01 * gib);
    builder.topic("large");
    for (int i = 0; i < 4; i++) builder.partition({1}, 2.5 * mib, 0, 3 * gib);
    builder.topic("rest");
    for (int32_t id = 2; id <= 4; id++) {
        for (int i = 0; i < 11; i++) builder.partition({id}, 0.2 * mib, 0, 1 * gib);
    }
    const ClusterModel model = builder.build();
    const PlannerConfig config =
        only({GoalKind::network_in_usage_distribution, GoalKind::replica_count_distribution});
    const Plan result = plan(model, config);
    const Plan next = plan(apply_actions(model, result.actions, config.flavor), config);
    EXPECT_TRUE(next.violated_after.empty());
    for (const Action& action : next.actions) EXPECT_EQ(action.goal, GoalKind::replica_count_distribution);
    size_t load_moves = 0;
    for (const Action& action : result.actions) {
        if (action.goal != GoalKind::network_in_usage_distribution) continue;
        load_moves++;
        EXPECT_EQ(model.topics[model.partitions[action.partition].topic], "large");
        EXPECT_EQ(action.source, 1);
    }
    EXPECT_EQ(load_moves, 3u);
}

TEST(ReplicaCountExchange, ReachesAPartnerInItsOwnRackPastTheEmptierOnesInTheOther) {
    // Racks a and b. Brokers 1-9 (rack b) and 10-18 (rack a) hold 6
    // replicas of 8.1 MiB/s in each (48.6): six RF2 partitions per pair k,
    // 9 + k, which may move only within their racks. Broker 19 (rack a)
    // holds 16 RF1 replicas of 2.69 MiB/s and one of 2.1 (45.1, just inside
    // the bottom of the in target [45.03, 51.8]). Count band [5, 8]: broker
    // 19 must shed, a single move takes it out of the target, so only
    // exchanges can. Its partners come emptiest first, ties by index: the
    // nine in rack b first, where none of their replicas may go.
    ModelBuilder builder(now_ms);
    builder.racks({"a", "b"});
    for (int32_t id = 1; id <= 19; id++) builder.broker(id, id <= 9 ? 1 : 0);
    builder.topic("heavy");
    for (int32_t k = 1; k <= 9; k++) {
        for (int i = 0; i < 6; i++) builder.partition({9 + k, k}, 8.1 * mib, 0, 1 * gib);
    }
    builder.topic("light");
    for (int i = 0; i < 16; i++) builder.partition({19}, 2.69 * mib, 0, 1 * gib);
    builder.partition({19}, 2.1 * mib, 0, 1 * gib);
    const ClusterModel model = builder.build();
    const PlannerConfig config = only(
        {GoalKind::rack_aware, GoalKind::network_in_usage_distribution, GoalKind::replica_count_distribution});
    const Plan result = plan(model, config);
    EXPECT_TRUE(result.violated_after.empty());
    EXPECT_LE(replica_counts(apply(model, result, config.flavor))[18], 8);
}

/// RF2, no racks (the two tests below say why each broker is where it is),
/// and `tiny` partitions broker 2 leads (in and out 5 KiB/s) followed by
/// brokers 3 and 4.
ClusterModel top_of_out_target_model(int tiny) {
    ModelBuilder builder(now_ms);
    for (int32_t id = 1; id <= 4; id++) builder.broker(id);
    builder.topic("hot");
    for (int k = 0; k < 16; k++) builder.partition({1, k < 8 ? 3 : 4}, 2.06 * mib, 0, 2 * gib);
    builder.topic("follower");
    builder.partition({4, 1}, 9.7 * mib, 2.8 * mib, 20 * gib);
    builder.topic("read");
    builder.partition({2, 3}, 1.4 * mib, 34.5 * mib, 1 * gib);
    builder.topic("light");
    for (int k = 0; k < 60; k++) builder.partition({k < 37 ? 3 : 4, 2}, 0.6 * mib, 0.29 * mib, 1 * gib);
    if (tiny > 0) builder.topic("tiny");
    for (int k = 0; k < tiny; k++) builder.partition({2, k % 2 == 0 ? 3 : 4}, 0.005 * mib, 0.005 * mib, 1 * gib);
    return builder.build();
}

PlannerConfig top_of_out_target_config() {
    return only({GoalKind::network_in_usage_distribution, GoalKind::network_out_usage_distribution,
                 GoalKind::replica_count_distribution});
}

TEST(ReplicaCountExchange, ABrokerAtTheTopOfTheOutTargetTakesAFollowerForFollowers) {
    // RF2, no racks. Broker 2 (61 replicas, count band [35, 43]) follows 60
    // light partitions (0.6 MiB/s in) and leads one read at 34.5 MiB/s: its
    // in sits at the bottom of the in target (0.934 of the mean) and its
    // out at the top of the out target (1.066). Broker 1 (17 replicas, in
    // at 1.066) leads 16 hot partitions, the most load per byte it has, and
    // follows one of 9.7 MiB/s in. Whatever broker 2 gives lowers its in,
    // whatever it takes with out raises its out: only a follower given for
    // followers, which moves no out, passes both targets.
    const ClusterModel model = top_of_out_target_model(0);
    const PlannerConfig config = top_of_out_target_config();
    const Plan result = plan(model, config);
    const ClusterModel after = apply(model, result, config.flavor);
    EXPECT_LE(replica_counts(after)[1], 43);
    // Broker 2's out is where it was: no leadership came or went.
    EXPECT_NEAR(broker_loads(after)[1].bytes_out_per_s, broker_loads(model)[1].bytes_out_per_s, 1.0);
}

TEST(ReplicaCountExchange, TakesFollowersForAFollowerPastLighterLeaders) {
    // The model above, and broker 2 also leads 70 tiny partitions (in and
    // out 5 KiB/s). By load they are its 70
    // lightest replicas, but a follower given moves no out to make room
    // for a leader's: the light ones taken for it are its followers.
    const ClusterModel model = top_of_out_target_model(70);
    const PlannerConfig config = top_of_out_target_config();
    const Plan result = plan(model, config);
    bool follower_given = false;
    for (const Action& a : result.actions) {
        follower_given = follower_given || (model.topics[model.partitions[a.partition].topic] == "follower" &&
                                            a.kind == ActionKind::move && a.source == 1 && a.destination == 2);
    }
    EXPECT_TRUE(follower_given);
}

}  // namespace
}  // namespace ballast::goals
