#pragma once

/// The planner's inputs and outputs as plain structs: its configuration,
/// the actions it proposes, the plan, and the cooldown gate's verdicts. The
/// scheduler (actors/) turns these into `ActionsPlanned` events.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "goals/cluster_model.h"

namespace ballast::goals {

/// In the default priority order. Names (`goal_name`) are the config's:
/// `autobalancer.controller.goals`.
enum class GoalKind : uint8_t {
    rack_aware = 0,                 // hard: no two replicas of a partition in one rack
    replica_capacity,               // hard: replicas per broker <= capacity.replicas_max
    network_in_capacity,            // hard: in <= capacity x threshold
    network_out_capacity,           // hard
    disk_capacity,                  // hard
    network_in_usage_distribution,  // soft: AutoMQ's band around the mean
    network_out_usage_distribution, // soft
    replica_count_distribution,     // soft
    leader_count_distribution,      // soft
    topic_spread,                   // soft: each topic's replicas even across brokers
};
inline constexpr uint8_t goal_kind_count = 10;

/// "RackAwareGoal", ... as in the config.
const char* goal_name(GoalKind kind);
/// Also accepts AutoMQ's class names ("kafka.autobalancer.goals.RackAwareGoal").
std::optional<GoalKind> goal_from_name(std::string_view name);
bool goal_is_hard(GoalKind kind);
/// The hard goals, then the two network distribution goals, then replica
/// count, leader count and topic spread: every goal, in GoalKind order.
std::vector<GoalKind> default_goals();

enum class Flavor : uint8_t {
    apache,  // a replica is re-created by copying from a live replica
    automq,  // shared storage: any partition can move, even off a dead broker
};

/// Every number the planner uses. The scheduler fills it from the config.
struct PlannerConfig {
    /// Goals in priority order; a lower goal never makes a higher one worse.
    /// Empty: no goal runs (dead and draining brokers are still evacuated).
    std::vector<GoalKind> goals = default_goals();
    Flavor flavor = Flavor::apache;

    /// AutoMQ's distribution band: a broker is balanced when its load is
    /// within mean x (1 ± deviation).
    double network_in_avg_deviation = 0.1;
    double network_out_avg_deviation = 0.1;
    /// A broker below this (bytes/s) is balanced if the mean is below it too.
    double network_in_detect_threshold_bytes_per_s = 1024 * 1024;
    double network_out_detect_threshold_bytes_per_s = 1024 * 1024;
    /// Actions whose total effect on every broker they touch is below this
    /// fraction of the mean are dropped: not worth a move.
    double network_in_trivial_change_ratio = 0.05;
    double network_out_trivial_change_ratio = 0.05;

    /// Capacity goals keep load <= capacity x this.
    double capacity_threshold = 0.8;

    /// Count goals' bands: a broker is balanced when its count is within
    /// [floor(mean x (1 - deviation)), ceil(mean x (1 + deviation))] (for
    /// topic spread: its count of that topic's replicas, mean over brokers).
    double replica_count_avg_deviation = 0.1;
    double leader_count_avg_deviation = 0.1;
    /// Looser than the others: topic spread is the last goal, every load
    /// move upsets it a little, and a tight band trades many moves for little
    /// (Cruise Control's topic replica goal is looser still). With it a
    /// topic's replicas may not pile up: mean 2 allows [1, 3], mean 10 [5, 15].
    double topic_spread_avg_deviation = 0.5;

    /// A broker fenced or gone for at least this long is dead: its replicas
    /// are planned away first.
    int64_t broker_failure_grace_ms = 10'000;
    /// Flapping (goals/broker_stability.h): a broker fenced this many times
    /// within the window is unstable, and each fencing within the window
    /// after the first doubles its grace, up to the max. 0: no damping.
    uint32_t broker_flap_fences = 3;
    int64_t broker_flap_window_ms = 600'000;
    int64_t broker_failure_grace_max_ms = 600'000;
    /// An unstable broker takes load again once alive this long.
    int64_t broker_stable_ms = 300'000;
    /// A broker whose newest metrics are older than this neither gives nor
    /// takes load for the load goals.
    int64_t metrics_delay_ms = 60'000;
    /// A partition moved less than this long ago is not moved again (except
    /// off a dead or draining broker).
    int64_t partition_cooldown_ms = 60'000;
    /// A balancing move (not an evacuation, not a hard-goal repair) never
    /// puts a replica back on the broker the partition left less than this
    /// ago, nor a leader change leadership back on the broker that lost it.
    /// Goals that pull different ways (counts against network out) would
    /// otherwise move a partition A -> B -> A as the cluster settles.
    int64_t return_block_ms = 300'000;
    /// Which kinds of action balancing may use. AutoMQ's balancer moves
    /// only (no swaps, no leader changes); `ballast.planner.actions=move`
    /// plans the same way, for comparison. Evacuations always move.
    bool swaps_allowed = true;
    bool leader_changes_allowed = true;

