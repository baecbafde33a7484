#pragma once

/// Random clusters for the goals/ properties (rapidcheck): brokers, racks,
/// capacities, liveness and metric ages; topics, partitions, replication
/// factors, leaders, loads, cooldowns and exclusions; and configs with
/// random flavors, plan bounds and goal orders.

#include <rapidcheck.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "goals/cluster_model.h"
#include "goals/planner_types.h"
#include "tests/goals/model_builder.h"

namespace ballast::goals::test_support {

inline constexpr int64_t now_ms = 1'000'000;

inline bool chance(int percent) { return *rc::gen::inRange(0, 100) < percent; }

/// `healthy`: every broker alive and not draining, no capacities and one
/// rack, so the hard goals hold and nothing is evacuated (stale metrics and
/// exclusions stay random).
inline ClusterModel random_model(bool healthy = false) {
    ClusterModel model;
    model.now_ms = now_ms;
    const int rack_count = healthy ? 1 : *rc::gen::inRange(1, 5);
    for (int r = 0; r < rack_count; r++) model.racks.push_back("r" + std::to_string(r));
    const int broker_count = *rc::gen::inRange(2, 13);
    int32_t id = *rc::gen::inRange(0, 5);
    for (int b = 0; b < broker_count; b++) {
        Broker broker;
        broker.id = id;
        id += *rc::gen::inRange(1, 4);
        broker.rack = static_cast<uint32_t>(*rc::gen::inRange(0, rack_count));
        const int liveness = *rc::gen::inRange(0, 100);
        broker.liveness = liveness < 85 ? Liveness::alive : liveness < 95 ? Liveness::fenced : Liveness::gone;
        broker.liveness_changed_ms = now_ms - *rc::gen::inRange(0, 30'000);
        const int metrics = *rc::gen::inRange(0, 100);
        broker.metrics_time_ms = metrics < 85   ? now_ms - *rc::gen::inRange(0, 60'000)
                                 : metrics < 95 ? now_ms - *rc::gen::inRange(60'001, 500'000)
                                                : -1;
        broker.excluded = chance(5);
        broker.draining = chance(5);
        if (healthy) {
            broker.liveness = Liveness::alive;
            broker.draining = false;
            model.brokers.push_back(broker);
            continue;
        }
        if (chance(50)) {
            broker.capacity.network_in_bytes_per_s = *rc::gen::inRange(1, 100) * mib;
            broker.capacity.network_out_bytes_per_s = *rc::gen::inRange(1, 200) * mib;
            broker.capacity.disk_bytes = *rc::gen::inRange(1, 10'000) * mib;
        }
        if (chance(40)) broker.capacity.replicas_max = *rc::gen::inRange(1, 40);
        model.brokers.push_back(broker);
    }
    const int topic_count = *rc::gen::inRange(1, 5);
    for (int t = 0; t < topic_count; t++) {
        model.topics.push_back("t" + std::to_string(t));
        const int partitions = *rc::gen::inRange(1, chance(20) ? 80 : 25);
        const int replication = *rc::gen::inRange(1, std::min(3, broker_count) + 1);
        const bool excluded = chance(5);
        const int fan_out = *rc::gen::inRange(0, 4);  // consumers per topic: out follows in
        for (int i = 0; i < partitions; i++) {
            Partition partition;
            partition.topic = static_cast<uint32_t>(t);
            partition.partition = i;
            partition.replica_begin = static_cast<uint32_t>(model.replicas.size());
            partition.replica_count = static_cast<uint16_t>(replication);
            std::vector<int32_t> free;
            for (const Broker& broker : model.brokers) free.push_back(broker.id);
            for (int r = 0; r < replication; r++) {
                const size_t pick = static_cast<size_t>(*rc::gen::inRange<int>(0, static_cast<int>(free.size())));
                model.replicas.push_back(free[pick]);
                free.erase(free.begin() + static_cast<long>(pick));
            }
            const int leader = *rc::gen::inRange(0, 100);
            const int32_t* replicas = model.replicas.data() + partition.replica_begin;
            partition.leader = leader < 90 ? replicas[0]
                               : leader < 95 ? replicas[replication - 1]
                                             : -1;
            const double in = *rc::gen::inRange(0, 5'000) * 1024.0;
            const double out = chance(80) ? in * fan_out : in * *rc::gen::inRange(0, 4);
            partition.load = {in, out, *rc::gen::inRange(0, 1'000) * mib};
            if (chance(30)) partition.last_moved_ms = now_ms - *rc::gen::inRange(0, 120'000);
            partition.in_flight = chance(5);
            partition.excluded = excluded;
            model.partitions.push_back(partition);
        }
    }
    return model;
}

inline PlannerConfig random_config() {
    PlannerConfig config;
    config.flavor = chance(50) ? Flavor::apache : Flavor::automq;
    config.actions_max = static_cast<uint32_t>(*rc::gen::inRange(0, 300));
    // Half the plans without a per-broker limit, half with a tight one.
    config.broker_actions_max = chance(50) ? 0 : static_cast<uint32_t>(*rc::gen::inRange(1, 7));
    if (chance(20)) {
        // A random subset in a random order.
        std::vector<GoalKind> all = default_goals();
        config.goals.clear();
        while (!all.empty() && chance(85)) {
            const size_t pick = static_cast<size_t>(*rc::gen::inRange<int>(0, static_cast<int>(all.size())));
            config.goals.push_back(all[pick]);
            all.erase(all.begin() + static_cast<long>(pick));
        }
    }
    return config;
}

}  // namespace ballast::goals::test_support
