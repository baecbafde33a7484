/// The cooldown gate: which of a plan's actions run now. The rules and their
/// order are documented at `apply_gate` in planner_types.h.
///
/// Cost: O(A log A) for A actions (ordered maps for the batch's per-broker
/// and per-topic counts, binary searches into the model's sorted arrays).

#include <algorithm>
#include <cassert>
#include <cmath>
#include <map>
#include <set>

#include "goals/planner_types.h"

namespace ballast::goals {
namespace {

bool cooling_down(const Partition& partition, int64_t now_ms, int64_t cooldown_ms) {
    return partition.last_moved_ms >= 0 && now_ms - partition.last_moved_ms < cooldown_ms;
}

const Broker* find_broker(const ClusterModel& model, int32_t id) {
    auto it = std::lower_bound(model.brokers.begin(), model.brokers.end(), id,
                               [](const Broker& broker, int32_t key) { return broker.id < key; });
    return (it != model.brokers.end() && it->id == id) ? &*it : nullptr;
}

uint32_t running_on(const GateState& state, int32_t broker_id) {
    auto it = std::lower_bound(state.broker_inflight.begin(), state.broker_inflight.end(), broker_id,
                               [](const auto& entry, int32_t key) { return entry.first < key; });
    return (it != state.broker_inflight.end() && it->first == broker_id) ? it->second : 0;
}

/// Partitions of topic `t` in the model (partitions are sorted by topic).
uint32_t partitions_of_topic(const ClusterModel& model, uint32_t t) {
    auto less_topic = [](const Partition& p, uint32_t key) { return p.topic < key; };
    auto first = std::lower_bound(model.partitions.begin(), model.partitions.end(), t, less_topic);
    auto last = std::lower_bound(first, model.partitions.end(), t + 1, less_topic);
    return static_cast<uint32_t>(last - first);
}

}  // namespace

GateResult apply_gate(const Plan& plan, const ClusterModel& model, const GateState& state,
                      const GateConfig& config) {
    GateResult result;
    // Brokers a held action was to take load off (a swap takes load off both).
    std::set<int32_t> unloaded_by_held;
    auto hold = [&](const Action& action, HoldReason reason) {
        unloaded_by_held.insert(action.source);
        if (action.kind == ActionKind::swap) unloaded_by_held.insert(action.destination);
        result.held.push_back({action, reason});
        result.held_count[static_cast<size_t>(reason)]++;
    };
    const bool too_soon = state.last_batch_ms >= 0 &&
                          model.now_ms - state.last_batch_ms < config.execution_interval_ms;
    if (config.paused || too_soon) {
        for (const Action& action : plan.actions) {
            hold(action, config.paused ? HoldReason::paused : HoldReason::execution_interval);
        }
        return result;
    }

    std::map<int32_t, uint32_t> batch_per_broker;
    std::map<uint32_t, uint32_t> batch_per_topic;
    std::set<uint32_t> planned;  // partitions of earlier actions of this plan
    for (const Action& action : plan.actions) {
        uint32_t partitions[2] = {action.partition, action.swap_partition};
        const size_t partition_count = action.kind == ActionKind::swap ? 2 : 1;
        for (size_t i = 0; i < partition_count; i++) {
            assert(partitions[i] < model.partitions.size() && "the plan was made on this model");
        }
        auto any = [&](auto predicate) {
            for (size_t i = 0; i < partition_count; i++) {
                if (predicate(partitions[i])) return true;
            }
            return false;
        };
        auto remember = [&] {
            for (size_t i = 0; i < partition_count; i++) planned.insert(partitions[i]);
        };

        if (any([&](uint32_t p) {
                const Partition& partition = model.partitions[p];
                return partition.in_flight || model.now_ms < partition.held_until_ms || planned.contains(p);
            })) {
            hold(action, HoldReason::in_flight);
            remember();
            continue;
        }
        const bool gains_where_held_unloads =
            unloaded_by_held.count(action.destination) > 0 ||
            (action.kind == ActionKind::swap && unloaded_by_held.count(action.source) > 0);
        if (gains_where_held_unloads) {
            hold(action, HoldReason::after_held);
            remember();
            continue;
        }
        if (!action.evacuation && any([&](uint32_t p) {
                return cooling_down(model.partitions[p], model.now_ms, config.partition_cooldown_ms);
            })) {
            hold(action, HoldReason::cooldown);
            remember();
            continue;
        }
        if (static_cast<uint64_t>(state.inflight_actions) + result.accepted.size() >= config.concurrency_max) {
            hold(action, HoldReason::concurrency_cap);
            remember();
            continue;
        }
        // A source that is not alive does no work in the move: not counted.
        const Broker* source = find_broker(model, action.source);
        const bool count_source = source == nullptr || source->liveness == Liveness::alive;
        int32_t counted[2];
        size_t counted_count = 0;
        if (count_source) counted[counted_count++] = action.source;
        counted[counted_count++] = action.destination;
        bool busy = false;
        for (size_t i = 0; i < counted_count; i++) {
            const uint64_t running = running_on(state, counted[i]);
            busy = busy || running + batch_per_broker[counted[i]] >= config.broker_inflight_max;
        }
        if (busy) {
            hold(action, HoldReason::broker_cap);
            remember();
            continue;
        }
        // Topic cap: at most max(1, floor(fraction x partitions)) of one topic per batch.
        std::map<uint32_t, uint32_t> adding;
        for (size_t i = 0; i < partition_count; i++) adding[model.partitions[partitions[i]].topic]++;
        bool topic_full = false;
        for (const auto& [topic, count] : adding) {
            const double fraction_cap =
                std::floor(config.topic_batch_fraction_max * partitions_of_topic(model, topic));
            const uint64_t cap = std::max<uint64_t>(1, static_cast<uint64_t>(std::max(0.0, fraction_cap)));
            topic_full = topic_full || batch_per_topic[topic] + count > cap;
        }
        if (topic_full) {
            hold(action, HoldReason::topic_cap);
            remember();
            continue;
        }

        for (size_t i = 0; i < counted_count; i++) batch_per_broker[counted[i]]++;
        for (const auto& [topic, count] : adding) batch_per_topic[topic] += count;
        remember();
        result.accepted.push_back(action);
    }
    return result;
}

}  // namespace ballast::goals
