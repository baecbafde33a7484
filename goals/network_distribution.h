#pragma once

/// The network distribution goals' class, private to goals/: the goals and
/// their band and moves are in goal_network_distribution.cc (which says how
/// they work), leadership changes and chains in goal_network_leadership.cc.

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <vector>

#include "goals/goal.h"
#include "goals/goal_search.h"

namespace ballast::goals {

/// The fraction of the band a fix aims for and no action may take a broker
/// back out of once inside (goal_network_distribution.cc): the goal acts
/// outside mean x (1 ± 0.1) and aims for mean x (1 ± 0.07). Deeper than
/// Cruise Control's 0.9: the loads move along with the disk and count
/// evening the plan does anyway, so aiming deeper copied about as many bytes
/// on the bench/peers models, left network as even as Cruise Control's
/// answers or more on each, and widens the hysteresis on a live cluster.
inline constexpr double balance_margin = 0.7;
/// Partitions tried per end of a leadership chain (chain_leadership): up to
/// 8 x (RF - 1) middles x 8 x (RF - 1) candidate chains per step, each
/// judged on three brokers' loads before one is built and the guards are
/// asked. A failed search runs before every move of this goal, so it must
/// stay cheap: on a 1M-partition RF3 cluster, 16 per end took 22% more plan
/// time than 8 for about the same plan.
inline constexpr uint32_t chain_tries_max = 8;
/// Followers of one partition a chain may end on (RF <= 9 sees them all).
inline constexpr size_t followers_max = 8;
/// How much heavier in disk than in load (each over its mean) a broker may
/// be and still shed its cheapest copies (disk_allows_cheapest). Shedding
/// only short-retention data keeps the long-retention data, so the disk
/// share grows as the load share falls; at 1 a broker turns to best fit
/// (replicas of every retention) as soon as its disk is the heavier, and
/// disk ends more even than Cruise Control leaves it. Looser copies fewer
/// bytes and leaves disk less even (bench/README.md measures the trade).
inline constexpr double disk_share_allowance = 1.0;
/// A disk share (usage over the mean) at or below which a broker sheds its
/// cheapest copies whatever its load share: disk within 20% of the mean is
/// even enough, and paying bytes to even it further is what made plans
/// copy more than Cruise Control's (bench/README.md).
inline constexpr double disk_share_even = 1.2;

struct Band {
    double mean = 0;
    double lower = 0;
    double upper = 0;
    double threshold = 0;
    bool quiet = false;  // mean below the detect threshold
    double tolerance = 0;
    /// Replicas per eligible broker (set by optimize: moves among eligible
    /// brokers keep it), for choosing replicas that even out counts too.
    double replicas_mean = 0;
    double leaders_mean = 0;  // the same for leadership (leader changes keep it too)
    /// The replica count goal's floor when that goal runs, else -1. A
    /// broker at or below it sheds no cheapest copies (cheapest_copy):
    /// those are the small replicas, many to a load, and each takes its
    /// count further below the band, which the count goal then fills back
    /// at a copy each (of replicas light in load, not in bytes, so disk
    /// grows uneven too). Best fit moves the load in fewer, larger replicas.
    int64_t replicas_floor = -1;

    double excess(double load) const {
        if (quiet) return std::max(0.0, load - std::max(upper, threshold));
        // Two std::max, not one over a list: the same value, without the
        // out-of-line max_element a list costs in this hottest of checks.
        return std::max(0.0, std::max(lower - load, load - upper));
    }
    bool fine(double load) const { return excess(load) <= 0; }
};

/// The lists one run of the goal searches, each built per broker at first use.
struct Lists {
    ReplicaLists followers;  // replicas the broker follows, by this load (empty for out); copyable only
    ReplicaLists leaders;    // replicas it leads, by this load; copyable only
    ReplicaLists all;        // every copyable replica, by this load (swaps)
    ReplicaLists led;        // out: partitions it leads with RF > 1, by what a leader change shifts
    ReplicaLists followed;   // out: partitions it follows with RF > 1, by what leading them would add
    ReplicaLists cheapest;   // every copyable replica, by load per byte copied (cheapest_copy)
};

/// Out traffic that moves with leadership: consumers' reads plus one copy
/// of the produce traffic per follower.
inline double leader_shift(const PlanningState& state, uint32_t p) {
    const Partition& partition = state.partition(p);
    return replica_load(partition, true).bytes_out_per_s - replica_load(partition, false).bytes_out_per_s;
}

class NetworkDistributionGoal final : public Goal {
public:
    explicit NetworkDistributionGoal(GoalKind kind)
        : Goal(kind),
          _resource(kind == GoalKind::network_in_usage_distribution ? Resource::network_in
                                                                    : Resource::network_out) {}

