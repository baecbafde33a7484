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
/// Accepting (as a guard, and for its own moves): a touched broker that is
/// fine stays fine; the touched brokers' total excess does not grow; and no
/// touched broker ends farther from the mean than the farthest broker is now.
/// The last rule means no action of this or any lower goal ever widens the
/// distribution (its largest deviation from the mean never grows).
///
/// Optimize (AutoMQ's algorithm, best-fit instead of largest-first, plus
/// leader changes and swaps): brokers above the band, heaviest first, shed
/// to the lightest brokers below the mean (up to 64 per rack); then brokers
/// below the band as shedding left them, lightest first, pull from the
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
/// A broker found outside the band is brought to within 90% of it (Cruise
/// Control's balance margin): small drifts then do not trigger again at
/// once, and the other direction, which moves along, is less likely to be
/// left just outside its own band. If the actions for one broker change its
/// load by less than trivial_change_ratio x mean in total, they are taken
/// back (AutoMQ: not worth moving); except when per-broker budgets cut the
/// fix short and the fix the broker needs (its distance to the target) is
/// not trivial: then they are the first part of a fix the next plans finish
/// (with 10,000 replicas a broker, 5 moves are always trivial). The in and out goals guard each other
/// whatever their order (AutoMQ scores them as one group), so fixing one
/// does not skew the other.
///
/// Per-broker budget (PlannerConfig::broker_actions_max): a broker that has
/// spent it is skipped, as the broker being fixed and as a partner, so the
/// plan moves on to the next heaviest (lightest) broker and the next best
/// partners instead of trying its replicas: a heavy broker out of budget
/// costs O(1), not a search.

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <limits>
#include <vector>

#include "goals/goal.h"
#include "goals/goal_search.h"

namespace ballast::goals {
namespace {

/// The fraction of the band a fix aims for (see above).
constexpr double balance_margin = 0.9;
/// Partitions tried per end of a leadership chain (chain_leadership): up to
/// 8 x (RF - 1) middles x 8 x (RF - 1) candidate chains per step, each
/// judged on three brokers' loads before one is built and the guards are
/// asked. A failed search runs before every move of this goal, so it must
/// stay cheap: on a 1M-partition RF3 cluster, 16 per end took 22% more plan
/// time than 8 for about the same plan.
constexpr uint32_t chain_tries_max = 8;
/// Followers of one partition a chain may end on (RF <= 9 sees them all).
constexpr size_t followers_max = 8;
/// How much heavier in disk than in load (each over its mean) a broker may
/// be and still shed its cheapest copies (disk_allows_cheapest). Shedding
/// only short-retention data keeps the long-retention data, so the disk
/// share grows as the load share falls; at 1 a broker turns to best fit
/// (replicas of every retention) as soon as its disk is the heavier, and
/// disk ends more even than Cruise Control leaves it. Looser copies fewer
/// bytes and leaves disk less even (bench/README.md measures the trade).
constexpr double disk_share_allowance = 1.0;

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

