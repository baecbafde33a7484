/// RackAwareGoal (hard): no rack holds more than `rack_limit(p)` replicas of
/// a partition: one when the usable racks are at least RF, else
/// ceil(RF / racks) (as even as the racks allow; a cluster without racks
/// never violates it).
///
/// A partition's rack excess is the sum over racks of max(0, count - limit);
/// it is satisfied at zero. Accepts an action when no touched partition's
/// excess grows and none goes from zero to more. Optimize: scan partitions
/// in order; for each with excess, move one replica out of the most crowded
/// rack (a follower first, then the leader) to the least loaded eligible
/// broker (network in) in a rack below the limit; repeat while it helps.
/// Sources and destinations that spent their per-broker budget
/// (PlannerConfig::broker_actions_max) are skipped; a partition that only
/// they could fix waits for the next plan and is not reported unfixable.
/// A partition whose copy could not finish (apache, `copy_estimate.h`) is
/// reported unfixable, naming its produce rate and the throttle.

#include <algorithm>
#include <array>
#include <cassert>
#include <optional>
#include <string>
#include <vector>

#include "goals/goal.h"

namespace ballast::goals {
namespace {

/// How the excess of `p` changes when its replica on `from` goes to `to`:
/// only the two racks involved change, so one pass over the replicas.
int32_t rack_excess_change(const PlanningState& state, uint32_t p, uint32_t from, uint32_t to) {
    const uint32_t from_rack = state.broker(from).rack;
    const uint32_t to_rack = state.broker(to).rack;
    if (from_rack == to_rack) return 0;
    if (const uint32_t set = state.rack_set(p); set != PlanningState::rack_set_unknown) {
        // One replica a rack: `from`'s rack holds one and keeps none, `to`'s
        // holds one or none, and a second crowds it only at a limit of one.
        return to_rack < 32 && (set >> to_rack & 1) != 0 && state.rack_limit(p) == 1 ? 1 : 0;
    }
    const std::span<const uint32_t> holders = state.replicas(p);
    int32_t from_count = 0;
    int32_t to_count = 0;
    if (holders.size() == 3) {  // the usual RF, unrolled: asked of nearly every move tried
        const uint32_t racks[3] = {state.broker(holders[0]).rack, state.broker(holders[1]).rack,
                                   state.broker(holders[2]).rack};
        from_count = (racks[0] == from_rack) + (racks[1] == from_rack) + (racks[2] == from_rack);
        to_count = (racks[0] == to_rack) + (racks[1] == to_rack) + (racks[2] == to_rack);
    } else {
        for (uint32_t b : holders) {
            from_count += state.broker(b).rack == from_rack;
            to_count += state.broker(b).rack == to_rack;
        }
    }
    const int32_t limit = static_cast<int32_t>(state.rack_limit(p));
    auto over = [limit](int32_t count) { return std::max(0, count - limit); };
    return over(to_count + 1) - over(to_count) + over(from_count - 1) - over(from_count);
}

class RackAwareGoal final : public Goal {
public:
    RackAwareGoal() : Goal(GoalKind::rack_aware) {}

    bool satisfied(const PlanningState& state) const override {
        if (const std::optional<uint32_t> crowded = state.rack_crowded()) return *crowded == 0;
        for (uint32_t p = 0; p < state.partition_count(); p++) {
            if (state.excluded(p)) continue;
            if (state.rack_excess(p) > 0) return false;
        }
        return true;
    }

    bool accepts(const PlanningState& state, const Candidate& c) const override {
        switch (c.kind) {
            case ActionKind::leader: return true;
            case ActionKind::move: return rack_excess_change(state, c.partition, c.source, c.destination) <= 0;
            case ActionKind::swap:
                return rack_excess_change(state, c.partition, c.source, c.destination) <= 0 &&
                       rack_excess_change(state, c.swap_partition, c.destination, c.source) <= 0;
        }
        return false;
    }

    bool accepts_net_changes(const PlanningState&, std::span<const BrokerChange>) const override {
        return true;  // totals say nothing of racks: each move is judged by accepts
    }
    bool judges_placement() const override { return true; }

    bool refuses_move(const PlanningState& state, uint32_t p, uint32_t s, uint32_t d) const override {
        return rack_excess_change(state, p, s, d) > 0;
    }
    /// rack_excess_change per destination rack, from one count of the
    /// partition's replicas per rack.
    std::optional<uint64_t> refused_racks(const PlanningState& state, uint32_t p, uint32_t s) const override {
        if (const uint32_t set = state.rack_set(p); set != PlanningState::rack_set_unknown) {
            // As rack_excess_change: the racks holding one, at a limit of one.
            return state.rack_limit(p) == 1 ? set & ~(uint64_t{1} << state.broker(s).rack) : 0;
        }
        const uint32_t racks = state.rack_count();
        if (racks > 64) return std::nullopt;
        std::array<int32_t, 64> counts;
        std::fill(counts.begin(), counts.begin() + racks, 0);
        for (uint32_t b : state.replicas(p)) counts[state.broker(b).rack]++;
        const int32_t limit = static_cast<int32_t>(state.rack_limit(p));
        auto over = [limit](int32_t count) { return std::max(0, count - limit); };
        const uint32_t from = state.broker(s).rack;
        const int32_t leaving = over(counts[from] - 1) - over(counts[from]);
        uint64_t refused = 0;
        for (uint32_t r = 0; r < racks; r++) {
            if (r != from && over(counts[r] + 1) - over(counts[r]) + leaving > 0) refused |= uint64_t{1} << r;
        }
        return refused;
    }

