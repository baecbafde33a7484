#pragma once

/// Each broker's movable replicas sorted by a load (built lazily, once per
/// goal run), and the walks over such a list the searches make. Private to
/// goals/.
///
/// Why lazily: at 1,000,000 partitions a goal usually works on a few
/// brokers. Sorting only the lists it reads keeps a plan O(R) + O(r log r)
/// for the r replicas of the brokers it touches, instead of a full sort per
/// goal. Lists never gain entries: a replica that moves is `touched`, and
/// touched replicas are skipped (and now and then dropped); arrivals are
/// touched, so never candidates.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "goals/planning_state.h"

namespace ballast::goals {

/// Replicas of one broker tried per (source, destination) pair.
inline constexpr uint32_t replica_tries_max = 64;

/// One movable replica on a broker and the value it is sorted by.
struct ReplicaEntry {
    double value = 0;
    uint32_t partition = no_partition;
    /// In a list that keeps loads (ReplicaLists' `kept_load`): the load the
    /// replica puts on the broker in that resource, as at the build. It
    /// stays so while the entry is movable (an untouched partition keeps
    /// the model's leader), so a walk that filters by it reads no partition
    /// for the entries it passes over (visit_cheapest_copy_first).
    double load = 0;
};

/// One broker's movable replicas in order: value descending, ties by
/// partition index (a strict order, so the order is unique). Walks skip
/// entries that moved since (and count them); once they are many, the list
/// is compacted (needs_compaction), so a broker that sheds thousands of
/// replicas is not rescanned from the top each step.
///
/// Sorted lazily from both ends: entries [0, sorted_end) are in their final
/// order and every later entry comes after all of them (nth_element), and
/// the last sorted_tail entries likewise with every earlier one before
/// them, so a walk from the top (at) or from the bottom (at_bottom) sees
/// exactly what a full sort would show it. Why: with a per-broker budget
/// (PlannerConfig::broker_actions_max) a plan takes a few replicas off each
/// of many brokers, and at 1,000,000 partitions RF3 a broker holds 10,000;
/// sorting the top few dozen costs O(n), the whole list O(n log n). The
/// count goals walk their lists from the bottom, a few dozen entries a
/// step, over lists of thousands. Each extension at least doubles the
/// sorted part (64 entries first); once the two parts meet, all is sorted.
struct ReplicaList {
    std::vector<ReplicaEntry> entries;
    size_t sorted_end = 0;
    size_t sorted_tail = 0;
    size_t stale_skipped = 0;
    /// The resource whose load the entries keep (ReplicaEntry::load), if any.
    std::optional<Resource> kept_load;
    /// least_load_ascending's last answer, for `least_tries_max` tries, and
    /// the broker's PlanningState::holder_epoch it was found at: a search
    /// asks it of each partner at each step, and only an action touching one
    /// of the broker's partitions changes it.
    Load least{};
    uint32_t least_tries_max = 0;
    uint64_t least_epoch = UINT64_MAX;  // none found yet: epochs count up from 0
    /// The entries that answer covered (the first least_tries_max still
    /// movable from the bottom, with their loads) and the index its walk
    /// stopped above: an action that touches a partition of the broker
    /// outside them, or one of them, leaves the rest standing (a touched
    /// partition stays unmovable unless an action is taken back, and
    /// untouched ones keep their load), so the next answer drops the
    /// touched and walks on from there instead of reading every partition
    /// again.
    struct Covered {
        uint32_t partition;
        Load load;
    };
    std::vector<Covered> least_covered;
    size_t least_next = 0;
    /// Compactions so far: they move entries, and the walk's index with them.
    uint64_t compactions = 0;
    uint64_t least_compactions = UINT64_MAX;
    uint64_t least_undone = UINT64_MAX;  // PlanningState::undone() at that answer

