#pragma once

/// The goal interface, and the context a goal optimizes in. Private to goals/.
///
/// A goal answers three questions about the working state:
///   - `satisfied`: does the cluster, as the plan leaves it so far, meet me?
///   - `accepts`: would I let this action happen? Every action a goal
///     proposes must be accepted by its guards: every configured hard goal,
///     every soft goal of higher priority, and itself. Hard goals accept an
///     action when nothing they judge that is fine becomes wrong and nothing
///     wrong gets worse; so a plan never breaks a hard goal the input met.
///     Soft goals judge the same way against their band, so a lower goal
///     never makes a higher one worse.
///   - `accepts_net_changes`: would I let actions happen together (a chain:
///     A hands a partition's leadership to B, B another's to C; an exchange:
///     A gives B one heavy replica for several light ones), judged by each
///     touched broker's net change under the same rules as `accepts`? The
///     middle broker of a chain passes outside a band for a moment and ends
///     about where it was, and so does either side of an exchange; judged
///     one by one, some action would be refused for that moment. Only soft
///     goals are asked: a hard goal judges each action of a group by
///     `accepts`, since it must hold after every action, and so does a goal
///     that judges where replicas go, not only how much a broker carries
///     (`judges_placement`: racks, a topic's spread).
///   - `optimize`: propose actions that improve me, apply each one that the
///     guards accept, until I am satisfied, nothing helps, or the plan is
///     full (PlannerConfig::actions_max).
///
/// Goals are stateless between calls: everything they judge by (means,
/// bands, orders) is kept current by PlanningState, so a goal can guard
/// while another optimizes.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "goals/planning_state.h"

namespace ballast::goals {

/// Unfixable findings, capped at PlannerConfig::unfixable_max.
class Findings {
public:
    explicit Findings(uint32_t max) : _max(max) {}
    void add(uint32_t partition, int32_t broker_id, GoalKind goal, std::string reason);
    std::vector<Unfixable>& list() { return _list; }
    uint32_t omitted() const { return _omitted; }

private:
    uint32_t _max = 0;
    std::vector<Unfixable> _list;
    uint32_t _omitted = 0;
};

class Goal;

/// What a goal optimizes with: the state, its guards, the plan's budget.
class GoalContext {
public:
    GoalContext(PlanningState& state, GoalKind goal, std::vector<const Goal*> guards, Findings& findings);

    PlanningState& state() { return _state; }
    const PlanningState& state() const { return _state; }
    GoalKind goal() const { return _goal; }

    /// Room for one more action in the plan (PlannerConfig::actions_max).
    bool plan_has_room() const { return _state.action_count() < _state.config().actions_max; }
    /// Room for one more balancing action or repair: the plan has room and
    /// some eligible broker has per-broker budget left (every such action
    /// lands on one). A goal stops when this turns false; evacuations, which
    /// may land on stale brokers, check plan_has_room and their hosts.
    bool budget_left() const { return plan_has_room() && _state.eligible_with_budget() > 0; }
    /// May one more action of this plan touch broker `b`
    /// (PlannerConfig::broker_actions_max)? Goals skip brokers that may not,
    /// as sources and as partners, instead of trying their replicas.
    bool broker_budget_left(uint32_t b) const { return _state.broker_budget_left(b); }
    /// Applies `c` if the plan has room, every broker it counts against has
    /// budget left, it is valid (`repair`: a hard goal may take from brokers
    /// that do not balance, see PlanningState::valid) and every guard
    /// accepts it. Returns whether it was applied.
    bool try_apply(const Candidate& c, bool repair = false);
    /// Applies balancing actions of different partitions as one step: each
    /// valid and within the brokers' budgets (an action counts against them
    /// as it would alone), each accepted by every hard guard and each move
    /// by every guard that judges placement, on the state the actions
    /// before it leave (the executor may run them apart: a hard goal holds
    /// after every action), and every soft guard accepting their net change
    /// (Goal::accepts_net_changes). Recorded in order. Returns whether all
    /// were applied; else none.
    bool try_apply_group(std::span<const Candidate> actions);
    /// Is `c` valid, within budget and placed as the placement guards allow,
    /// on the state as it stands? A cheap filter while a goal collects a
    /// group (try_apply_group judges each action again in its turn).
    bool placement_allows(const Candidate& c) const;
    /// Does a guard refuse every move from `s` to `d` of a replica whose
    /// load is at least `least` (Goal::refuses_every_move)? Then try_apply
    /// would refuse each of them. `least` zero: whatever the replica.
    bool moves_refused(uint32_t s, uint32_t d, const Load& least = Load{}) const;
    /// The pair guard whose refusal moves_refused last returned (the first
    /// pair guard before any): whether it refuses by one side alone is what
    /// a search remembers of the pair (PairRefusals).
    const Goal* last_move_refuser() const { return _pair_guards[_last_move_refuser]; }
    /// Does a guard refuse every move off `s` of a replica whose load is
    /// at least `least`, to any broker (Goal::refuses_giving)? Then
    /// moves_refused(s, d, least) holds for every `d`.
    bool gives_refused(uint32_t s, const Load& least) const;
    /// Does a guard refuse every move to `d` of a replica whose load is at
    /// least `least`, from any broker (Goal::refuses_taking)? Then
    /// moves_refused(s, d, least) holds for every `s`.
    bool takes_refused(uint32_t d, const Load& least) const;
    /// Does a guard that judges placement refuse moving `p`'s replica from
    /// `s` to `d` (Goal::refuses_move)? Then try_apply would refuse the
    /// move. Cheaper than building the candidate: a search that does not
    /// count refusals skips such moves first (with racks as many as RF, a
    /// replica can move only within its own rack).
    bool move_refused(uint32_t p, uint32_t s, uint32_t d) const { return move_refuser(p, s, d) != nullptr; }
    /// The first guard that judges placement and refuses that move, or nullptr.
    const Goal* move_refuser(uint32_t p, uint32_t s, uint32_t d) const;

