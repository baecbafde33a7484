/// TopicSpreadGoal (soft): each topic's replicas even across the eligible
/// brokers. For topic t: mean = its replicas on eligible brokers / brokers,
/// band = [floor(mean x (1 - deviation)), max(ceil(mean x (1 + deviation)),
/// ceil(mean) + 1)], judged per (topic, broker); excluded topics are not judged.
///
/// Accepting: for each topic an action changes, a touched broker in the band
/// stays in it and the touched brokers' total excess does not grow.
///
/// Optimize, topic by topic: brokers above the band (fullest first) move
/// the smallest replica of the topic that any broker with room for it may
/// take (the guards above refuse a small one on one broker and take it on
/// another), brokers below the topic's band tried first (the move mends both
/// ends), then those with the fewest replicas overall; then brokers below the
/// band (often: holding none) take one from the fullest holder.
/// While an earlier goal has copied replicas in this plan, no copy carries
/// more than half the topic's mean replica size (copy_bytes_max says why);
/// the early part, which takes load the goals above must shed anyway, has
/// no such bound.
/// A move of a partition's leader that the leader count goal refuses is
/// tried again with a leadership handed back (move_keeping_leaders).
/// Brokers that spent their per-broker budget
/// (PlannerConfig::broker_actions_max) are skipped on both sides.

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <vector>

#include "goals/goal.h"
#include "goals/goal_search.h"
#include "goals/network_distribution.h"

namespace ballast::goals {
namespace {

/// Partitions of the destination move_keeping_leaders looks through for a
/// leadership to hand back, and the groups it tries.
constexpr uint32_t lead_back_scanned_max = 64;
constexpr uint32_t lead_back_tries_max = 4;

/// `move` (of a replica from `s` to `d`) carries its leadership, and the leader
/// count goal (above this one) refused it: `s` would drop below its band or
/// `d` rise above it. A topic whose replicas are all leaders (replication
/// factor 1) on a broker at the bottom of the leader band could then never
/// spread, however uneven: the leader goal, satisfied, moves nothing, and
/// Kafka leaves a restarted broker few leaderships of the partitions it
/// follows. So the move is tried again together with a leader change that
/// hands `s` the leadership of a partition `d` leads and `s` follows in
/// sync: as one group, judged by its net change (neither broker's leader
/// count changes). Bounded: the first lead_back_scanned_max partitions of
/// `d`, at most lead_back_tries_max groups.
bool move_keeping_leaders(GoalContext& context, const Candidate& move) {
    PlanningState& state = context.state();
    const uint32_t p = move.partition;
    const uint32_t s = move.source;
    const uint32_t d = move.destination;
    const Goal* refusal = context.last_refusal();
    if (refusal == nullptr || refusal->kind() != GoalKind::leader_count_distribution) return false;
    if (state.leader(p) != static_cast<int32_t>(s)) return false;
    uint32_t scanned = 0;
    uint32_t tried = 0;
    for (uint32_t q : state.model_partitions_of(d)) {
        if (++scanned > lead_back_scanned_max || tried >= lead_back_tries_max) break;
        if (q == p || state.leader(q) != static_cast<int32_t>(d) || !state.holds(s, q)) continue;
        const Candidate lead_back = state.leader_change(q, d, s);
        if (!state.valid(lead_back, false)) continue;
        tried++;
        const Candidate group[] = {lead_back, move};
        if (context.try_apply_group(group)) return true;
    }
    return false;
}

class TopicSpreadGoal final : public Goal {
public:
    TopicSpreadGoal() : Goal(GoalKind::topic_spread) {}

    static CountBand band(const PlanningState& state, uint32_t t) { return topic_band(state, t); }

    static bool judged_topic(const PlanningState& state, uint32_t t) {
        const auto [begin, end] = state.topic_partitions(t);
        return begin < end && !state.excluded(begin);  // exclusion is per topic
    }

    static bool topic_satisfied(const PlanningState& state, uint32_t t) {
        const CountBand b = band(state, t);
        uint32_t holders = 0;
        for (const TopicBrokerCount& entry : state.topic_counts(t)) {
            if (!state.broker(entry.broker).eligible) continue;
            holders++;
            if (!b.fine(entry.count)) return false;
        }
        // Eligible brokers holding none of it count zero.
        return holders == state.eligible_count() || b.fine(0);
    }

