/// ReplicaCountDistributionGoal and LeaderCountDistributionGoal (soft).
///
/// Over the eligible brokers: mean = count / brokers, band =
/// [floor(mean x (1 - deviation)), ceil(mean x (1 + deviation))]; the
/// excess is the distance outside it. Accepting: a touched broker in the
/// band stays in it, and the touched brokers' total excess does not grow.
///
/// Replica count: brokers above the band, fullest first, move replicas
/// (least network load first: the load goals above are most likely to
/// accept them) to the emptiest brokers that stay in the band; then brokers
/// below the band, emptiest first, pull from the fullest the same way.
///
/// Leader count: brokers above the band hand leadership of partitions they
/// lead (least leader traffic first) to the follower with the fewest
/// leaders; brokers below the band take leadership of partitions they
/// follow from leaders above the mean. Then the same again against the
/// target, the band narrowed to balance_margin (as the network goals aim).
/// Where no single change passes the network out goal, each exchanges one
/// heavy leadership for several light ones. LEADER actions only: a
/// preferred leader change moves no data.
///
/// While an earlier goal has copied replicas in this plan, replica count
/// moves and exchanges copy no replica larger than half the mean
/// (copy_bytes_max says why).
///
/// Both skip brokers that spent their per-broker budget
/// (PlannerConfig::broker_actions_max), as the broker being fixed and as a
/// partner, and move on to the next.

#include <algorithm>
#include <cassert>
#include <cmath>
#include <vector>

#include "goals/goal.h"
#include "goals/goal_search.h"
#include "goals/network_distribution.h"

namespace ballast::goals {
namespace {

/// Partners an exchange tries per step, replicas given per partner, and
/// light replicas taken for one (bounds each try's work).
constexpr size_t exchange_partners_max = 8;
constexpr uint32_t exchange_tries_max = 16;
constexpr size_t exchange_light_max = 16;

/// How an exchange with one partner ended: `unplaced` when the placement
/// guards refused the first partner_refusals_max replicas `few` could give
/// and none was placed (the partner stands in another rack), so it does not
/// count as a partner tried.
enum class Exchange : uint8_t { applied, refused, unplaced };

CountBand count_band(int64_t total, uint32_t brokers, double deviation) {
    CountBand band;
    if (brokers == 0) return band;
    band.mean = static_cast<double>(total) / brokers;
    band.lower = count_band_floor(band.mean * (1 - deviation));
    band.upper = count_band_ceil(band.mean * (1 + deviation));
    return band;
}

/// The eligible brokers' mean network out, in usage units: the leader
/// exchanges keep each partner within half way to the band's edge.
double network_out_mean(const PlanningState& state) {
    return state.eligible_total(Resource::network_out) / state.eligible_usage_divisor(Resource::network_out);
}

/// The shared accept rule for a count: `count_of(b)` now, `delta_of(change)` its change.
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

// ---------------------------------------------------------------- replica count

class ReplicaCountGoal final : public Goal {
public:
    ReplicaCountGoal() : Goal(GoalKind::replica_count_distribution) {}

