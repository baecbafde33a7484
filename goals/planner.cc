/// The planner: check the input, evacuate dead and draining brokers, then
/// run each configured goal in priority order on one working state.
/// Reading `plan` reads the policy.

#include <algorithm>
#include <cassert>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "goals/goal.h"
#include "goals/planner_types.h"
#include "goals/planning_state.h"

namespace ballast::goals {
namespace {

using GoalList = std::vector<std::unique_ptr<Goal>>;

Plan invalid_input(std::string error) {
    Plan result;
    result.status = Plan::Status::invalid_input;
    result.error = std::move(error);
    return result;
}

GoalList make_goals(const PlannerConfig& config) {
    GoalList goals;
    for (GoalKind kind : config.goals) goals.push_back(make_goal(kind));
    return goals;
}

std::vector<GoalKind> violated(const GoalList& goals, const PlanningState& state) {
    std::vector<GoalKind> kinds;
    for (const auto& goal : goals) {
        if (!goal->satisfied(state)) kinds.push_back(goal->kind());
    }
    return kinds;
}

bool is_network_distribution(GoalKind kind) {
    return kind == GoalKind::network_in_usage_distribution ||
           kind == GoalKind::network_out_usage_distribution;
}

/// The goals that must accept the actions of goal `index`: every hard goal
/// (so a plan never breaks one), every soft goal of higher priority, itself,
/// and, for a network distribution goal, its sibling wherever it stands.
std::vector<const Goal*> guards_of(const GoalList& goals, size_t index) {
    std::vector<const Goal*> guards;
    const GoalKind own = goals[index]->kind();
    for (size_t i = 0; i < goals.size(); i++) {
        const GoalKind kind = goals[i]->kind();
        const bool sibling = is_network_distribution(own) && is_network_distribution(kind);
        if (goals[i]->hard() || i <= index || sibling) guards.push_back(goals[i].get());
    }
    return guards;
}

std::vector<const Goal*> hard_guards(const GoalList& goals) {
    std::vector<const Goal*> guards;
    for (const auto& goal : goals) {
        if (goal->hard()) guards.push_back(goal.get());
    }
    return guards;
}

// ---------------------------------------------------------------- evacuation

/// Plans every replica off dead brokers (by id), then off draining ones,
/// heaviest replica first, each to the best-ranked broker that hosts
/// evacuees and that every hard goal accepts. Rank: network load over its
/// mean plus replica count over its mean (means over the hosts, evacuees
/// included), so both heavy and numerous replicas spread; hosts with fresh
/// metrics first, stale ones only when no fresh one can take it.
/// Cooldown does not hold an evacuation; an action in flight does (its
/// partition is being acted on already). apache: a replica with no live
/// copy left, or whose copy could not catch up with its producers at the
/// replication throttle in time (`copy_estimate.h`), is reported unfixable
/// instead of moved.
///
/// The per-broker budget (PlannerConfig::broker_actions_max) counts as the
/// gate does: a dead source is not alive, does no work and is not counted,
/// so a dead broker's replicas spread over as many hosts as have budget; a
/// draining source is alive and counted, so a plan takes at most that many
/// replicas off it. A host that spends its budget leaves the ranking; when
/// none is left, or a draining source has spent its own, the rest waits for
/// the next plan (not unfixable: only this plan is out of room).
void evacuate(PlanningState& state, GoalContext& context, Findings& findings, GoalKind goal) {
    std::vector<uint32_t> evacuating;
    for (int dead = 1; dead >= 0; dead--) {
        for (uint32_t b = 0; b < state.broker_count(); b++) {
            const BrokerState& broker = state.broker(b);
            if (broker.evacuating() && broker.dead == (dead == 1)) evacuating.push_back(b);
            if (broker.excluded && (broker.dead || broker.draining) && dead == 1) {
                findings.add(UINT32_MAX, state.broker_id(b), goal,
                             broker.dead ? "dead but excluded: its replicas stay where they are"
                                         : "draining but excluded: its replicas stay where they are");
            }
        }
    }
    if (evacuating.empty()) return;

    // Norms for the rank: what an average host carries once the evacuees land.
    double network_total = 0;
    double replicas_total = 0;
    uint32_t hosts = 0;
    for (uint32_t b = 0; b < state.broker_count(); b++) {
        const BrokerState& broker = state.broker(b);
        if (broker.hosts_evacuees()) {
            hosts++;
            network_total += broker.load.bytes_in_per_s + broker.load.bytes_out_per_s;
            replicas_total += broker.replica_count;
        } else if (broker.evacuating()) {
            network_total += broker.load.bytes_in_per_s + broker.load.bytes_out_per_s;
            replicas_total += broker.replica_count;
        }
    }
    if (hosts == 0) {
        for (uint32_t b : evacuating) {
            findings.add(UINT32_MAX, state.broker_id(b), goal,
                         "no alive, non-excluded, non-draining broker can take its replicas");
        }
        return;
    }
    const double network_norm = std::max(1.0, network_total / hosts);
    const double replicas_norm = std::max(1.0, replicas_total / hosts);
    auto rank = [&](uint32_t b) {
        const BrokerState& broker = state.broker(b);
        return (broker.load.bytes_in_per_s + broker.load.bytes_out_per_s) / network_norm +
               broker.replica_count / replicas_norm;
    };
    // tiers[0]: fresh metrics; tiers[1]: stale.
    std::set<std::pair<double, uint32_t>> tiers[2];
    for (uint32_t b = 0; b < state.broker_count(); b++) {
        const BrokerState& broker = state.broker(b);
        if (broker.hosts_evacuees()) tiers[broker.fresh ? 0 : 1].emplace(rank(b), b);
    }

    // A host that spent its budget was dropped from the ranking: a replica
    // it might have taken is not unfixable, only late.
    bool hosts_spent = false;
    for (uint32_t source : evacuating) {
        const BrokerState& from = state.broker(source);
        const int32_t source_id = state.broker_id(source);
        // Not alive (dead): never counted, always has budget.
        assert(from.alive || state.broker_budget_left(source));
        std::vector<std::pair<double, uint32_t>> replicas;
        for (uint32_t p : state.model_partitions_of(source)) {
            if (!state.holds(source, p)) continue;
            const Load load = state.replica_load_on(p, source);
            replicas.emplace_back(-(load.bytes_in_per_s + load.bytes_out_per_s), p);
        }
        std::sort(replicas.begin(), replicas.end());
        for (const auto& [unused, p] : replicas) {
            if (!context.plan_has_room()) return;
            if (tiers[0].empty() && tiers[1].empty()) {
                assert(hosts_spent);
                return;  // every host spent its budget: the rest next plan
            }
            if (!state.broker_budget_left(source)) break;  // draining: the rest next plan
            if (state.excluded(p)) {
                findings.add(p, source_id, goal, "excluded partition on a dead or draining broker: left there");
                continue;
            }
            if (state.in_flight(p)) continue;  // its running action comes first; next round
            if (from.dead && state.config().flavor == Flavor::apache) {
                bool live_copy = false;
                for (uint32_t b : state.replicas(p)) live_copy = live_copy || state.broker(b).alive;
                if (!live_copy) {
                    findings.add(p, source_id, goal,
                                 "offline: no replica on a live broker, and apache Kafka re-creates "
                                 "a replica only by copying a live one");
                    continue;
                }
            }
            if (!state.copyable(p)) {
                // A new replica would never catch up (or not before the action
                // timeout): trying only hangs a move until it times out.
                findings.add(p, source_id, goal, state.copy_refusal(p));
                continue;
            }
            bool placed = false;
            const Goal* refusal = nullptr;
            for (int tier = 0; tier < 2 && !placed; tier++) {
                // Bounded by the hosts; the first accepted one wins.
                for (auto it = tiers[tier].begin(); it != tiers[tier].end(); ++it) {
                    const uint32_t destination = it->second;
                    if (state.holds(destination, p)) continue;
                    if (context.try_apply(state.move(p, source, destination, true))) {
                        tiers[tier].erase(it);
                        if (state.broker_budget_left(destination)) {
                            tiers[tier].emplace(rank(destination), destination);
                        } else {
                            hosts_spent = true;
                        }
                        placed = true;
                        break;
                    }
                    if (!context.plan_has_room()) return;
                    if (refusal == nullptr) refusal = context.last_refusal();
                }
            }
            if (!placed && !hosts_spent) {
                findings.add(p, source_id, refusal != nullptr ? refusal->kind() : goal,
                             refusal != nullptr
                                 ? std::string("no broker can take this replica without breaking ") +
                                       goal_name(refusal->kind())
                                 : std::string("no broker can take this replica (every host already holds it)"));
            }
        }
    }
}

// ---------------------------------------------------------------- input checks

bool finite_non_negative(double value) { return std::isfinite(value) && value >= 0; }

std::string check_load(const Load& load) {
    if (!finite_non_negative(load.bytes_in_per_s)) return "bytes_in_per_s";
    if (!finite_non_negative(load.bytes_out_per_s)) return "bytes_out_per_s";
    if (!finite_non_negative(load.size_bytes)) return "size_bytes";
    return {};
}

std::string check_config(const PlannerConfig& config) {
    std::vector<uint8_t> seen(goal_kind_count, 0);
    for (GoalKind kind : config.goals) {
        const auto index = static_cast<size_t>(kind);
        if (index >= goal_kind_count) return "config: unknown goal kind " + std::to_string(index);
        if (seen[index]++) return std::string("config: goal listed twice: ") + goal_name(kind);
    }
    const std::pair<const char*, double> fractions[] = {
        {"network_in_avg_deviation", config.network_in_avg_deviation},
        {"network_out_avg_deviation", config.network_out_avg_deviation},
        {"network_in_trivial_change_ratio", config.network_in_trivial_change_ratio},
        {"network_out_trivial_change_ratio", config.network_out_trivial_change_ratio},
        {"replica_count_avg_deviation", config.replica_count_avg_deviation},
        {"leader_count_avg_deviation", config.leader_count_avg_deviation},
        {"topic_spread_avg_deviation", config.topic_spread_avg_deviation},
    };
    for (const auto& [name, value] : fractions) {
        if (!(value >= 0 && value <= 1)) return std::string("config: ") + name + " must be in [0, 1]";
    }
    if (!finite_non_negative(config.network_in_detect_threshold_bytes_per_s) ||
        !finite_non_negative(config.network_out_detect_threshold_bytes_per_s)) {
        return "config: detect thresholds must be finite and >= 0";
    }
    if (!(config.capacity_threshold > 0 && config.capacity_threshold <= 1)) {
        return "config: capacity_threshold must be in (0, 1]";
    }
    if (config.broker_failure_grace_ms < 0 || config.metrics_delay_ms < 0 ||
        config.partition_cooldown_ms < 0 || config.return_block_ms < 0) {
        return "config: broker_failure_grace_ms, metrics_delay_ms, partition_cooldown_ms and return_block_ms "
               "must be >= 0";
    }
    if (config.broker_flap_fences > Broker::fence_history || config.broker_flap_window_ms < 0 ||
        config.broker_failure_grace_max_ms < 0 || config.broker_stable_ms < 0) {
        return "config: broker_flap_fences must be at most " + std::to_string(Broker::fence_history) +
               ", broker_flap_window_ms, broker_failure_grace_max_ms and broker_stable_ms >= 0";
    }
    if (config.flavor != Flavor::apache && config.flavor != Flavor::automq) return "config: unknown flavor";
    if (!finite_non_negative(config.replication_throttle_bytes_per_s) || config.copy_time_max_ms < 0) {
        return "config: replication_throttle_bytes_per_s and copy_time_max_ms must be finite and >= 0";
    }
    return {};
}

// ---------------------------------------------------------------- one plan

/// One plan on `state`, a state of a checked model with no action yet.
Plan plan_on(PlanningState& state, const PlannerConfig& config) {
    Plan result;
    const GoalList goals = make_goals(config);
    Findings findings(config.unfixable_max);
    state.reserve_actions();
    result.violated_before = violated(goals, state);

    // 1. Availability first: dead and draining brokers, within the hard goals.
    // Evacuations carry the first configured goal (Cruise Control's first goal
    // moves offline replicas); Action::evacuation says why they happen.
    const GoalKind evacuation_goal = config.goals.empty() ? GoalKind::rack_aware : config.goals.front();
    GoalContext evacuation(state, evacuation_goal, hard_guards(goals), findings);
    evacuate(state, evacuation, findings, evacuation_goal);

    // 2. Each goal in priority order, guarded by the hard goals and the goals
    // above it; before the first soft goal, each soft goal's early part
    // (Goal::optimize_early), guarded the same way.
    // While no action is applied, the state is the one violated_before
    // judged (an undone trial restores it exactly): its answer stands (a
    // satisfied() scans every partition or topic).
    bool early_done = false;
    for (size_t i = 0; i < goals.size(); i++) {
        if (!early_done && !goals[i]->hard()) {
            early_done = true;
            for (size_t j = i; j < goals.size(); j++) {
                GoalContext early(state, goals[j]->kind(), guards_of(goals, j), findings);
                if (early.budget_left()) goals[j]->optimize_early(early);
            }
        }
        GoalContext context(state, goals[i]->kind(), guards_of(goals, i), findings);
        if (!context.budget_left()) break;
        const bool satisfied = state.action_count() == 0
                                   ? std::find(result.violated_before.begin(), result.violated_before.end(),
                                               goals[i]->kind()) == result.violated_before.end()
                                   : goals[i]->satisfied(state);
        if (satisfied) continue;
        goals[i]->optimize(context);
    }

    // 3. Judge the result as a fresh model of it would be judged (with no
    // action kept, the undos restored the sums it started from exactly).
    if (state.action_count() > 0) state.recompute_aggregates();
    result.violated_after = violated(goals, state);
    result.actions = state.take_actions();
    assert(result.actions.size() <= config.actions_max);
    result.unfixable = std::move(findings.list());
    result.unfixable_omitted = findings.omitted();
    result.broker_notes = state.broker_notes();
    result.replan_at_ms = state.replan_at_ms();
    if (!result.actions.empty()) {
        result.status = Plan::Status::actions_planned;
    } else if (!result.violated_before.empty() || !result.unfixable.empty() || result.unfixable_omitted > 0) {
        result.status = Plan::Status::stuck;
    } else {
        result.status = Plan::Status::balanced;
    }
    return result;
}

}  // namespace

std::string check_input(const ClusterModel& model, const PlannerConfig& config) {
    if (std::string error = check_config(config); !error.empty()) return error;
    const size_t broker_count = model.brokers.size();
    if (broker_count >= no_broker) return "model: too many brokers";
    if (model.partitions.size() >= no_partition) return "model: too many partitions";
    for (size_t b = 0; b < broker_count; b++) {
        const Broker& broker = model.brokers[b];
        const std::string name = "model: broker " + std::to_string(broker.id);  // brokers are few
        if (b > 0 && model.brokers[b - 1].id >= broker.id) return name + " is out of order or repeated";
        if (broker.rack >= std::max<size_t>(1, model.racks.size())) return name + " names an unknown rack";
        const Capacity& capacity = broker.capacity;
        if (!finite_non_negative(capacity.network_in_bytes_per_s) ||
            !finite_non_negative(capacity.network_out_bytes_per_s) ||
            !finite_non_negative(capacity.disk_bytes) || capacity.replicas_max < 0) {
            return name + " has a negative or non-finite capacity";
        }
    }
    // Broker ids are usually small and dense: a table beats a binary search
    // per replica (3,000,000 of them at 1,000,000 partitions RF3).
    const int32_t id_max = broker_count == 0 ? -1 : model.brokers.back().id;
    const bool dense = broker_count > 0 && model.brokers.front().id >= 0 &&
                       id_max <= static_cast<int32_t>(16 * broker_count + 4096);
    std::vector<uint8_t> known_ids(dense ? static_cast<size_t>(id_max) + 1 : 0, 0);
    for (const Broker& broker : model.brokers) {
        if (dense) known_ids[static_cast<size_t>(broker.id)] = 1;
    }
    auto known = [&](int32_t id) {
        if (dense) return id >= 0 && id <= id_max && known_ids[static_cast<size_t>(id)] != 0;
        auto it = std::lower_bound(model.brokers.begin(), model.brokers.end(), id,
                                   [](const Broker& broker, int32_t key) { return broker.id < key; });
        return it != model.brokers.end() && it->id == id;
    };
    for (size_t p = 0; p < model.partitions.size(); p++) {
        const Partition& partition = model.partitions[p];
        // Built only for an error: a million of them would cost more than the checks.
        auto name = [&] {
            return "model: partition #" + std::to_string(p) + " (topic #" + std::to_string(partition.topic) +
                   ", partition " + std::to_string(partition.partition) + ")";
        };
        if (partition.topic >= model.topics.size()) return name() + " names an unknown topic";
        if (p > 0) {
            const Partition& previous = model.partitions[p - 1];
            if (previous.topic > partition.topic ||
                (previous.topic == partition.topic && previous.partition >= partition.partition)) {
                return name() + " is out of (topic, partition) order or repeated";
            }
        }
        if (partition.replica_count == 0) return name() + " has no replicas";
        if (static_cast<size_t>(partition.replica_begin) + partition.replica_count > model.replicas.size()) {
            return name() + " has replicas past the end of ClusterModel::replicas";
        }
        if (std::string field = check_load(partition.load); !field.empty()) {
            return name() + " has a negative or non-finite " + field;
        }
        const int32_t* replicas = model.replicas_of(partition);
        bool leader_found = partition.leader == -1;
        for (uint16_t i = 0; i < partition.replica_count; i++) {
            if (!known(replicas[i])) {
                return name() + " has a replica on unknown broker " + std::to_string(replicas[i]) +
                       " (give gone brokers as Liveness::gone)";
            }
            for (uint16_t j = 0; j < i; j++) {
                if (replicas[j] == replicas[i]) return name() + " names broker " + std::to_string(replicas[i]) + " twice";
            }
            leader_found = leader_found || replicas[i] == partition.leader;
        }
        if (!leader_found) {
            return name() + " has leader " + std::to_string(partition.leader) + " outside its replicas";
        }
    }
    return {};
}

std::vector<GoalKind> violated_goals(const ClusterModel& model, const PlannerConfig& config) {
    assert(check_input(model, config).empty());
    const PlanningState state(model, config, has_goal(config, GoalKind::topic_spread));
    return violated(make_goals(config), state);
}

Plan plan(const ClusterModel& model, const PlannerConfig& config) {
    if (std::string error = check_input(model, config); !error.empty()) return invalid_input(std::move(error));
    PlanningState state(model, config, has_goal(config, GoalKind::topic_spread));
    return plan_on(state, config);
}

Rounds::Rounds(ClusterModel model, const PlannerConfig& config) : _model(std::move(model)), _config(config) {}

Rounds::~Rounds() = default;

Plan Rounds::next() {
    if (_state == nullptr) {
        // The first round checks its input as `plan` does; a later one
        // plans what apply_actions made of a model that passed, and passes.
        if (std::string error = check_input(_model, _config); !error.empty()) return invalid_input(std::move(error));
        _state = std::make_unique<PlanningState>(_model, _config, has_goal(_config, GoalKind::topic_spread));
    } else {
        _state->start_next_round();
    }
    Plan result = plan_on(*_state, _config);
    apply_actions_to(_model, result.actions, _config.flavor);
    return result;
}

}  // namespace ballast::goals
