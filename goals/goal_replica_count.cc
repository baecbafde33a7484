/// ReplicaCountDistributionGoal (soft).
///
/// Over the eligible brokers: mean = replicas / brokers, band =
/// [floor(mean x (1 - deviation)), ceil(mean x (1 + deviation))]; the
/// excess is the distance outside it. Accepting: a touched broker in the
/// band stays in it, and the touched brokers' total excess does not grow
/// (count_accepts).
///
/// Brokers above the band, fullest first, move replicas (least network
/// load first: the load goals above are most likely to accept them) to the
/// emptiest brokers that stay in the band; then brokers below the band,
/// emptiest first, pull from the fullest the same way.
///
/// While an earlier goal has copied replicas in this plan, moves and
/// exchanges copy no replica larger than half the mean (copy_bytes_max
/// says why).
///
/// Skips brokers that spent their per-broker budget
/// (PlannerConfig::broker_actions_max), as the broker being fixed and as a
/// partner, and moves on to the next.

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <vector>

#include "goals/goal.h"
#include "goals/goal_search.h"
#include "goals/network_distribution.h"

namespace ballast::goals {
namespace {

/// Partners an exchange tries per step (the replicas given and taken per
/// partner: exchange_tries_max, exchange_light_max).
constexpr size_t exchange_partners_max = 8;

/// How an exchange with one partner ended: `unplaced` when the placement
/// guards refused the first partner_refusals_max replicas `few` could give
/// and none was placed (the partner stands in another rack), so it does not
/// count as a partner tried.
enum class Exchange : uint8_t { applied, refused, unplaced };

class ReplicaCountGoal final : public Goal {
    /// One of `many`'s light replicas an exchange may take: the load it
    /// brings `few` (its move's load_delta[1]: what it puts on `many`,
    /// leadership going along), and its placement judged at first need (-1:
    /// not yet; 0 or 1). Its move is built only for that and for a group.
    struct Take {
        uint32_t partition = no_partition;
        double in = 0;
        double out = 0;
        int8_t placed = -1;
    };
    KeptCountBand _band;  // band()'s, kept while its figures stand
    /// exchange()'s vectors, kept from call to call: a plan tries thousands
    /// of exchanges, and each would allocate them afresh.
    struct ExchangeScratch {
        std::vector<Candidate> group;
        std::vector<Take> light;
    };

public:
    ReplicaCountGoal() : Goal(GoalKind::replica_count_distribution) {}

    CountBand band(const PlanningState& state) const {
        return _band.of(state.eligible_replicas(), state.eligible_count(), state.config().replica_count_avg_deviation);
    }

    bool satisfied(const PlanningState& state) const override {
        const CountBand b = band(state);
        const PlanningState::CountOrder& order = state.order_by_replicas();
        return order.empty() || (b.fine(order.begin()->first) && b.fine(order.rbegin()->first));
    }

    bool accepts(const PlanningState& state, const Candidate& c) const override {
        return accepts_changes(state, changes_of(c));
    }

    bool accepts_net_changes(const PlanningState& state, std::span<const BrokerChange> net) const override {
        return accepts_changes(state, net);
    }

    bool accepts_changes(const PlanningState& state, std::span<const BrokerChange> changes) const {
        return count_accepts(
            state, changes, band(state), [&](uint32_t b) { return state.broker(b).replica_count; },
            [](const BrokerChange& change) { return change.replica_delta; });
    }

    bool refuses_pairs() const override { return true; }
    /// Every move changes the two counts the same way.
    bool refuses_every_move(const PlanningState& state, uint32_t s, uint32_t d, const Load&) const override {
        return !accepts_changes(state, move_count_changes(s, d));
    }
    /// A destination in the band that one more replica takes out of it.
    bool refuses_taking(const PlanningState& state, uint32_t d, const Load&) const override {
        const CountBand b = band(state);
        const int32_t count = state.broker(d).replica_count;
        return state.broker(d).eligible && b.fine(count) && !b.fine(count + 1);
    }
    /// A source in the band that one fewer replica takes out of it.
    bool refuses_giving(const PlanningState& state, uint32_t s, const Load&) const override {
        const CountBand b = band(state);
        const int32_t count = state.broker(s).replica_count;
        return state.broker(s).eligible && b.fine(count) && !b.fine(count - 1);
    }
    /// Counts alone decide both sides.
    Load side_refusal_floor(const Load&) const override { return Load{}; }

