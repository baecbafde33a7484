/// LeaderCountDistributionGoal (soft).
///
/// Over the eligible brokers: mean = leaders / brokers, band =
/// [floor(mean x (1 - deviation)), ceil(mean x (1 + deviation))]; the
/// excess is the distance outside it. Accepting: a touched broker in the
/// band stays in it, and the touched brokers' total excess does not grow
/// (count_accepts).
///
/// Brokers above the band hand leadership of partitions they lead (least
/// leader traffic first) to the follower with the fewest leaders; brokers
/// below the band take leadership of partitions they follow from leaders
/// above the mean. Then the same again against the target, the band
/// narrowed to balance_margin (as the network goals aim). Where no single
/// change passes the network out goal, each exchanges one heavy leadership
/// for several light ones. LEADER actions only: a preferred leader change
/// moves no data.
///
/// Skips brokers that spent their per-broker budget
/// (PlannerConfig::broker_actions_max), as the broker being fixed and as a
/// partner, and moves on to the next.

#include <algorithm>
#include <cassert>
#include <vector>

#include "goals/goal.h"
#include "goals/goal_search.h"
#include "goals/network_distribution.h"

namespace ballast::goals {
namespace {

/// The eligible brokers' mean network out, in usage units: the leader
/// exchanges keep each partner within half way to the band's edge.
double network_out_mean(const PlanningState& state) {
    return state.eligible_total(Resource::network_out) / state.eligible_usage_divisor(Resource::network_out);
}

class LeaderCountGoal final : public Goal {
public:
    LeaderCountGoal() : Goal(GoalKind::leader_count_distribution) {}

    CountBand band(const PlanningState& state) const {
        return _band.of(state.eligible_leaders(), state.eligible_count(), state.config().leader_count_avg_deviation);
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

    bool accepts_changes(const PlanningState& state, std::span<const BrokerChange> changes) const {
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
        std::vector<std::pair<int32_t, uint32_t>> followers;  // one entry's, the storage kept for the next
        return visit_ascending(state, s, led.of(s), replica_tries_max, [&](const ReplicaEntry& e) {
            if (state.leader(e.partition) != static_cast<int32_t>(s)) return false;
            // Followers by leader count, then index; RF is small.
            followers.clear();
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

    KeptCountBand _band;  // band()'s, kept while its figures stand
};

}  // namespace

std::unique_ptr<Goal> make_leader_count_goal() { return std::make_unique<LeaderCountGoal>(); }

}  // namespace ballast::goals
