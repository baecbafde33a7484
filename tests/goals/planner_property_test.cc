/// Properties of the planner and the gate over random clusters
/// (random_cluster.h): what every plan keeps, whatever the cluster, the
/// config, the flavor and the goals' order.

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "goals/broker_stability.h"
#include "goals/goal.h"
#include "goals/planner_types.h"
#include "tests/goals/model_builder.h"
#include "tests/goals/random_cluster.h"

namespace ballast::goals {
namespace {

using test_support::apply;
using test_support::chance;
using test_support::contains;
using test_support::deviation_max;
using test_support::in_of;
using test_support::mib;
using test_support::now_ms;
using test_support::out_of;
using test_support::random_config;
using test_support::random_model;
using test_support::replicas_of;

const Broker& broker_of(const ClusterModel& model, int32_t id) {
    const Broker* broker = test_support::find_broker(model, id);
    RC_ASSERT(broker != nullptr);
    return *broker;
}

bool dead(const ClusterModel& model, const Broker& broker, const PlannerConfig& config) {
    return broker.liveness != Liveness::alive &&
           model.now_ms - broker.liveness_changed_ms >= broker_stability(broker, model.now_ms, config).grace_ms;
}

bool cooling(const Partition& partition, const PlannerConfig& config) {
    return partition.last_moved_ms >= 0 && now_ms - partition.last_moved_ms < config.partition_cooldown_ms;
}

RC_GTEST_PROP(PlannerProperties, ActionsAreValid, ()) {
    const ClusterModel model = random_model();
    const PlannerConfig config = random_config();
    RC_ASSERT(check_input(model, config).empty());
    const Plan result = plan(model, config);
    RC_ASSERT(result.status != Plan::Status::invalid_input);
    RC_ASSERT(result.actions.size() <= config.actions_max);
    RC_ASSERT(result.unfixable.size() <= config.unfixable_max);
    for (const Unfixable& entry : result.unfixable) {
        RC_ASSERT(entry.partition == UINT32_MAX || entry.partition < model.partitions.size());
        RC_ASSERT(entry.broker_id == -1 || test_support::find_broker(model, entry.broker_id) != nullptr);
        RC_ASSERT(!entry.reason.empty());
    }
    RC_ASSERT((result.status == Plan::Status::actions_planned) == !result.actions.empty());

    ClusterModel state = model;
    for (const Action& action : result.actions) {
        const Broker& source = broker_of(model, action.source);
        const Broker& destination = broker_of(model, action.destination);
        RC_ASSERT(!source.excluded);
        RC_ASSERT(!destination.excluded);
        RC_ASSERT(destination.liveness == Liveness::alive);
        RC_ASSERT(!destination.draining);
        RC_ASSERT(!model.partitions[action.partition].excluded);
        const std::vector<int32_t> before = replicas_of(state, action.partition);
        RC_ASSERT(before == action.replicas_before);
        const bool source_holds = std::count(before.begin(), before.end(), action.source) == 1;
        const bool destination_holds = std::count(before.begin(), before.end(), action.destination) == 1;
        RC_ASSERT(source_holds);
        if (action.kind == ActionKind::leader) {
            RC_ASSERT(destination_holds);
            RC_ASSERT(before.size() > 1u);
            RC_ASSERT(state.partitions[action.partition].leader == action.source);
        } else {
            RC_ASSERT(!destination_holds);
        }
        if (action.kind == ActionKind::swap) {
            RC_ASSERT(!model.partitions[action.swap_partition].excluded);
            const std::vector<int32_t> theirs = replicas_of(state, action.swap_partition);
            RC_ASSERT(std::count(theirs.begin(), theirs.end(), action.destination) == 1);
            RC_ASSERT(std::count(theirs.begin(), theirs.end(), action.source) == 0);
        }
        if (action.evacuation) {
            RC_ASSERT(action.kind == ActionKind::move);
            RC_ASSERT(dead(model, source, config) || (source.liveness == Liveness::alive && source.draining));
        } else {
            // Balancing and repairs land only on brokers that take part in balancing.
            RC_ASSERT(test_support::eligible(model, destination, config));
            RC_ASSERT(source.liveness == Liveness::alive);
        }
        Plan one;
        one.actions = {action};
        state = apply(state, one, config.flavor);
        const std::vector<int32_t> after = replicas_of(state, action.partition);
        RC_ASSERT(std::set<int32_t>(after.begin(), after.end()).size() == after.size());
    }
}

RC_GTEST_PROP(PlannerProperties, HardGoalsThatHeldStillHoldAfterEveryAction, ()) {
    const ClusterModel model = random_model();
    const PlannerConfig config = random_config();
    const Plan result = plan(model, config);
    std::vector<GoalKind> held;
    for (GoalKind goal : config.goals) {
        if (goal_is_hard(goal) && !contains(result.violated_before, goal)) held.push_back(goal);
    }
    RC_ASSERT(violated_goals(model, config) == result.violated_before);
    RC_TAG(result.actions.empty() ? "no actions" : result.actions.size() < 10 ? "1-9 actions" : "10+ actions");
    // Step by step: no action, whatever goal proposed it, breaks one.
    ClusterModel state = model;
    for (size_t i = 0; i < result.actions.size(); i++) {
        Plan one;
        one.actions = {result.actions[i]};
        state = apply(state, one, config.flavor);
        const std::vector<GoalKind> violated = violated_goals(state, config);
        for (GoalKind goal : held) {
            RC_ASSERT_FALSE(contains(violated, goal));
        }
    }
    RC_ASSERT(violated_goals(state, config) == result.violated_after);
}

RC_GTEST_PROP(PlannerProperties, NetworkDistributionNeverWidens, ()) {
    const ClusterModel model = random_model(chance(80));
    PlannerConfig config = random_config();
    config.goals = default_goals();
    const Plan result = plan(model, config);
    // Evacuations and hard-goal repairs move load for availability and safety,
    // and may widen it; every other action keeps within the widest deviation.
    for (const Action& action : result.actions) {
        if (action.evacuation || goal_is_hard(action.goal)) {
            RC_TAG("not judged: evacuation or repair");
            return;
        }
    }
    RC_TAG(result.actions.empty() ? "no actions" : "judged");
    const ClusterModel after = apply(model, result, config.flavor);
    for (auto resource : {&in_of, &out_of}) {
        const double before = deviation_max(model, config, resource);
        const double now = deviation_max(after, config, resource);
        RC_ASSERT(now <= before * (1 + 1e-6) + 1e-3);
    }
}

/// A random cluster's planning state and a context for its last goal,
/// guarded by every configured goal: what the searches ask.
struct Guarded {
    ClusterModel model = random_model(chance(50));
    PlannerConfig config = random_config();
    std::unique_ptr<PlanningState> state;
    std::vector<std::unique_ptr<Goal>> goals;
    std::vector<const Goal*> guards;
    Findings findings{16};
    std::unique_ptr<GoalContext> context;