    void optimize(GoalContext& context) const override {
        PlanningState& state = context.state();
        if (state.eligible_count() < 2) return;
        const CountBand b = band(state);
        // Larger copies wait while an earlier goal has copied (copy_bytes_max).
        const double copy_max = copy_bytes_max(
            context, state.eligible_total(Resource::disk) / std::max<double>(1, state.eligible_replicas()));
        ReplicaLists lists(state, network_key(), false, ListFor::moves);
        ReplicaLists heavy(state, network_per_byte_key(), true, ListFor::moves);
        // Followers by bytes in per byte copied (exchange_step says why).
        ReplicaLists followers(state, [](const PlanningState& s, uint32_t p, uint32_t broker) {
            if (s.leader(p) == static_cast<int32_t>(broker)) return 0.0;
            return s.replica_load_on(p, broker).bytes_in_per_s / (s.partition(p).load.size_bytes + 1.0);
        }, true, ListFor::moves);
        // Followers by load in, for the light ones taken for a follower:
        // among all replicas by load, the lightest may all be leaders,
        // whose out the follower given does not make room for.
        ReplicaLists light_followers(state, [](const PlanningState& s, uint32_t p, uint32_t broker) {
            if (s.leader(p) == static_cast<int32_t>(broker)) return 0.0;
            return s.replica_load_on(p, broker).bytes_in_per_s + 1.0;
        }, true, ListFor::moves);
        std::vector<std::pair<int32_t, uint32_t>> full;
        std::vector<std::pair<int32_t, uint32_t>> empty;
        for (const auto& [count, broker] : state.order_by_replicas()) {
            if (count > b.upper) full.emplace_back(-count, broker);
            if (count < b.lower) empty.emplace_back(count, broker);
        }
        std::sort(full.begin(), full.end());
        PairRefusals refusals(state);
        ExchangeScratch scratch;
        for (int phase = 0; phase < 2; phase++) {
            const bool shedding = phase == 0;
            for (const auto& [unused, broker] : shedding ? full : empty) {
                // Each step applies one action (touching a partition no later
                // step may touch) or ends the loop: at most one per partition.
                const size_t steps_max = static_cast<size_t>(state.partition_count()) + 1;
                for (size_t step = 0; step < steps_max; step++) {
                    if (!context.budget_left()) return;
                    if (b.fine(state.broker(broker).replica_count)) break;
                    if (!context.broker_budget_left(broker)) break;  // the rest next plan
                    if (!step_between(context, lists, refusals, b, copy_max, broker, shedding) &&
                        !exchange_step(context, lists, heavy, followers, light_followers, b, copy_max, broker,
                                       shedding, scratch)) {
                        break;
                    }
                }
            }
        }
    }

private:
    bool step_between(GoalContext& context, ReplicaLists& lists, PairRefusals& pair_refusals, const CountBand& b,
                      double copy_max, uint32_t broker, bool shedding) const {
        PlanningState& state = context.state();
        const int32_t own = state.broker(broker).replica_count;
        // A partner must stay in the band and end no fuller (emptier) than the
        // broker, and have budget left.
        auto keep = [&](int32_t, uint32_t partner) { return context.broker_budget_left(partner); };
        auto stop = [&](int32_t count, uint32_t) {
            return shedding ? (count + 1 > b.upper || count + 1 >= own) : (count - 1 < b.lower || count - 1 <= own);
        };
        const PlanningState::CountOrder& order = state.order_by_replicas();
        // Shedding, `broker` offers every partner the same candidates (a
        // partner that takes none leaves the state as it was).
        const Load shed_least = shedding ? least_load_ascending(state, broker, lists.of(broker), replica_tries_max)
                                         : no_load_yet;
        if (shedding && context.gives_refused(broker, shed_least)) return false;  // by every partner
        // Partners in order, found as the tries reach them (PartnerWalk).
        auto try_partners = [&](auto&& partners) {
            for (size_t i = 0; partners.has(i); i++) {
                if (try_partner(context, lists, pair_refusals, copy_max, broker, partners[i], shedding, shed_least)) {
                    return true;
                }
            }
            return false;
        };
        if (shedding) return try_partners(PartnerWalk(state, order.begin(), order.end(), broker, keep, stop));
        return try_partners(PartnerWalk(state, order.rbegin(), order.rend(), broker, keep, stop));
    }

