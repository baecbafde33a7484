/// Properties of the planning state over random clusters: what a search
/// reads of it stays what a state built afresh would hold, round after round
/// (Rounds) and move after move (the racks the rack goal judges by).

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "goals/goal.h"
#include "goals/planner_types.h"
#include "goals/planning_state.h"
#include "goals/replica_lists.h"
#include "tests/goals/random_cluster.h"

namespace ballast::goals {
namespace {

/// A complete plan's rounds (Rounds) carry one working state from round to
/// round: each round plans, bit for bit, what `plan` plans on the model the
/// rounds before it leave, and that model passes the input check.
RC_GTEST_PROP(PlannerProperties, EachRoundPlansAsAPlanOfTheModelTheRoundsBeforeItLeave, ()) {
    const ClusterModel model = test_support::random_model();
    const PlannerConfig config = test_support::random_config();
    RC_PRE(check_input(model, config).empty());
    Rounds rounds(model, config);
    ClusterModel now = model;
    uint32_t planned = 0;  // rounds that planned an action
    for (int round = 0; round < 5; round++) {
        const Plan next = rounds.next();
        RC_ASSERT(next == plan(now, config));
        now = apply_actions(now, next.actions, config.flavor);
        RC_ASSERT(rounds.model() == now);
        RC_ASSERT(check_input(now, config).empty());
        if (next.actions.empty()) break;
        planned++;
    }
    RC_TAG(planned >= 2 ? "two or more rounds with actions" : planned == 1 ? "one round with actions" : "none");
}

/// A random cluster, and a random config with the rack goal among its goals.
std::pair<ClusterModel, PlannerConfig> random_with_rack_goal() {
    ClusterModel model = test_support::random_model();
    PlannerConfig config = test_support::random_config();
    if (!has_goal(config, GoalKind::rack_aware)) config.goals.push_back(GoalKind::rack_aware);
    RC_PRE(check_input(model, config).empty());
    return {std::move(model), std::move(config)};
}

/// The rack goal reads a partition's racks from one word where each replica
/// stands in a rack of its own (PlanningState::rack_set): its answer is still
/// its rule, a move refused exactly when the partition's rack excess,
/// counted replica by replica, grows; and refused_racks says the same per rack.
RC_GTEST_PROP(StateProperties, TheRackGoalRefusesExactlyTheMovesThatGrowARacksExcess, ()) {
    const auto [model, config] = random_with_rack_goal();
    PlanningState state(model, config, false);
    const std::unique_ptr<Goal> rack = make_goal(GoalKind::rack_aware);
    uint32_t refused = 0;
    uint32_t from_one_word = 0;
    for (uint32_t p = 0; p < state.partition_count(); p++) {
        const std::vector<uint32_t> holders(state.replicas(p).begin(), state.replicas(p).end());
        for (uint32_t s : holders) {
            const std::optional<uint64_t> racks = rack->refused_racks(state, p, s);
            for (uint32_t d = 0; d < state.broker_count(); d++) {
                const Candidate move = state.move(p, s, d, false);
                if (!state.valid(move, true) || !state.within_broker_budget(move)) continue;
                const uint32_t before = state.rack_excess(p);
                state.apply_trial(move);
                const uint32_t after = state.rack_excess(p);
                state.undo_trial();
                RC_ASSERT(rack->refuses_move(state, p, s, d) == (after > before));
                if (racks) RC_ASSERT((*racks >> state.broker(d).rack & 1) == static_cast<uint64_t>(after > before));
                refused += after > before;
                from_one_word += state.rack_set(p) != PlanningState::rack_set_unknown;
            }
        }
    }
    RC_TAG(refused == 0 ? "no move refused" : "some move refused");
    RC_TAG(from_one_word == 0 ? "no rack set known" : "some rack set known");
}

/// What the rack goal reads of a state (rack_set, rack_open, rack_crowded)
/// is kept through moves, and undone ones, as a state built from the
/// model they leave counts it, and as their definitions count it.
RC_GTEST_PROP(StateProperties, RackCountsKeptThroughMovesMatchAFreshStateAndTheirDefinitions, ()) {
    const auto [model, config] = random_with_rack_goal();
    PlanningState state(model, config, false);
    const int tries = *rc::gen::inRange(1, 40);
    for (int i = 0; i < tries; i++) {
        const uint32_t p = static_cast<uint32_t>(*rc::gen::inRange<int>(0, static_cast<int>(state.partition_count())));
        const std::span<const uint32_t> holders = state.replicas(p);
        const uint32_t s = holders[static_cast<size_t>(*rc::gen::inRange<int>(0, static_cast<int>(holders.size())))];
        const uint32_t d = static_cast<uint32_t>(*rc::gen::inRange<int>(0, static_cast<int>(state.broker_count())));
        const Candidate move = state.move(p, s, d, false);
        if (!state.valid(move, true) || !state.within_broker_budget(move)) continue;
        state.apply(move, GoalKind::rack_aware);
        if (test_support::chance(20)) state.undo_last();
    }
    const std::vector<Action> actions = state.take_actions();
    const ClusterModel after = apply_actions(model, actions, config.flavor);
    const PlanningState built(after, config, false);
    for (uint32_t b = 0; b < state.broker_count(); b++) RC_ASSERT(state.rack_open(b) == built.rack_open(b));
    RC_ASSERT(state.rack_crowded() == built.rack_crowded());
    for (uint32_t p = 0; p < state.partition_count(); p++) RC_ASSERT(state.rack_set(p) == built.rack_set(p));
    RC_TAG(actions.empty() ? "no move" : "some moves");
    if (!state.rack_crowded()) return;  // not kept: one rack
    // And as counted from their definitions, replica by replica.
    std::vector<uint32_t> open(state.broker_count(), 0);
    uint32_t crowded = 0;
    for (uint32_t p = 0; p < state.partition_count(); p++) {
        std::map<uint32_t, uint32_t> per_rack;
        for (uint32_t h : state.replicas(p)) per_rack[state.broker(h).rack]++;
        const uint32_t limit = state.rack_limit(p);
        uint32_t excess = 0;
        bool distinct = true;
        for (const auto& [rack, count] : per_rack) {
            excess += count > limit ? count - limit : 0;
            distinct = distinct && count == 1 && rack < 31;
        }
        if (!state.excluded(p) && excess > 0) crowded++;
        uint32_t set = 0;
        for (const auto& [rack, count] : per_rack) set |= distinct ? uint32_t{1} << rack : 0;
        RC_ASSERT(state.rack_set(p) == (distinct ? set : PlanningState::rack_set_unknown));
        // Closed: each rack with an eligible broker holds the limit, none
        // more (more than eight replicas are called open).
        bool closed = state.replicas(p).size() <= 8;
        for (const auto& [rack, count] : per_rack) closed = closed && count <= limit;
        for (uint32_t b = 0; b < state.broker_count(); b++) {
            const auto it = per_rack.find(state.broker(b).rack);
            if (state.broker(b).eligible && (it == per_rack.end() ? 0 : it->second) < limit) closed = false;
        }
        if (!closed) {
            for (uint32_t h : state.replicas(p)) open[h]++;
        }
    }
    for (uint32_t b = 0; b < state.broker_count(); b++) RC_ASSERT(state.rack_open(b) == open[b]);
    RC_ASSERT(*state.rack_crowded() == crowded);
}

/// A guard that refuses one broker's side (refuses_taking, refuses_giving)
/// for a least load refuses it, and every move on that side, for each load
/// at least its side_refusal_floor, however light in the other resources:
/// what the searches remember of a refused partner (PairRefusals) and answer
/// without asking again.
RC_GTEST_PROP(StateProperties, ASideRefusalHoldsForEveryLoadAtLeastItsFloor, ()) {
    const ClusterModel model = test_support::random_model();
    const PlannerConfig config = test_support::random_config();
    RC_PRE(check_input(model, config).empty());
    const PlanningState state(model, config, false);
    RC_PRE(state.partition_count() > 0);
    uint32_t refused = 0;
    for (GoalKind kind : {GoalKind::replica_capacity, GoalKind::network_in_usage_distribution,
                          GoalKind::network_out_usage_distribution, GoalKind::replica_count_distribution}) {
        const std::unique_ptr<Goal> goal = make_goal(kind);
        for (uint32_t b = 0; b < state.broker_count(); b++) {
            // A replica's load, as a leader or as a follower.
            const uint32_t p = *rc::gen::inRange<uint32_t>(0, state.partition_count());
            const std::span<const uint32_t> holders = state.replicas(p);
            const Load least = state.replica_load_on(p, holders[*rc::gen::inRange<size_t>(0, holders.size())]);
            const Load floor = goal->side_refusal_floor(least);
            RC_ASSERT(at_least(least, floor));
            // The floor itself, or more by up to a few times the least in any resource.
            const double scale = std::max({least.bytes_in_per_s, least.bytes_out_per_s, least.size_bytes, 1.0});
            auto more = [&] { return test_support::chance(50) ? 0.0 : *rc::gen::inRange(0, 300) / 100.0 * scale; };
            const Load heavier{floor.bytes_in_per_s + more(), floor.bytes_out_per_s + more(),
                               floor.size_bytes + more()};
            if (goal->refuses_taking(state, b, least)) {
                refused++;
                RC_ASSERT(goal->refuses_taking(state, b, heavier));
                for (uint32_t s = 0; s < state.broker_count(); s++) {
                    if (s != b) RC_ASSERT(goal->refuses_every_move(state, s, b, heavier));
                }
            }
            if (goal->refuses_giving(state, b, least)) {
                refused++;
                RC_ASSERT(goal->refuses_giving(state, b, heavier));
                for (uint32_t d = 0; d < state.broker_count(); d++) {
                    if (d != b) RC_ASSERT(goal->refuses_every_move(state, b, d, heavier));
                }
            }
        }
    }
    RC_TAG(refused == 0 ? "no side refused" : "some side refused");
}

}  // namespace
}  // namespace ballast::goals