    double excess(double load) const {
        if (quiet) return std::max(0.0, load - std::max(upper, threshold));
        return std::max({0.0, lower - load, load - upper});
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
double leader_shift(const PlanningState& state, uint32_t p) {
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
        if (give >= 1 && state.broker(s).replica_count > std::ceil(b.replicas_mean * (1 + deviation))) {
            per = std::min(per, (load(state, s) - b.mean) * state.usage_divisor(_resource, s) / give);
        }
        if (take >= 1 && state.broker(d).replica_count < std::floor(b.replicas_mean * (1 - deviation))) {
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
        const bool outside = shedding ? leaders > std::ceil(b.leaders_mean * (1 + deviation))
                                      : leaders < std::floor(b.leaders_mean * (1 - deviation));
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

    bool accepts_changes(const PlanningState& state, std::span<const BrokerChange> changes) const {
        const Band b = band(state);
        const double deviation_limit = deviation_max(state, b) + b.tolerance;
        double excess_before = 0;
        double excess_after = 0;
        for (const BrokerChange& change : changes) {
            const uint32_t broker = change.broker;
            if (!state.broker(broker).eligible) continue;  // outside the distribution
            const double before = load(state, broker);
            const double after = before + delta(state, change);
            if (b.fine(before) && b.excess(after) > b.tolerance) return false;
            if (std::abs(after - b.mean) > deviation_limit) return false;
            excess_before += b.excess(before);
            excess_after += b.excess(after);
        }
        return excess_after <= excess_before + b.tolerance;
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

    void optimize(GoalContext& context) const override {
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
            ReplicaLists(state, load_per_byte_key(resource), true, ListFor::moves),
        };

        // Heavy brokers shed, heaviest first; then the brokers below the band
        // as shedding left them pull, lightest first (one that handed away a
        // heavy leadership may have passed below it).
        std::vector<std::pair<double, uint32_t>> heavy;
        for (const auto& [value, broker] : state.order_by(_resource)) {
            if (!b.fine(value) && value > b.mean) heavy.emplace_back(-value, broker);
        }
        std::sort(heavy.begin(), heavy.end());
        for (int phase = 0; phase < 2; phase++) {
            const bool shedding = phase == 0;
            std::vector<std::pair<double, uint32_t>> light;
            for (const auto& [value, broker] : state.order_by(_resource)) {
                if (shedding || value >= b.mean) break;
                if (!b.fine(value)) light.emplace_back(value, broker);
            }
            for (const auto& [unused, broker] : shedding ? heavy : light) {
                if (!context.budget_left()) return;
                if (b.fine(load(state, broker))) continue;  // fixed on the way
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
                if (std::abs(load(state, broker) - start) < trivial && !part_of_a_fix) context.undo_to(mark);
            }
        }
    }

private:
    /// One action between `broker` and the other side: when `shedding`,
    /// `broker` is the source and destinations are the lightest brokers below
    /// the mean; else it is the destination and sources are the heaviest
    /// above the mean. Moves first, then swaps. `partners_spent`: a partner
    /// was left out because it spent its per-broker budget.
    bool step_between(GoalContext& context, Lists& lists, const Band& b, uint32_t broker,
                      bool shedding, bool& partners_spent) const {
        PlanningState& state = context.state();
        // Partners in order; copied because applying an action reorders the index.
        const PlanningState::LoadOrder& order = state.order_by(_resource);
        // Partners that spent their budget could take no action: left out.
        auto keep = [&](double, uint32_t partner) {
            if (context.broker_budget_left(partner)) return true;
            partners_spent = true;
            return false;
        };
        auto stop = [&](double value, uint32_t) { return shedding ? value >= b.mean : value <= b.mean; };
        const std::vector<uint32_t> partners =
            shedding ? collect_partners(state, order.begin(), order.end(), broker, keep, stop)
                     : collect_partners(state, order.rbegin(), order.rend(), broker, keep, stop);

        if (partners.empty()) return false;
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
            bool applied = false;
            if (shedding) {
                const double ideal =
                    std::min(ideal_amount(state, b, broker, partners[0]), per_replica(state, b, broker, partners[0]));
                const double gap = narrowing_limit(state, broker, partners[0]);
                visit_fewest_bytes_first(state, broker, candidates->of(broker), ideal, gap,
                                         [&](const ReplicaEntry& e) {
                    for (uint32_t d : partners) {
                        const Candidate c = state.move(e.partition, broker, d, false);
                        if (improves(state, b, c) && context.try_apply(c)) return applied = true;
                    }
                    return false;
                });
                if (applied) return true;
                continue;
            }
            for (uint32_t s : partners) {
                const double ideal = std::min(ideal_amount(state, b, s, broker), per_replica(state, b, s, broker));
                const double gap = narrowing_limit(state, s, broker);
                uint32_t refusals = 0;
                visit_fewest_bytes_first(state, s, candidates->of(s), ideal, gap, [&](const ReplicaEntry& e) {
                    const Candidate c = state.move(e.partition, s, broker, false);
                    if (!improves(state, b, c)) return false;
                    applied = context.try_apply(c);
                    if (!applied && refused_by_rack(context)) refusals++;
                    return applied || refusals >= partner_refusals_max;
                });
                if (applied) return true;
            }
        }

        const size_t swap_partners = std::min<size_t>(partners.size(), swap_destinations_max);
        for (size_t i = 0; i < swap_partners; i++) {
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
        return false;
    }

    /// The first try at a move: the replica, leader or follower, that copies
    /// the fewest bytes for the load it shifts (visit_cheapest_copy_first),
    /// no more than the ideal amount and per_replica, and that keeps its
    /// topic's spread (so the topic goal need not copy more to undo it).
    /// Only off a source whose disk share allows it (disk_allows_cheapest).
    bool cheapest_copy(GoalContext& context, Lists& lists, const Band& b, uint32_t broker, bool shedding,
                       const std::vector<uint32_t>& partners) const {
        PlanningState& state = context.state();
        bool applied = false;
        if (shedding) {
            if (!disk_allows_cheapest(state, b, broker)) return false;
            const double most = std::min({ideal_amount(state, b, broker, partners[0]),
                                          per_replica(state, b, broker, partners[0]),
                                          narrowing_limit(state, broker, partners[0])});
            visit_cheapest_copy_first(state, broker, lists.cheapest.of(broker), _resource, most,
                                      [&](const ReplicaEntry& e) {
                for (uint32_t d : partners) {
                    if (!keeps_topic_spread(state, e.partition, broker, d)) continue;
                    const Candidate c = state.move(e.partition, broker, d, false);
                    if (improves(state, b, c) && context.try_apply(c)) return applied = true;
                }
                return false;
            });
            return applied;
        }
        for (uint32_t s : partners) {
            if (!disk_allows_cheapest(state, b, s)) continue;
            const double most = std::min({ideal_amount(state, b, s, broker), per_replica(state, b, s, broker),
                                          narrowing_limit(state, s, broker)});
            uint32_t refusals = 0;
            visit_cheapest_copy_first(state, s, lists.cheapest.of(s), _resource, most, [&](const ReplicaEntry& e) {
                if (!keeps_topic_spread(state, e.partition, s, broker)) return false;
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

    /// May `s` shed its cheapest copies? Only while its disk usage over the
    /// mean is at most disk_share_allowance x its load over the mean (always,
    /// without disk figures). A broker that sheds only short-retention data
    /// keeps its long-retention data, so its disk share grows as its load
    /// share falls; past the allowance it moves by best fit, which takes
    /// replicas of every retention.
    bool disk_allows_cheapest(const PlanningState& state, const Band& b, uint32_t s) const {
        const double disk_total = state.eligible_total(Resource::disk);
        const double disk_divisor = state.eligible_usage_divisor(Resource::disk);
        if (!(disk_total > 0) || !(disk_divisor > 0) || !(b.mean > 0)) return true;
        const double disk_share = state.usage(Resource::disk, s) / (disk_total / disk_divisor);
        return disk_share <= disk_share_allowance * load(state, s) / b.mean;
    }

    /// Out only: hand leadership of one partition from a heavy broker to a
    /// follower on a lighter one. Shedding: `broker` gives up a partition it
    /// leads to its lightest follower; filling: `broker` takes over a
    /// partition it follows from a leader above the mean.
    bool transfer_leadership(GoalContext& context, Lists& lists, const Band& b, uint32_t broker,
                             bool shedding) const {
        PlanningState& state = context.state();
        // In bytes/s: what takes `broker` to the mean, and all it carries.
        const double divisor = state.usage_divisor(_resource, broker);
        const double own = load(state, broker) * divisor;
        const double mean = b.mean * divisor;
        bool applied = false;
        if (shedding) {
            visit_below_first(state, broker, lists.led.of(broker), per_leadership(state, b, broker, own - mean, true),
                              own, replica_tries_max,
                              [&](const ReplicaEntry& e) {
                std::vector<std::pair<double, uint32_t>> followers;
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
    bool chain_leadership(GoalContext& context, Lists& lists, const Band& b, uint32_t broker, bool shedding) const {
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

    /// The eligible followers of `p` other than `leader`, lightest first, the
    /// first followers_max of them; their count. In a fixed array: this runs
    /// for every candidate chain.
    size_t lightest_followers(const PlanningState& state, uint32_t p, uint32_t leader,
                              std::array<uint32_t, followers_max>& out) const {
        std::array<std::pair<double, uint32_t>, followers_max> followers;
        size_t count = 0;
        for (uint32_t f : state.replicas(p)) {
            if (count == followers_max) break;
            if (f != leader && state.broker(f).eligible) followers[count++] = {load(state, f), f};
        }
        std::sort(followers.begin(), followers.begin() + static_cast<std::ptrdiff_t>(count));
        for (size_t i = 0; i < count; i++) out[i] = followers[i].second;
        return count;
    }

    Resource _resource;
};

}  // namespace

std::unique_ptr<Goal> make_network_distribution_goal(GoalKind kind) {
    assert(kind == GoalKind::network_in_usage_distribution ||
           kind == GoalKind::network_out_usage_distribution);
    return std::make_unique<NetworkDistributionGoal>(kind);
}

}  // namespace ballast::goals