    /// apache only: the rate at which a new replica copies its partition
    /// (the cluster's reassignment throttle, Kafka's
    /// `leader/follower.replication.throttled.rate`), bytes/s; 0: unknown or
    /// unthrottled, and no move is refused for it. A reassignment finishes
    /// only when the new replica has caught up with the producers, so a
    /// partition that produces about as fast as the throttle never moves:
    /// it is not planned (`copy_estimate.h`), and a hard goal that needs it
    /// to move reports it unfixable. Leader changes copy nothing: allowed.
    double replication_throttle_bytes_per_s = 0;
    /// apache with a throttle: a move whose expected copy time is longer
    /// than this is not planned either (the executor would time it out).
    /// The scheduler sets it to `ballast.action.timeout.ms`; 0: not checked.
    int64_t copy_time_max_ms = 0;

    /// Upper bound on the actions one plan proposes (the gate takes fewer).
    uint32_t actions_max = 1'000;
    /// At most this many actions in one plan touch any one broker (as source
    /// or destination); 0: no limit. The scheduler sets it to the gate's
    /// per-broker cap (GateConfig::broker_inflight_max), so a plan spreads
    /// over brokers instead of queuing behind one: a goal whose broker has
    /// spent it moves on to the next broker. Counted as the gate counts: the
    /// source of an action counts unless it is not alive (an evacuation off a
    /// dead broker: it does no work in the move), the destination always.
    uint32_t broker_actions_max = 0;
    /// Upper bound on `Plan::unfixable`; the rest are only counted
    /// (`Plan::unfixable_omitted`), so a cluster without racks or with a
    /// dead RF1 broker cannot make a plan of a million lines.
    uint32_t unfixable_max = 1'000;
};

/// Does `config` run goal `kind`?
inline bool has_goal(const PlannerConfig& config, GoalKind kind) {
    for (GoalKind goal : config.goals) {
        if (goal == kind) return true;
    }
    return false;
}

enum class ActionKind : uint8_t { move = 0, swap, leader };

/// A broker's load and counts; before and after an action.
struct BrokerLoad {
    Load load;
    int32_t replica_count = 0;
    int32_t leader_count = 0;
    bool operator==(const BrokerLoad&) const = default;
};

struct BrokerLoadChange {
    int32_t broker_id = -1;
    BrokerLoad before;
    BrokerLoad after;
    bool operator==(const BrokerLoadChange&) const = default;
};

/// One proposed action. Partitions are indexes into ClusterModel::partitions.
///   move:   `partition`'s replica on `source` goes to `destination`
///   swap:   `partition` goes source -> destination and `swap_partition`
///           destination -> source (counts stay, load moves)
///   leader: leadership of `partition` goes from `source` to `destination`,
///           an existing replica (which becomes the preferred one)
/// A moved replica keeps its slot in the preference order. The planner
/// counts the destination as leader after a move or swap when the source
/// led (Kafka elects the first in-sync target replica), and after an
/// automq evacuation of an offline partition (leader -1: it reopens there);
/// otherwise the leader is unchanged. A leader action puts `destination`
/// first and keeps the others' order. Evacuations carry the first configured
/// goal in `goal` (Cruise Control's first goal moves offline replicas);
/// `evacuation` says why they happen.
struct Action {
    ActionKind kind = ActionKind::move;
    uint32_t partition = 0;
    int32_t source = -1;
    int32_t destination = -1;
    uint32_t swap_partition = 0;            // swap only
    std::vector<int32_t> replicas_before;   // of `partition`, preference order
    std::vector<int32_t> replicas_after;
    std::vector<int32_t> swap_replicas_before;  // swap only
    std::vector<int32_t> swap_replicas_after;
    GoalKind goal = GoalKind::rack_aware;   // the goal that proposed it
    bool evacuation = false;                // off a dead or draining broker
    std::vector<BrokerLoadChange> loads;    // every broker it touches
    bool operator==(const Action&) const = default;
};

/// Something wrong that no action can fix (an offline RF1 partition on the
/// apache flavor, a rack goal with fewer racks than replicas, ...).
struct Unfixable {
    uint32_t partition = 0;  // index, or UINT32_MAX when about a broker
    int32_t broker_id = -1;
    GoalKind goal = GoalKind::rack_aware;
    std::string reason;
    bool operator==(const Unfixable&) const = default;
};

/// A broker the plan treats differently than its liveness alone says, and
/// why (a flapping broker's raised grace, an unstable broker that takes no
/// load): the decision says so, as the operator needs to know.
struct BrokerNote {
    int32_t broker_id = -1;
    std::string reason;
    bool operator==(const BrokerNote&) const = default;
};

struct Plan {
    enum class Status : uint8_t {
        balanced,          // every goal satisfied: nothing to do
        actions_planned,   // `actions` improve the cluster
        stuck,             // goals unsatisfied but no action helps (see `unfixable`)
        invalid_input,     // the model or config breaks its contract (see `error`); no actions
    };
    Status status = Status::balanced;
    std::vector<Action> actions;  // in the order they should run
    std::vector<Unfixable> unfixable;
    /// Goals not satisfied by the model as given, in priority order.
    std::vector<GoalKind> violated_before;
    /// Goals still not satisfied if every action ran.
    std::vector<GoalKind> violated_after;
    /// Unfixable findings beyond PlannerConfig::unfixable_max, counted only.
    uint32_t unfixable_omitted = 0;
    std::vector<BrokerNote> broker_notes;
    /// The first time after the plan's clock at which it would decide
    /// differently with nothing else changed (a raised grace runs out, an
    /// unstable broker becomes stable): plan again then. INT64_MAX: never.
    int64_t replan_at_ms = INT64_MAX;
    /// invalid_input only: what is wrong, naming the broker/partition/field.
    std::string error;
    bool operator==(const Plan&) const = default;
};

/// The planner: a pure function. Same model, same config -> same plan, bit
/// for bit; ties are broken by broker id and partition order.
Plan plan(const ClusterModel& model, const PlannerConfig& config);

/// What `plan` checks before planning: brokers sorted by unique id, every
/// replica naming a known broker once, leaders among the replicas, topics
/// and partitions in order, loads and capacities finite and >= 0, the
/// config's numbers in range and its goals without duplicates. Empty when
/// fine; otherwise one message naming the first thing that is wrong.
std::string check_input(const ClusterModel& model, const PlannerConfig& config);

/// The model once `actions` ran, in order, as the executor would run them
/// (the leader as the Action's contract above says). Each partition an
/// action changed remembers the broker it left and the leader it lost, at
/// the model's clock, so a next plan on the result does not send it back
/// (PlannerConfig::return_block_ms). For planning round after round on a
/// plan's projected result (`ballast plan --complete`).
ClusterModel apply_actions(const ClusterModel& model, const std::vector<Action>& actions, Flavor flavor);
/// apply_actions on `model` itself.
void apply_actions_to(ClusterModel& model, const std::vector<Action>& actions, Flavor flavor);

class PlanningState;

/// `plan` round after round, each round on the model the rounds before it
/// leave (apply_actions): `ballast plan --complete`. Round n's plan is, bit
/// for bit, `plan`'s of that model, but one working state is carried from
/// round to round (PlanningState::start_next_round) instead of a new one
/// built from the whole model each round. Neither copied nor moved: the
/// state refers to the model and config a Rounds holds.
class Rounds {
public:
    Rounds(ClusterModel model, const PlannerConfig& config);
    ~Rounds();
    Rounds(const Rounds&) = delete;
    Rounds& operator=(const Rounds&) = delete;

