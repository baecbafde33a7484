#pragma once

/// Search helpers shared by the goals: the bounds every search obeys, each
/// broker's movable replicas sorted by a load (built lazily, once per goal
/// run), best-fit walks over such a list, partners found as a search
/// reaches them and the refusals it remembers of them, and the count
/// goals' band and accept rule. Private to goals/.
///
/// Why lazily: at 1,000,000 partitions a goal usually works on a few
/// brokers. Sorting only the lists it reads keeps a plan O(R) + O(r log r)
/// for the r replicas of the brokers it touches, instead of a full sort per
/// goal. Lists never gain entries: a replica that moves is `touched`, and
/// touched replicas are skipped (and now and then dropped); arrivals are
/// touched, so never candidates.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "goals/planning_state.h"

namespace ballast::goals {

class GoalContext;

/// Brokers tried per step and per rack as the other end of a move (best
/// placed first; if the 64 best-placed brokers of a rack cannot take a
/// replica, the next are no better placed). Per rack, because with
/// rack-aware RF > 1 a replica can usually move only within its own rack,
/// and the best-placed brokers overall may all stand in other racks.
inline constexpr uint32_t destinations_max = 64;
/// A partner for which the rack goal refuses this many candidates in a row
/// is given up for this step: it stands in the wrong rack for the other
/// side's replicas (rack-aware RF > 1). Other refusals are about the
/// replica, not the partner, and do not count.
inline constexpr uint32_t partner_refusals_max = 8;

/// Did the last try_apply fail because of the rack goal?
bool refused_by_rack(const GoalContext& context);

/// Brokers tried per step as the other end of a swap (each costs up to
/// swap_tries_max^2 checks).
inline constexpr uint32_t swap_destinations_max = 16;
/// Replicas of one broker tried per (source, destination) pair.
inline constexpr uint32_t replica_tries_max = 64;
/// Replicas tried on each side of a swap.
inline constexpr uint32_t swap_tries_max = 16;

/// The copies a count goal leaves to a later plan. Any replica evens a
/// count (a broker's replicas, a topic's replicas on it) as well as any
/// other; only the bytes copied differ. But a partition an action of this
/// plan touched is not touched again in it, and the load goals above copy
/// mostly the small, busy replicas: once they have moved some, the small
/// replicas are often touched, what is left to copy is several times
/// larger, and the counts the load goals leave are not final yet. The next
/// plan finds the small ones free again. So while an earlier goal has
/// copied a replica in this plan (a leadership change copies nothing), a
/// count goal copies no replica of more than deferred_copy_ratio x the mean
/// replica size (of the cluster for the replica count goal, of the topic
/// for the topic goal). In a plan where no goal before it copies, there is
/// no bound: once the load goals rest, large replicas move too.
inline constexpr double deferred_copy_ratio = 0.5;

/// The most bytes one copy of the goal running in `context` may carry in
/// this plan (deferred_copy_ratio), given the mean replica size that applies.
double copy_bytes_max(const GoalContext& context, double mean_replica_bytes);

/// Partners for one step: walks an index of eligible brokers from `begin`
/// to `end` (pairs of (value, broker index)), skips `self` and those `keep`
/// rejects, stops at the first entry `stop` says ends the walk, and keeps at
/// most destinations_max per rack. Bounded by the brokers. Found as a
/// search reaches them (`has`): the first one or two usually take the
/// action, and the rest of the index is never read. Holds while the state
/// does (an action reorders the index).
template <class Iterator, class Keep, class Stop>
class PartnerWalk {
public:
    PartnerWalk(const PlanningState& state, Iterator begin, Iterator end, uint32_t self, Keep keep, Stop stop)
        : _state(state), _at(begin), _end(end), _self(self), _keep(std::move(keep)), _stop(std::move(stop)),
          _per_rack(std::max<size_t>(1, state.model().racks.size()), 0) {}
    /// Is there an `i`-th partner? Walks as far as it takes to know.
    bool has(size_t i) {
        while (i >= _found.size() && _at != _end) advance();
        return i < _found.size();
    }
    /// The `i`-th partner; `has(i)` first.
    uint32_t operator[](size_t i) const {
        assert(i < _found.size());
        return _found[i];
    }
    /// Every partner: the walk run to its end.
    const std::vector<uint32_t>& all() {
        while (_at != _end) advance();
        return _found;
    }

private:
    void advance() {
        const uint32_t broker = _at->second;
        const auto value = _at->first;
        ++_at;
        if (broker == _self) return;
        if (_stop(value, broker)) {
            _at = _end;
            return;
        }
        if (!_keep(value, broker)) return;
        uint32_t& taken = _per_rack[_state.broker(broker).rack];
        if (taken >= destinations_max) return;
        taken++;
        _found.push_back(broker);
    }

