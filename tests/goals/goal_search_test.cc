// What the planning state keeps up to date through actions, and what the
// searches' shared helpers (goals/goal_search.h, goals/replica_lists.h) remember between calls,
// against hand-built states: each holds only while the state does.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "goals/goal.h"
#include "goals/goal_search.h"
#include "goals/planner_types.h"
#include "goals/planning_state.h"
#include "tests/goals/model_builder.h"

namespace ballast::goals {
namespace {

using test_support::mib;
using test_support::ModelBuilder;
using test_support::only;

constexpr int64_t now_ms = 100'000;

ClusterModel four_brokers() {
    ModelBuilder builder(now_ms);
    for (int id = 1; id <= 4; id++) builder.broker(id);
    builder.topic("t");
    builder.partition({2, 1}, 0.5 * mib, 0);  // 0: followed on broker 1, led on 2
    builder.partition({1}, 1 * mib, 0);       // 1
    builder.partition({1}, 2 * mib, 0);       // 2
    builder.partition({3}, 5 * mib, 0);       // 3
    return builder.build();
}

constexpr uint32_t broker_1 = 0;  // indices: brokers by id
constexpr uint32_t broker_2 = 1;
constexpr uint32_t broker_3 = 2;
constexpr uint32_t broker_4 = 3;

/// least_load_ascending answers from what it found while none of the
/// broker's partitions is touched, and anew once one is: its replica on
/// another holder moved, or its replica on the broker moved off.
TEST(ReplicaLists, LeastLoadIsFoundAnewOnceAnActionTouchesOneOfTheBrokersPartitions) {
    const ClusterModel model = four_brokers();
    const PlannerConfig config = only({GoalKind::replica_count_distribution});  // the state keeps a reference
    PlanningState state(model, config, false);
    ReplicaLists lists(state, network_key(), false, ListFor::moves);
    auto least_in = [&](uint32_t broker) {
        return least_load_ascending(state, broker, lists.of(broker), 1).bytes_in_per_s;
    };

    ASSERT_DOUBLE_EQ(least_in(broker_1), 0.5 * mib);
    ASSERT_DOUBLE_EQ(least_in(broker_1), 0.5 * mib);
    ASSERT_DOUBLE_EQ(least_in(broker_3), 5 * mib);
    // Partition 0 moves from broker 2 to 4: broker 1 still follows it, but
    // a touched partition moves no more this plan.
    state.apply(state.move(0, broker_2, broker_4, false), GoalKind::replica_count_distribution);
    EXPECT_DOUBLE_EQ(least_in(broker_1), 1 * mib);
    // Partition 1 leaves broker 1.
    state.apply(state.move(1, broker_1, broker_3, false), GoalKind::replica_count_distribution);
    EXPECT_DOUBLE_EQ(least_in(broker_1), 2 * mib);
    // Broker 3 got a touched partition: its own are as they were.
    EXPECT_DOUBLE_EQ(least_in(broker_3), 5 * mib);
}

/// A list asked again after actions drops what they touched from the
/// entries its last answer covered and walks on from there: its answer is
/// a whole walk's over the same list (the first `tries` entries still
/// movable from the bottom), through moves and leader changes on the
/// broker and off it, and through actions taken back (whose partitions
/// are movable again).
TEST(ReplicaLists, LeastLoadKeptAcrossActionsIsAWholeWalksAnswer) {
    std::mt19937 random(5);
    ModelBuilder builder(now_ms);
    for (int id = 1; id <= 4; id++) builder.broker(id);
    builder.topic("t");
    for (int i = 0; i < 120; i++) {
        const int32_t first = 1 + static_cast<int32_t>(random() % 4);
        const int32_t second = 1 + (first % 4);
        builder.partition({first, second}, static_cast<double>(1 + random() % 50) * 0.1 * mib,
                          static_cast<double>(random() % 30) * 0.1 * mib);
    }
    const ClusterModel model = builder.build();
    const PlannerConfig config = only({GoalKind::replica_count_distribution});  // the state keeps a reference
    PlanningState state(model, config, false);
    ReplicaLists lists(state, network_key(), false, ListFor::moves);
    constexpr uint32_t tries = 8;
    auto whole_walk = [&](uint32_t b) {
        ReplicaList& list = lists.of(b);
        Load least = no_load_yet;
        uint32_t taken = 0;
        for (size_t i = list.entries.size(); i-- > 0 && taken < tries;) {
            const uint32_t p = list.at_bottom(i).partition;
            if (!state.movable(p)) continue;
            taken++;
            least = least_of(least, state.replica_load_on(p, b));
        }
        return least;
    };
    size_t applied = 0;
    size_t undone = 0;
    for (int step = 0; step < 400; step++) {
        if (applied > 0 && random() % 4 == 0) {
            state.undo_last();
            applied--;
            undone++;
        } else {
            const uint32_t p = static_cast<uint32_t>(random() % state.partition_count());
            const uint32_t s = state.replicas(p)[random() % 2];
            const uint32_t d = static_cast<uint32_t>(random() % 4);
            const Candidate c = random() % 3 == 0 ? state.leader_change(p, s, d) : state.move(p, s, d, false);
            if (!state.valid(c, false)) continue;
            state.apply(c, GoalKind::replica_count_distribution);
            applied++;
        }
        for (uint32_t b = 0; b < state.broker_count(); b++) {
            const Load got = least_load_ascending(state, b, lists.of(b), tries);
            const Load want = whole_walk(b);
            ASSERT_EQ(got.bytes_in_per_s, want.bytes_in_per_s) << "step " << step << ", broker " << b;
            ASSERT_EQ(got.bytes_out_per_s, want.bytes_out_per_s) << "step " << step << ", broker " << b;
            ASSERT_EQ(got.size_bytes, want.size_bytes) << "step " << step << ", broker " << b;
        }
    }
    EXPECT_GT(applied + undone, 100u);
    EXPECT_GT(undone, 20u);
}

/// What the searches key their memory on: a broker's holder_epoch moves
/// when an action, or its undo, touches a partition it holds before or
/// after, and stays for a broker that holds none of them.
TEST(PlanningState, HolderEpochMovesForEachHolderOfATouchedPartitionOnApplyAndUndo) {
    const ClusterModel model = four_brokers();
    const PlannerConfig config = only({GoalKind::replica_count_distribution});  // the state keeps a reference
    PlanningState state(model, config, false);
    auto epochs = [&] {
        std::vector<uint64_t> out;
        for (uint32_t b = 0; b < state.broker_count(); b++) out.push_back(state.holder_epoch(b));
        return out;
    };
    std::vector<uint64_t> before = epochs();
    state.apply(state.move(0, broker_2, broker_4, false), GoalKind::replica_count_distribution);
    std::vector<uint64_t> after = epochs();
    EXPECT_NE(after[broker_1], before[broker_1]) << "the other holder";
    EXPECT_NE(after[broker_2], before[broker_2]) << "the source";
    EXPECT_NE(after[broker_4], before[broker_4]) << "the destination";
    EXPECT_EQ(after[broker_3], before[broker_3]) << "holds none of it";
    before = after;
    state.undo_last();
    after = epochs();
    EXPECT_NE(after[broker_1], before[broker_1]);
    EXPECT_NE(after[broker_2], before[broker_2]);
    EXPECT_NE(after[broker_4], before[broker_4]);
    EXPECT_EQ(after[broker_3], before[broker_3]);
    // A leader change touches the partition too.
    before = after;
    state.apply(state.leader_change(0, broker_2, broker_1), GoalKind::replica_count_distribution);
    after = epochs();
    EXPECT_NE(after[broker_1], before[broker_1]);
    EXPECT_NE(after[broker_2], before[broker_2]);
    EXPECT_EQ(after[broker_3], before[broker_3]);
}

/// The partitions with a rack excess, kept through moves and undos (for the
/// rack goal's satisfied), agree with a pass over every partition: a move
/// that crowds a rack, one that mends a crowded partition, their undos; an
/// excluded partition never counts.
TEST(PlanningState, RackCrowdedAgreesWithAPassOverThePartitionsThroughMovesAndUndos) {
    ModelBuilder builder(now_ms);
    builder.racks({"a", "b", "c"});
    for (int id = 1; id <= 6; id++) builder.broker(id, static_cast<uint32_t>((id - 1) % 3));  // racks a b c a b c
    builder.topic("t");
    builder.partition({1, 2, 3}, mib, 0);  // 0: one in each rack
    builder.partition({1, 4, 2}, mib, 0);  // 1: two in rack a
    builder.partition({2, 5, 3}, mib, 0);  // 2: two in rack b
    builder.topic("u");
    builder.partition({3, 6, 1}, mib, 0).excluded = true;  // crowded, excluded
    const ClusterModel model = builder.build();
    const PlannerConfig config = only({GoalKind::rack_aware});
    PlanningState state(model, config, false);
    const std::unique_ptr<Goal> rack = make_goal(GoalKind::rack_aware);
    auto pass = [&] {
        uint32_t crowded = 0;
        for (uint32_t p = 0; p < state.partition_count(); p++) crowded += !state.excluded(p) && state.rack_excess(p) > 0;
        return crowded;
    };
    auto index = [&](int32_t id) { return state.broker_index(id); };
    ASSERT_TRUE(state.rack_crowded().has_value());
    EXPECT_EQ(*state.rack_crowded(), 2u);
    EXPECT_EQ(pass(), 2u);
    EXPECT_FALSE(rack->satisfied(state));
    // Partition 0's replica on broker 3 (rack c) to broker 4 (rack a): crowded.
    state.apply(state.move(0, index(3), index(4), false), GoalKind::rack_aware);
    EXPECT_EQ(*state.rack_crowded(), 3u);
    EXPECT_EQ(pass(), 3u);
    // Partitions 1 and 2 mended: rack a's second replica to c, rack b's to a.
    state.apply(state.move(1, index(4), index(6), false), GoalKind::rack_aware);
    state.apply(state.move(2, index(5), index(4), false), GoalKind::rack_aware);
    EXPECT_EQ(*state.rack_crowded(), 1u);
    EXPECT_EQ(pass(), 1u);
    state.undo_last();
    state.undo_last();
    state.undo_last();
    EXPECT_EQ(*state.rack_crowded(), 2u);
    EXPECT_EQ(pass(), 2u);
    // Mended without partition 0's crowding: satisfied, the excluded one aside.
    state.apply(state.move(1, index(4), index(6), false), GoalKind::rack_aware);
    state.apply(state.move(2, index(5), index(4), false), GoalKind::rack_aware);
    EXPECT_EQ(*state.rack_crowded(), 0u);
    EXPECT_TRUE(rack->satisfied(state));
}

constexpr double gib = 1024.0 * mib;

/// A count goal's copies are bounded only once a goal before it copied a
/// replica in the plan: a leadership change copies nothing.
TEST(CopyBytesMax, NoBoundUntilAnEarlierGoalCopiedAReplicaThenTheRatioOfTheMean) {
    const ClusterModel model = four_brokers();
    const PlannerConfig config = only({GoalKind::replica_count_distribution});  // the state keeps a reference
    PlanningState state(model, config, false);
    Findings findings(16);
    const GoalContext context(state, GoalKind::replica_count_distribution, {}, findings);
    EXPECT_TRUE(std::isinf(copy_bytes_max(context, 10 * gib)));
    state.apply(state.leader_change(0, broker_2, broker_1), GoalKind::leader_count_distribution);
    EXPECT_TRUE(std::isinf(copy_bytes_max(context, 10 * gib))) << "a leadership change copies nothing";
    state.apply(state.move(1, broker_1, broker_3, false), GoalKind::network_in_usage_distribution);
    EXPECT_DOUBLE_EQ(copy_bytes_max(context, 10 * gib), deferred_copy_ratio * 10 * gib);
}

/// A list sorted lazily from both ends shows every walk the order a full
/// sort gives (value descending, ties by partition), whatever mix of walks
/// from the top (at), from the bottom (at_bottom) and drops from the bottom
/// (pop_back) came before, and ends wholly sorted once the two parts meet.
TEST(ReplicaList, WalksFromEitherEndSeeTheOrderOfAFullSort) {
    std::mt19937 random(7);
    for (int trial = 0; trial < 200; trial++) {
        ReplicaList list;
        const size_t size = std::uniform_int_distribution<size_t>(0, 600)(random);
        for (uint32_t p = 0; p < size; p++) {
            // Few values: many ties, broken by partition index.
            list.entries.push_back({static_cast<double>(std::uniform_int_distribution<int>(0, 40)(random)), p, 0});
        }
        std::vector<ReplicaEntry> sorted = list.entries;
        std::sort(sorted.begin(), sorted.end(), [](const ReplicaEntry& a, const ReplicaEntry& b) {
            return a.value != b.value ? a.value > b.value : a.partition < b.partition;
        });
        for (int walk = 0; walk < 12 && !list.entries.empty(); walk++) {
            const size_t n = list.entries.size();
            const size_t depth = std::uniform_int_distribution<size_t>(0, n - 1)(random);
            switch (std::uniform_int_distribution<int>(0, 2)(random)) {
                case 0:
                    for (size_t i = 0; i <= depth; i++) ASSERT_EQ(list.at(i).partition, sorted[i].partition);
                    break;
                case 1:
                    for (size_t i = n; i-- > n - 1 - depth;) {
                        ASSERT_EQ(list.at_bottom(i).partition, sorted[i].partition);
                    }
                    break;
                default:
                    for (size_t k = 0; k <= depth / 8; k++) {
                        ASSERT_EQ(list.at_bottom(list.entries.size() - 1).partition, sorted.back().partition);
                        list.pop_back();
                        sorted.pop_back();
                    }
            }
            ASSERT_LE(list.sorted_end, list.entries.size());
            ASSERT_LE(list.sorted_tail, list.entries.size());
        }
        list.sort_all();
        ASSERT_EQ(list.entries.size(), sorted.size());
        for (size_t i = 0; i < sorted.size(); i++) ASSERT_EQ(list.entries[i].partition, sorted[i].partition);
    }
}

/// The fewest-bytes walk visits the best-fit walk's head (the first
/// bytes_choices entries at least a quarter of the first's load) by bytes
/// per load, ties in walk order, as a stable sort orders them; then the
/// rest of the walk as it comes. Few distinct loads and sizes: many ties.
TEST(VisitFewestBytesFirst, VisitsTheHeadByBytesPerLoadTiesInWalkOrderThenTheRest) {
    std::mt19937 random(11);
    const PlannerConfig config = only({GoalKind::network_in_usage_distribution});
    for (int trial = 0; trial < 100; trial++) {
        ModelBuilder builder(now_ms);
        builder.broker(1);
        builder.broker(2);
        builder.topic("t");
        const int partitions = std::uniform_int_distribution<int>(1, 120)(random);
        for (int p = 0; p < partitions; p++) {
            const double in = std::uniform_int_distribution<int>(1, 12)(random) * mib;
            const double size = std::uniform_int_distribution<int>(1, 4)(random) * mib;
            builder.partition({1}, in, 0, size);
        }
        const ClusterModel model = builder.build();
        const PlanningState state(model, config, false);
        ReplicaLists lists(state, resource_key(Resource::network_in), true, ListFor::moves);
        const double pivot = std::uniform_int_distribution<int>(0, 13)(random) * mib;
        const double high = std::uniform_int_distribution<int>(0, 13)(random) * mib;

        std::vector<ReplicaEntry> walk;  // the best-fit walk, every entry turned down
        visit_below_first(state, 0, lists.of(0), pivot, high, replica_tries_max, [&](const ReplicaEntry& e) {
            walk.push_back(e);
            return false;
        });
        size_t head = 0;
        while (head < walk.size() && head < bytes_choices && walk[head].value >= walk[0].value * 0.25) {
            head++;
        }
        auto bytes_per_load = [&](const ReplicaEntry& e) {
            return model.partitions[e.partition].load.size_bytes / e.value;
        };
        std::vector<ReplicaEntry> expected = walk;
        std::stable_sort(expected.begin(), expected.begin() + static_cast<std::ptrdiff_t>(head),
                         [&](const ReplicaEntry& a, const ReplicaEntry& b) {
                             return bytes_per_load(a) < bytes_per_load(b);
                         });

        std::vector<uint32_t> visited;
        visit_fewest_bytes_first(state, 0, lists.of(0), pivot, high, [&](const ReplicaEntry& e) {
            visited.push_back(e.partition);
            return false;
        });
        ASSERT_EQ(visited.size(), expected.size()) << "trial " << trial;
        for (size_t i = 0; i < expected.size(); i++) {
            ASSERT_EQ(visited[i], expected[i].partition)
                << "trial " << trial << ", visit " << i << ", " << head << " in the head";
        }
    }
}

/// A partition's rack excess is the sum over racks of the replicas past
/// the rack limit, for replication factors past the limit of one (fewer
/// racks than replicas) and past the eight racks read into an array.
TEST(PlanningState, RackExcessIsEachRacksReplicasPastItsLimit) {
    std::mt19937 random(11);
    for (int racks : {2, 3, 5}) {
        ModelBuilder builder(now_ms);
        std::vector<std::string> names;
        for (int r = 0; r < racks; r++) names.push_back("r" + std::to_string(r));
        builder.racks(names);
        for (int id = 1; id <= 12; id++) builder.broker(id, static_cast<uint32_t>(id % racks));
        builder.topic("t");
        for (int p = 0; p < 60; p++) {
            std::vector<int32_t> ids(12);
            std::iota(ids.begin(), ids.end(), 1);
            std::shuffle(ids.begin(), ids.end(), random);
            ids.resize(std::uniform_int_distribution<size_t>(1, 12)(random));
            builder.partition(ids, mib, 0);
        }
        const ClusterModel model = builder.build();
        const PlannerConfig config = only({GoalKind::rack_aware});
        const PlanningState state(model, config, false);
        for (uint32_t p = 0; p < state.partition_count(); p++) {
            std::map<uint32_t, uint32_t> per_rack;
            for (uint32_t b : state.replicas(p)) per_rack[state.broker(b).rack]++;
            uint32_t excess = 0;
            for (const auto& [rack, count] : per_rack) {
                excess += count > state.rack_limit(p) ? count - state.rack_limit(p) : 0;
            }
            EXPECT_EQ(state.rack_excess(p), excess) << "partition " << p << ", " << racks << " racks";
        }
    }
}

}  // namespace
}  // namespace ballast::goals