    /// The band (margin 1) or the target a fix aims for (balance_margin).
    Band band(const PlanningState& state, double margin = 1) const {
        const PlannerConfig& config = state.config();
        const bool in = _resource == Resource::network_in;
        const double deviation = in ? config.network_in_avg_deviation : config.network_out_avg_deviation;
        Band band;
        band.threshold = in ? config.network_in_detect_threshold_bytes_per_s
                            : config.network_out_detect_threshold_bytes_per_s;
        const double divisor_total = state.eligible_usage_divisor(_resource);
        bool quiet = true;
        if (state.eligible_count() > 0 && divisor_total > 0) {
            band.mean = state.eligible_total(_resource) / divisor_total;
            quiet = state.eligible_total(_resource) / state.eligible_count() < band.threshold;
            // The threshold in usage: over the mean broker's divisor.
            band.threshold *= static_cast<double>(state.eligible_count()) / divisor_total;
        }
        band.lower = std::max(0.0, band.mean * (1 - margin * deviation));
        band.upper = band.mean * (1 + margin * deviation);
        band.quiet = quiet;
        // Running sums drift by rounding; comparisons allow this much.
        band.tolerance = 1e-9 * (band.mean + 1);
        return band;
    }

    double load(const PlanningState& state, uint32_t b) const { return state.usage(_resource, b); }

    /// What `change` changes its broker's usage by.
    double delta(const PlanningState& state, const BrokerChange& change) const {
        return load_of(change.load_delta, _resource) / state.usage_divisor(_resource, change.broker);
    }

    /// Bytes/s from `s` to `d` that bring the nearer of the two to the mean.
    double ideal_amount(const PlanningState& state, const Band& b, uint32_t s, uint32_t d) const {
        return std::min((load(state, s) - b.mean) * state.usage_divisor(_resource, s),
                        (b.mean - load(state, d)) * state.usage_divisor(_resource, d));
    }

    /// The size of replica (bytes/s) whose moves from `s` to `d` even out
    /// their replica counts along with their loads: `s`'s excess load over
    /// its excess replicas, `d`'s missing load over its missing replicas,
    /// the smaller (a side with no count to give or take sets no bound).
    /// The largest replica that fits the ideal amount moves the load in the
    /// fewest moves, but leaves a heavy broker with many light replicas and
    /// a light one with few heavy ones, which the count goals then undo
    /// with more moves (and bytes) than the load took.
    /// Only a count outside the replica count goal's band sets a bound:
    /// within it, fewer moves of larger replicas cost nothing later.
    /// Slightly above the ratio, so that replicas of just that size fit
    /// whatever the rounding of the running sums.
    double per_replica(const PlanningState& state, const Band& b, uint32_t s, uint32_t d) const {
        double per = std::numeric_limits<double>::infinity();
        const double deviation = state.config().replica_count_avg_deviation;
        const double give = state.broker(s).replica_count - b.replicas_mean;
        const double take = b.replicas_mean - state.broker(d).replica_count;
        // The count goal's band: [floor(mean x (1 - d)), ceil(mean x (1 + d))].
        if (give >= 1 && state.broker(s).replica_count > count_band_ceil(b.replicas_mean * (1 + deviation))) {
            per = std::min(per, (load(state, s) - b.mean) * state.usage_divisor(_resource, s) / give);
        }
        if (take >= 1 && state.broker(d).replica_count < count_band_floor(b.replicas_mean * (1 - deviation))) {
            per = std::min(per, (b.mean - load(state, d)) * state.usage_divisor(_resource, d) / take);
        }
        return per * (1 + 1e-9);
    }

