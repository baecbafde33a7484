/// The capacity goals (hard).
///
/// ReplicaCapacityGoal: replicas on a broker <= capacity.replicas_max (0:
/// unknown, not judged). Judges alive, non-excluded brokers: replica counts
/// come from metadata, so stale metrics do not matter. Optimize: for each
/// broker over, move its replicas with the least network load first to the
/// eligible brokers with the fewest replicas that have room.
///
/// NetworkIn/NetworkOut/DiskCapacityGoal: load <= capacity x
/// capacity_threshold (capacity 0: unknown, not judged). Judges alive,
/// non-excluded brokers with fresh metrics (a stale broker's load is not
/// known). Optimize: for each broker over, most over first, move the
/// smallest replica that clears the excess (else the largest below it) to the
/// eligible broker with the most room (unknown capacity = unlimited room);
/// when no move fits, swap a big replica for a smaller one.
///
/// Per-broker budget (PlannerConfig::broker_actions_max): a broker over its
/// limit that has spent its budget is left for the next plan, destinations
/// that have spent theirs are skipped, and a broker that only they could
/// relieve is not reported unfixable (only this plan is out of room).
/// Neither is a broker that holds a replica in flight or cooling down: that
/// replica, or the room its running move makes, may be what relieves it in
/// a later round, so "cannot" would be said too early.
///
/// Accepting: a judged broker within its limit stays within (with a
/// relative margin of 1e-12, so rounding in the running sums cannot tip a
/// broker over); a broker over its limit may not gain.

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "goals/goal.h"
#include "goals/goal_search.h"

namespace ballast::goals {
namespace {

constexpr double limit_margin = 1e-12;

/// Does `s` hold a replica that is held back only for now (in flight or
/// cooling down), so that a failed shed is no proof nothing can relieve it?
bool waits_on_a_replica(const PlanningState& state, uint32_t s) {
    for (uint32_t p : state.model_partitions_of(s)) {
        if (state.holds(s, p) && (state.in_flight(p) || state.cooling_down(p))) return true;
    }
    return false;
}

class ReplicaCapacityGoal final : public Goal {
public:
    ReplicaCapacityGoal() : Goal(GoalKind::replica_capacity) {}

    static bool judged(const PlanningState& state, uint32_t b) {
        const BrokerState& broker = state.broker(b);
        return broker.alive && !broker.excluded && state.capacity(b).replicas_max > 0;
    }

    bool satisfied(const PlanningState& state) const override {
        for (uint32_t b = 0; b < state.broker_count(); b++) {
            if (judged(state, b) && state.broker(b).replica_count > state.capacity(b).replicas_max) {
                return false;
            }
        }
        return true;
    }

    bool accepts(const PlanningState& state, const Candidate& c) const override {
        return accepts_changes(state, changes_of(c));
    }

    bool accepts_net_changes(const PlanningState& state, std::span<const BrokerChange> net) const override {
        return accepts_changes(state, net);
    }

    bool refuses_pairs() const override { return true; }
    /// Every move adds one replica to `d`.
    bool refuses_every_move(const PlanningState& state, uint32_t s, uint32_t d, const Load&) const override {
        return !accepts_changes(state, move_count_changes(s, d));
    }
    bool refuses_taking(const PlanningState& state, uint32_t d, const Load&) const override {
        const BrokerChange gains{d, Load{}, +1, 0};
        return !accepts_changes(state, std::span(&gains, 1));
    }
    /// The count alone decides.
    Load side_refusal_floor(const Load&) const override { return Load{}; }

    static bool accepts_changes(const PlanningState& state, std::span<const BrokerChange> changes) {
        for (const BrokerChange& change : changes) {
            const uint32_t b = change.broker;
            if (!judged(state, b) || change.replica_delta <= 0) continue;
            // Gaining a replica: only with room left.
            if (state.broker(b).replica_count + change.replica_delta > state.capacity(b).replicas_max) {
                return false;
            }
        }
        return true;
    }

