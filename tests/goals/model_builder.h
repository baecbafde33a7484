#pragma once

/// Test helpers for goals/: build small ClusterModels by hand, apply a plan
/// to a model (independently of the planner's own bookkeeping), and judge
/// the result with simple re-implementations of the goals' rules.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "goals/cluster_model.h"
#include "goals/planner_types.h"

namespace ballast::goals::test_support {

inline constexpr double mib = 1024.0 * 1024.0;

/// Builds a model in the order the contract requires: brokers by id, topics
/// by name, partitions by (topic, partition). Call in that order.
class ModelBuilder {
public:
    explicit ModelBuilder(int64_t now_ms = 100'000) { _model.now_ms = now_ms; }

    ModelBuilder& racks(std::vector<std::string> names) {
        _model.racks = std::move(names);
        return *this;
    }
    /// An alive broker with fresh metrics and unknown capacities.
    Broker& broker(int32_t id, uint32_t rack = 0) {
        Broker broker;
        broker.id = id;
        broker.rack = rack;
        broker.metrics_time_ms = _model.now_ms;
        _model.brokers.push_back(broker);
        return _model.brokers.back();
    }
    uint32_t topic(std::string name) {
        _model.topics.push_back(std::move(name));
        _next_partition = 0;
        return static_cast<uint32_t>(_model.topics.size() - 1);
    }
    /// A partition of the last topic; the leader is the first replica unless given.
    Partition& partition(std::vector<int32_t> replicas, double in_per_s, double out_per_s,
                         double size_bytes = 0, int32_t leader = -2) {
        Partition p;
        p.topic = static_cast<uint32_t>(_model.topics.size() - 1);
        p.partition = _next_partition++;
        p.replica_begin = static_cast<uint32_t>(_model.replicas.size());
        p.replica_count = static_cast<uint16_t>(replicas.size());
        p.leader = leader == -2 ? replicas.front() : leader;
        p.load = {in_per_s, out_per_s, size_bytes};
        _model.replicas.insert(_model.replicas.end(), replicas.begin(), replicas.end());
        _model.partitions.push_back(p);
        return _model.partitions.back();
    }
    ClusterModel& model() { return _model; }
    ClusterModel build() const {
        ClusterModel model = _model;
        if (model.racks.empty()) model.racks = {""};
        return model;
    }

private:
    ClusterModel _model;
    int32_t _next_partition = 0;
};

/// The default planner configuration with only these goals, in this order.
inline PlannerConfig only(std::vector<GoalKind> goals) {
    PlannerConfig config;
    config.goals = std::move(goals);
    return config;
}

inline bool touches_broker(const Action& action, int32_t id) {
    return action.source == id || action.destination == id;
}

inline std::vector<int32_t> replicas_of(const ClusterModel& model, uint32_t p) {
    const Partition& partition = model.partitions[p];
    return {model.replicas.begin() + partition.replica_begin,
            model.replicas.begin() + partition.replica_begin + partition.replica_count};
}

inline const Broker* find_broker(const ClusterModel& model, int32_t id) {
    for (const Broker& broker : model.brokers) {
        if (broker.id == id) return &broker;
    }
    return nullptr;
}

/// The model after every action of `plan`, applied one by one from the
/// Action fields alone (as an executor would). Checks on the way that each
/// action's replicas_before is the partition's state at its turn and its
/// replicas_after what applying it gives.
inline ClusterModel apply(const ClusterModel& model, const Plan& plan, Flavor flavor) {
    ClusterModel out = model;
    auto move_slot = [&](uint32_t p, int32_t from, int32_t to, bool evacuation) {
        Partition& partition = out.partitions[p];
        int32_t* slots = out.replicas.data() + partition.replica_begin;
        int32_t* slot = std::find(slots, slots + partition.replica_count, from);
        EXPECT_NE(slot, slots + partition.replica_count) << "source does not hold partition " << p;
        if (slot == slots + partition.replica_count) return;
        *slot = to;
        const bool revives = partition.leader == -1 && evacuation && flavor == Flavor::automq;
        if (partition.leader == from || revives) partition.leader = to;
    };
    for (const Action& action : plan.actions) {
        EXPECT_EQ(replicas_of(out, action.partition), action.replicas_before);
        switch (action.kind) {
            case ActionKind::move:
                move_slot(action.partition, action.source, action.destination, action.evacuation);
                break;
            case ActionKind::swap:
                EXPECT_EQ(replicas_of(out, action.swap_partition), action.swap_replicas_before);
                move_slot(action.partition, action.source, action.destination, false);
                move_slot(action.swap_partition, action.destination, action.source, false);
                EXPECT_EQ(replicas_of(out, action.swap_partition), action.swap_replicas_after);
                break;
            case ActionKind::leader: {
                Partition& partition = out.partitions[action.partition];
                int32_t* slots = out.replicas.data() + partition.replica_begin;
                int32_t* slot = std::find(slots, slots + partition.replica_count, action.destination);
                EXPECT_NE(slot, slots + partition.replica_count);
                EXPECT_EQ(partition.leader, action.source);
                if (slot != slots + partition.replica_count) std::rotate(slots, slot, slot + 1);
                partition.leader = action.destination;
                break;
            }
        }
        EXPECT_EQ(replicas_of(out, action.partition), action.replicas_after);
    }
    return out;
}

/// Each broker's load, summed from scratch (index = position in brokers).
inline std::vector<Load> broker_loads(const ClusterModel& model) {
    std::vector<Load> loads(model.brokers.size());
    for (const Partition& partition : model.partitions) {
        for (uint16_t i = 0; i < partition.replica_count; i++) {
            const int32_t id = model.replicas[partition.replica_begin + i];
            for (size_t b = 0; b < model.brokers.size(); b++) {
                if (model.brokers[b].id != id) continue;
                const Load load = replica_load(partition, partition.leader == id);
                loads[b].bytes_in_per_s += load.bytes_in_per_s;
                loads[b].bytes_out_per_s += load.bytes_out_per_s;
                loads[b].size_bytes += load.size_bytes;
            }
        }
    }
    return loads;
}

inline std::vector<int32_t> replica_counts(const ClusterModel& model) {
    std::vector<int32_t> counts(model.brokers.size(), 0);
    for (int32_t id : model.replicas) {
        for (size_t b = 0; b < model.brokers.size(); b++) counts[b] += model.brokers[b].id == id;
    }
    return counts;
}

inline double in_of(const Load& load) { return load.bytes_in_per_s; }
inline double out_of(const Load& load) { return load.bytes_out_per_s; }

/// A broker takes part in balancing: alive, fresh, not excluded, not draining.
inline bool eligible(const ClusterModel& model, const Broker& broker, const PlannerConfig& config) {
    return broker.liveness == Liveness::alive && !broker.excluded && !broker.draining &&
           broker.metrics_time_ms >= 0 && broker.metrics_time_ms >= model.now_ms - config.metrics_delay_ms;
}

/// Largest |usage - mean| over eligible brokers for one network direction,
/// usage as the distribution goals judge it: load / capacity when every
/// eligible broker's capacity of that direction is known, else load.
inline double deviation_max(const ClusterModel& model, const PlannerConfig& config,
                            double (*resource)(const Load&)) {
    const std::vector<Load> loads = broker_loads(model);
    const bool in = resource == &in_of;
    auto capacity = [&](const Broker& broker) {
        return in ? broker.capacity.network_in_bytes_per_s : broker.capacity.network_out_bytes_per_s;
    };
    bool relative = true;
    for (const Broker& broker : model.brokers) {
        if (eligible(model, broker, config)) relative = relative && capacity(broker) > 0;
    }
    double total = 0;
    double divisors = 0;
    for (size_t b = 0; b < loads.size(); b++) {
        if (!eligible(model, model.brokers[b], config)) continue;
        total += resource(loads[b]);
        divisors += relative ? capacity(model.brokers[b]) : 1;
    }
    if (divisors == 0) return 0;
    const double mean = total / divisors;
    double most = 0;
    for (size_t b = 0; b < loads.size(); b++) {
        if (!eligible(model, model.brokers[b], config)) continue;
        const double usage = resource(loads[b]) / (relative ? capacity(model.brokers[b]) : 1);
        most = std::max(most, std::abs(usage - mean));
    }
    return most;
}

inline bool contains(const std::vector<GoalKind>& goals, GoalKind kind) {
    return std::find(goals.begin(), goals.end(), kind) != goals.end();
}

}  // namespace ballast::goals::test_support