    /// The same for leadership: a broker outside the leader count band hands
    /// over (shedding) or takes (filling) leaderships of about its excess
    /// out per excess leadership, so leader counts even out with the load.
    double per_leadership(const PlanningState& state, const Band& b, uint32_t broker, double amount,
                          bool shedding) const {
        const double deviation = state.config().leader_count_avg_deviation;
        const int32_t leaders = state.broker(broker).leader_count;
        const double excess = shedding ? leaders - b.leaders_mean : b.leaders_mean - leaders;
        const bool outside = shedding ? leaders > count_band_ceil(b.leaders_mean * (1 + deviation))
                                      : leaders < count_band_floor(b.leaders_mean * (1 - deviation));
        if (excess < 1 || !outside) return amount;
        return std::min(amount, amount / excess * (1 + 1e-9));
    }

    /// The most bytes/s from `s` to `d` that still narrow the difference of
    /// their usages (more would leave them as far apart the other way).
    double narrowing_limit(const PlanningState& state, uint32_t s, uint32_t d) const {
        return 2 * (load(state, s) - load(state, d)) /
               (1 / state.usage_divisor(_resource, s) + 1 / state.usage_divisor(_resource, d));
    }

    /// Largest |load - mean| over eligible brokers, from the ordered index.
    double deviation_max(const PlanningState& state, const Band& band) const {
        const PlanningState::LoadOrder& order = state.order_by(_resource);
        if (order.empty()) return 0;
        return std::max(order.rbegin()->first - band.mean, band.mean - order.begin()->first);
    }

    bool satisfied(const PlanningState& state) const override {
        const Band b = band(state);
        const PlanningState::LoadOrder& order = state.order_by(_resource);
        if (order.empty()) return true;
        return b.fine(order.begin()->first) && b.fine(order.rbegin()->first);
    }

    bool accepts(const PlanningState& state, const Candidate& c) const override {
        return accepts_changes(state, changes_of(c));
    }

    bool accepts_net_changes(const PlanningState& state, std::span<const BrokerChange> net) const override {
        return accepts_changes(state, net);
    }

    /// Judged against the target (balance_margin), not the band: the goal
    /// acts only once a broker is outside the band, but no action of any
    /// goal may take a broker inside the target back out of it, so a plan
    /// ends inside the target, not at the band's edge, and a live cluster's
    /// small drifts do not trigger a fix at once (hysteresis, as Cruise
    /// Control's balance margin).
    bool accepts_changes(const PlanningState& state, std::span<const BrokerChange> changes) const {
        const Band b = judging_band(state);
        const double deviation_limit = deviation_max(state, b) + b.tolerance;
        double excess_before = 0;
        double excess_after = 0;
        for (const BrokerChange& change : changes) {
            const uint32_t broker = change.broker;
            if (!state.broker(broker).eligible) continue;  // outside the distribution
            const double before = load(state, broker);
            const double after = before + delta(state, change);
            if (!broker_keeps(b, before, after, deviation_limit)) return false;
            excess_before += b.excess(before);
            excess_after += b.excess(after);
        }
        return excess_after <= excess_before + b.tolerance;
    }

    /// The band accepts_changes judges by; refuses_every_move must judge by
    /// the same, or it would skip moves the goal accepts.
    /// Asked for every candidate judged: kept while the eligible totals it
    /// is made of stand (PlanningState::totals_version; the config is the
    /// state's), and the same value as band() gives.
    Band judging_band(const PlanningState& state) const {
        if (state.totals_version() != _judging_version) {
            _judging = band(state, balance_margin);
            _judging_version = state.totals_version();
        }
        return _judging;
    }