    /// step_between's move between `broker` and one partner.
    bool try_partner(GoalContext& context, ReplicaLists& lists, PairRefusals& pair_refusals, double copy_max,
                     uint32_t broker, uint32_t partner, bool shedding, const Load& shed_least) const {
        PlanningState& state = context.state();
        const uint32_t s = shedding ? broker : partner;
        const uint32_t d = shedding ? partner : broker;
        // The walk can apply only what it tries: none when a guard refuses
        // every move of at least the least load it could try.
        const Load least = shedding ? shed_least : least_load_ascending(state, s, lists.of(s), replica_tries_max);
        if (pair_refusals.refused(context, s, d, least)) return false;
        bool applied = false;
        uint32_t refusals = 0;
        // Loads from which a guard that refused a try refuses every move
        // from `s` to `d` (Goal::refuses_every_move): a later candidate at
        // least as heavy in every resource is refused as well, untried.
        std::array<Load, 2> refused_from;
        size_t refused_known = 0;
        visit_ascending(state, s, lists.of(s), replica_tries_max, [&](const ReplicaEntry& e) {
            if (state.partition(e.partition).load.size_bytes > copy_max) return false;
            // One the partner holds already cannot go there, whatever the
            // racks: not counted as a sign of the partner's rack (with as
            // few brokers as its replication factor, none of `s`'s other
            // replicas of such partitions can go anywhere).
            if (state.holds(d, e.partition)) return false;
            // Placement first, cheaper than the try: off a partner in
            // another rack most tries end there.
            if (const Goal* refuser = context.move_refuser(e.partition, s, d)) {
                if (refuser->kind() == GoalKind::rack_aware) refusals++;
                return refusals >= partner_refusals_max;
            }
            const Load load = state.replica_load_on(e.partition, s);
            for (size_t i = 0; i < refused_known; i++) {
                if (at_least(load, refused_from[i])) return false;  // refused, and not by the rack
            }
            applied = context.try_apply(state.move(e.partition, s, d, false));
            if (!applied && refused_by_rack(context)) refusals++;
            if (!applied && refused_known < refused_from.size()) {
                const Goal* refuser = context.last_refusal();
                if (refuser != nullptr && refuser->refuses_pairs() && refuser->refuses_every_move(state, s, d, load)) {
                    refused_from[refused_known++] = load;
                }
            }
            return applied || refusals >= partner_refusals_max;
        });
        return applied;
    }

    /// When no single move helps (the load goals refuse them: the brokers
    /// short of replicas carry heavy ones and sit at the top of the load
    /// band, those with too many carry light ones at the bottom), `broker`
    /// exchanges with a partner on the other side of the mean: the one
    /// short of replicas gives one heavy replica for several light ones.
    /// Per partner, the replicas given are first those with the most
    /// network load per byte copied, then followers by bytes in per byte:
    /// a follower sends nothing, so the light ones taken for it are
    /// followers too and neither broker's out changes. That is the exchange
    /// left to a broker at the top of the out target and the bottom of the
    /// in target (whatever it gives lowers in, whatever it takes with out
    /// raises out), which a given leader's out, never matched to the byte by
    /// the light ones, would push over. Only partners that could be given a
    /// replica count against exchange_partners_max: with rack-aware RF equal
    /// to the racks a replica moves only within its rack, and the partners
    /// first in count order may all stand in other racks.
    bool exchange_step(GoalContext& context, ReplicaLists& lists, ReplicaLists& heavy, ReplicaLists& followers,
                       ReplicaLists& light_followers, const CountBand& b, double copy_max, uint32_t broker,
                       bool shedding, ExchangeScratch& scratch) const {
        PlanningState& state = context.state();
        const PlanningState::CountOrder& order = state.order_by_replicas();
        auto keep = [&](int32_t, uint32_t partner) { return context.broker_budget_left(partner); };
        auto stop = [&](int32_t count, uint32_t) { return shedding ? count >= b.mean : count <= b.mean; };
        const std::vector<uint32_t> partners =
            shedding ? collect_partners(state, order.begin(), order.end(), broker, keep, stop)
                     : collect_partners(state, order.rbegin(), order.rend(), broker, keep, stop);
        size_t tried = 0;
        for (size_t i = 0; i < partners.size() && tried < exchange_partners_max; i++) {
            const uint32_t few = shedding ? partners[i] : broker;
            const uint32_t many = shedding ? broker : partners[i];
            const Exchange first = exchange(context, heavy, lists, b, copy_max, few, many, scratch);
            if (first == Exchange::applied) return true;
            if (first == Exchange::unplaced) continue;
            tried++;
            if (exchange(context, followers, light_followers, b, copy_max, few, many, scratch) == Exchange::applied) {
                return true;
            }
        }
        return false;
    }