    /// Have walks skipped enough stale entries to compact the list? A
    /// compaction copies every entry, a skip reads one: so after as many
    /// skips as entries. Except in a list that keeps loads, the cheapest-copy
    /// walk's (visit_cheapest_copy_first), whose scan limit counts stale
    /// entries too, so that when it compacts decides what the walk reaches:
    /// there after an eighth, the rule its plans are made by.
    bool needs_compaction() const {
        return stale_skipped > 16 + (kept_load ? entries.size() / 8 : entries.size());
    }
    /// Entry `i` (< entries.size()) in its final place, sorting from the
    /// top as far as needed.
    const ReplicaEntry& at(size_t i) {
        if (i >= sorted_end) sort_through(i);
        return entries[i];
    }
    /// The same, sorting from the bottom: for walks that start at the last entry.
    const ReplicaEntry& at_bottom(size_t i) {
        if (i >= sorted_end && i < entries.size() - sorted_tail) sort_tail_from(i);
        return entries[i];
    }
    /// Drops the last entry (in its final place: at_bottom first).
    void pop_back() {
        entries.pop_back();
        sorted_end = std::min(sorted_end, entries.size());
        sorted_tail = std::min(sorted_tail > 0 ? sorted_tail - 1 : 0, entries.size());
    }
    /// The first index whose entry fails `prefix` (true for a prefix of the
    /// order, like `value > pivot`), sorting only as far as it lies.
    template <class Prefix>
    size_t partition_point(Prefix prefix) {
        while (sorted_end < entries.size() && (sorted_end == 0 || prefix(entries[sorted_end - 1]))) {
            sort_through(sorted_end);
        }
        const auto sorted = entries.begin() + static_cast<std::ptrdiff_t>(sorted_end);
        return static_cast<size_t>(std::partition_point(entries.begin(), sorted, prefix) - entries.begin());
    }
    void sort_all();
    /// Makes entries [0, i] final (i < size).
    void sort_through(size_t i);
    /// Makes entries [i, size) final.
    void sort_tail_from(size_t i);
    /// Marks the whole list sorted once the two parts meet.
    void note_if_sorted() {
        if (sorted_end + sorted_tail >= entries.size()) sorted_end = sorted_tail = entries.size();
    }
};

/// What the entries of a list will be used for: moves and swaps copy the
/// partition, so they leave out what cannot be copied in time
/// (`PlanningState::copyable`), instead of spending the search's tries on
/// candidates `valid` refuses; leader changes copy nothing.
enum class ListFor : uint8_t { moves, leader_changes };

/// Per broker, its list built at first use. `key` gives the value; entries
/// with a value <= 0 are left out when `positive_only` (they cannot shift
/// the load). With `kept_load`, each entry keeps its load in that resource
/// (ReplicaEntry::load).
class ReplicaLists {
public:
    using Key = std::function<double(const PlanningState&, uint32_t partition, uint32_t broker)>;
    ReplicaLists(const PlanningState& state, Key key, bool positive_only, ListFor use,
                 std::optional<Resource> kept_load = std::nullopt)
        : _state(state), _key(std::move(key)), _positive_only(positive_only), _use(use), _kept_load(kept_load),
          _lists(state.broker_count()), _built(state.broker_count(), 0) {}

