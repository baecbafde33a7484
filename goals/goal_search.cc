#include "goals/goal_search.h"

#include <algorithm>
#include <cassert>

namespace ballast::goals {

// ---------------------------------------------------------------- ReplicaLists

ReplicaList& ReplicaLists::of(uint32_t broker) {
    ReplicaList& list = _lists[broker];
    if (_built[broker]) {
        if (list.stale_skipped > 16 + list.entries.size() / 8) {
            std::erase_if(list.entries, [&](const ReplicaEntry& e) {
                return !still_movable(_state, broker, e.partition);
            });
            list.stale_skipped = 0;
        }
        return list;
    }
    _built[broker] = 1;
    std::span<const uint32_t> partitions = _state.model_partitions_of(broker);
    list.entries.reserve(partitions.size());
    for (uint32_t p : partitions) {
        if (!_state.movable(p) || !_state.holds(broker, p)) continue;
        const double value = _key(_state, p, broker);
        if (_positive_only && !(value > 0)) continue;
        list.entries.push_back({value, p});
    }
    std::sort(list.entries.begin(), list.entries.end(), [](const ReplicaEntry& a, const ReplicaEntry& b) {
        return a.value != b.value ? a.value > b.value : a.partition < b.partition;
    });
    return list;
}

ReplicaLists::Key resource_key(Resource resource) {
    return [resource](const PlanningState& state, uint32_t p, uint32_t b) {
        return load_of(state.replica_load_on(p, b), resource);
    };
}

ReplicaLists::Key network_key() {
    return [](const PlanningState& state, uint32_t p, uint32_t b) {
        const Load load = state.replica_load_on(p, b);
        return load.bytes_in_per_s + load.bytes_out_per_s;
    };
}

// ---------------------------------------------------------------- best-fit walks

namespace {
/// First index whose value is <= pivot (the list is sorted descending).
size_t first_at_most(const std::vector<ReplicaEntry>& list, double pivot) {
    auto it = std::partition_point(list.begin(), list.end(),
                                   [pivot](const ReplicaEntry& e) { return e.value > pivot; });
    return static_cast<size_t>(it - list.begin());
}
/// First index whose value is < pivot.
size_t first_below(const std::vector<ReplicaEntry>& list, double pivot) {
    auto it = std::partition_point(list.begin(), list.end(),
                                   [pivot](const ReplicaEntry& e) { return e.value >= pivot; });
    return static_cast<size_t>(it - list.begin());
}

/// Visits entry `i` if it is still movable off `broker`; counts stale ones.
/// Returns true when `visit` accepted it.
bool visit_at(const PlanningState& state, uint32_t broker, ReplicaList& list, size_t i,
              uint32_t& tries, const std::function<bool(const ReplicaEntry&)>& visit) {
    if (!still_movable(state, broker, list.entries[i].partition)) {
        list.stale_skipped++;
        return false;
    }
    tries++;
    return visit(list.entries[i]);
}
}  // namespace

bool visit_below_first(const PlanningState& state, uint32_t broker, ReplicaList& list,
                       double pivot, double high, uint32_t tries_max,
                       const std::function<bool(const ReplicaEntry&)>& visit) {
    const std::vector<ReplicaEntry>& entries = list.entries;
    uint32_t tries = 0;
    const size_t split = first_at_most(entries, pivot);
    for (size_t i = split; i < entries.size() && tries < tries_max; i++) {
        if (visit_at(state, broker, list, i, tries, visit)) return true;
    }
    for (size_t i = split; i-- > 0 && tries < tries_max;) {
        if (entries[i].value > high) break;
        if (visit_at(state, broker, list, i, tries, visit)) return true;
    }
    return false;
}

bool visit_above_first(const PlanningState& state, uint32_t broker, ReplicaList& list,
                       double pivot, double low, double high, uint32_t tries_max,
                       const std::function<bool(const ReplicaEntry&)>& visit) {
    const std::vector<ReplicaEntry>& entries = list.entries;
    uint32_t tries = 0;
    const size_t split = first_below(entries, pivot);
    for (size_t i = split; i-- > 0 && tries < tries_max;) {
        if (entries[i].value > high) break;
        if (visit_at(state, broker, list, i, tries, visit)) return true;
    }
    for (size_t i = split; i < entries.size() && tries < tries_max; i++) {
        if (entries[i].value < low) break;
        if (visit_at(state, broker, list, i, tries, visit)) return true;
    }
    return false;
}

bool visit_ascending(const PlanningState& state, uint32_t broker, ReplicaList& list,
                     uint32_t tries_max, const std::function<bool(const ReplicaEntry&)>& visit) {
    // The smallest go first, so stale entries gather at the back: drop them for good.
    while (!list.entries.empty() && !still_movable(state, broker, list.entries.back().partition)) {
        list.entries.pop_back();
    }
    uint32_t tries = 0;
    for (size_t i = list.entries.size(); i-- > 0 && tries < tries_max;) {
        if (visit_at(state, broker, list, i, tries, visit)) return true;
    }
    return false;
}

}  // namespace ballast::goals