    const PlanningState& _state;
    Iterator _at;
    Iterator _end;
    uint32_t _self;
    Keep _keep;
    Stop _stop;
    std::vector<uint32_t> _per_rack;
    std::vector<uint32_t> _found;
};

/// Every partner of a PartnerWalk at once.
template <class Iterator, class Keep, class Stop>
std::vector<uint32_t> collect_partners(const PlanningState& state, Iterator begin, Iterator end,
                                       uint32_t self, Keep keep, Stop stop) {
    PartnerWalk<Iterator, Keep, Stop> walk(state, begin, end, self, std::move(keep), std::move(stop));
    return walk.all();
}

/// Partners a search found refused by their own side, and at what
/// PlanningState::holder_epoch and least load: a destination refused by a
/// guard for any source (GoalContext::takes_refused) or a source for any
/// destination (GoalContext::gives_refused). Such a refusal holds while the
/// epoch does and for any larger least (Goal::refuses_taking), so a search
/// that walks the same partners step after step, most of them refused,
/// asks the guards about each once, not at every step.
class PartnerRefusals {
public:
    explicit PartnerRefusals(const PlanningState& state) : _state(state), _refused(state.broker_count()) {}
    bool refused(uint32_t b, const Load& least) const {
        const Entry& e = _refused[b];
        return e.epoch == _state.holder_epoch(b) && least.bytes_in_per_s >= e.least.bytes_in_per_s &&
               least.bytes_out_per_s >= e.least.bytes_out_per_s && least.size_bytes >= e.least.size_bytes;
    }
    void remember(uint32_t b, const Load& least) { _refused[b] = {_state.holder_epoch(b), least}; }

private:
    struct Entry {
        uint64_t epoch = UINT64_MAX;  // none: epochs count up from 0
        Load least;
    };
    const PlanningState& _state;
    std::vector<Entry> _refused;
};

/// Pairs a guard refuses outright (GoalContext::moves_refused), remembered
/// by the side that refuses: a source for any destination (gives_refused),
/// a destination for any source (takes_refused). A search over many pairs
/// asks the guards of each broker at the edge of a band once while it stands.
class PairRefusals {
public:
    explicit PairRefusals(const PlanningState& state) : _giving(state), _taking(state) {}
    /// context.moves_refused(s, d, least), answered from memory where it can.
    bool refused(const GoalContext& context, uint32_t s, uint32_t d, const Load& least);

private:
    PartnerRefusals _giving;
    PartnerRefusals _taking;
};

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
/// entries that moved since (and count them); once they are an eighth of the
/// list, the list is compacted, so a broker that sheds thousands of replicas
/// is not rescanned from the top each step.
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
        if (_built[broker] && list.stale_skipped <= 16 + list.entries.size() / 8) return list;
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

/// A band of counts (replicas, leaders, a topic's replicas) per broker:
/// the excess is the distance outside [lower, upper].
struct CountBand {
    double mean = 0;
    int64_t lower = 0;
    int64_t upper = 0;
    int64_t excess(int64_t count) const { return std::max<int64_t>(0, std::max(lower - count, count - upper)); }
    bool fine(int64_t count) const { return excess(count) == 0; }
};

/// A count band's ends: floor and ceil that forgive the last bits of the
/// product they round. A mean of 3,000 with a deviation of 0.1 is 3000 x 1.1
/// = 3300.0000000000005 in doubles, and the band's top is 3,300, not 3,301.
inline int64_t count_band_floor(double x) {
    return static_cast<int64_t>(std::floor(x + 1e-9 * std::max(1.0, std::abs(x))));
}
inline int64_t count_band_ceil(double x) {
    return static_cast<int64_t>(std::ceil(x - 1e-9 * std::max(1.0, std::abs(x))));
}

/// A count's band over the eligible brokers (the replica and leader count
/// goals): mean = total / brokers, [floor(mean x (1 - deviation)),
/// ceil(mean x (1 + deviation))].
CountBand count_band(int64_t total, uint32_t brokers, double deviation);

/// The count goals' accept rule: a touched broker in the band stays in it,
/// and the touched brokers' total excess does not grow. `count_of(b)` is a
/// broker's count now, `delta_of(change)` its change.
template <class CountOf, class DeltaOf>
bool count_accepts(const PlanningState& state, std::span<const BrokerChange> changes, const CountBand& band,
                   CountOf count_of, DeltaOf delta_of) {
    int64_t before_total = 0;
    int64_t after_total = 0;
    for (const BrokerChange& change : changes) {
        const uint32_t b = change.broker;
        const int32_t delta = delta_of(change);
        if (!state.broker(b).eligible || delta == 0) continue;
        const int64_t before = count_of(b);
        const int64_t after = before + delta;
        if (band.fine(before) && !band.fine(after)) return false;
        before_total += band.excess(before);
        after_total += band.excess(after);
    }
    return after_total <= before_total;
}

/// The count goals' exchanges (one heavy replica or leadership for several
/// light ones): replicas given tried per partner, and light ones taken for
/// one (bounds each try's work).
inline constexpr uint32_t exchange_tries_max = 16;
inline constexpr size_t exchange_light_max = 16;

/// One topic's band of replicas per eligible broker (TopicSpreadGoal):
/// [floor(mean x (1 - deviation)), max(ceil(mean x (1 + deviation)),
/// ceil(mean) + 1)] for mean = its replicas on eligible brokers / brokers.
CountBand topic_band(const PlanningState& state, uint32_t t);

/// Does moving a replica of `p` from `s` to `d` keep its topic's spread
/// (the two brokers' excess over the topic band does not grow)? True when
/// topics are not tracked (no topic spread goal).
bool keeps_topic_spread(const PlanningState& state, uint32_t p, uint32_t s, uint32_t d);

/// keeps_topic_spread for one replica and many destinations: the topic's
/// band and the source's count are looked up once, each destination's
/// count once (a search walks dozens of partners per replica).
class TopicSpreadOfMove {
public:
    TopicSpreadOfMove(const PlanningState& state, uint32_t p, uint32_t s);
    bool keeps(uint32_t d) const;

private:
    const PlanningState& _state;
    uint32_t _topic = 0;
    CountBand _band;
    int64_t _from_count = 0;
};

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