    /// `few` gives `many` one replica, in the order of `gives` (by load per
    /// byte copied: cheap to copy for the light ones it makes room for),
    /// and takes up to exchange_light_max of `many`'s lightest in the order
    /// of `takes` (in network load, in + out; for a follower given, its
    /// followers by load in), as many as fit in its load in and out: `few` gains
    /// k - 1 replicas and neither broker's load grows past where it was, so
    /// the load goals above, judging the net change, accept it. Lightest in
    /// load, not in bytes: the smallest replicas may carry traffic that does
    /// not fit (consumers' reads where the given replica has none), and a
    /// walk through them, bounded by replica_tries_max, then finds nothing
    /// and the counts stay outside their band.
    Exchange exchange(GoalContext& context, ReplicaLists& gives, ReplicaLists& takes, const CountBand& b,
                      double copy_max, uint32_t few, uint32_t many, ExchangeScratch& scratch) const {
        PlanningState& state = context.state();
        const int64_t gain_max = std::min<int64_t>({b.upper - state.broker(few).replica_count,
                                                    state.broker(many).replica_count - b.lower,
                                                    (state.broker(many).replica_count -
                                                     state.broker(few).replica_count) / 2});
        if (gain_max < 1) return Exchange::refused;
        const size_t light_max = static_cast<size_t>(std::min<int64_t>(gain_max + 1, exchange_light_max));
        std::vector<Candidate>& group = scratch.group;
        bool applied = false;
        bool placed = false;
        uint32_t unplaced = 0;
        // The light ones `many` may give, in the order of `takes`, walked
        // once at the first replica placed: nothing applies until the group
        // does, so every replica given meets the same walk. Placement is
        // judged at first need and kept.
        std::vector<Take>& light = scratch.light;
        light.clear();
        bool light_walked = false;
        auto walk_light = [&] {
            light_walked = true;
            visit_ascending(state, many, takes.of(many), replica_tries_max, [&](const ReplicaEntry& l) {
                if (state.partition(l.partition).load.size_bytes <= copy_max) {
                    const Load load = state.replica_load_on(l.partition, many);
                    light.push_back({l.partition, load.bytes_in_per_s, load.bytes_out_per_s});
                }
                return false;
            });
        };
        visit_descending(state, few, gives.of(few), exchange_tries_max, [&](const ReplicaEntry& e) {
            if (state.partition(e.partition).load.size_bytes > copy_max) return false;
            if (state.holds(many, e.partition)) return false;  // as in try_partner: not a sign of the rack
            const Candidate give = state.move(e.partition, few, many, false);
            if (!context.placement_allows(give)) {
                // Refused in a row before any was placed: the partner stands
                // where none of `few`'s replicas may go (another rack).
                return !placed && ++unplaced >= partner_refusals_max;
            }
            placed = true;
            // What `few` sheds: the room the light replicas may fill.
            const double room_in = -give.load_delta[0].bytes_in_per_s;
            const double room_out = -give.load_delta[0].bytes_out_per_s;
            group.assign(1, give);
            double in = 0;
            double out = 0;
            if (!light_walked) walk_light();
            for (Take& take : light) {
                if (take.partition == e.partition) continue;
                const double take_in = take.in;
                const double take_out = take.out;
                if (in + take_in > room_in || out + take_out > room_out) continue;
                if (take.placed < 0) {
                    take.placed = context.placement_allows(state.move(take.partition, many, few, false)) ? 1 : 0;
                }
                if (take.placed == 0) continue;
                group.push_back(state.move(take.partition, many, few, false));
                in += take_in;
                out += take_out;
                if (group.size() > light_max) break;
            }
            if (group.size() < 3) return false;  // one for one evens out nothing
            applied = context.try_apply_group(group);
            return applied;
        });
        if (applied) return Exchange::applied;
        return placed ? Exchange::refused : Exchange::unplaced;
    }
};

}  // namespace

std::unique_ptr<Goal> make_replica_count_goal() { return std::make_unique<ReplicaCountGoal>(); }

}  // namespace ballast::goals