    void optimize(GoalContext& context) const override {
        PlanningState& state = context.state();
        ReplicaLists lists(state, network_key(), false, ListFor::moves);
        for (uint32_t s = 0; s < state.broker_count(); s++) {
            if (!judged(state, s) || !state.broker(s).gives_for_repair()) continue;
            const int32_t replicas_max = state.capacity(s).replicas_max;
            // Each step moves one replica or gives up: bounded by the list.
            const size_t steps_max = lists.of(s).entries.size() + 1;
            for (size_t step = 0; step < steps_max; step++) {
                if (state.broker(s).replica_count <= replicas_max) break;
                if (!context.budget_left()) return;
                if (!context.broker_budget_left(s)) break;  // the rest next plan
                bool out_of_budget = false;
                if (!shed_one(context, lists, s, out_of_budget)) {
                    if (out_of_budget || waits_on_a_replica(state, s)) break;  // the rest next plan
                    context.unfixable(UINT32_MAX, state.broker_id(s),
                                      "more replicas than capacity.replicas_max and no eligible "
                                      "broker with room can take one within the hard goals");
                    break;
                }
            }
        }
    }

private:
    /// Moves one replica off `s`; `out_of_budget` tells when a broker with
    /// room was skipped because it spent its per-broker budget.
    bool shed_one(GoalContext& context, ReplicaLists& lists, uint32_t s, bool& out_of_budget) const {
        PlanningState& state = context.state();
        uint32_t tried = 0;
        for (const auto& [count, destination] : state.order_by_replicas()) {
            const uint32_t d = destination;  // a lambda below takes it: clang captures no structured binding
            const int32_t room_max = state.capacity(d).replicas_max;
            const bool full = room_max > 0 && count >= room_max;
            // Skipped before counting: the destinations_max next in line are tried.
            if (d != s && !full && !context.broker_budget_left(d)) {
                out_of_budget = true;
                continue;
            }
            if (tried++ >= destinations_max) break;
            if (d == s || full) continue;
            if (context.moves_refused(s, d)) continue;  // each try would be refused (another rack)
            const bool moved = visit_ascending(state, s, lists.of(s), replica_tries_max,
                                               [&](const ReplicaEntry& e) {
                if (context.move_refused(e.partition, s, d)) return false;  // placed where it may not go
                return context.try_apply(state.move(e.partition, s, d, false), true);
            });
            if (moved) return true;
        }
        return false;
    }
};

class ResourceCapacityGoal final : public Goal {
public:
    explicit ResourceCapacityGoal(GoalKind kind) : Goal(kind), _resource(resource_of(kind)) {}

    static Resource resource_of(GoalKind kind) {
        switch (kind) {
            case GoalKind::network_in_capacity: return Resource::network_in;
            case GoalKind::network_out_capacity: return Resource::network_out;
            default: assert(kind == GoalKind::disk_capacity); return Resource::disk;
        }
    }

    double capacity_of(const PlanningState& state, uint32_t b) const {
        const Capacity& capacity = state.capacity(b);
        switch (_resource) {
            case Resource::network_in: return capacity.network_in_bytes_per_s;
            case Resource::network_out: return capacity.network_out_bytes_per_s;
            case Resource::disk: return capacity.disk_bytes;
        }
        return 0;
    }

    bool judged(const PlanningState& state, uint32_t b) const {
        const BrokerState& broker = state.broker(b);
        return broker.alive && broker.fresh && !broker.excluded && capacity_of(state, b) > 0;
    }

    double limit(const PlanningState& state, uint32_t b) const {
        return capacity_of(state, b) * state.config().capacity_threshold;
    }

    double load(const PlanningState& state, uint32_t b) const {
        return load_of(state.broker(b).load, _resource);
    }

    bool satisfied(const PlanningState& state) const override {
        for (uint32_t b = 0; b < state.broker_count(); b++) {
            if (judged(state, b) && load(state, b) > limit(state, b)) return false;
        }
        return true;
    }

    bool accepts(const PlanningState& state, const Candidate& c) const override {
        return accepts_changes(state, changes_of(c));
    }

    bool accepts_net_changes(const PlanningState& state, std::span<const BrokerChange> net) const override {
        return accepts_changes(state, net);
    }

    bool accepts_changes(const PlanningState& state, std::span<const BrokerChange> changes) const {
        for (const BrokerChange& change : changes) {
            const uint32_t b = change.broker;
            const double delta = load_of(change.load_delta, _resource);
            if (!judged(state, b) || delta <= 0) continue;
            const double cap = limit(state, b);
            if (load(state, b) > cap) return false;                      // over: may not gain
            if (load(state, b) + delta > cap * (1 - limit_margin)) return false;  // would go over
        }
        return true;
    }

    void optimize(GoalContext& context) const override {
        PlanningState& state = context.state();
        // Most over first, ties by index.
        std::vector<std::pair<double, uint32_t>> over;
        for (uint32_t b = 0; b < state.broker_count(); b++) {
            if (!judged(state, b) || !state.broker(b).gives_for_repair()) continue;
            const double excess = load(state, b) - limit(state, b);
            if (excess > 0) over.emplace_back(-excess, b);
        }
        std::sort(over.begin(), over.end());
        ReplicaLists lists(state, resource_key(_resource), true, ListFor::moves);
        for (const auto& [negative_excess, s] : over) {
            Rooms rooms = destinations(context, s);
            const size_t steps_max = lists.of(s).entries.size() + 1;
            for (size_t step = 0; step < steps_max; step++) {
                if (load(state, s) <= limit(state, s)) break;
                if (!context.budget_left()) return;
                if (!context.broker_budget_left(s)) break;  // the rest next plan
                const uint32_t d = shed_one(context, lists, s, rooms);
                if (d == no_broker) {
                    if (rooms.out_of_budget || waits_on_a_replica(state, s)) break;  // the rest next plan
                    context.unfixable(UINT32_MAX, state.broker_id(s),
                                      std::string("load over capacity x threshold and no move or "
                                                  "swap brings it under within the hard goals"));
                    break;
                }
                update(context, rooms, d);
            }
        }
    }

private:
    /// The brokers `s` may shed to: eligible, other than `s`, with room and
    /// per-broker budget left, most room first. Found once per broker shed
    /// and kept through its steps: an action of this goal changes the room
    /// and the budget of its destination alone (update).
    struct Rooms {
        std::vector<std::pair<double, uint32_t>> by_room;  // (-room, broker), ascending
        bool out_of_budget = false;  // a broker with room had spent its budget
    };

