#pragma once

/// Search helpers shared by the goals: the bounds every search obeys,
/// partners found as a search reaches them and the refusals it remembers
/// of them, and the count goals' band and accept rule; the replica lists
/// and their walks are in replica_lists.h. Private to goals/.

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
#include "goals/replica_lists.h"

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
/// guard for any source (Goal::refuses_taking) or a source for any
/// destination (Goal::refuses_giving). Such a refusal holds while the
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
/// by the side that refuses as the guard that refused judges it: a source
/// for any destination (Goal::refuses_giving), a destination for any source
/// (Goal::refuses_taking). A search over many pairs asks the guards of each
/// broker at the edge of a band once while it stands.
class PairRefusals {
public:
    explicit PairRefusals(const PlanningState& state) : _giving(state), _taking(state) {}
    /// context.moves_refused(s, d, least), answered from memory where it can.
    bool refused(const GoalContext& context, uint32_t s, uint32_t d, const Load& least);

private:
    PartnerRefusals _giving;
    PartnerRefusals _taking;
};

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

/// count_band, kept while what it is made of stands: the count goals ask
/// for it for every candidate they judge, a band rounds with a floor and a
/// ceiling (two calls into the math library), and its figures stand for a
/// whole plan but for evacuations.
class KeptCountBand {
public:
    CountBand of(int64_t total, uint32_t brokers, double deviation) const {
        if (total != _total || brokers != _brokers || deviation != _deviation) {
            _band = count_band(total, brokers, deviation);
            _total = total;
            _brokers = brokers;
            _deviation = deviation;
        }
        return _band;
    }

private:
    mutable CountBand _band;
    mutable int64_t _total = -1;  // none yet: totals are >= 0
    mutable uint32_t _brokers = 0;
    mutable double _deviation = 0;
};

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

}  // namespace ballast::goals