    bool satisfied(const PlanningState& state) const override {
        for (uint32_t t = 0; t < state.topic_count(); t++) {
            if (judged_topic(state, t) && !topic_satisfied(state, t)) return false;
        }
        return true;
    }

    bool accepts_net_changes(const PlanningState&, std::span<const BrokerChange>) const override {
        return true;  // totals say nothing of topics: each move is judged by accepts
    }
    bool judges_placement() const override { return true; }

    bool refuses_move(const PlanningState& state, uint32_t p, uint32_t s, uint32_t d) const override {
        return !topic_accepts(state, state.partition(p).topic, s, d);
    }

    bool accepts(const PlanningState& state, const Candidate& c) const override {
        if (c.kind == ActionKind::leader) return true;
        const uint32_t t = state.partition(c.partition).topic;
        if (c.kind == ActionKind::swap) {
            const uint32_t other = state.partition(c.swap_partition).topic;
            if (other == t) return true;  // both brokers keep their counts of it
            if (!topic_accepts(state, other, c.destination, c.source)) return false;
        }
        return topic_accepts(state, t, c.source, c.destination);
    }

    void optimize(GoalContext& context) const override {
        // Larger copies wait while an earlier goal has copied (copy_bytes_max);
        // 1 stands for the topic's mean replica size, scaled per topic.
        run(context, copy_bytes_max(context, 1.0), [](uint32_t) { return true; });
    }

    /// Before the load goals: only replicas off brokers whose network in is
    /// above the in goal's target. Those must shed load anyway, and a
    /// replica of a topic crowded on them, sent to a broker with room for
    /// the topic, is one copy that serves both goals; left to the end, the
    /// load goals first copy other replicas off them, and this goal then
    /// copies the crowded ones as well. Guarded as optimize() is, so every
    /// such move is one the load goals accept.
    void optimize_early(GoalContext& context) const override {
        PlanningState& state = context.state();
        if (!has_goal(state.config(), GoalKind::network_in_usage_distribution)) return;
        const NetworkDistributionGoal in(GoalKind::network_in_usage_distribution);
        const Band target = in.judging_band(state);
        if (target.quiet) return;
        // None above it: none may give, and the guards keep it so (the in
        // goal refuses taking a broker inside its target out of it).
        const PlanningState::LoadOrder& by_in = state.order_by(Resource::network_in);
        if (by_in.empty() || by_in.rbegin()->first <= target.upper) return;
        run(context, std::numeric_limits<double>::infinity(),
            [&](uint32_t b) { return in.load(state, b) > target.upper; });
    }

private:
    /// One replica of topic `t` leaves `from` for `to`.
    static bool topic_accepts(const PlanningState& state, uint32_t t, uint32_t from, uint32_t to) {
        if (!judged_topic(state, t)) return true;
        const CountBand b = band(state, t);
        int64_t before_total = 0;
        int64_t after_total = 0;
        const uint32_t brokers[2] = {from, to};
        const int32_t deltas[2] = {-1, +1};
        for (int side = 0; side < 2; side++) {
            if (!state.broker(brokers[side]).eligible) continue;
            const int64_t before = state.topic_count_on(t, brokers[side]);
            const int64_t after = before + deltas[side];
            if (b.fine(before) && !b.fine(after)) return false;
            before_total += b.excess(before);
            after_total += b.excess(after);
        }
        return after_total <= before_total;
    }

    /// Spreads each topic outside its band, moving replicas only off
    /// brokers that `gives` lets give (asked as each one's turn comes), and
    /// copying none of more than `copy_ratio` x the topic's mean replica size.
    template <class Gives>
    void run(GoalContext& context, double copy_ratio, Gives gives) const {
        PlanningState& state = context.state();
        if (state.eligible_count() < 2) return;
        Scratch scratch(state.broker_count());
        // Across the topics, the same brokers at their bands' edges are
        // refused again and again: remembered by the side that refuses.
        PairRefusals refusals(state);
        for (uint32_t t = 0; t < state.topic_count(); t++) {
            if (!context.budget_left()) return;
            if (!judged_topic(state, t) || topic_satisfied(state, t)) continue;
            spread(context, t, scratch, refusals, copy_ratio, gives);
        }
    }