    double room(const PlanningState& state, uint32_t d) const {
        return capacity_of(state, d) > 0 ? limit(state, d) - load(state, d) : std::numeric_limits<double>::infinity();
    }

    Rooms destinations(const GoalContext& context, uint32_t s) const {
        const PlanningState& state = context.state();
        Rooms rooms;
        for (const auto& [count, d] : state.order_by_replicas()) {
            if (d == s) continue;
            const double r = room(state, d);
            if (!(r > 0)) continue;
            if (!context.broker_budget_left(d)) {
                rooms.out_of_budget = true;
                continue;
            }
            rooms.by_room.emplace_back(-r, d);
        }
        std::sort(rooms.by_room.begin(), rooms.by_room.end());
        return rooms;
    }

    /// `d` took an action from the broker being shed: its place by the room
    /// it has left, out when none is left or its budget is spent.
    void update(const GoalContext& context, Rooms& rooms, uint32_t d) const {
        std::vector<std::pair<double, uint32_t>>& by_room = rooms.by_room;
        by_room.erase(std::find_if(by_room.begin(), by_room.end(),
                                   [d](const std::pair<double, uint32_t>& entry) { return entry.second == d; }));
        const double r = room(context.state(), d);
        if (!(r > 0)) return;
        if (!context.broker_budget_left(d)) {
            rooms.out_of_budget = true;
            return;
        }
        const std::pair<double, uint32_t> entry{-r, d};
        by_room.insert(std::lower_bound(by_room.begin(), by_room.end(), entry), entry);
    }

    /// One move or swap off `s`: the broker it went to, or no_broker.
    uint32_t shed_one(GoalContext& context, ReplicaLists& lists, uint32_t s, const Rooms& destinations) const {
        PlanningState& state = context.state();
        const double excess = load(state, s) - limit(state, s);
        const std::vector<std::pair<double, uint32_t>>& rooms = destinations.by_room;
        const size_t move_tries = std::min<size_t>(rooms.size(), destinations_max);
        for (size_t i = 0; i < move_tries; i++) {
            const uint32_t d = rooms[i].second;
            const double room = -rooms[i].first;
            if (context.moves_refused(s, d)) continue;  // each try would be refused (another rack)
            const bool moved = visit_above_first(state, s, lists.of(s), excess, 0, room,
                                                 replica_tries_max, [&](const ReplicaEntry& e) {
                if (context.move_refused(e.partition, s, d)) return false;  // placed where it may not go
                return context.try_apply(state.move(e.partition, s, d, false), true);
            });
            if (moved) return d;
        }
        // No single replica fits anywhere: trade a big one for a smaller one.
        const size_t swap_tries = std::min<size_t>(rooms.size(), swap_destinations_max);
        for (size_t i = 0; i < swap_tries; i++) {
            const uint32_t d = rooms[i].second;
            const double room = -rooms[i].first;
            ReplicaList& theirs = lists.of(d);
            const bool swapped = visit_above_first(state, s, lists.of(s), excess, 0,
                                                   std::numeric_limits<double>::infinity(),
                                                   swap_tries_max, [&](const ReplicaEntry& mine) {
                // Net shift mine - theirs in (0, room]: theirs in [mine - room, mine).
                return visit_above_first(state, d, theirs, mine.value - excess,
                                         mine.value - room, std::nextafter(mine.value, 0.0),
                                         swap_tries_max, [&](const ReplicaEntry& other) {
                    return context.try_apply(state.swap(mine.partition, s, other.partition, d), true);
                });
            });
            if (swapped) return d;
        }
        return no_broker;
    }

    Resource _resource;
};

}  // namespace

std::unique_ptr<Goal> make_replica_capacity_goal() { return std::make_unique<ReplicaCapacityGoal>(); }
std::unique_ptr<Goal> make_capacity_goal(GoalKind kind) {
    return std::make_unique<ResourceCapacityGoal>(kind);
}

}  // namespace ballast::goals