    Guarded() {
        RC_PRE(check_input(model, config).empty());
        RC_PRE(!config.goals.empty());
        const bool topics =
            std::find(config.goals.begin(), config.goals.end(), GoalKind::topic_spread) != config.goals.end();
        state = std::make_unique<PlanningState>(model, config, topics);
        for (GoalKind kind : config.goals) {
            goals.push_back(make_goal(kind));
            guards.push_back(goals.back().get());
        }
        context = std::make_unique<GoalContext>(*state, config.goals.back(), guards, findings);
    }
};

/// The searches skip a move without trying it when a guard says, per pair
/// of brokers, per source, per destination or per placement, that it would
/// refuse it (GoalContext::moves_refused, gives_refused, takes_refused,
/// move_refused, and Placement, which asks a rack guard once per replica): every such
/// move must be one try_apply refuses, or a search would skip what the plan
/// would take; and a source refused for every partner is refused for each.
RC_GTEST_PROP(PlannerProperties, MovesASearchSkipsAreMovesTryApplyRefuses, ()) {
    Guarded guarded;
    PlanningState& state = *guarded.state;
    GoalContext& context = *guarded.context;
    uint32_t skipped = 0;
    uint32_t taken = 0;
    uint32_t sources_refused = 0;
    uint32_t destinations_refused = 0;
    for (uint32_t p = 0; p < state.partition_count(); p++) {
        const std::vector<uint32_t> holders(state.replicas(p).begin(), state.replicas(p).end());
        for (uint32_t s : holders) {
            const GoalContext::Placement placement = context.placement_of(p, s);
            for (uint32_t d = 0; d < state.broker_count(); d++) {
                // Asked per destination or for the replica's racks at once: the same.
                RC_ASSERT(placement.refuses(d) == context.move_refused(p, s, d));
                if (state.holds(d, p)) continue;
                // Refused for its own load, or for any load up to it: a
                // pair refused from a lighter load refuses this one too.
                const Load load = state.replica_load_on(p, s);
                const double part = *rc::gen::inRange(0, 101) / 100.0;
                const Load least{load.bytes_in_per_s * part, load.bytes_out_per_s * part, load.size_bytes * part};
                const bool skip = context.move_refused(p, s, d) || context.moves_refused(s, d) ||
                                  context.moves_refused(s, d, load) || context.moves_refused(s, d, least) ||
                                  context.gives_refused(s, load) || context.gives_refused(s, least) ||
                                  context.takes_refused(d, load) || context.takes_refused(d, least);
                if (context.gives_refused(s, least)) {
                    RC_ASSERT(context.moves_refused(s, d, least));
                    sources_refused++;
                }
                if (context.takes_refused(d, least)) {
                    RC_ASSERT(context.moves_refused(s, d, least));
                    destinations_refused++;
                }
                const size_t mark = context.mark();
                const bool applied = context.try_apply(state.move(p, s, d, false));
                if (skip) {
                    skipped++;
                    RC_ASSERT_FALSE(applied);
                }
                taken += applied;
                context.undo_to(mark);
            }
        }
    }
    RC_TAG(skipped == 0 ? "nothing skipped" : "some skipped");
    RC_TAG(taken == 0 ? "nothing applied" : "some applied");
    RC_TAG(sources_refused == 0 ? "no source refused for all" : "some source refused for all");
    RC_TAG(destinations_refused == 0 ? "no destination refused for all" : "some destination refused for all");
}

/// What PartnerRefusals relies on: a broker that a guard refuses by its own
/// side (gives_refused, takes_refused) for some least load is refused for
/// any larger one, and stays refused through actions as long as none
/// touches its partitions (its holder_epoch stays).
RC_GTEST_PROP(PlannerProperties, ABrokerRefusedByItsOwnSideStaysRefusedWhileItsEpochHolds, ()) {
    Guarded guarded;
    PlanningState& state = *guarded.state;
    GoalContext& context = *guarded.context;
    struct Refusal {
        uint32_t broker;
        bool giving;
        Load least;
        uint64_t epoch;
    };
    std::vector<Refusal> refused;
    uint32_t kept = 0;
    const int steps = *rc::gen::inRange(1, 40);
    for (int step = 0; step < steps; step++) {
        const double mb = *rc::gen::inRange(0, 6'000) * 1024.0;
        const Load least{mb, mb * *rc::gen::inRange(0, 4), mb * 1000};
        const uint32_t b = static_cast<uint32_t>(*rc::gen::inRange<int>(0, static_cast<int>(state.broker_count())));
        if (context.gives_refused(b, least)) refused.push_back({b, true, least, state.holder_epoch(b)});
        if (context.takes_refused(b, least)) refused.push_back({b, false, least, state.holder_epoch(b)});
        // A random move, if the guards take it.
        const uint32_t p = static_cast<uint32_t>(*rc::gen::inRange<int>(0, static_cast<int>(state.partition_count())));
        const std::span<const uint32_t> holders = state.replicas(p);
        const uint32_t s = holders[static_cast<size_t>(*rc::gen::inRange<int>(0, static_cast<int>(holders.size())))];
        const uint32_t d = static_cast<uint32_t>(*rc::gen::inRange<int>(0, static_cast<int>(state.broker_count())));
        if (s != d && !state.holds(d, p)) context.try_apply(state.move(p, s, d, false));
        for (const Refusal& r : refused) {
            if (state.holder_epoch(r.broker) != r.epoch) continue;
            const Load larger{r.least.bytes_in_per_s * 1.5, r.least.bytes_out_per_s * 1.5, r.least.size_bytes * 1.5};
            for (const Load& load : {r.least, larger}) {
                const bool still =
                    r.giving ? context.gives_refused(r.broker, load) : context.takes_refused(r.broker, load);
                RC_ASSERT(still);
            }
            kept++;
        }
    }
    RC_TAG(kept == 0 ? "no refusal to keep" : "some refusal kept");
}

RC_GTEST_PROP(PlannerProperties, NoBrokerIsTouchedByMoreThanBrokerActionsMax, ()) {
    const ClusterModel model = random_model();
    PlannerConfig config = random_config();
    config.broker_actions_max = static_cast<uint32_t>(*rc::gen::inRange(1, 7));
    const Plan result = plan(model, config);
    // Counted as the gate counts: the destination always, the source unless
    // it is not alive (an evacuation off a dead broker does no work there).
    std::map<int32_t, uint32_t> per_broker;
    bool dead_source = false;
    for (const Action& action : result.actions) {
        if (broker_of(model, action.source).liveness == Liveness::alive) {
            per_broker[action.source]++;
        } else {
            RC_ASSERT(action.evacuation);
            dead_source = true;
        }
        per_broker[action.destination]++;
    }
    uint32_t most = 0;
    for (const auto& [id, count] : per_broker) {
        RC_ASSERT(count <= config.broker_actions_max);
        most = std::max(most, count);
    }
    RC_TAG(result.actions.empty()                  ? "no actions"
           : most == config.broker_actions_max     ? "some broker at its limit"
                                                   : "below the limit");
    if (dead_source) RC_TAG("evacuates a dead broker");


    // A limit that cannot bind (no broker is in more actions than the plan
    // holds) changes nothing: the budget only ever skips, never reorders.
    PlannerConfig loose = config;
    loose.broker_actions_max = std::max<uint32_t>(1, config.actions_max);
    PlannerConfig unlimited = config;
    unlimited.broker_actions_max = 0;
    RC_ASSERT(plan(model, loose) == plan(model, unlimited));
}

RC_GTEST_PROP(GateProperties, APlanWithinTheGatesBrokerCapPassesUpToConcurrency, ()) {
    // Nothing in flight or cooling: the gate holds an action only for its
    // caps. With broker_actions_max = the gate's per-broker cap, none is held
    // for the broker cap, and the gate fills up to its concurrency.
    ClusterModel model = random_model(true);
    for (Partition& partition : model.partitions) {
        partition.in_flight = false;
        partition.last_moved_ms = -1;
    }
    PlannerConfig config = random_config();
    GateConfig gate_config;
    gate_config.broker_inflight_max = static_cast<uint32_t>(*rc::gen::inRange(1, 7));
    gate_config.concurrency_max = static_cast<uint32_t>(*rc::gen::inRange(1, 60));
    gate_config.topic_batch_fraction_max = 1;
    config.broker_actions_max = gate_config.broker_inflight_max;
    const Plan result = plan(model, config);
    const GateResult gate = apply_gate(result, model, GateState{}, gate_config);
    // Healthy: nothing is evacuated, and a balancing action touches a
    // partition at most once; a fraction of 1 never caps a topic.
    RC_ASSERT(gate.held_count[static_cast<size_t>(HoldReason::broker_cap)] == 0u);
    RC_ASSERT(gate.accepted.size() == std::min<size_t>(result.actions.size(), gate_config.concurrency_max));
    RC_TAG(result.actions.size() > gate_config.concurrency_max ? "gate full" : "plan within the gate");
}

RC_GTEST_PROP(PlannerProperties, CooldownAndInFlightPartitionsStayUnlessEvacuated, ()) {
    const ClusterModel model = random_model();
    const PlannerConfig config = random_config();
    const Plan result = plan(model, config);
    for (const Action& action : result.actions) {
        std::vector<uint32_t> partitions = {action.partition};
        if (action.kind == ActionKind::swap) partitions.push_back(action.swap_partition);
        for (uint32_t p : partitions) {
            RC_ASSERT(!model.partitions[p].in_flight);
            if (!action.evacuation) RC_ASSERT(!cooling(model.partitions[p], config));
        }
    }
}

RC_GTEST_PROP(PlannerProperties, SameInputSamePlan, ()) {
    const ClusterModel model = random_model();
    const PlannerConfig config = random_config();
    const ClusterModel copy = model;
    const Plan first = plan(model, config);
    RC_ASSERT(plan(model, config) == first);
    RC_ASSERT(plan(copy, config) == first);
}

RC_GTEST_PROP(PlannerProperties, ApacheNeverMovesAReplicaWithoutALiveCopy, ()) {
    const ClusterModel model = random_model();
    PlannerConfig config = random_config();
    config.flavor = Flavor::apache;
    const Plan result = plan(model, config);
    ClusterModel state = model;
    for (const Action& action : result.actions) {
        bool live = false;
        for (int32_t id : replicas_of(state, action.partition)) {
            live = live || broker_of(model, id).liveness == Liveness::alive;
        }
        RC_ASSERT(live);
        Plan one;
        one.actions = {action};
        state = apply(state, one, config.flavor);
    }
}

/// A throttle under the random loads (partitions produce up to ~4.9 MiB/s
/// and hold up to 1,000 MiB): some partitions cannot catch up, some would
/// take longer than the limit, most copy in time.
PlannerConfig throttled_config() {
    PlannerConfig config = random_config();
    config.replication_throttle_bytes_per_s = *rc::gen::inRange(1, 9) * mib;
    config.copy_time_max_ms = chance(20) ? 0 : *rc::gen::inRange(30, 600) * 1000;
    return config;
}

/// The rule of goals/copy_estimate.h, written out again: a copy gains on
/// the log at throttle - 1.1 x bytes_in and must finish within the limit.
bool copies_in_time(const Partition& partition, const PlannerConfig& config) {
    const double gain = config.replication_throttle_bytes_per_s - 1.1 * partition.load.bytes_in_per_s;
    if (gain <= 0) return false;
    return config.copy_time_max_ms == 0 ||
           1000 * partition.load.size_bytes / gain <= static_cast<double>(config.copy_time_max_ms);
}

RC_GTEST_PROP(PlannerProperties, ApacheNeverCopiesAPartitionThatCannotCatchUpInTime, ()) {
    const ClusterModel model = random_model();
    PlannerConfig config = throttled_config();
    config.flavor = Flavor::apache;
    const Plan result = plan(model, config);
    RC_ASSERT(result.status != Plan::Status::invalid_input);
    for (const Action& action : result.actions) {
        if (action.kind == ActionKind::leader) continue;  // copies nothing
        RC_ASSERT(copies_in_time(model.partitions[action.partition], config));
        if (action.kind == ActionKind::swap) RC_ASSERT(copies_in_time(model.partitions[action.swap_partition], config));
    }
    RC_TAG(std::any_of(model.partitions.begin(), model.partitions.end(),
                       [&](const Partition& p) { return !copies_in_time(p, config); })
               ? "some partitions cannot copy"
               : "every partition copies");
}

RC_GTEST_PROP(PlannerProperties, AutomqIgnoresTheThrottle, ()) {
    const ClusterModel model = random_model();
    PlannerConfig config = throttled_config();
    config.flavor = Flavor::automq;
    PlannerConfig unthrottled = config;
    unthrottled.replication_throttle_bytes_per_s = 0;
    unthrottled.copy_time_max_ms = 0;
    RC_ASSERT(plan(model, config) == plan(model, unthrottled));
}

RC_GTEST_PROP(GateProperties, NeverExceedsItsCaps, ()) {
    ClusterModel model = random_model();
    PlannerConfig planner_config = random_config();
    planner_config.partition_cooldown_ms = 0;  // let the gate see cooling partitions
    const Plan result = plan(model, planner_config);

    GateConfig config;
    config.concurrency_max = static_cast<uint32_t>(*rc::gen::inRange(1, 30));
    config.broker_inflight_max = static_cast<uint32_t>(*rc::gen::inRange(1, 6));
    config.topic_batch_fraction_max = *rc::gen::inRange(0, 101) / 100.0;
    config.paused = chance(5);
    GateState state;
    state.inflight_actions = static_cast<uint32_t>(*rc::gen::inRange(0, 10));
    for (const Broker& broker : model.brokers) {
        if (chance(30)) state.broker_inflight.emplace_back(broker.id, static_cast<uint32_t>(*rc::gen::inRange(0, 4)));
    }
    state.last_batch_ms = chance(20) ? now_ms - *rc::gen::inRange(0, 10'000) : -1;
    const GateResult gate = apply_gate(result, model, state, config);

    RC_ASSERT(gate.accepted.size() + gate.held.size() == result.actions.size());
    uint32_t counted = 0;
    for (uint32_t count : gate.held_count) counted += count;
    RC_ASSERT(counted == gate.held.size());
    if (gate.accepted.empty()) return;
    RC_ASSERT(!config.paused);
    RC_ASSERT(state.last_batch_ms < 0 || now_ms - state.last_batch_ms >= config.execution_interval_ms);
    RC_ASSERT(state.inflight_actions + gate.accepted.size() <= config.concurrency_max);

    std::map<int32_t, uint32_t> per_broker;
    std::map<uint32_t, uint32_t> per_topic;
    std::set<uint32_t> partitions;
    for (const Action& action : gate.accepted) {
        std::vector<uint32_t> touched = {action.partition};
        if (action.kind == ActionKind::swap) touched.push_back(action.swap_partition);
        for (uint32_t p : touched) {
            RC_ASSERT(!model.partitions[p].in_flight);
            RC_ASSERT(partitions.insert(p).second);
            if (!action.evacuation) RC_ASSERT(!cooling(model.partitions[p], planner_config) ||
                                              config.partition_cooldown_ms == 0 ||
                                              now_ms - model.partitions[p].last_moved_ms >= config.partition_cooldown_ms);
            per_topic[model.partitions[p].topic]++;
        }
        if (broker_of(model, action.source).liveness == Liveness::alive) per_broker[action.source]++;
        per_broker[action.destination]++;
    }
    for (const auto& [id, count] : per_broker) {
        uint32_t running = 0;
        for (const auto& [broker, actions] : state.broker_inflight) running += broker == id ? actions : 0;
        RC_ASSERT(running + count <= std::max(config.broker_inflight_max, running));
    }
    for (const auto& [topic, count] : per_topic) {
        uint32_t size = 0;
        for (const Partition& partition : model.partitions) size += partition.topic == topic;
        const uint32_t cap = std::max<uint32_t>(1, static_cast<uint32_t>(std::floor(config.topic_batch_fraction_max * size)));
        RC_ASSERT(count <= cap);
    }
}

}  // namespace
}  // namespace ballast::goals