    /// The rules each touched broker keeps (accepts_changes): fine stays
    /// fine, and it ends no farther from the mean than `deviation_limit`.
    static bool broker_keeps(const Band& b, double before, double after, double deviation_limit) {
        return !(b.fine(before) && b.excess(after) > b.tolerance) && !(std::abs(after - b.mean) > deviation_limit);
    }

    bool refuses_pairs() const override { return true; }
    /// A move of load x from `s` to `d` lowers `s` by x and raises `d` by x
    /// (its divisor apart). Each broker's rules (broker_keeps), once broken
    /// by some x, stay broken for every larger x, in floating point too: a
    /// fine broker's excess grows with its distance past the edge it moves
    /// towards (it starts inside, and the sum before + delta is monotone in
    /// x), and no broker starts farther from the mean than the limit, so it
    /// leaves [mean - limit, mean + limit] on the side it moves to and stays
    /// out. So breaking one at the least load refuses every larger move.
    /// (The sum of the excesses is left out: it is no monotone function of x.)
    bool refuses_every_move(const PlanningState& state, uint32_t s, uint32_t d, const Load& least) const override {
        if (!(load_of(least, _resource) > 0)) return false;  // a move of nothing keeps every broker where it is
        const Band b = judging_band(state);
        const double deviation_limit = deviation_max(state, b) + b.tolerance;
        return breaks(state, b, deviation_limit, BrokerChange{s, Load{} - least, -1, 0}) ||
               breaks(state, b, deviation_limit, BrokerChange{d, least, +1, 0});
    }

    /// The source's side of refuses_every_move, asked once for all partners.
    bool refuses_giving(const PlanningState& state, uint32_t s, const Load& least) const override {
        if (!(load_of(least, _resource) > 0)) return false;
        const Band b = judging_band(state);
        return breaks(state, b, deviation_max(state, b) + b.tolerance, BrokerChange{s, Load{} - least, -1, 0});
    }

    /// The destination's side of refuses_every_move.
    bool refuses_taking(const PlanningState& state, uint32_t d, const Load& least) const override {
        if (!(load_of(least, _resource) > 0)) return false;
        const Band b = judging_band(state);
        return breaks(state, b, deviation_max(state, b) + b.tolerance, BrokerChange{d, least, +1, 0});
    }

    /// Both sides judge `least` in this goal's resource alone.
    Load side_refusal_floor(const Load& least) const override {
        Load floor;
        if (_resource == Resource::network_in) {
            floor.bytes_in_per_s = least.bytes_in_per_s;
        } else {
            floor.bytes_out_per_s = least.bytes_out_per_s;
        }
        return floor;
    }

    /// Does `change` break its broker's rules (broker_keeps)?
    bool breaks(const PlanningState& state, const Band& b, double deviation_limit, const BrokerChange& change) const {
        if (!state.broker(change.broker).eligible) return false;  // outside the distribution
        const double before = load(state, change.broker);
        return !broker_keeps(b, before, before + delta(state, change), deviation_limit);
    }

    /// Does `c` lower the touched brokers' excess over `b` (strictly)?
    bool improves(const PlanningState& state, const Band& b, const Candidate& c) const {
        double excess_before = 0;
        double excess_after = 0;
        for (const BrokerChange& change : changes_of(c)) {
            const double before = load(state, change.broker);
            excess_before += b.excess(before);
            excess_after += b.excess(before + delta(state, change));
        }
        return excess_after < excess_before - b.tolerance;
    }

    void optimize(GoalContext& context) const override;

private:
    /// One action between `broker` and the other side: when `shedding`,
    /// `broker` is the source and destinations are the lightest brokers below
    /// the mean; else it is the destination and sources are the heaviest
    /// above the mean. Moves first, then swaps. `partners_spent`: a partner
    /// was left out because it spent its per-broker budget.
    bool step_between(GoalContext& context, Lists& lists, const Band& b, uint32_t broker,
                      bool shedding, bool& partners_spent) const;
    /// step_between's tries, over its partners (a PartnerWalk) as they are
    /// reached; run to their end when none acts, so every partner that
    /// spent its budget is seen.
    template <class Partners>
    bool step_with(GoalContext& context, Lists& lists, const Band& b, uint32_t broker, bool shedding,
                   Partners& partners) const;