    bool refuses_pairs() const override { return true; }
    /// Off a broker all of whose partitions are closed (rack_open), any
    /// move to an eligible broker in another rack crowds that rack.
    bool refuses_every_move(const PlanningState& state, uint32_t s, uint32_t d, const Load&) const override {
        return state.broker(d).eligible && state.broker(s).rack != state.broker(d).rack && state.rack_open(s) == 0;
    }

    void optimize(GoalContext& context) const override {
        PlanningState& state = context.state();
        for (uint32_t p = 0; p < state.partition_count(); p++) {
            if (!context.budget_left()) return;
            if (state.excluded(p) || state.rack_excess(p) == 0) continue;
            if (!state.movable(p)) continue;  // in flight or cooling down: next round
            if (!state.copyable(p)) {
                // Only a move repairs a rack, and this one would never finish.
                context.unfixable(p, -1, "replicas crowd a rack, and it cannot move: " + state.copy_refusal(p));
                continue;
            }
            repair(context, p);
        }
    }

private:
    enum class Repair : uint8_t { applied, out_of_budget, impossible };

    /// Moves replicas of `p` out of crowded racks while that lowers its excess.
    void repair(GoalContext& context, uint32_t p) const {
        PlanningState& state = context.state();
        const uint32_t replica_count = state.partition(p).replica_count;
        // One move lowers the excess by one; the excess is < RF.
        for (uint32_t step = 0; step < replica_count; step++) {
            if (state.rack_excess(p) == 0 || !state.movable(p)) return;
            const Repair result = repair_once(context, p);
            if (result == Repair::out_of_budget) return;  // next plan
            if (result == Repair::impossible) {
                context.unfixable(p, -1,
                                  "replicas crowd a rack and no eligible broker in a rack with "
                                  "room can take one within the hard goals");
                return;
            }
        }
    }

    Repair repair_once(GoalContext& context, uint32_t p) const {
        PlanningState& state = context.state();
        std::span<const uint32_t> slots = state.replicas(p);
        // A move that would help but touches a broker out of budget.
        bool out_of_budget = false;
        // Sources: replicas in a crowded rack, followers before the leader.
        std::vector<uint32_t> sources;
        for (int leaders = 0; leaders < 2; leaders++) {
            for (uint32_t b : slots) {
                const bool leads = state.leader(p) == static_cast<int32_t>(b);
                if (leads != (leaders == 1) || !state.broker(b).gives_for_repair()) continue;
                uint32_t same = 0;
                for (uint32_t other : slots) same += state.broker(other).rack == state.broker(b).rack;
                if (same <= state.rack_limit(p)) continue;
                // Sources give for repair, so they are alive and counted.
                if (!context.broker_budget_left(b)) {
                    out_of_budget = true;
                    continue;
                }
                sources.push_back(b);
            }
        }
        if (sources.empty()) return out_of_budget ? Repair::out_of_budget : Repair::impossible;
        // A destination stands in a rack with room for one more replica of p
        // and is eligible. O(racks x RF) instead of the O(B) walk when no such
        // broker has budget left (a plan whose budgets are mostly spent scans
        // the rest of the partitions at this cost).
        bool room = false;
        bool room_with_budget = false;
        for (uint32_t rack = 0; rack < state.rack_count(); rack++) {
            uint32_t here = 0;
            for (uint32_t b : slots) here += state.broker(b).rack == rack;
            if (here >= state.rack_limit(p)) continue;
            room = room || state.eligible_in_rack(rack) > 0;
            room_with_budget = room_with_budget || state.eligible_with_budget_in_rack(rack) > 0;
        }
        if (!room) return Repair::impossible;
        if (!room_with_budget) return Repair::out_of_budget;
        for (uint32_t source : sources) {
            // Least loaded first; every eligible broker is a candidate (bounded by B).
            for (const auto& [load, destination] : state.order_by(Resource::network_in)) {
                if (state.holds(destination, p)) continue;
                if (rack_excess_change(state, p, source, destination) >= 0) continue;
                if (!context.broker_budget_left(destination)) {
                    out_of_budget = true;
                    continue;
                }
                if (context.try_apply(state.move(p, source, destination, false), true)) return Repair::applied;
            }
        }
        return out_of_budget ? Repair::out_of_budget : Repair::impossible;
    }
};

}  // namespace

std::unique_ptr<Goal> make_rack_aware_goal() { return std::make_unique<RackAwareGoal>(); }

}  // namespace ballast::goals
