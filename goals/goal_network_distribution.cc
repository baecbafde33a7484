/// NetworkIn/NetworkOutUsageDistributionGoal (soft): AutoMQ's band, over
/// each broker's usage (PlanningState::usage): its load, or its utilization
/// (load / capacity) when every eligible broker's capacity is known, as
/// Cruise Control balances it, so that a small broker is not filled to its
/// limit while a large one idles.
///
/// Over the eligible brokers: mean = total load / total divisor (brokers,
/// or capacity), band = mean x (1 ± avg_deviation). A broker is fine inside
/// the band; when the mean load per broker is below the detect threshold
/// (bytes/s), a broker below the threshold (in usage: over the mean
/// divisor) is fine too. Below, "load" means usage, except where amounts of
/// bytes are chosen (replicas, the ideal amount), which are converted.
/// Its excess is its distance outside what is fine (a convex function of
/// its load, which makes "cheapest destination first" the best first try).
///
/// The target is the band narrowed to balance_margin (70% of it; Cruise
/// Control's balance margin is 90%): the goal is violated, and acts, only
/// when a broker is outside the band, and then fixes every broker to the
/// target.
///
/// Accepting (as a guard, and for its own moves), against the target: a
/// touched broker inside it stays inside; the touched brokers' total excess
/// over it does not grow; and no touched broker ends farther from the mean
/// than the farthest broker is now. The last rule means no action of this or
/// any lower goal ever widens the distribution (its largest deviation from
/// the mean never grows).
///
/// Optimize (AutoMQ's algorithm, best-fit instead of largest-first, plus
/// leader changes and swaps): brokers above the target, heaviest first, shed
/// to the lightest brokers below the mean (up to 64 per rack); then brokers
/// below the target as shedding left them, lightest first, pull from the
/// heaviest the same way. Per step, the first of these that the guards
/// accept:
///   1. (out, RF > 1) hand leadership to a follower: moves no data, and
///      out is all the leader's (consumers and a copy per follower);
///   2. (out, RF > 1) a chain of two leader changes judged as one: to a
///      follower in the band, which hands one of about that weight on to a
///      light follower of its own (see chain_leadership);
///   3. move a replica: the largest no bigger than the ideal amount
///      min(source - mean, mean - destination), else the smallest that still
///      lowers the excess; followers before leaders, since a follower's move
///      leaves the other direction's load where it is;
///   4. swap a replica for a lighter one of the partner.
/// Aiming inside the band means small drifts do not trigger again at once,
/// and the other direction, which moves along, is less likely to be left
/// just outside its own band. If the actions for one broker change its load
/// by less than trivial_change_ratio x mean in total and leave it outside
/// the band, they are taken back (AutoMQ: not worth moving); except when
/// per-broker budgets cut the fix short and the fix the broker needs (its
/// distance to the target) is not trivial: then they are the first part of
/// a fix the next plans finish (with 10,000 replicas a broker, 5 moves are
/// always trivial). A small fix that ends inside the band is kept: it is
/// what the goal needs, however small. The in and out goals guard each other
/// whatever their order (AutoMQ scores them as one group), so fixing one
/// does not skew the other.
///
/// Per-broker budget (PlannerConfig::broker_actions_max): a broker that has
/// spent it is skipped, as the broker being fixed and as a partner, so the
/// plan moves on to the next heaviest (lightest) broker and the next best
/// partners instead of trying its replicas: a heavy broker out of budget
/// costs O(1), not a search.

#include "goals/network_distribution.h"

#include <memory>

