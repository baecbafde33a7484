#pragma once

/// A cluster described in JSON, the neutral format a comparison needs
/// (`ballast plan --model FILE.json`, bench/peers), and what a plan on it
/// did: balance before and after, data moved, and the final assignment in
/// the JSON `kafka-reassign-partitions --execute` reads. The format is in
/// goals/README.md ("A cluster described in JSON").

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "events/result.h"
#include "goals/planner_types.h"

namespace ballast::driver {

/// Parses a described cluster. Errors name the field by its path
/// ("partitions[3].replicas[1]") and what was expected; an unknown field
/// lists the valid ones. `what` names the source in errors (a file name).
events::Result<goals::ClusterModel> parse_model_json(std::string_view text, const std::string& what);
events::Result<goals::ClusterModel> read_model_file(const std::string& path);

/// How even a model is, judged as an operator reads a balancer's report.
struct BalanceSummary {
    // Over the alive brokers: max/mean and min/mean of each load (of
    // utilization, load / capacity, where every alive broker's is known).
    double in_max_mean = 0, in_min_mean = 0;
    double out_max_mean = 0, out_min_mean = 0;
    double disk_max_mean = 0, disk_min_mean = 0;
    int32_t replicas_min = 0, replicas_max = 0;
    int32_t leaders_min = 0, leaders_max = 0;
    /// Partitions with two replicas in one rack though they have at least
    /// as many racks as replicas to spread over.
    uint32_t rack_violations = 0;
    /// Brokers over a capacity limit (capacity x threshold) in some resource.
    uint32_t brokers_over_capacity = 0;
    /// How unevenly topics are spread: replicas of a topic on an alive broker
    /// beyond the topic band's upper end, max(ceil(mean x (1 + deviation)),
    /// ceil(mean) + 1) for the topic's mean over the alive brokers (the
    /// bound TopicSpreadGoal keeps, `topic_deviation` its deviation), summed.
    uint64_t topic_replicas_over = 0;
};

BalanceSummary balance_of(const goals::ClusterModel& model, double capacity_threshold, double topic_deviation);

/// What changed from `before` to `after` (the same partitions).
struct MovedSummary {
    uint32_t partitions_moved = 0;  // a replica set that differs
    uint32_t replicas_moved = 0;    // replicas on a broker that did not hold one before
    double bytes_moved = 0;         // their sizes: what the copies carry
    uint32_t leaders_changed = 0;   // partitions led by another broker
};

MovedSummary moved_between(const goals::ClusterModel& before, const goals::ClusterModel& after);

/// {"version":1,"partitions":[{"topic":...,"partition":...,"replicas":[...]}]}
/// for every partition whose replica list (order included: the first is the
/// preferred leader) differs.
std::string reassignment_json(const goals::ClusterModel& before, const goals::ClusterModel& after);

/// `model` with a final assignment in that same JSON applied (another
/// balancer's answer, so one scorer judges both sides): each listed
/// partition gets the listed replicas, and its first as the leader, as the
/// preferred election after a reassignment makes it. Errors name the entry
/// ("partitions[3].replicas"): a partition or broker the model lacks, a
/// replica count that differs, a partition listed twice.
events::Result<goals::ClusterModel> apply_assignment_json(const goals::ClusterModel& model, std::string_view text,
                                                          const std::string& what);

}  // namespace ballast::driver
