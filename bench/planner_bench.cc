/// The planner alone, on a ready model (built once, outside the timed loop).
///
///   ./build/bench/planner_bench --benchmark_filter='20b'    (one size per process
///   gives a clean peak RSS; the counter is the process's peak so far)
///
/// Synthetic skewed clusters, every broker alive with fresh metrics:
///   20b_100k_rf1    20 brokers, 100,000 partitions RF1 (AutoMQ's own planning
///                   test, bounded there at 10 s)            goal <= 50 ms
///   1000b_1m_rf1    1,000 brokers, 1,000,000 partitions RF1  goal <= 1 s
///   300b_1m_rf3     300 brokers in 3 racks, 1,000,000 partitions RF3,
///                   rack-aware placement                     goal <= 3 s
/// Partitions are placed round robin in topics of 1,000 (RF3: the next two
/// brokers, which sit in the other racks); rates are log-uniform between
/// 4 KiB/s and 256 KiB/s in (~60 KiB/s mean), 1-3x that out per topic
/// (fan-out), sizes 1-10 GiB; the skew: partitions led by every tenth
/// broker (id % 10 == 0) run 3x hot, by the next ones (id % 10 == 1) 0.3x.
/// So about a fifth of the brokers start far outside the ±10% band.
/// Deterministic (splitmix64).
///
/// Arguments: size index, actions_max, broker_actions_max. With the default
/// actions_max (1,000) a plan stops when full; 100,000 shows the cost of
/// balancing everything. 200 with broker_actions_max 5 is what the engine
/// asks for (4 x execution.concurrency 50, the gate's per-broker cap 5): most
/// brokers' budgets run out, and the goals must skip them quickly.
/// Counters: actions in the plan, goals violated before / after, peak RSS.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "goals/cluster_model.h"
#include "goals/planner_types.h"
#include "tools/driver/machine.h"

namespace {

using ballast::goals::ClusterModel;
using ballast::goals::Plan;
using ballast::goals::PlannerConfig;

struct Size {
    const char* name;
    int32_t brokers;
    uint32_t partitions;
    uint16_t replication;
    uint32_t racks;
};

constexpr Size sizes[] = {
    {"20b_100k_rf1", 20, 100'000, 1, 1},
    {"1000b_1m_rf1", 1'000, 1'000'000, 1, 1},
    {"300b_1m_rf3", 300, 1'000'000, 3, 3},
};

constexpr uint32_t partitions_per_topic = 1'000;
constexpr int64_t now_ms = 10'000'000;

uint64_t splitmix64(uint64_t& state) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double unit(uint64_t& state) { return static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53; }

ClusterModel build_model(const Size& size) {
    ClusterModel model;
    model.now_ms = now_ms;
    for (uint32_t r = 0; r < size.racks; r++) model.racks.push_back("rack-" + std::to_string(r));
    for (int32_t id = 0; id < size.brokers; id++) {
        ballast::goals::Broker broker;
        broker.id = id;
        broker.rack = static_cast<uint32_t>(id) % size.racks;
        broker.metrics_time_ms = now_ms;
        model.brokers.push_back(broker);
    }
    const uint32_t topics = (size.partitions + partitions_per_topic - 1) / partitions_per_topic;
    for (uint32_t t = 0; t < topics; t++) {
        char name[32];
        std::snprintf(name, sizeof name, "topic-%06u", t);
        model.topics.push_back(name);
    }
    uint64_t random = 42;
    model.partitions.reserve(size.partitions);
    model.replicas.reserve(static_cast<size_t>(size.partitions) * size.replication);
    const double kib = 1024;
    double fan_out = 1;
    for (uint32_t p = 0; p < size.partitions; p++) {
        const uint32_t topic = p / partitions_per_topic;
        if (p % partitions_per_topic == 0) fan_out = 1 + 2 * unit(random);
        ballast::goals::Partition partition;
        partition.topic = topic;
        partition.partition = static_cast<int32_t>(p % partitions_per_topic);
        partition.replica_begin = static_cast<uint32_t>(model.replicas.size());
        partition.replica_count = size.replication;
        // Round robin; with RF3 on 3 racks (broker % 3), consecutive brokers
        // are in different racks.
        const int32_t first = static_cast<int32_t>(p % static_cast<uint32_t>(size.brokers));
        for (uint16_t r = 0; r < size.replication; r++) {
            model.replicas.push_back((first + r) % size.brokers);
        }
        partition.leader = first;
        const double skew = first % 10 == 0 ? 3.0 : first % 10 == 1 ? 0.3 : 1.0;
        const double in = skew * 4 * kib * std::exp2(6 * unit(random));  // 4 .. 256 KiB/s
        partition.load = {in, in * fan_out, (1 + 9 * unit(random)) * 1024 * 1024 * 1024};
        model.partitions.push_back(partition);
    }
    return model;
}

const ClusterModel& model_for(size_t index) {
    static std::map<size_t, ClusterModel> models;
    auto it = models.find(index);
    if (it == models.end()) it = models.emplace(index, build_model(sizes[index])).first;
    return it->second;
}

double peak_rss_mib() { return static_cast<double>(ballast::driver::memory_use().peak_rss_bytes) / (1 << 20); }

void plan_skewed(benchmark::State& state) {
    const size_t index = static_cast<size_t>(state.range(0));
    const ClusterModel& model = model_for(index);
    PlannerConfig config;
    config.actions_max = static_cast<uint32_t>(state.range(1));
    config.broker_actions_max = static_cast<uint32_t>(state.range(2));
    state.SetLabel(sizes[index].name);
    Plan result;
    for (auto _ : state) {
        result = ballast::goals::plan(model, config);
        benchmark::DoNotOptimize(result.actions.data());
    }
    if (result.status == Plan::Status::invalid_input) state.SkipWithError(result.error.c_str());
    state.counters["actions"] = static_cast<double>(result.actions.size());
    state.counters["violated_before"] = static_cast<double>(result.violated_before.size());
    state.counters["violated_after"] = static_cast<double>(result.violated_after.size());
    state.counters["peak_rss_mib"] = peak_rss_mib();
    // How the plan spreads: brokers it touches, the most actions on one, and
    // what the gate (default GateConfig, nothing in flight) lets through.
    std::map<int32_t, uint32_t> per_broker;
    for (const ballast::goals::Action& action : result.actions) {
        per_broker[action.source]++;
        per_broker[action.destination]++;
    }
    uint32_t most = 0;
    for (const auto& [id, count] : per_broker) most = std::max(most, count);
    state.counters["brokers_touched"] = static_cast<double>(per_broker.size());
    state.counters["broker_actions_most"] = static_cast<double>(most);
    const ballast::goals::GateResult gate =
        ballast::goals::apply_gate(result, model, ballast::goals::GateState{}, ballast::goals::GateConfig{});
    state.counters["gate_accepted"] = static_cast<double>(gate.accepted.size());
}

}  // namespace

BENCHMARK(plan_skewed)
    ->ArgNames({"size", "actions_max", "broker_actions_max"})
    ->Args({0, 1'000, 0})
    ->Args({0, 100'000, 0})
    ->Args({1, 1'000, 0})
    ->Args({1, 100'000, 0})
    ->Args({2, 1'000, 0})
    ->Args({2, 100'000, 0})
    ->Args({1, 200, 0})
    ->Args({1, 200, 5})
    ->Args({1, 1'000, 5})
    ->Args({2, 200, 0})
    ->Args({2, 200, 5})
    ->Args({2, 1'000, 5})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

BENCHMARK_MAIN();
