#include "goals/replica_lists.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <limits>
#include <vector>

namespace ballast::goals {

// ---------------------------------------------------------------- ReplicaList

namespace {
/// The list order: value descending, ties by partition index. A closure,
/// not a function: std::sort and std::nth_element then inline it, where a
/// function pointer costs a call per comparison.
constexpr auto before = [](const ReplicaEntry& a, const ReplicaEntry& b) {
    return a.value != b.value ? a.value > b.value : a.partition < b.partition;
};
/// The first extension of a list's sorted part.
constexpr size_t sorted_chunk_min = 64;
}  // namespace

void ReplicaList::sort_through(size_t i) {
    assert(i < entries.size());
    const size_t middle_end = entries.size() - sorted_tail;  // the unsorted part is [sorted_end, middle_end)
    if (i < sorted_end || i >= middle_end) return;
    // At least double the sorted part: O(n) per extension, O(log n) extensions.
    const size_t end = std::min(middle_end, std::max({i + 1, 2 * sorted_end, sorted_chunk_min}));
    const auto first = entries.begin() + static_cast<std::ptrdiff_t>(sorted_end);
    const auto last = entries.begin() + static_cast<std::ptrdiff_t>(end);
    const auto middle_last = entries.begin() + static_cast<std::ptrdiff_t>(middle_end);
    if (last != middle_last) std::nth_element(first, last, middle_last, before);
    std::sort(first, last, before);
    sorted_end = end;
    note_if_sorted();
}

void ReplicaList::sort_tail_from(size_t i) {
    assert(i < entries.size());
    const size_t middle_end = entries.size() - sorted_tail;
    if (i < sorted_end || i >= middle_end) return;
    // The same doubling, from the bottom.
    const size_t tail =
        std::min(entries.size() - sorted_end, std::max({entries.size() - i, 2 * sorted_tail, sorted_chunk_min}));
    const auto middle_first = entries.begin() + static_cast<std::ptrdiff_t>(sorted_end);
    const auto first = entries.begin() + static_cast<std::ptrdiff_t>(entries.size() - tail);
    const auto last = entries.begin() + static_cast<std::ptrdiff_t>(middle_end);
    if (first != middle_first) std::nth_element(middle_first, first, last, before);
    std::sort(first, last, before);
    sorted_tail = tail;
    note_if_sorted();
}

void ReplicaList::sort_all() {
    if (sorted_end >= entries.size()) return;
    std::sort(entries.begin() + static_cast<std::ptrdiff_t>(sorted_end),
              entries.end() - static_cast<std::ptrdiff_t>(sorted_tail), before);
    sorted_end = sorted_tail = entries.size();
}

// ---------------------------------------------------------------- ReplicaLists

ReplicaList& ReplicaLists::build_or_compact(uint32_t broker) {
    ReplicaList& list = _lists[broker];
    if (_built[broker]) {
        if (list.needs_compaction()) {
            // Keeps the order, so the sorted part stays sorted and before the rest.
            size_t kept = 0;
            size_t kept_sorted = 0;
            size_t kept_tail = 0;
            const size_t tail_begin = list.entries.size() - list.sorted_tail;
            for (size_t i = 0; i < list.entries.size(); i++) {
                if (!still_movable(_state, broker, list.entries[i].partition)) continue;
                kept_sorted += i < list.sorted_end;
                kept_tail += i >= tail_begin;
                list.entries[kept++] = list.entries[i];
            }
            list.entries.resize(kept);
            list.sorted_end = kept_sorted;
            list.sorted_tail = kept_tail;
            list.stale_skipped = 0;
            list.compactions++;
        }
        return list;
    }
    _built[broker] = 1;
    std::span<const uint32_t> partitions = _state.model_partitions_of(broker);
    list.entries.reserve(partitions.size());
    // How many partitions ahead the build asks for the loads it will read.
    constexpr size_t prefetch_distance = 16;
    for (size_t i = 0; i < partitions.size(); i++) {
        if (i + prefetch_distance < partitions.size()) _state.prefetch_load(partitions[i + prefetch_distance]);
        const uint32_t p = partitions[i];
        // Untouched, so where the model had it: on `broker` (still_movable
        // says why; the O(RF) holds read a replica list per partition, most
        // of a build's time).
        if (!_state.movable(p)) continue;
        if (_use == ListFor::moves && !_state.copyable(p)) continue;
        const double value = _key(_state, p, broker);
        if (_positive_only && !(value > 0)) continue;
        const double load = _kept_load ? load_of(_state.replica_load_on(p, broker), *_kept_load) : 0.0;
        list.entries.push_back({value, p, load});
    }
    list.kept_load = _kept_load;
    list.sorted_end = list.sorted_tail = 0;  // sorted on demand, from either end
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

ReplicaLists::Key load_per_byte_key(Resource resource) {
    return [resource](const PlanningState& state, uint32_t p, uint32_t b) {
        return load_of(state.replica_load_on(p, b), resource) / (state.partition(p).load.size_bytes + 1.0);
    };
}

ReplicaLists::Key network_per_byte_key() {
    return [](const PlanningState& state, uint32_t p, uint32_t b) {
        const Load load = state.replica_load_on(p, b);
        return (load.bytes_in_per_s + load.bytes_out_per_s) / (state.partition(p).load.size_bytes + 1.0);
    };
}

// ---------------------------------------------------------------- best-fit walks

bool visit_fewest_bytes_first(const PlanningState& state, uint32_t broker, ReplicaList& list, double pivot,
                              double high, EntryVisitor visit) {
    // The head with each entry's bytes per load, computed once: in a fixed
    // array, since a walk runs for every step of the network goals.
    struct HeadEntry {
        double bytes_per_load;
        ReplicaEntry entry;
    };
    std::array<HeadEntry, bytes_choices> head;
    size_t head_size = 0;
    bool head_tried = false;
    auto try_head = [&] {
        head_tried = true;
        // Fewest bytes per load first, ties in walk order (the order a stable
        // sort gives), picked one at a time: the first or second pick nearly
        // always applies, and a pick costs one pass over the head where a
        // sort of it costs several.
        static_assert(bytes_choices <= 32, "one bit a head entry");
        uint32_t picked = 0;
        for (size_t n = 0; n < head_size; n++) {
            size_t best = head_size;
            for (size_t i = 0; i < head_size; i++) {
                if ((picked >> i & 1) == 0 &&
                    (best == head_size || head[i].bytes_per_load < head[best].bytes_per_load)) {
                    best = i;
                }
            }
            picked |= uint32_t{1} << best;
            const ReplicaEntry& e = head[best].entry;
            // An earlier entry's action may have touched this one's partition.
            if (still_movable(state, broker, e.partition) && visit(e)) return true;
        }
        return false;
    };
    const bool stopped = visit_below_first(state, broker, list, pivot, high, replica_tries_max, [&](const ReplicaEntry& e) {
        if (!head_tried) {
            if (head_size < bytes_choices && (head_size == 0 || e.value >= head[0].entry.value * 0.25)) {
                head[head_size++] = {state.partition(e.partition).load.size_bytes / e.value, e};
                return false;
            }
            if (try_head()) return true;
        }
        return visit(e);
    });
    if (stopped) return true;
    return !head_tried && try_head();
}

void prepare_ascending(const PlanningState& state, uint32_t broker, ReplicaList& list) {
    // The smallest go first, so stale entries gather at the back: drop them for good.
    while (!list.entries.empty() &&
           !still_movable(state, broker, list.at_bottom(list.entries.size() - 1).partition)) {
        list.pop_back();
    }
}

Load least_load_ascending(const PlanningState& state, uint32_t broker, ReplicaList& list, uint32_t tries_max) {
    if (list.least_epoch == state.holder_epoch(broker) && list.least_tries_max == tries_max) {
        return list.least;
    }
    // Drops stale entries from the bottom only: the others keep their index.
    prepare_ascending(state, broker, list);
    std::vector<ReplicaList::Covered>& covered = list.least_covered;
    size_t next = list.entries.size();  // the walk goes on below this index
    // The entries the last answer covered still stand, and none joins them:
    // the answer stands too (most actions touch none of a broker's lightest).
    bool same = false;
    if (list.least_tries_max == tries_max && list.least_compactions == list.compactions &&
        list.least_undone == state.undone()) {
        const size_t before = covered.size();
        std::erase_if(covered,
                      [&](const ReplicaList::Covered& c) { return !still_movable(state, broker, c.partition); });
        next = std::min(next, list.least_next);
        same = covered.size() == before && (covered.size() >= tries_max || next == 0);
    } else {
        covered.clear();
    }
    if (!same) {
        while (covered.size() < tries_max && next > 0) {
            const uint32_t p = list.at_bottom(--next).partition;
            if (!still_movable(state, broker, p)) continue;
            covered.push_back({p, state.replica_load_on(p, broker)});
        }
        Load least = no_load_yet;
        for (const ReplicaList::Covered& c : covered) least = least_of(least, c.load);
        list.least = least;
    }
    list.least_tries_max = tries_max;
    list.least_epoch = state.holder_epoch(broker);
    list.least_next = next;
    list.least_compactions = list.compactions;
    list.least_undone = state.undone();
    return list.least;
}

bool visit_cheapest_copy_first(const PlanningState& state, uint32_t broker, ReplicaList& list,
                               Resource resource, double value_max, EntryVisitor visit) {
    uint32_t tries = 0;
    uint32_t scanned = 0;
    for (size_t i = 0; i < list.entries.size() && tries < replica_tries_max && scanned < cheapest_scan_max;
         i++, scanned++) {
        const ReplicaEntry& entry = list.at(i);
        const uint32_t p = entry.partition;
        if (!still_movable(state, broker, p)) {
            list.stale_skipped++;  // dropped when there are many (ReplicaLists::of)
            continue;
        }
        const double value =
            list.kept_load == resource ? entry.load : load_of(state.replica_load_on(p, broker), resource);
        if (!(value > 0) || value > value_max) continue;
        tries++;
        if (visit(ReplicaEntry{value, p})) return true;
    }
    return false;
}

}  // namespace ballast::goals