namespace ballast::goals {

void NetworkDistributionGoal::optimize(GoalContext& context) const {
    PlanningState& state = context.state();
    if (state.eligible_count() < 2) return;
    // Moves among eligible brokers keep the total: the band holds for the whole run.
    const Band b = band(state);
    Band target = band(state, balance_margin);
    double replicas_total = 0;
    double leaders_total = 0;
    for (uint32_t broker = 0; broker < state.broker_count(); broker++) {
        if (!state.broker(broker).eligible) continue;
        replicas_total += state.broker(broker).replica_count;
        leaders_total += state.broker(broker).leader_count;
    }
    target.replicas_mean = replicas_total / state.eligible_count();
    target.leaders_mean = leaders_total / state.eligible_count();
    if (has_goal(state.config(), GoalKind::replica_count_distribution)) {
        target.replicas_floor =
            count_band_floor(target.replicas_mean * (1 - state.config().replica_count_avg_deviation));
    }
    const PlannerConfig& config = state.config();
    const double trivial = (_resource == Resource::network_in ? config.network_in_trivial_change_ratio
                                                              : config.network_out_trivial_change_ratio) *
                           b.mean;
    const Resource resource = _resource;
    auto leads = [](const PlanningState& s, uint32_t p, uint32_t b) {
        return s.leader(p) == static_cast<int32_t>(b);
    };
    auto transferable = [](const PlanningState& s, uint32_t p) { return s.partition(p).replica_count > 1; };
    Lists lists{
        ReplicaLists(state, [=](const PlanningState& s, uint32_t p, uint32_t b) {
            return leads(s, p, b) ? 0.0 : load_of(s.replica_load_on(p, b), resource);
        }, true, ListFor::moves),
        ReplicaLists(state, [=](const PlanningState& s, uint32_t p, uint32_t b) {
            return leads(s, p, b) ? load_of(s.replica_load_on(p, b), resource) : 0.0;
        }, true, ListFor::moves),
        ReplicaLists(state, resource_key(resource), true, ListFor::moves),
        ReplicaLists(state, [=](const PlanningState& s, uint32_t p, uint32_t b) {
            return leads(s, p, b) && transferable(s, p) ? leader_shift(s, p) : 0.0;
        }, true, ListFor::leader_changes),
        ReplicaLists(state, [=](const PlanningState& s, uint32_t p, uint32_t b) {
            return !leads(s, p, b) && transferable(s, p) && s.leader(p) >= 0 ? leader_shift(s, p) : 0.0;
        }, true, ListFor::leader_changes),
        ReplicaLists(state, load_per_byte_key(resource), true, ListFor::moves, resource),
    };

    // Heavy brokers shed, heaviest first; then the brokers below the band
    // as shedding left them pull, lightest first (one that handed away a
    // heavy leadership may have passed below it).
    std::vector<std::pair<double, uint32_t>> heavy;
    for (const auto& [value, broker] : state.order_by(_resource)) {
        if (!target.fine(value) && value > b.mean) heavy.emplace_back(-value, broker);
    }
    std::sort(heavy.begin(), heavy.end());
    for (int phase = 0; phase < 2; phase++) {
        const bool shedding = phase == 0;
        std::vector<std::pair<double, uint32_t>> light;
        for (const auto& [value, broker] : state.order_by(_resource)) {
            if (shedding || value >= b.mean) break;
            if (!target.fine(value)) light.emplace_back(value, broker);
        }
        for (const auto& [unused, broker] : shedding ? heavy : light) {
            if (!context.budget_left()) return;
            if (target.fine(load(state, broker))) continue;  // fixed on the way
            if (!context.broker_budget_left(broker)) continue;  // spent as a partner: next plan
            const size_t mark = context.mark();
            const double start = load(state, broker);
            // Per-broker budgets (its own, or its partners') ended the fix early.
            bool cut_short = false;
            // Each step applies one action (touching a partition no later
            // step may touch) or ends the loop: at most one per partition.
            const size_t steps_max = static_cast<size_t>(state.partition_count()) + 1;
            for (size_t step = 0; step < steps_max; step++) {
                if (target.fine(load(state, broker)) || !context.plan_has_room()) break;
                if (!context.broker_budget_left(broker)) {
                    cut_short = true;  // the rest next plan
                    break;
                }
                bool partners_spent = false;
                const bool acted = step_between(context, lists, target, broker, shedding, partners_spent);
                if (!acted) {
                    cut_short = partners_spent;
                    break;
                }
            }
            const bool part_of_a_fix = cut_short && target.excess(start) >= trivial;
            const bool trivial_change = std::abs(load(state, broker) - start) < trivial;
            if (trivial_change && !part_of_a_fix && !b.fine(load(state, broker))) context.undo_to(mark);
        }
    }
}

bool NetworkDistributionGoal::step_between(GoalContext& context, Lists& lists, const Band& b, uint32_t broker,
                                           bool shedding, bool& partners_spent) const {
    PlanningState& state = context.state();
    // Partners in order, found as the tries reach them; an action ends the step.
    const PlanningState::LoadOrder& order = state.order_by(_resource);
    // Partners that spent their budget could take no action: left out.
    auto keep = [&](double, uint32_t partner) {
        if (context.broker_budget_left(partner)) return true;
        partners_spent = true;
        return false;
    };
    auto stop = [&](double value, uint32_t) { return shedding ? value >= b.mean : value <= b.mean; };
    if (shedding) {
        PartnerWalk partners(state, order.begin(), order.end(), broker, keep, stop);
        return step_with(context, lists, b, broker, shedding, partners);
    }
    PartnerWalk partners(state, order.rbegin(), order.rend(), broker, keep, stop);
    return step_with(context, lists, b, broker, shedding, partners);
}

template <class Partners>
bool NetworkDistributionGoal::step_with(GoalContext& context, Lists& lists, const Band& b, uint32_t broker,
                                        bool shedding, Partners& partners) const {
    PlanningState& state = context.state();
    if (!partners.has(0)) return false;
    if (_resource == Resource::network_out && (transfer_leadership(context, lists, b, broker, shedding) ||
                                               chain_leadership(context, lists, b, broker, shedding))) {
        return true;
    }

    if (cheapest_copy(context, lists, b, broker, shedding, partners)) return true;

    // Moves: replicas in best-fit order for the best-placed partner; each
    // tried with every partner in order (a replica a guard refuses for one
    // broker, say the rack goal, often fits the next). Off `broker` when
    // shedding; when filling, the replica comes off each partner in turn.
    for (ReplicaLists* candidates : {&lists.followers, &lists.leaders}) {
        auto best_fit = [&](uint32_t s, uint32_t d, EntryVisitor visit) {
            const double ideal = std::min(ideal_amount(state, b, s, d), per_replica(state, b, s, d));
            visit_fewest_bytes_first(state, s, candidates->of(s), ideal, narrowing_limit(state, s, d), visit);
        };
        if (move_one(context, b, broker, shedding, partners, best_fit, false)) return true;
    }

    for (size_t i = 0; i < swap_destinations_max && partners.has(i); i++) {
        const uint32_t s = shedding ? broker : partners[i];
        const uint32_t d = shedding ? partners[i] : broker;
        const double ideal = ideal_amount(state, b, s, d);
        const double gap = narrowing_limit(state, s, d);
        ReplicaList& theirs = lists.all.of(d);
        // Mine from the largest down; theirs so that mine - theirs is
        // close to the ideal amount and within the gap.
        bool applied = false;
        uint32_t refusals = 0;
        visit_below_first(state, s, lists.all.of(s), std::numeric_limits<double>::infinity(), 0,
                          swap_tries_max, [&](const ReplicaEntry& mine) {
            visit_above_first(state, d, theirs, mine.value - ideal, mine.value - gap,
                              std::nextafter(mine.value, 0.0), swap_tries_max,
                              [&](const ReplicaEntry& other) {
                const Candidate c = state.swap(mine.partition, s, other.partition, d);
                if (!improves(state, b, c)) return false;
                applied = context.try_apply(c);
                if (!applied && refused_by_rack(context)) refusals++;
                return applied || refusals >= partner_refusals_max;
            });
            return applied || refusals >= partner_refusals_max;
        });
        if (applied) return true;
    }
    partners.all();  // partners_spent: every partner seen
    return false;
}

template <class Partners, class Walk>
bool NetworkDistributionGoal::move_one(GoalContext& context, const Band& b, uint32_t broker, bool shedding,
                                       Partners& partners, Walk walk, bool keep_spread) const {
    PlanningState& state = context.state();
    bool applied = false;
    if (shedding) {
        // Per partner reached, in a vector the goal keeps from step to step.
        std::vector<Reached>& reached = _reached;
        reached.clear();
        walk(broker, partners[0], [&](const ReplicaEntry& e) {
            // The replica copies the same bytes to whichever partner takes
            // it: first to one where its topic's spread holds, so the topic
            // goal has less to mend afterwards (at a copy each). Each partner
            // is judged as the first pass reaches it: the first that takes
            // the replica spares the later ones' lookups.
            const TopicSpreadOfMove topic(state, e.partition, broker);
            const GoalContext::Placement placement = context.placement_of(e.partition, broker);
            auto try_to = [&](size_t i) {
                const Candidate c = state.move(e.partition, broker, partners[i], false);
                return improves(state, b, c) && context.try_apply(c);
            };
            for (size_t i = 0; partners.has(i); i++) {
                const uint32_t d = partners[i];
                if (i == reached.size()) reached.emplace_back();
                Reached& r = reached[i];
                r.fit = 0;
                if (r.open == 0) r.open = context.moves_refused(broker, d) ? 2 : 1;
                if (r.open == 2 || placement.refuses(d)) continue;
                const bool keeps = topic.keeps(d);
                if (keep_spread && !keeps) continue;
                r.fit = keeps ? 1 : 2;
                if (r.fit == 1 && try_to(i)) return applied = true;
            }
            for (size_t i = 0; i < reached.size(); i++) {
                if (reached[i].fit == 2 && try_to(i)) return applied = true;
            }
            return false;
        });
        return applied;
    }
    for (size_t i = 0; partners.has(i); i++) {
        const uint32_t s = partners[i];
        if (context.moves_refused(s, broker)) continue;  // each try would be refused (another rack)
        uint32_t refusals = 0;
        walk(s, broker, [&](const ReplicaEntry& e) {
            if (keep_spread && !keeps_topic_spread(state, e.partition, s, broker)) return false;
            const Candidate c = state.move(e.partition, s, broker, false);
            if (!improves(state, b, c)) return false;
            applied = context.try_apply(c);
            if (!applied && refused_by_rack(context)) refusals++;
            return applied || refusals >= partner_refusals_max;
        });
        if (applied) return true;
    }
    return false;
}

template <class Partners>
bool NetworkDistributionGoal::cheapest_copy(GoalContext& context, Lists& lists, const Band& b, uint32_t broker,
                                            bool shedding, Partners& partners) const {
    PlanningState& state = context.state();
    auto cheapest = [&](uint32_t s, uint32_t d, EntryVisitor visit) {
        if (!disk_allows_cheapest(state, b, s) || state.broker(s).replica_count <= b.replicas_floor) return;
        const double most = std::min({ideal_amount(state, b, s, d), per_replica(state, b, s, d),
                                      narrowing_limit(state, s, d)});
        visit_cheapest_copy_first(state, s, lists.cheapest.of(s), _resource, most, visit);
    };
    return move_one(context, b, broker, shedding, partners, cheapest, true);
}

bool NetworkDistributionGoal::disk_allows_cheapest(const PlanningState& state, const Band& b, uint32_t s) const {
    const double disk_total = state.eligible_total(Resource::disk);
    const double disk_divisor = state.eligible_usage_divisor(Resource::disk);
    if (!(disk_total > 0) || !(disk_divisor > 0) || !(b.mean > 0)) return true;
    const double disk_share = state.usage(Resource::disk, s) / (disk_total / disk_divisor);
    return disk_share <= std::max(disk_share_even, disk_share_allowance * load(state, s) / b.mean);
}

std::unique_ptr<Goal> make_network_distribution_goal(GoalKind kind) {
    assert(kind == GoalKind::network_in_usage_distribution ||
           kind == GoalKind::network_out_usage_distribution);
    return std::make_unique<NetworkDistributionGoal>(kind);
}

}  // namespace ballast::goals