    static CountBand band(const PlanningState& state) {
        return count_band(state.eligible_replicas(), state.eligible_count(),
                          state.config().replica_count_avg_deviation);
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

    static bool accepts_changes(const PlanningState& state, std::span<const BrokerChange> changes) {
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
                                       shedding)) {
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
        visit_ascending(state, s, lists.of(s), replica_tries_max, [&](const ReplicaEntry& e) {
            if (state.partition(e.partition).load.size_bytes > copy_max) return false;
            // Placement first, cheaper than the try: off a partner in
            // another rack most tries end there.
            if (const Goal* refuser = context.move_refuser(e.partition, s, d)) {
                if (refuser->kind() == GoalKind::rack_aware) refusals++;
                return refusals >= partner_refusals_max;
            }
            applied = context.try_apply(state.move(e.partition, s, d, false));
            if (!applied && refused_by_rack(context)) refusals++;
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
                       bool shedding) const {
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
            const Exchange first = exchange(context, heavy, lists, b, copy_max, few, many);
            if (first == Exchange::applied) return true;
            if (first == Exchange::unplaced) continue;
            tried++;
            if (exchange(context, followers, light_followers, b, copy_max, few, many) == Exchange::applied) {
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
                      double copy_max, uint32_t few, uint32_t many) const {
        PlanningState& state = context.state();
        const int64_t gain_max = std::min<int64_t>({b.upper - state.broker(few).replica_count,
                                                    state.broker(many).replica_count - b.lower,
                                                    (state.broker(many).replica_count -
                                                     state.broker(few).replica_count) / 2});
        if (gain_max < 1) return Exchange::refused;
        const size_t light_max = static_cast<size_t>(std::min<int64_t>(gain_max + 1, exchange_light_max));
        std::vector<Candidate> group;
        bool applied = false;
        bool placed = false;
        uint32_t unplaced = 0;
        // The light ones `many` may give, in the order of `takes`, walked
        // once at the first replica placed: nothing applies until the group
        // does, so every replica given meets the same walk. Placement is
        // judged at first need and kept.
        struct Take {
            Candidate move;
            int8_t placed = -1;  // unknown yet, 0 or 1
        };
        std::vector<Take> light;
        bool light_walked = false;
        auto walk_light = [&] {
            light_walked = true;
            visit_ascending(state, many, takes.of(many), replica_tries_max, [&](const ReplicaEntry& l) {
                if (state.partition(l.partition).load.size_bytes <= copy_max) {
                    light.push_back({state.move(l.partition, many, few, false)});
                }
                return false;
            });
        };
        visit_descending(state, few, gives.of(few), exchange_tries_max, [&](const ReplicaEntry& e) {
            if (state.partition(e.partition).load.size_bytes > copy_max) return false;
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
                if (take.move.partition == e.partition) continue;
                const double take_in = take.move.load_delta[1].bytes_in_per_s;
                const double take_out = take.move.load_delta[1].bytes_out_per_s;
                if (in + take_in > room_in || out + take_out > room_out) continue;
                if (take.placed < 0) take.placed = context.placement_allows(take.move) ? 1 : 0;
                if (take.placed == 0) continue;
                group.push_back(take.move);
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

// ---------------------------------------------------------------- leader count

class LeaderCountGoal final : public Goal {
public:
    LeaderCountGoal() : Goal(GoalKind::leader_count_distribution) {}

    static CountBand band(const PlanningState& state) {
        return count_band(state.eligible_leaders(), state.eligible_count(),
                          state.config().leader_count_avg_deviation);
    }

    bool satisfied(const PlanningState& state) const override {
        const CountBand b = band(state);
        const PlanningState::CountOrder& order = state.order_by_leaders();
        return order.empty() || (b.fine(order.begin()->first) && b.fine(order.rbegin()->first));
    }

    bool accepts(const PlanningState& state, const Candidate& c) const override {
        return accepts_changes(state, changes_of(c));
    }

    bool accepts_net_changes(const PlanningState& state, std::span<const BrokerChange> net) const override {
        return accepts_changes(state, net);
    }

    static bool accepts_changes(const PlanningState& state, std::span<const BrokerChange> changes) {
        return count_accepts(
            state, changes, band(state), [&](uint32_t b) { return state.broker(b).leader_count; },
            [](const BrokerChange& change) { return change.leader_delta; });
    }

    void optimize(GoalContext& context) const override {
        PlanningState& state = context.state();
        if (state.eligible_count() < 2) return;
        // Partitions a broker leads, least leader-only traffic first.
        auto leader_shift = [](const PlanningState& s, uint32_t p, uint32_t broker) {
            return s.leader(p) == static_cast<int32_t>(broker) && s.partition(p).replica_count > 1
                       ? load_of(s.replica_load_on(p, broker), Resource::network_out) + 1
                       : 0.0;
        };
        ReplicaLists led(state, leader_shift, true, ListFor::leader_changes);
        // Partitions a broker follows, by the leader traffic leading them would add.
        auto follower_gain = [](const PlanningState& s, uint32_t p, uint32_t broker) {
            const int32_t leader = s.leader(p);
            return leader >= 0 && leader != static_cast<int32_t>(broker) && s.partition(p).replica_count > 1
                       ? load_of(s.replica_load_on(p, static_cast<uint32_t>(leader)), Resource::network_out) + 1
                       : 0.0;
        };
        ReplicaLists followed(state, follower_gain, true, ListFor::leader_changes);
        // Acting (some broker is outside the band): into the band, then on
        // into the target, as the network goals aim, since a leader change
        // copies nothing and brokers left at the band's edges are the first a
        // small drift takes out. The second pass's partners stay inside the
        // target: it takes no broker back out of it.
        const CountBand target = count_band(state.eligible_leaders(), state.eligible_count(),
                                            state.config().leader_count_avg_deviation * balance_margin);
        for (const CountBand& b : {band(state), target}) {
            if (!context.budget_left()) return;
            even_out(context, led, followed, b);
        }
    }

private:
    /// One pass: brokers above `b` hand leadership off, then brokers below
    /// it take leadership over, each until inside `b` or out of tries.
    void even_out(GoalContext& context, ReplicaLists& led, ReplicaLists& followed, const CountBand& b) const {
        PlanningState& state = context.state();
        std::vector<std::pair<int32_t, uint32_t>> full;
        std::vector<std::pair<int32_t, uint32_t>> empty;
        for (const auto& [count, broker] : state.order_by_leaders()) {
            if (count > b.upper) full.emplace_back(-count, broker);
            if (count < b.lower) empty.emplace_back(count, broker);
        }
        std::sort(full.begin(), full.end());
        for (const auto& [unused, s] : full) {
            const size_t steps_max = led.of(s).entries.size() + 1;
            for (size_t step = 0; step < steps_max; step++) {
                if (!context.budget_left()) return;
                if (!context.broker_budget_left(s)) break;  // the rest next plan
                if (b.fine(state.broker(s).leader_count)) break;
                if (!hand_off(context, led, b, s) && !shed_exchange(context, led, followed, b, s)) break;
            }
        }
        for (const auto& [unused, d] : empty) {
            // Each exchange applies actions or ends the loop; one may make
            // room for more single take-overs.
            const size_t exchanges_max = state.partition_count() + 1;
            for (size_t exchange_count = 0; exchange_count < exchanges_max; exchange_count++) {
                for (uint32_t p : state.model_partitions_of(d)) {
                    if (!context.budget_left()) return;
                    if (!context.broker_budget_left(d)) break;  // the rest next plan
                    if (b.fine(state.broker(d).leader_count)) break;
                    take_over(context, b, p, d);
                }
                if (!context.budget_left()) return;
                if (!context.broker_budget_left(d) || b.fine(state.broker(d).leader_count)) break;
                if (!exchange(context, led, followed, b, d)) break;
            }
        }
    }

    /// `s` gives up leadership of one partition to its least-leading follower.
    bool hand_off(GoalContext& context, ReplicaLists& led, const CountBand& b, uint32_t s) const {
        PlanningState& state = context.state();
        return visit_ascending(state, s, led.of(s), replica_tries_max, [&](const ReplicaEntry& e) {
            if (state.leader(e.partition) != static_cast<int32_t>(s)) return false;
            // Followers by leader count, then index; RF is small.
            std::vector<std::pair<int32_t, uint32_t>> followers;
            for (uint32_t f : state.replicas(e.partition)) {
                if (f == s || !state.broker(f).eligible || !context.broker_budget_left(f)) continue;
                const int32_t leaders = state.broker(f).leader_count;
                if (leaders + 1 > b.upper || leaders + 1 >= state.broker(s).leader_count) continue;
                followers.emplace_back(leaders, f);
            }
            std::sort(followers.begin(), followers.end());
            for (const auto& [leaders, f] : followers) {
                if (context.try_apply(state.leader_change(e.partition, s, f))) return true;
            }
            return false;
        });
    }

    /// When handing off one at a time fails (the network out goal refuses:
    /// a broker with leaders to spare leads light partitions and sits at
    /// the bottom of the out target), `s` takes leadership of one heavy
    /// partition it follows from a leader that may lose one, and hands up
    /// to exchange_light_max light ones to followers with room, as many as
    /// fit in the out traffic it took. The mirror of exchange(); the guards
    /// judge the net change.
    bool shed_exchange(GoalContext& context, ReplicaLists& led, ReplicaLists& followed, const CountBand& b,
                       uint32_t s) const {
        PlanningState& state = context.state();
        const int64_t shed_max = state.broker(s).leader_count - b.upper;
        if (shed_max < 1) return false;
        const size_t light_max = static_cast<size_t>(std::min<int64_t>(shed_max + 1, exchange_light_max));
        const double out_ceiling = network_out_mean(state) * (1 + state.config().network_out_avg_deviation / 2);
        std::vector<Candidate> group;
        bool applied = false;
        visit_descending(state, s, followed.of(s), exchange_tries_max, [&](const ReplicaEntry& e) {
            const int32_t leader = state.leader(e.partition);
            if (leader < 0 || leader == static_cast<int32_t>(s) || !state.holds(s, e.partition)) return false;
            const uint32_t giver = static_cast<uint32_t>(leader);
            if (!state.broker(giver).eligible || state.broker(giver).leader_count - 1 < b.lower) return false;
            const Candidate take = state.leader_change(e.partition, giver, s);
            if (!context.placement_allows(take)) return false;
            const double room_out = take.load_delta[1].bytes_out_per_s;
            group.assign(1, take);
            double out = 0;
            // Out traffic and leaders each follower has taken in this
            // group: none takes more than its room below half way from the
            // mean to the band's upper edge, so each stays in its band.
            struct Taken {
                uint32_t broker;
                double out;
                int32_t leaders;
            };
            std::vector<Taken> taken;
            visit_ascending(state, s, led.of(s), replica_tries_max, [&](const ReplicaEntry& l) {
                if (l.partition == e.partition || state.leader(l.partition) != static_cast<int32_t>(s)) return false;
                uint32_t f_best = no_broker;
                int32_t leaders_best = 0;
                auto taken_best = taken.end();
                for (uint32_t f : state.replicas(l.partition)) {
                    if (f == s || f == giver || !state.broker(f).eligible) continue;
                    auto it = std::find_if(taken.begin(), taken.end(), [&](const Taken& t) { return t.broker == f; });
                    const int32_t leaders = state.broker(f).leader_count + (it == taken.end() ? 0 : it->leaders);
                    if (leaders + 1 > b.upper) continue;
                    if (f_best == no_broker || leaders < leaders_best) {
                        f_best = f;
                        leaders_best = leaders;
                        taken_best = it;
                    }
                }
                if (f_best == no_broker) return false;
                const Candidate give = state.leader_change(l.partition, s, f_best);
                const double give_out = give.load_delta[1].bytes_out_per_s;
                if (out + give_out > room_out) return false;
                const double room = (out_ceiling - state.usage(Resource::network_out, f_best)) *
                                    state.usage_divisor(Resource::network_out, f_best);
                if ((taken_best == taken.end() ? 0.0 : taken_best->out) + give_out > room) return false;
                if (!context.placement_allows(give)) return false;
                if (taken_best == taken.end()) {
                    taken.push_back({f_best, give_out, 1});
                } else {
                    taken_best->out += give_out;
                    taken_best->leaders++;
                }
                group.push_back(give);
                out += give_out;
                return group.size() > light_max;
            });
            if (group.size() < 3) return false;  // one for one evens out nothing
            applied = context.try_apply_group(group);
            return applied;
        });
        return applied;
    }

    /// When taking over one at a time fails (the network out goal refuses:
    /// a broker short of leaders leads heavy partitions and sits at the top
    /// of the out band), `d` hands its heaviest leadership to a follower
    /// and takes up to exchange_light_max light ones from brokers with
    /// leaders to spare, as many as fit in the out traffic it gave up. The
    /// guards judge the net change.
    bool exchange(GoalContext& context, ReplicaLists& led, ReplicaLists& followed, const CountBand& b,
                  uint32_t d) const {
        PlanningState& state = context.state();
        const int64_t gain_max = b.upper - state.broker(d).leader_count;
        if (gain_max < 1) return false;
        const size_t light_max = static_cast<size_t>(std::min<int64_t>(gain_max + 1, exchange_light_max));
        const double out_floor = network_out_mean(state) * (1 - state.config().network_out_avg_deviation / 2);
        std::vector<Candidate> group;
        bool applied = false;
        visit_descending(state, d, led.of(d), exchange_tries_max, [&](const ReplicaEntry& e) {
            if (state.leader(e.partition) != static_cast<int32_t>(d)) return false;
            uint32_t taker = no_broker;
            for (uint32_t f : state.replicas(e.partition)) {
                if (f == d || !state.broker(f).eligible) continue;
                const int32_t leaders = state.broker(f).leader_count;
                if (leaders + 1 > b.upper) continue;
                if (!context.placement_allows(state.leader_change(e.partition, d, f))) continue;
                // The most room in network out: it takes the heavy one's traffic.
                if (taker == no_broker ||
                    state.usage(Resource::network_out, f) < state.usage(Resource::network_out, taker)) {
                    taker = f;
                }
            }
            if (taker == no_broker) return false;
            const Candidate give = state.leader_change(e.partition, d, taker);
            const double room_out = -give.load_delta[0].bytes_out_per_s;
            group.assign(1, give);
            double out = 0;
            // Out traffic each source has given in this group: none gives
            // more than it carries above half way from the mean to the
            // band's lower edge, so each stays in its band.
            std::vector<std::pair<uint32_t, double>> given;
            visit_ascending(state, d, followed.of(d), replica_tries_max, [&](const ReplicaEntry& l) {
                const int32_t leader = state.leader(l.partition);
                if (leader < 0 || leader == static_cast<int32_t>(d) || static_cast<uint32_t>(leader) == taker) {
                    return false;
                }
                const uint32_t s = static_cast<uint32_t>(leader);
                if (!state.broker(s).eligible || state.broker(s).leader_count <= b.mean) return false;
                const Candidate take = state.leader_change(l.partition, s, d);
                const double take_out = take.load_delta[1].bytes_out_per_s;
                if (out + take_out > room_out) return false;
                auto it = std::find_if(given.begin(), given.end(), [&](const auto& g) { return g.first == s; });
                const double spare = (state.usage(Resource::network_out, s) - out_floor) *
                                     state.usage_divisor(Resource::network_out, s);
                if ((it == given.end() ? 0.0 : it->second) + take_out > spare) return false;
                if (!context.placement_allows(take)) return false;
                if (it == given.end()) {
                    given.emplace_back(s, take_out);
                } else {
                    it->second += take_out;
                }
                group.push_back(take);
                out += take_out;
                return group.size() > light_max;
            });
            if (group.size() < 3) return false;  // one for one evens out nothing
            applied = context.try_apply_group(group);
            return applied;
        });
        return applied;
    }

    /// `d`, short of leaders, takes leadership of `p` if it follows it and
    /// its leader has more than enough.
    bool take_over(GoalContext& context, const CountBand& b, uint32_t p, uint32_t d) const {
        PlanningState& state = context.state();
        if (!state.movable(p) || !state.holds(d, p) || state.partition(p).replica_count < 2) return false;
        const int32_t leader = state.leader(p);
        if (leader < 0 || leader == static_cast<int32_t>(d)) return false;
        const uint32_t s = static_cast<uint32_t>(leader);
        if (!state.broker(s).eligible || !context.broker_budget_left(s)) return false;
        const int32_t leaders = state.broker(s).leader_count;
        if (leaders - 1 < b.lower || leaders - 1 <= state.broker(d).leader_count) return false;
        return context.try_apply(state.leader_change(p, s, d));
    }
};

}  // namespace

std::unique_ptr<Goal> make_replica_count_goal() { return std::make_unique<ReplicaCountGoal>(); }
std::unique_ptr<Goal> make_leader_count_goal() { return std::make_unique<LeaderCountGoal>(); }

}  // namespace ballast::goals