    /// The candidates a move from one broker tries, in order (the first
    /// replica_tries_max of the topic's replicas there still movable), and
    /// their least load: the same for every partner until a move applies.
    struct Candidates {
        uint64_t generation = UINT64_MAX;  // as of Scratch::generation
        std::vector<uint32_t> partitions;
        Load least = no_load_yet;
    };
    /// spread()'s, reused from topic to topic: topic t's replicas per broker
    /// while it runs, and each broker's candidates, kept while the state
    /// stands (the fill side asks the same few holders again and again).
    struct Scratch {
        explicit Scratch(uint32_t brokers) : candidates(brokers) {}
        std::vector<int32_t> counts;
        std::vector<Candidates> candidates;
        uint64_t generation = 0;  // a new topic or an applied move forgets every broker's
    };

    /// `scratch`: the run's (Scratch), reset for topic t.
    /// `refusals`: the run's, kept from topic to topic.
    /// `copy_ratio`: the most bytes a copy may carry, over the topic's mean
    /// replica size (copy_bytes_max).
    template <class Gives>
    void spread(GoalContext& context, uint32_t t, Scratch& scratch, PairRefusals& refusals, double copy_ratio,
                Gives gives) const {
        PlanningState& state = context.state();
        const CountBand b = band(state, t);
        std::vector<int32_t>& counts = scratch.counts;
        scratch.generation++;
        // Topic t's replicas per broker, dense: the walks below ask for every
        // broker each round, and topic_count_on is a binary search. Only the
        // moves of t below change them, and move_one keeps them current.
        counts.assign(state.broker_count(), 0);
        for (const TopicBrokerCount& entry : state.topic_counts(t)) counts[entry.broker] = entry.count;
        // This topic's movable, copyable replicas on eligible brokers, by broker, fewest
        // bytes first: one pass over the topic's partitions. Only counts matter to this
        // goal, so the cheapest copy is the best move; the load goals above it refuse
        // the ones that would unbalance them.
        struct Replica {
            double size_bytes;
            uint32_t partition;
            bool operator<(const Replica& o) const {
                if (size_bytes != o.size_bytes) return size_bytes < o.size_bytes;
                return partition < o.partition;
            }
        };
        // Built at the first move tried: a topic whose brokers have all spent
        // their per-broker budget costs no pass over its partitions. Grouped
        // by broker in one counting pass; a broker's group is sorted when a
        // move from it is first tried (most of them never are).
        std::vector<Replica> replicas;
        std::vector<uint32_t> group_begin;  // broker b: replicas [group_begin[b], group_begin[b + 1])
        std::vector<uint8_t> group_sorted;
        bool built = false;
        double copy_max = copy_ratio;  // infinite, or scaled below
        if (std::isfinite(copy_ratio)) {
            const auto [begin, end] = state.topic_partitions(t);
            double bytes = 0;
            for (uint32_t p = begin; p < end; p++) bytes += state.partition(p).load.size_bytes;
            copy_max = copy_ratio * bytes / std::max<uint32_t>(1, end - begin);
        }
        auto replicas_on = [&](uint32_t broker) {
            if (!built) {
                built = true;
                group_begin.assign(state.broker_count() + 1, 0);
                const auto [begin, end] = state.topic_partitions(t);
                auto each_replica = [&](auto&& take) {
                    for (uint32_t p = begin; p < end; p++) {
                        if (!state.movable(p) || !state.copyable(p)) continue;
                        for (uint32_t holder : state.replicas(p)) {
                            if (state.broker(holder).eligible) take(holder, p);
                        }
                    }
                };
                each_replica([&](uint32_t holder, uint32_t) { group_begin[holder + 1]++; });
                for (uint32_t x = 0; x < state.broker_count(); x++) group_begin[x + 1] += group_begin[x];
                replicas.resize(group_begin.back());
                std::vector<uint32_t> next(group_begin.begin(), group_begin.end() - 1);
                each_replica([&](uint32_t holder, uint32_t p) {
                    replicas[next[holder]++] = {state.partition(p).load.size_bytes, p};
                });
                group_sorted.assign(state.broker_count(), 0);
            }
            const auto first = replicas.begin() + group_begin[broker];
            const auto last = replicas.begin() + group_begin[broker + 1];
            if (!group_sorted[broker]) {
                group_sorted[broker] = 1;
                std::sort(first, last);
            }
            return std::pair(first, last);
        };
        // What a move from `from` tries (Candidates), found once while the state stands.
        auto candidates_of = [&](uint32_t from) -> const Candidates& {
            Candidates& c = scratch.candidates[from];
            if (c.generation == scratch.generation) return c;
            c.generation = scratch.generation;
            c.partitions.clear();
            c.least = no_load_yet;
            auto [first, last] = replicas_on(from);
            for (auto it = first; it != last && c.partitions.size() < replica_tries_max; ++it) {
                if (!still_movable(state, from, it->partition)) continue;
                if (it->size_bytes > copy_max) break;  // and all after it: fewest bytes first
                c.partitions.push_back(it->partition);
                c.least = least_of(c.least, state.replica_load_on(it->partition, from));
            }
            return c;
        };
        // Applies the move of `p` if the guards accept it (or accept it
        // with a leadership handed back, move_keeping_leaders), keeping the
        // counts current.
        auto try_move = [&](uint32_t p, uint32_t from, uint32_t to) {
            const Candidate move = state.move(p, from, to, false);
            if (!context.try_apply(move) && !move_keeping_leaders(context, move)) return false;
            counts[from]--;
            counts[to]++;
            assert(counts[from] == state.topic_count_on(t, from) && counts[to] == state.topic_count_on(t, to));
            scratch.generation++;
            return true;
        };
        // Moves `from` -> `to`, trying the topic's replicas on `from` in order.
        auto move_one = [&](uint32_t from, uint32_t to) {
            const Candidates& candidates = candidates_of(from);
            const std::vector<uint32_t>& tried = candidates.partitions;
            // Only a candidate tried can be applied: none when a placement
            // guard refuses each (with as many racks as replicas, a replica
            // moves only within its rack), or a guard refuses every move of
            // at least their least load (which a refusal of any move
            // implies). Cheaper than the tries; the refusal first, as the
            // pair is often remembered refused and the placements are asked
            // one candidate at a time.
            if (refusals.refused(context, from, to, candidates.least)) return false;
            const bool placeable = std::any_of(tried.begin(), tried.end(), [&](uint32_t p) {
                return !context.move_refused(p, from, to);
            });
            if (!placeable) return false;
            uint32_t refusals = 0;
            for (uint32_t p : tried) {
                if (try_move(p, from, to)) return true;
                if (refused_by_rack(context) && ++refusals >= partner_refusals_max) return false;
            }
            return false;
        };

        // Moves `from` -> one of `partners`: the first candidate (smallest
        // first) that some partner, in order, may take. Candidate by
        // candidate rather than partner by partner: the first partner often
        // refuses the small ones (its load at the top of a target) that a
        // later one takes, and only the bytes copied differ.
        // A partner a guard refuses outright is asked once, when first
        // reached: the first candidate usually goes to one of the first
        // partners, and a refused try changes nothing to ask again.
        std::vector<uint32_t> open;  // the partners reached and not refused outright, in order
        auto move_smallest = [&](uint32_t from, auto&& next_partner) {
            const Candidates& candidates = candidates_of(from);
            const std::vector<uint32_t>& tried = candidates.partitions;
            const Load& tried_least = candidates.least;
            if (context.gives_refused(from, tried_least)) return false;  // refused by every partner
            open.clear();
            for (size_t k = 0; k < tried.size(); k++) {
                if (k > 0 && open.empty()) return false;  // no partner left for the rest
                const uint32_t p = tried[k];
                const GoalContext::Placement placement = context.placement_of(p, from);  // cheaper than the try
                if (k == 0) {
                    // The first candidate reaches every partner, as they
                    // come (or moves); the others only those left open.
                    for (uint32_t d = next_partner(); d != no_broker; d = next_partner()) {
                        if (refusals.refused(context, from, d, tried_least)) continue;
                        open.push_back(d);
                        if (placement.refuses(d)) continue;
                        if (try_move(p, from, d)) return true;
                    }
                    continue;
                }
                for (uint32_t d : open) {
                    if (placement.refuses(d)) continue;
                    if (try_move(p, from, d)) return true;
                }
            }
            return false;
        };

        // Shed: fullest holders above the band.
        std::vector<uint32_t> per_rack(std::max<size_t>(1, state.model().racks.size()), 0);
        std::vector<std::pair<int32_t, uint32_t>> full;
        for (const TopicBrokerCount& entry : state.topic_counts(t)) {
            if (state.broker(entry.broker).eligible && entry.count > b.upper) {
                full.emplace_back(-entry.count, entry.broker);
            }
        }
        std::sort(full.begin(), full.end());
        for (const auto& [unused, s] : full) {
            if (!gives(s)) continue;
            // Each round moves one replica of the topic off `s` or stops.
            const int64_t rounds_max = counts[s];
            for (int64_t round = 0; round < rounds_max; round++) {
                if (!context.budget_left()) return;
                if (!context.broker_budget_left(s)) break;  // the rest next plan
                const int64_t count = counts[s];
                if (count <= b.upper) break;
                // Room for the topic: below its band first, then fewest
                // replicas overall (those collect_partners would keep, in
                // its order, up to destinations_max a rack), one at a time:
                // the first few usually take the replica, and the state
                // stands still until one does.
                const PlanningState::CountOrder& order = state.order_by_replicas();
                // 0: below the band (none when its floor is zero), 1: the rest.
                int pass = b.lower > 0 ? 0 : 1;
                size_t at = 0;
                per_rack.assign(per_rack.size(), 0);
                auto next_partner = [&]() -> uint32_t {
                    for (; pass < 2; pass++, at = 0, per_rack.assign(per_rack.size(), 0)) {
                        while (at < order.size()) {
                            const uint32_t d = (order.begin() + static_cast<std::ptrdiff_t>(at++))->second;
                            if (d == s || !context.broker_budget_left(d)) continue;
                            const int64_t theirs = counts[d];
                            if (!(theirs + 1 <= b.upper && theirs + 1 < count)) continue;
                            if (per_rack[state.broker(d).rack]++ >= destinations_max) continue;
                            if ((theirs < b.lower) == (pass == 0)) return d;
                        }
                    }
                    return no_broker;
                };
                if (!move_smallest(s, next_partner)) break;
            }
        }

        // Fill: eligible brokers below the band, emptiest (of the topic) first.
        if (b.lower <= 0) return;
        std::vector<std::pair<int32_t, uint32_t>> short_of;
        for (const auto& [replica_count, d] : state.order_by_replicas()) {
            const int32_t count = counts[d];
            if (count < b.lower) short_of.emplace_back(count, d);
        }
        std::stable_sort(short_of.begin(), short_of.end(),
                         [](const auto& x, const auto& y) { return x.first < y.first; });
        // Holders that may give one, the most of the topic first: the same
        // for every broker short of it while no move applies (a topic no
        // move mends asks them for each), so listed once and then filtered
        // by what the broker short holds.
        std::vector<std::pair<int32_t, uint32_t>> givers;
        uint64_t givers_generation = UINT64_MAX;  // as of Scratch::generation
        for (const auto& [unused, d] : short_of) {
            for (int64_t round = 0; round < b.lower; round++) {
                if (!context.budget_left()) return;
                if (counts[d] >= b.lower) break;
                if (!context.broker_budget_left(d)) break;  // the rest next plan
                if (givers_generation != scratch.generation) {
                    givers_generation = scratch.generation;
                    givers.clear();
                    for (const TopicBrokerCount& entry : state.topic_counts(t)) {
                        if (!state.broker(entry.broker).eligible) continue;
                        if (!context.broker_budget_left(entry.broker) || !gives(entry.broker)) continue;
                        if (entry.count - 1 < b.lower) continue;
                        givers.emplace_back(-entry.count, entry.broker);
                    }
                    std::sort(givers.begin(), givers.end());
                }
                // The first destinations_max that would still hold more than `d`.
                const int64_t mine = counts[d];
                bool moved = false;
                uint32_t asked = 0;
                for (const auto& [negative_count, s] : givers) {
                    if (asked >= destinations_max) break;
                    if (s == d || -negative_count - 1 <= mine) continue;
                    asked++;
                    if (move_one(s, d)) {
                        moved = true;
                        break;
                    }
                }
                if (!moved) break;
            }
        }
    }
};

}  // namespace

std::unique_ptr<Goal> make_topic_spread_goal() { return std::make_unique<TopicSpreadGoal>(); }

}  // namespace ballast::goals