    /// move_refused for one replica and many destinations: a guard that
    /// judges by the destination's rack alone (Goal::refused_racks) is
    /// asked once, for the racks it refuses; the others per destination.
    /// Holds while the state does (a search asks it between two applies).
    class Placement {
    public:
        Placement(const GoalContext& context, uint32_t p, uint32_t s);
        /// Asked of every partner for every replica tried: the rack answer inline.
        bool refuses(uint32_t d) const {
            if (_racks >> _context._state.broker(d).rack & 1) return true;
            return _by_rack != _by_rack_all && refused_beyond_racks(d);
        }

    private:
        bool refused_beyond_racks(uint32_t d) const;
        const GoalContext& _context;
        uint32_t _p;
        uint32_t _s;
        uint64_t _racks = 0;      // bit r: a guard refuses every broker of rack r
        uint32_t _by_rack = 0;    // bit i: _placement_guards[i] answered by rack
        uint32_t _by_rack_all = 0;  // a bit for each placement guard
    };
    Placement placement_of(uint32_t p, uint32_t s) const { return Placement(*this, p, s); }
    /// A group of two leader changes (a leadership chain).
    bool try_apply_chain(const Candidate& first, const Candidate& second);
    /// The guard that refused the last candidate try_apply turned down
    /// (nullptr: it was invalid, over a broker's budget, or the plan was full).
    const Goal* last_refusal() const { return _last_refusal; }

    /// Marks the plan so far; `undo_to(mark)` takes back what came after.
    size_t mark() const { return _state.action_count(); }
    void undo_to(size_t mark);

    void unfixable(uint32_t partition, int32_t broker_id, std::string reason) {
        _findings.add(partition, broker_id, _goal, std::move(reason));
    }

private:
    PlanningState& _state;
    GoalKind _goal;
    std::vector<const Goal*> _guards;
    std::vector<const Goal*> _placement_guards;  // those of _guards that judge placement
    std::vector<const Goal*> _pair_guards;       // those of _guards that refuse pairs (refuses_pairs)
    Findings& _findings;
    const Goal* _last_refusal = nullptr;
    std::vector<BrokerChange> _net;  // try_apply_group's, reused from group to group
    mutable size_t _last_move_refuser = 0;  // index in _pair_guards, see moves_refused
};

class Goal {
public:
    explicit Goal(GoalKind kind) : _kind(kind) {}
    virtual ~Goal() = default;
    Goal(const Goal&) = delete;
    Goal& operator=(const Goal&) = delete;

    GoalKind kind() const { return _kind; }
    bool hard() const { return goal_is_hard(_kind); }