    /// One move between `broker` and its partners, trying replicas in the
    /// order `walk(source, destination, visit)` visits them: off `broker`
    /// to the first partner that takes one when shedding; else off each
    /// partner in turn, until the rack goal has refused
    /// partner_refusals_max of its replicas. `keep_spread`: only moves
    /// after which the replica's topic is spread as well as before
    /// (keeps_topic_spread).
    template <class Partners, class Walk>
    bool move_one(GoalContext& context, const Band& b, uint32_t broker, bool shedding, Partners& partners,
                  Walk walk, bool keep_spread) const;

    /// The first try at a move: the replica, leader or follower, that copies
    /// the fewest bytes for the load it shifts (visit_cheapest_copy_first),
    /// no more than the ideal amount and per_replica, and that keeps its
    /// topic's spread (so the topic goal need not copy more to undo it).
    /// Only off a source whose disk share allows it (disk_allows_cheapest).
    template <class Partners>
    bool cheapest_copy(GoalContext& context, Lists& lists, const Band& b, uint32_t broker, bool shedding,
                       Partners& partners) const;

    /// May `s` shed its cheapest copies? Only while its disk usage over the
    /// mean is at most disk_share_even or disk_share_allowance x its load
    /// over the mean (always, without disk figures). A broker that sheds
    /// only short-retention data keeps its long-retention data, so its disk
    /// share grows as its load share falls; past the allowance it moves by
    /// best fit, which takes replicas of every retention.
    bool disk_allows_cheapest(const PlanningState& state, const Band& b, uint32_t s) const;

    /// Out only: hand leadership of one partition from a heavy broker to a
    /// follower on a lighter one. Shedding: `broker` gives up a partition it
    /// leads to its lightest follower; filling: `broker` takes over a
    /// partition it follows from a leader above the mean.
    bool transfer_leadership(GoalContext& context, Lists& lists, const Band& b, uint32_t broker,
                             bool shedding) const;

    /// Out only, when no single leader change helps: two leader changes
    /// judged as one step (GoalContext::try_apply_chain). A heavy broker
    /// hands a partition to a follower in the band (the middle), and the
    /// middle hands one of about that weight to a light follower of its
    /// own, so it ends about where it was. This reaches a light broker
    /// that follows nothing the heavy one leads, and gets past a middle
    /// that one change alone would push out of the band. With RF3 and
    /// replica counts and bytes in already even, every move widens in's
    /// distribution and is refused, so leadership is all there is.
    /// Shedding: `broker` is the heavy end; filling, the light one. The
    /// middle's leg is recorded first: if the gate releases only one, the
    /// middle is left lighter, not over the band.
    bool chain_leadership(GoalContext& context, Lists& lists, const Band& b, uint32_t broker, bool shedding) const;

    /// The eligible followers of `p` other than `leader`, lightest first, the
    /// first followers_max of them; their count. In a fixed array: this runs
    /// for every candidate chain.
    size_t lightest_followers(const PlanningState& state, uint32_t p, uint32_t leader,
                              std::array<uint32_t, followers_max>& out) const;

    Resource _resource;
    /// judging_band's last answer and the totals_version it holds for (none
    /// yet: versions start at one).
    mutable uint64_t _judging_version = 0;
    mutable Band _judging;
    /// move_one's, per partner a shedding step reached: kept from step to
    /// step, as a step runs for every replica moved.
    struct Reached {
        // For the replica being tried: 0 refused by placement (or, with
        // keep_spread, its topic's spread would not hold), 1 its topic's
        // spread holds there, 2 not.
        uint8_t fit = 0;
        // Partners a guard refuses outright (another rack) are left out of
        // every replica's pass; asked once, when a pass first reaches them.
        // 0 not asked yet, 1 open, 2 refused.
        uint8_t open = 0;
    };
    mutable std::vector<Reached> _reached;
};

}  // namespace ballast::goals