    /// The next round's plan; its actions are applied to model() as well.
    Plan next();
    /// The model with every round's actions applied.
    const ClusterModel& model() const { return _model; }

private:
    ClusterModel _model;
    PlannerConfig _config;
    std::unique_ptr<PlanningState> _state;
};

/// The configured goals that `model` does not satisfy, in priority order
/// (what Plan::violated_before reports). Precondition: check_input is empty.
std::vector<GoalKind> violated_goals(const ClusterModel& model, const PlannerConfig& config);

// ---------------------------------------------------------------- the cooldown gate

/// Why the gate held an action back; the names go into ActionsPlanned.
enum class HoldReason : uint8_t {
    cooldown = 0,        // partition moved less than partition_cooldown_ms ago
    in_flight,           // partition already has an action running
    concurrency_cap,     // execution.concurrency actions already in flight
    broker_cap,          // source or destination at broker.max.inflight.moves
    topic_cap,           // more than half of the topic's partitions in this batch
    execution_interval,  // the previous batch started less than execution.interval.ms ago
    paused,              // operator paused execution
    after_held,          // it adds load where an earlier held action of the plan was to remove it
};
inline constexpr uint8_t hold_reason_count = 8;
const char* hold_reason_name(HoldReason reason);

struct GateConfig {
    uint32_t concurrency_max = 50;        // autobalancer.controller.execution.concurrency
    uint32_t broker_inflight_max = 5;     // ballast.broker.max.inflight.moves
    double topic_batch_fraction_max = 0.5;
    int64_t execution_interval_ms = 5'000;
    int64_t partition_cooldown_ms = 60'000;
    bool paused = false;
};

/// What is running now, as the executor reports it to the scheduler.
struct GateState {
    uint32_t inflight_actions = 0;
    std::vector<std::pair<int32_t, uint32_t>> broker_inflight;  // (broker id, actions), sorted
    int64_t last_batch_ms = -1;  // when the previous batch was released; -1: never
};

struct HeldAction {
    Action action;
    HoldReason reason = HoldReason::cooldown;
    bool operator==(const HeldAction&) const = default;
};

struct GateResult {
    std::vector<Action> accepted;  // in plan order
    std::vector<HeldAction> held;
    uint32_t held_count[hold_reason_count] = {};
    bool operator==(const GateResult&) const = default;
};

/// Passes a plan's actions through the gate in plan order. Evacuations off a
/// dead broker skip the cooldown check but never the caps. Pure.
///
/// The rules, checked in this order for each action (the first that fails
/// names the hold):
///   - paused, then execution_interval: everything is held;
///   - in_flight: a partition it touches is in flight, or an earlier action of
///     this plan touches it too (the later one builds on the earlier one's
///     result, so it waits for the next batch);
///   - after_held: it adds load to a broker (its destination; for a swap,
///     either broker) that an earlier held action of this plan was to take
///     load off. The planner counted that action done when it chose this
///     one, so a move onto a broker a held leader change was to unload can
///     take it past a capacity limit the plan kept (the fault simulation's
///     capacity check tests for this). Taking more load off, or adding it
///     elsewhere, relies on nothing held. Transitive: an action held here
///     holds what would land on its source;
///   - cooldown: a partition it touches moved less than partition_cooldown_ms
///     ago (skipped when `Action::evacuation`);
///   - concurrency_cap: inflight_actions + accepted >= concurrency_max;
///   - broker_cap: a broker it touches (source and destination, for every
///     kind) has broker_inflight + accepted-in-this-batch >= broker_inflight_max.
///     A source that is not alive (fenced or gone) is not counted: it does no
///     work in the move (apache copies from a live replica, automq reopens
///     from shared storage), and counting it would throttle the evacuation
///     that restores availability to broker_inflight_max partitions at a time;
///   - topic_cap: the batch would hold more than
///     max(1, floor(topic_batch_fraction_max x partitions of the topic))
///     partitions of one topic; so "at most half" lets a 1- or 3-partition
///     topic move one partition per batch, and a 4-partition topic two.
GateResult apply_gate(const Plan& plan, const ClusterModel& model, const GateState& state,
                      const GateConfig& config);

}  // namespace ballast::goals
