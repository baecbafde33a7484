/// The network out goal's leadership changes (NetworkDistributionGoal):
/// one partition's leadership handed from a heavy broker to a lighter
/// follower, and chains of two where no single change helps
/// (goal_network_distribution.cc says when each is tried).

#include "goals/network_distribution.h"

namespace ballast::goals {

bool NetworkDistributionGoal::transfer_leadership(GoalContext& context, Lists& lists, const Band& b, uint32_t broker,
                                                  bool shedding) const {
    PlanningState& state = context.state();
    // In bytes/s: what takes `broker` to the mean, and all it carries.
    const double divisor = state.usage_divisor(_resource, broker);
    const double own = load(state, broker) * divisor;
    const double mean = b.mean * divisor;
    bool applied = false;
    if (shedding) {
        std::vector<std::pair<double, uint32_t>> followers;  // per entry, reused
        visit_below_first(state, broker, lists.led.of(broker), per_leadership(state, b, broker, own - mean, true),
                          own, replica_tries_max,
                          [&](const ReplicaEntry& e) {
            followers.clear();
            for (uint32_t f : state.replicas(e.partition)) {
                if (f != broker && state.broker(f).eligible && context.broker_budget_left(f)) {
                    followers.emplace_back(load(state, f), f);
                }
            }
            std::sort(followers.begin(), followers.end());
            for (const auto& [unused, f] : followers) {
                const Candidate c = state.leader_change(e.partition, broker, f);
                if (improves(state, b, c) && context.try_apply(c)) return applied = true;
            }
            return false;
        });
        return applied;
    }
    visit_below_first(state, broker, lists.followed.of(broker), per_leadership(state, b, broker, mean - own, false),
                      std::numeric_limits<double>::infinity(), replica_tries_max,
                      [&](const ReplicaEntry& e) {
        const int32_t leader = state.leader(e.partition);
        if (leader < 0 || !state.broker(static_cast<uint32_t>(leader)).eligible) return false;
        if (!context.broker_budget_left(static_cast<uint32_t>(leader))) return false;
        const Candidate c = state.leader_change(e.partition, static_cast<uint32_t>(leader), broker);
        return applied = improves(state, b, c) && context.try_apply(c);
    });
    return applied;
}

bool NetworkDistributionGoal::chain_leadership(GoalContext& context, Lists& lists, const Band& b, uint32_t broker,
                                               bool shedding) const {
    PlanningState& state = context.state();
    if (!state.config().leader_changes_allowed) return false;  // every leg would be refused
    auto bytes = [&](uint32_t x, double usage) { return usage * state.usage_divisor(_resource, x); };
    auto usable = [&](uint32_t x) { return state.broker(x).eligible && context.broker_budget_left(x); };
    bool applied = false;
    // `p` and `q` are list entries: their values are what a leader change
    // of them shifts (leader_shift), so the three brokers' excess is judged
    // from them before any candidate is built.
    auto try_chain = [&](uint32_t heavy, const ReplicaEntry& p, uint32_t middle, const ReplicaEntry& q,
                         uint32_t light) {
        if (heavy == light || !usable(heavy) || !usable(light)) return false;
        const uint32_t brokers[3] = {heavy, middle, light};
        const double shifts[3] = {-p.value, p.value - q.value, q.value};
        double excess_before = 0;
        double excess_after = 0;
        for (int i = 0; i < 3; i++) {
            const double before = load(state, brokers[i]);
            excess_before += b.excess(before);
            excess_after += b.excess(before + shifts[i] / state.usage_divisor(_resource, brokers[i]));
        }
        if (!(excess_after < excess_before - b.tolerance)) return false;
        return applied = context.try_apply_chain(state.leader_change(q.partition, middle, light),
                                                 state.leader_change(p.partition, heavy, middle));
    };
    if (shedding) {
        const double own = bytes(broker, load(state, broker));
        visit_below_first(state, broker, lists.led.of(broker), own - bytes(broker, b.mean), own,
                          chain_tries_max, [&](const ReplicaEntry& p) {
            for (uint32_t middle : state.replicas(p.partition)) {
                if (middle == broker || !usable(middle)) continue;
                // q about p's weight, no larger than leaves the middle below the band.
                const double middle_own = bytes(middle, load(state, middle));
                visit_below_first(state, middle, lists.led.of(middle), p.value,
                                  middle_own + p.value - bytes(middle, b.lower), chain_tries_max,
                                  [&](const ReplicaEntry& q) {
                    if (q.partition == p.partition) return false;
                    std::array<uint32_t, followers_max> lights;
                    const size_t count = lightest_followers(state, q.partition, middle, lights);
                    for (size_t i = 0; i < count; i++) {
                        if (try_chain(broker, p, middle, q, lights[i])) return true;
                    }
                    return false;
                });
                if (applied) return true;
            }
            return false;
        });
        return applied;
    }
    const double own = bytes(broker, load(state, broker));
    visit_below_first(state, broker, lists.followed.of(broker), bytes(broker, b.mean) - own,
                      std::numeric_limits<double>::infinity(), chain_tries_max, [&](const ReplicaEntry& q) {
        const int32_t leader = state.leader(q.partition);
        if (leader < 0 || !usable(static_cast<uint32_t>(leader))) return false;
        const uint32_t middle = static_cast<uint32_t>(leader);
        // p about q's weight, no larger than leaves the middle above the band.
        const double middle_own = bytes(middle, load(state, middle));
        visit_below_first(state, middle, lists.followed.of(middle), q.value,
                          bytes(middle, b.upper) - middle_own + q.value, chain_tries_max,
                          [&](const ReplicaEntry& p) {
            const int32_t heavy = state.leader(p.partition);
            if (p.partition == q.partition || heavy < 0) return false;
            return try_chain(static_cast<uint32_t>(heavy), p, middle, q, broker);
        });
        return applied;
    });
    return applied;
}

size_t NetworkDistributionGoal::lightest_followers(const PlanningState& state, uint32_t p, uint32_t leader,
                                                   std::array<uint32_t, followers_max>& out) const {
    std::array<std::pair<double, uint32_t>, followers_max> followers;
    size_t count = 0;
    for (uint32_t f : state.replicas(p)) {
        if (count == followers_max) break;
        if (f != leader && state.broker(f).eligible) followers[count++] = {load(state, f), f};
    }
    // At most followers_max: an insertion sort (std::sort on part of the
    // array makes g++ 12 at -O2 warn of bounds it never reaches).
    for (size_t i = 1; i < count; i++) {
        for (size_t j = i; j > 0 && followers[j] < followers[j - 1]; j--) std::swap(followers[j], followers[j - 1]);
    }
    for (size_t i = 0; i < count; i++) out[i] = followers[i].second;
    return count;
}

}  // namespace ballast::goals