    virtual bool satisfied(const PlanningState& state) const = 0;
    virtual bool accepts(const PlanningState& state, const Candidate& c) const = 0;
    /// `net`: one entry per touched broker, distinct.
    virtual bool accepts_net_changes(const PlanningState& state, std::span<const BrokerChange> net) const = 0;
    /// Does this goal judge which broker holds which replica, beyond the
    /// totals a net change carries? Then each move of a group is judged
    /// by `accepts` too, on the state the moves before it left.
    virtual bool judges_placement() const { return false; }
    /// Would this goal refuse every move of one replica from `s` to `d` as
    /// the state stands, whichever replica it is, of those whose load is at
    /// least `least` in every resource? A goal that judges a move by the two
    /// brokers' replica counts alone knows that per pair; a load goal whose
    /// rule for one broker, once broken by a load, stays broken by every
    /// larger one, knows it from the least load. A search then skips the
    /// pair instead of trying each of its candidates
    /// (GoalContext::moves_refused). False when unsure: only a speed-up.
    virtual bool refuses_every_move(const PlanningState&, uint32_t /*s*/, uint32_t /*d*/,
                                    const Load& /*least*/) const {
        return false;
    }
    /// Does this goal answer refuses_every_move, refuses_giving or
    /// refuses_taking? A goal that overrides any says so here, or
    /// GoalContext never asks it: the searches ask millions of times, most
    /// guards have nothing to say, and each asking is a virtual call.
    virtual bool refuses_pairs() const { return false; }
    /// Would it refuse every move off `s` of a replica whose load is at
    /// least `least`, whatever the destination (by `s`'s side alone)? Then
    /// refuses_every_move holds for every `d`: a search that offers one
    /// source's replicas to many partners stops before asking each. False
    /// when unsure: only a speed-up (GoalContext::gives_refused).
    virtual bool refuses_giving(const PlanningState&, uint32_t /*s*/, const Load& /*least*/) const { return false; }
    /// The same by `d`'s side alone: would it refuse every move to `d` of
    /// a replica whose load is at least `least`, whatever the source? Then
    /// refuses_every_move holds for every `s`. Both sides are judged by the
    /// broker's own load and counts and by figures that stay put or only
    /// narrow during a plan (a band, a capacity), so an answer of true holds
    /// while no action touches the broker's partitions
    /// (PlanningState::holder_epoch) and for any larger `least`: a search
    /// that meets a refusing partner step after step asks once (PartnerRefusals).
    /// False when unsure: only a speed-up (GoalContext::takes_refused).
    virtual bool refuses_taking(const PlanningState&, uint32_t /*d*/, const Load& /*least*/) const { return false; }
    /// The part of `least` that this goal's refuses_giving and
    /// refuses_taking depend on, the other resources zero: a refusal found
    /// for `least` holds for every load at least that part. A load goal
    /// judges one resource, a count goal none; so a partner refused for one
    /// replica is known refused for the next, lighter in the other
    /// resources (PairRefusals remembers this, not `least`).
    virtual Load side_refusal_floor(const Load& least) const { return least; }
    /// For a goal that judges placement by the destination's rack alone
    /// (refuses_move the same for every broker of a rack): the racks it
    /// refuses moving `p`'s replica from `s` to, as bits (rack index r: bit
    /// r). Nullopt when it judges otherwise, or past 64 racks
    /// (GoalContext::Placement).
    virtual std::optional<uint64_t> refused_racks(const PlanningState&, uint32_t /*p*/, uint32_t /*s*/) const {
        return std::nullopt;
    }
    /// For a goal that judges placement: would it refuse moving `p`'s
    /// replica from `s` to `d` (as `accepts` would judge that move)? False
    /// when unsure: only a speed-up (GoalContext::move_refused).
    virtual bool refuses_move(const PlanningState&, uint32_t /*p*/, uint32_t /*s*/, uint32_t /*d*/) const {
        return false;
    }
    virtual void optimize(GoalContext& context) const = 0;
    /// Runs before any soft goal optimizes, guarded as optimize() is: the
    /// part of the goal's fix that is also load the goals above it must
    /// move anyway (TopicSpread). None by default.
    virtual void optimize_early(GoalContext& /*context*/) const {}

private:
    GoalKind _kind;
};

std::unique_ptr<Goal> make_rack_aware_goal();
std::unique_ptr<Goal> make_replica_capacity_goal();
std::unique_ptr<Goal> make_capacity_goal(GoalKind kind);  // network in / out, disk
std::unique_ptr<Goal> make_network_distribution_goal(GoalKind kind);
std::unique_ptr<Goal> make_replica_count_goal();
std::unique_ptr<Goal> make_leader_count_goal();
std::unique_ptr<Goal> make_topic_spread_goal();
std::unique_ptr<Goal> make_goal(GoalKind kind);

}  // namespace ballast::goals