    /// Broker `broker`'s list: built at first use, compacted when walks
    /// have skipped many stale entries (asked at every try: the usual
    /// answer inline).
    ReplicaList& of(uint32_t broker) {
        ReplicaList& list = _lists[broker];
        if (_built[broker] && !list.needs_compaction()) return list;
        return build_or_compact(broker);
    }

private:
    ReplicaList& build_or_compact(uint32_t broker);
    const PlanningState& _state;
    Key _key;
    bool _positive_only;
    ListFor _use;
    std::optional<Resource> _kept_load;
    std::vector<ReplicaList> _lists;
    std::vector<uint8_t> _built;
};

/// A list key: the load replica `p` puts on broker `b` in one resource.
ReplicaLists::Key resource_key(Resource resource);
/// A list key: network in + out (how much a move disturbs the load goals).
ReplicaLists::Key network_key();

/// Is the list entry `p` of `broker` still on it and free to move? Lists
/// hold only replicas that were on the broker when built, and any action
/// that takes a replica off a broker touches its partition: so an entry
/// that is still movable is still there, and the O(RF) `holds` is not needed
/// on this hot path (PlanningState::valid checks it before anything applies).
inline bool still_movable(const PlanningState& state, [[maybe_unused]] uint32_t broker, uint32_t p) {
    return state.movable(p);
}

/// Visits entries of `list` (sorted descending) still movable off `broker`:
/// first values <= pivot, largest first; then values in (pivot, high],
/// smallest first. Stops when `visit` returns true (returns true) or after
/// `tries_max` visits. The move search: "the largest replica that fits the
/// ideal amount, else the smallest one that still helps".
template <class Visit>
bool visit_below_first(const PlanningState& state, uint32_t broker, ReplicaList& list, double pivot, double high,
                       uint32_t tries_max, Visit&& visit);

/// Visits entries still movable off `broker`: first values in [pivot, high],
/// smallest first; then values in [low, pivot), largest first. The cover
/// search: "the smallest replica that clears the excess, else the largest
/// one below it"; and a swap's partner search.
template <class Visit>
bool visit_above_first(const PlanningState& state, uint32_t broker, ReplicaList& list, double pivot, double low,
                       double high, uint32_t tries_max, Visit&& visit);

/// A walk's visitor, passed down without a copy or an allocation (as
/// C++26's std::function_ref): the walks below are not templates, run for
/// every step of the network goals, and their visitors capture more than a
/// std::function holds without allocating. Refers to `visit`, so it lives
/// no longer than the call it is passed to.
class EntryVisitor {
public:
    template <class Visit>
        requires(!std::is_same_v<std::remove_cvref_t<Visit>, EntryVisitor>)
    EntryVisitor(Visit&& visit)  // NOLINT: converts implicitly, as a function reference does
        : _visit(const_cast<void*>(static_cast<const void*>(&visit))),
          _call([](void* v, const ReplicaEntry& e) -> bool {
              return (*static_cast<std::remove_reference_t<Visit>*>(v))(e);
          }) {}
    bool operator()(const ReplicaEntry& e) const { return _call(_visit, e); }

private:
    void* _visit;
    bool (*_call)(void*, const ReplicaEntry&);
};

/// Candidates weighed for the bytes their copy carries (visit_fewest_bytes_first).
inline constexpr size_t bytes_choices = 32;

/// The move search's order, "the largest replica that fits the ideal
/// amount" (visit_below_first), with its head reordered: of the first
/// `bytes_choices` candidates at least a quarter as large as the first,
/// those that copy the fewest bytes (the partition's size) for the load
/// they move (the entry's value) go first; then the rest of the walk. Sizes
/// follow retention, not traffic: among replicas of about the same rate one
/// may hold ten times the bytes of another, and the load moves the same
/// either way. Entries must have values > 0 (a `positive_only` list).
bool visit_fewest_bytes_first(const PlanningState& state, uint32_t broker, ReplicaList& list, double pivot,
                              double high, EntryVisitor visit);

/// A list key: the load `p` puts on `b` in `resource` per byte its copy
/// carries (the partition's size; +1 so an empty partition is the cheapest,
/// not a division by zero). For visit_cheapest_copy_first.
ReplicaLists::Key load_per_byte_key(Resource resource);
/// The same for network in plus out (network_key per byte).
ReplicaLists::Key network_per_byte_key();

/// Entries looked at per cheapest-copy walk, moved or too large included.
inline constexpr uint32_t cheapest_scan_max = 512;

/// The cheapest-copy search: visits entries of `list` (keyed by
/// load_per_byte_key, so the most load per byte copied first; best built
/// keeping the load of `resource`, which the walk then reads from the
/// entries) still movable off `broker` whose load in `resource` is in
/// (0, value_max], each as {load, partition}. Sizes follow retention, not traffic: on one broker the
/// same load may cost ten times the bytes in one topic as in another, and
/// shedding it from the short-retention topics first copies a fraction of
/// what the best fit by size copies. Stops when `visit` returns true
/// (returns true), after replica_tries_max visits or cheapest_scan_max
/// entries.
bool visit_cheapest_copy_first(const PlanningState& state, uint32_t broker, ReplicaList& list,
                               Resource resource, double value_max, EntryVisitor visit);

/// Visits entries still movable off `broker` largest value first.
template <class Visit>
bool visit_descending(const PlanningState& state, uint32_t broker, ReplicaList& list, uint32_t tries_max,
                      Visit&& visit);

/// Visits entries still movable off `broker` smallest value first.
template <class Visit>
bool visit_ascending(const PlanningState& state, uint32_t broker, ReplicaList& list, uint32_t tries_max,
                     Visit&& visit);

/// The least load in each resource (replica_load_on `broker`) of the
/// entries visit_ascending with `tries_max` may visit; infinite when there
/// are none. For GoalContext::moves_refused before such a walk.
Load least_load_ascending(const PlanningState& state, uint32_t broker, ReplicaList& list, uint32_t tries_max);

/// Is `a` at least `b` in every resource?
inline bool at_least(const Load& a, const Load& b) {
    return a.bytes_in_per_s >= b.bytes_in_per_s && a.bytes_out_per_s >= b.bytes_out_per_s &&
           a.size_bytes >= b.size_bytes;
}
/// The least of each resource of `a` and `b`.
inline Load least_of(const Load& a, const Load& b) {
    return {std::min(a.bytes_in_per_s, b.bytes_in_per_s), std::min(a.bytes_out_per_s, b.bytes_out_per_s),
            std::min(a.size_bytes, b.size_bytes)};
}
/// The start of least_of over a set: infinite in every resource.
inline constexpr Load no_load_yet{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
                                  std::numeric_limits<double>::infinity()};

// ---------------------------------------------------------------- the walks' bodies
// Templates on the visitor: a walk runs for every step of every goal and
// calls its visitor per entry; a lambda passed straight in is called
// directly, not through a std::function built for each walk.

/// First index whose value is <= pivot (in the list's descending order).
inline size_t first_at_most(ReplicaList& list, double pivot) {
    return list.partition_point([pivot](const ReplicaEntry& e) { return e.value > pivot; });
}
/// First index whose value is < pivot.
inline size_t first_below(ReplicaList& list, double pivot) {
    return list.partition_point([pivot](const ReplicaEntry& e) { return e.value >= pivot; });
}

/// Visits entry `i` if it is still movable off `broker`; counts stale ones.
/// Returns true when `visit` accepted it.
template <class Visit>
bool visit_at(const PlanningState& state, uint32_t broker, ReplicaList& list, size_t i, uint32_t& tries,
              Visit& visit) {
    const ReplicaEntry& entry = list.at(i);
    if (!still_movable(state, broker, entry.partition)) {
        list.stale_skipped++;
        return false;
    }
    tries++;
    return visit(entry);
}

template <class Visit>
bool visit_below_first(const PlanningState& state, uint32_t broker, ReplicaList& list, double pivot, double high,
                       uint32_t tries_max, Visit&& visit) {
    uint32_t tries = 0;
    const size_t split = first_at_most(list, pivot);
    for (size_t i = split; i < list.entries.size() && tries < tries_max; i++) {
        if (visit_at(state, broker, list, i, tries, visit)) return true;
    }
    for (size_t i = split; i-- > 0 && tries < tries_max;) {
        if (list.at(i).value > high) break;
        if (visit_at(state, broker, list, i, tries, visit)) return true;
    }
    return false;
}

template <class Visit>
bool visit_above_first(const PlanningState& state, uint32_t broker, ReplicaList& list, double pivot, double low,
                       double high, uint32_t tries_max, Visit&& visit) {
    uint32_t tries = 0;
    const size_t split = first_below(list, pivot);
    for (size_t i = split; i-- > 0 && tries < tries_max;) {
        if (list.at(i).value > high) break;
        if (visit_at(state, broker, list, i, tries, visit)) return true;
    }
    for (size_t i = split; i < list.entries.size() && tries < tries_max; i++) {
        if (list.at(i).value < low) break;
        if (visit_at(state, broker, list, i, tries, visit)) return true;
    }
    return false;
}

template <class Visit>
bool visit_descending(const PlanningState& state, uint32_t broker, ReplicaList& list, uint32_t tries_max,
                      Visit&& visit) {
    uint32_t tries = 0;
    for (size_t i = 0; i < list.entries.size() && tries < tries_max; i++) {
        if (visit_at(state, broker, list, i, tries, visit)) return true;
    }
    return false;
}

/// visit_ascending's start: stale entries dropped from the bottom of the order.
void prepare_ascending(const PlanningState& state, uint32_t broker, ReplicaList& list);

template <class Visit>
bool visit_ascending(const PlanningState& state, uint32_t broker, ReplicaList& list, uint32_t tries_max,
                     Visit&& visit) {
    prepare_ascending(state, broker, list);
    uint32_t tries = 0;
    for (size_t i = list.entries.size(); i-- > 0 && tries < tries_max;) {
        const ReplicaEntry& entry = list.at_bottom(i);
        if (!still_movable(state, broker, entry.partition)) {
            list.stale_skipped++;
            continue;
        }
        tries++;
        if (visit(entry)) return true;
    }
    return false;
}


}  // namespace ballast::goals
