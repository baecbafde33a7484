/// Goal and hold-reason names (the config's and the ActionsPlanned event's),
/// and the goal factory.

#include <array>
#include <cassert>
#include <string_view>

#include "goals/goal.h"
#include "goals/planner_types.h"

namespace ballast::goals {
namespace {

constexpr std::array<const char*, goal_kind_count> goal_names = {
    "RackAwareGoal",
    "ReplicaCapacityGoal",
    "NetworkInCapacityGoal",
    "NetworkOutCapacityGoal",
    "DiskCapacityGoal",
    "NetworkInUsageDistributionGoal",
    "NetworkOutUsageDistributionGoal",
    "ReplicaCountDistributionGoal",
    "LeaderCountDistributionGoal",
    "TopicSpreadGoal",
};

constexpr std::array<const char*, hold_reason_count> hold_reason_names = {
    "cooldown", "in_flight",          "concurrency_cap", "broker_cap",
    "topic_cap", "execution_interval", "paused",         "after_held",
};

constexpr std::string_view automq_prefix = "kafka.autobalancer.goals.";

}  // namespace

const char* goal_name(GoalKind kind) {
    const auto index = static_cast<size_t>(kind);
    assert(index < goal_kind_count);
    return index < goal_kind_count ? goal_names[index] : "UnknownGoal";
}

std::optional<GoalKind> goal_from_name(std::string_view name) {
    if (name.starts_with(automq_prefix)) name.remove_prefix(automq_prefix.size());
    for (uint8_t i = 0; i < goal_kind_count; i++) {
        if (name == goal_names[i]) return static_cast<GoalKind>(i);
    }
    return std::nullopt;
}

bool goal_is_hard(GoalKind kind) { return kind <= GoalKind::disk_capacity; }

std::vector<GoalKind> default_goals() {
    std::vector<GoalKind> goals;
    for (uint8_t i = 0; i < goal_kind_count; i++) goals.push_back(static_cast<GoalKind>(i));
    return goals;
}

const char* hold_reason_name(HoldReason reason) {
    const auto index = static_cast<size_t>(reason);
    assert(index < hold_reason_count);
    return index < hold_reason_count ? hold_reason_names[index] : "unknown";
}

std::unique_ptr<Goal> make_goal(GoalKind kind) {
    switch (kind) {
        case GoalKind::rack_aware: return make_rack_aware_goal();
        case GoalKind::replica_capacity: return make_replica_capacity_goal();
        case GoalKind::network_in_capacity:
        case GoalKind::network_out_capacity:
        case GoalKind::disk_capacity: return make_capacity_goal(kind);
        case GoalKind::network_in_usage_distribution:
        case GoalKind::network_out_usage_distribution: return make_network_distribution_goal(kind);
        case GoalKind::replica_count_distribution: return make_replica_count_goal();
        case GoalKind::leader_count_distribution: return make_leader_count_goal();
        case GoalKind::topic_spread: return make_topic_spread_goal();
    }
    assert(false && "make_goal: unknown GoalKind");
    return nullptr;
}

}  // namespace ballast::goals
