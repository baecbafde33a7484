#pragma once

/// The planner's working copy of the cluster: what the plan so far has done
/// to the immutable `ClusterModel`. Private to goals/.
///
/// The model stays untouched; the state overlays it with
///   - each partition's replicas as broker indexes (positions in
///     ClusterModel::brokers) and its leader, changed by every applied action;
///   - per-broker aggregates (load, replica and leader counts) kept current
///     incrementally, so no goal rescans partitions to learn a broker's load;
///   - for the brokers that take part in balancing ("eligible": alive, fresh
///     metrics, not excluded, not draining), their totals and four ordered
///     indexes (by network in, network out, replica count, leader count), so
///     a goal finds the most and least loaded broker at once (broker_order.h);
///   - per topic, how many of its replicas each broker holds (only when the
///     topic spread goal runs), as a sorted sparse list per topic.
///
/// Every action is applied through `apply` and can be taken back with
/// `undo_last` (AutoMQ drops a broker's moves when their sum is trivial).
/// A partition is touched by at most one balancing action per plan: Kafka
/// runs one reassignment per partition at a time, and it keeps undo simple.
/// Evacuation may move several replicas of one partition (the gate releases
/// them one batch after another).
///
/// Sizes at 1,000,000 partitions RF3 on 300 brokers: replicas overlay 12 MB,
/// broker -> partitions index 12 MB + leaders 4 MB + marks 1 MB (2 MB with a
/// replication throttle on apache: which partitions can be copied) + the
/// racks of each partition 4 MB (with two racks or more); topic
/// counts <= 8 bytes per replica in the worst case (24 MB). Building it is a
/// few linear passes over the replicas.

#include <array>
#include <cassert>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "goals/broker_order.h"
#include "goals/cluster_model.h"
#include "goals/planner_types.h"

namespace ballast::goals {

inline constexpr uint32_t no_broker = UINT32_MAX;
inline constexpr uint32_t no_partition = UINT32_MAX;
inline constexpr int32_t no_leader = -1;

/// The three loads a broker carries.
enum class Resource : uint8_t { network_in = 0, network_out, disk };

inline double load_of(const Load& load, Resource resource) {
    switch (resource) {
        case Resource::network_in: return load.bytes_in_per_s;
        case Resource::network_out: return load.bytes_out_per_s;
        case Resource::disk: return load.size_bytes;
    }
    return 0;
}

inline Load operator+(const Load& a, const Load& b) {
    return {a.bytes_in_per_s + b.bytes_in_per_s, a.bytes_out_per_s + b.bytes_out_per_s,
            a.size_bytes + b.size_bytes};
}
inline Load operator-(const Load& a, const Load& b) {
    return {a.bytes_in_per_s - b.bytes_in_per_s, a.bytes_out_per_s - b.bytes_out_per_s,
            a.size_bytes - b.size_bytes};
}

/// What the planner knows about one broker.
struct BrokerState {
    Load load;                 // sum of replica_load() over its replicas, now
    int32_t replica_count = 0;
    int32_t leader_count = 0;
    uint32_t rack = 0;
    bool alive = false;        // liveness == alive
    bool dead = false;         // not alive for its grace (broker_stability.h)
    bool unstable = false;     // flapping: takes no load (broker_stability.h)
    bool fresh = false;        // metrics no older than metrics_delay_ms
    bool excluded = false;
    bool draining = false;
    /// Takes part in balancing: gives and takes load for every goal.
    bool eligible = false;
    /// What its network in and out loads are divided by for the
    /// distribution goals: its capacity when they balance utilization
    /// (PlanningState::relative), else 1.
    double in_divisor = 1;
    double out_divisor = 1;

    /// Its replicas are planned away first.
    bool evacuating() const { return !excluded && (dead || (alive && draining)); }
    /// May receive an evacuated replica. Stale metrics do not forbid it (an
    /// operator wants availability back); they only rank it last.
    bool hosts_evacuees() const { return alive && !excluded && !draining && !unstable; }
    /// May give a replica to repair a hard goal (even with stale metrics).
    bool gives_for_repair() const { return alive && !excluded; }
};

/// An action under consideration with its effect on the two brokers it
/// touches (index 0: source, 1: destination), before it is applied.
struct Candidate {
    ActionKind kind = ActionKind::move;
    uint32_t partition = no_partition;
    uint32_t swap_partition = no_partition;  // swap only
    uint32_t source = no_broker;             // broker index
    uint32_t destination = no_broker;        // broker index
    bool evacuation = false;
    Load load_delta[2];
    int32_t replica_delta[2] = {0, 0};
    int32_t leader_delta[2] = {0, 0};
    int32_t leader_after = no_leader;        // of `partition`, broker index
    int32_t swap_leader_after = no_leader;   // of `swap_partition`

    uint32_t broker(int side) const { return side == 0 ? source : destination; }
};

/// One broker's net change under actions judged together (a leadership
/// chain, a count exchange: GoalContext::try_apply_group): what its load and counts gain
/// (negative: lose).
struct BrokerChange {
    uint32_t broker = no_broker;
    Load load_delta;
    int32_t replica_delta = 0;
    int32_t leader_delta = 0;
};

/// The two brokers' changes under `c`.
inline std::array<BrokerChange, 2> changes_of(const Candidate& c) {
    return {BrokerChange{c.source, c.load_delta[0], c.replica_delta[0], c.leader_delta[0]},
            BrokerChange{c.destination, c.load_delta[1], c.replica_delta[1], c.leader_delta[1]}};
}

/// The replica counts every move from `s` to `d` changes, whatever the
/// replica (loads and leadership left out): enough for a goal that judges
/// a move by replica counts alone (Goal::refuses_every_move).
inline std::array<BrokerChange, 2> move_count_changes(uint32_t s, uint32_t d) {
    return {BrokerChange{s, Load{}, -1, 0}, BrokerChange{d, Load{}, +1, 0}};
}

/// The net change of actions judged together, per broker, each broker once
/// (the middle broker of a leadership chain is in both; the two brokers of
/// an exchange are in every move of it), into `net` (cleared first: a
/// caller that judges many groups reuses one vector).
inline void net_changes(std::span<const Candidate> actions, std::vector<BrokerChange>& net) {
    net.clear();
    for (const Candidate& action : actions) {
        for (const BrokerChange& change : changes_of(action)) {
            size_t i = 0;
            while (i < net.size() && net[i].broker != change.broker) i++;
            if (i == net.size()) net.push_back({change.broker, Load{}, 0, 0});
            BrokerChange& sum = net[i];
            sum.load_delta = sum.load_delta + change.load_delta;
            sum.replica_delta += change.replica_delta;
            sum.leader_delta += change.leader_delta;
        }
    }
}

/// A broker's count of one topic's replicas.
struct TopicBrokerCount {
    uint32_t broker = no_broker;
    int32_t count = 0;
};

class PlanningState {
public:
    /// Precondition: check_input(model, config) is empty. `track_topics`
    /// builds the per-topic counts (the topic spread goal needs them).
    PlanningState(const ClusterModel& model, const PlannerConfig& config, bool track_topics);

    PlanningState(const PlanningState&) = delete;
    PlanningState& operator=(const PlanningState&) = delete;

    const ClusterModel& model() const { return _model; }
    const PlannerConfig& config() const { return _config; }

    // ------------------------------------------------------------ brokers
    uint32_t broker_count() const { return static_cast<uint32_t>(_brokers.size()); }
    const BrokerState& broker(uint32_t b) const { return _brokers[b]; }
    /// Brokers treated differently than their liveness says, and when that
    /// changes by the clock alone (Plan::broker_notes, Plan::replan_at_ms).
    const std::vector<BrokerNote>& broker_notes() const { return _broker_notes; }
    int64_t replan_at_ms() const { return _replan_at_ms; }
    int32_t broker_id(uint32_t b) const { return _model.brokers[b].id; }
    const Capacity& capacity(uint32_t b) const { return _model.brokers[b].capacity; }
    /// Broker index of `id`, or no_broker.
    uint32_t broker_index(int32_t id) const;
    BrokerLoad broker_load(uint32_t b) const;
    /// Partitions whose replicas were on `b` in the model (a superset of
    /// those still there: filter with `holds`; arrivals are touched partitions).
    std::span<const uint32_t> model_partitions_of(uint32_t b) const;

    // ------------------------------------------------------------ partitions
    uint32_t partition_count() const { return static_cast<uint32_t>(_leader.size()); }
    const Partition& partition(uint32_t p) const { return _model.partitions[p]; }
    std::span<const uint32_t> replicas(uint32_t p) const {
        const Partition& partition = _model.partitions[p];
        return {_replicas.data() + partition.replica_begin, partition.replica_count};
    }
    int32_t leader(uint32_t p) const { return _leader[p]; }
    bool holds(uint32_t b, uint32_t p) const {
        for (uint32_t replica : replicas(p)) {
            if (replica == b) return true;
        }
        return false;
    }
    /// The load partition `p` puts on broker `b` as things stand (b holds p).
    Load replica_load_on(uint32_t p, uint32_t b) const {
        return replica_load(_model.partitions[p], _leader[p] == static_cast<int32_t>(b));
    }
    bool excluded(uint32_t p) const { return _model.partitions[p].excluded; }
    /// In flight, or held by the backoff of moves that keep failing: no
    /// action of any kind, evacuations included.
    bool in_flight(uint32_t p) const {
        const Partition& partition = _model.partitions[p];
        return partition.in_flight || _model.now_ms < partition.held_until_ms;
    }
    bool cooling_down(uint32_t p) const {
        const int64_t moved_ms = _model.partitions[p].last_moved_ms;
        return moved_ms >= 0 && _model.now_ms - moved_ms < _config.partition_cooldown_ms;
    }
    /// Would a balancing action put `p` back on broker index `b`, which it
    /// left less than return_block_ms ago?
    bool returns_early(uint32_t p, uint32_t b) const;
    /// The same for leadership: would a leader change hand `p` back to `b`?
    bool leadership_returns_early(uint32_t p, uint32_t b) const;
    /// Is `b`'s replica of `p` in the ISR, as the model has it
    /// (Partition::out_of_sync_slots)? Only such a replica can be elected
    /// leader; one that arrived in this plan is not (it has yet to catch up).
    bool in_sync(uint32_t p, uint32_t b) const;
    /// apache with a known throttle: a new replica of it can catch up within
    /// the copy time limit (`copy_estimate.h`). Moves and swaps, evacuations
    /// included, need it; leader changes copy nothing. Always true on automq
    /// or without a throttle.
    bool copyable(uint32_t p) const { return _uncopyable.empty() || _uncopyable[p] == 0; }
    /// Why `p` is not copyable, for Unfixable::reason. Precondition: !copyable(p).
    std::string copy_refusal(uint32_t p) const;
    /// An action of this plan moved it (evacuations count).
    bool touched(uint32_t p) const { return (_marks[p] & ~fixed_mark) != 0; }
    /// Free for a balancing action: not excluded, in flight, cooling down or touched.
    bool movable(uint32_t p) const { return _marks[p] == 0; }
    /// Asks the caches for what replica_load_on(p, ...) reads, ahead of the
    /// reading: a list build reads it for thousands of partitions scattered
    /// over the model, each a miss that stalls the build.
    void prefetch_load(uint32_t p) const {
        __builtin_prefetch(&_model.partitions[p].load);
        __builtin_prefetch(&_leader[p]);
    }

    // ------------------------------------------------------------ racks
    /// Racks with at least one alive, non-draining broker.
    uint32_t racks_usable() const { return _racks_usable; }
    /// The most replicas of `p` one rack may hold: 1 when there are at least
    /// as many usable racks as replicas, else ceil(RF / racks) (spread as
    /// evenly as the racks allow; a cluster without racks is not a violation).
    uint32_t rack_limit(uint32_t p) const {
        const uint32_t replica_count = _model.partitions[p].replica_count;
        if (_racks_usable == 0) return replica_count;
        return (replica_count + _racks_usable - 1) / _racks_usable;
    }
    /// Partitions on `b` that a move to another rack might not crowd: all
    /// but those closed, whose every rack with an eligible broker holds
    /// rack_limit of their replicas and no rack more. Zero: the rack goal
    /// refuses every move off `b` to an eligible broker in another rack (the
    /// usual RF 3 over three racks). Kept only with two racks or more and
    /// the rack goal running.
    uint32_t rack_open(uint32_t b) const { return _rack_open.empty() ? 1 : _rack_open[b]; }
    /// Replicas of `p` beyond rack_limit in their racks, summed over its racks.
    uint32_t rack_excess(uint32_t p) const;
    /// Partitions, excluded ones aside, with a rack excess: kept with
    /// rack_open, so the rack goal's satisfied needs no pass over every
    /// partition at each plan's start and end. Empty when not kept.
    std::optional<uint32_t> rack_crowded() const {
        return _rack_open.empty() ? std::nullopt : std::optional<uint32_t>(_rack_crowded);
    }
    /// The racks `p`'s replicas stand in, bit r for rack r, when each stands
    /// in a rack of its own below rack 31; else rack_set_unknown (a rack
    /// holds two, or the racks are many). Kept with rack_open: the rack
    /// goal, asked of nearly every move tried, answers the usual partition
    /// from one word instead of reading each replica's broker. Unknown when
    /// rack_open is not kept.
    static constexpr uint32_t rack_set_unknown = UINT32_MAX;
    uint32_t rack_set(uint32_t p) const { return _rack_set.empty() ? rack_set_unknown : _rack_set[p]; }
    /// Changes whenever the eligible brokers' totals may change (an apply,
    /// an undo, a recompute) and is never the same in two states: what is
    /// computed from those totals (a load goal's band) holds while it stays.
    uint64_t totals_version() const { return _totals_version; }
    /// Changes whenever an action touches (or an undo untouches) a partition
    /// `b` holds before or after it: what a search remembers about the
    /// movable replicas on `b` holds as long as this does.
    uint64_t holder_epoch(uint32_t b) const { return _holder_epoch[b]; }

    // ------------------------------------------------------------ eligible brokers
    using LoadOrder = BrokerOrder<double>;
    using CountOrder = BrokerOrder<int32_t>;
    uint32_t eligible_count() const { return _eligible_count; }
    double eligible_total(Resource resource) const;
    int64_t eligible_replicas() const { return _eligible_replicas; }
    int64_t eligible_leaders() const { return _eligible_leaders; }
    /// Whether the distribution goals balance `resource` (network in or
    /// out) relative to capacity: every eligible broker's capacity of it is
    /// known (non-zero). Then a broker's usage is its utilization, load /
    /// capacity, as Cruise Control's distribution goals balance it, and
    /// brokers of different sizes end equally loaded for their size; else
    /// it is its load, as AutoMQ's goals balance it.
    bool relative(Resource resource) const {
        return resource == Resource::network_in ? _relative_in : _relative_out;
    }
    /// Broker `b`'s load of `resource` divided by its capacity (relative) or 1.
    double usage_divisor(Resource resource, uint32_t b) const {
        return resource == Resource::network_in ? _brokers[b].in_divisor : _brokers[b].out_divisor;
    }
    double usage(Resource resource, uint32_t b) const {
        return load_of(_brokers[b].load, resource) / usage_divisor(resource, b);
    }
    /// The eligible brokers' divisors summed: their mean usage is
    /// eligible_total / this (the cluster's utilization, when relative).
    double eligible_usage_divisor(Resource resource) const {
        return resource == Resource::network_in ? _eligible_divisor_in : _eligible_divisor_out;
    }
    /// Eligible brokers ordered by (usage, index); network in and out only.
    const LoadOrder& order_by(Resource resource) const {
        assert(resource != Resource::disk && "no disk order is kept");
        return resource == Resource::network_in ? _by_in : _by_out;
    }
    const CountOrder& order_by_replicas() const { return _by_replicas; }
    const CountOrder& order_by_leaders() const { return _by_leaders; }

    // ------------------------------------------------------------ topics
    uint32_t topic_count() const { return static_cast<uint32_t>(_topic_begin.size() - 1); }
    /// Partitions of topic `t` are [first, second) in ClusterModel::partitions.
    std::pair<uint32_t, uint32_t> topic_partitions(uint32_t t) const {
        return {_topic_begin[t], _topic_begin[t + 1]};
    }
    bool tracks_topics() const { return _tracks_topics; }
    /// Brokers holding replicas of `t`, sorted by index (track_topics only).
    std::span<const TopicBrokerCount> topic_counts(uint32_t t) const;
    int32_t topic_count_on(uint32_t t, uint32_t b) const;
    /// Replicas of `t` on eligible brokers (track_topics only).
    int64_t topic_eligible_replicas(uint32_t t) const { return _topic_eligible[t]; }

    // ------------------------------------------------------------ actions
    Candidate move(uint32_t p, uint32_t source, uint32_t destination, bool evacuation) const;
    Candidate swap(uint32_t p, uint32_t source, uint32_t q, uint32_t destination) const;
    Candidate leader_change(uint32_t p, uint32_t source, uint32_t destination) const;
    /// Is `c` a well-formed action on the state as it stands: the source
    /// holds what it gives, the destination does not (a leader change: holds
    /// it, in sync), every partition is
    /// free (evacuations: not excluded and not in flight), every partition a
    /// move or swap copies is `copyable`, and the brokers
    /// may take part (balancing: eligible; evacuation: evacuating source and
    /// a destination that hosts evacuees; `repair` lets a hard goal take
    /// from any alive, non-excluded broker).
    bool valid(const Candidate& c, bool repair) const;

    // ------------------------------------------------------------ per-broker budget
    /// PlannerConfig::broker_actions_max: actions of this plan that count
    /// against broker `b`. The gate's rule: the destination always counts,
    /// the source unless it is not alive (an evacuation off a dead broker).
    uint32_t broker_actions(uint32_t b) const { return _broker_actions[b]; }
    /// May one more action of the plan touch `b`?
    bool broker_budget_left(uint32_t b) const {
        return _config.broker_actions_max == 0 || _broker_actions[b] < _config.broker_actions_max;
    }
    /// Does side 0 (source) or 1 (destination) of `c` count against its broker?
    bool counts_against_budget(const Candidate& c, int side) const {
        return side == 1 || _brokers[c.source].alive;
    }
    /// Every broker `c` counts against has budget left.
    bool within_broker_budget(const Candidate& c) const {
        if (c.source >= broker_count() || c.destination >= broker_count()) return false;
        for (int side = 0; side < 2; side++) {
            if (counts_against_budget(c, side) && !broker_budget_left(c.broker(side))) return false;
        }
        return true;
    }
    /// Eligible brokers with budget left. Every balancing action and every
    /// repair lands on an eligible broker: at zero, only evacuations (which
    /// may land on stale brokers) can still be planned.
    uint32_t eligible_with_budget() const { return _eligible_with_budget; }
    /// The same per rack, and the eligible brokers of a rack: a repair skips
    /// a partition whose racks with room hold no eligible broker with budget
    /// in O(racks), instead of walking every broker.
    uint32_t eligible_with_budget_in_rack(uint32_t rack) const { return _rack_eligible_with_budget[rack]; }
    uint32_t eligible_in_rack(uint32_t rack) const { return _rack_eligible[rack]; }
    uint32_t rack_count() const { return static_cast<uint32_t>(_rack_eligible.size()); }

    /// Applies `c` (which must be valid and within the per-broker budget)
    /// and records its Action.
    void apply(const Candidate& c, GoalKind goal);
    /// Takes back the last applied action exactly as it was applied.
    void undo_last();
    /// Actions undo_last took back so far: the partitions they touched are
    /// movable again, which an answer kept from before may not know.
    uint64_t undone() const { return _undone; }
    /// Applies `c` as `apply` does, every sum and flag the same, without
    /// recording an Action: a trial run (GoalContext::try_apply_group
    /// judges each action of a group on the state the ones before it
    /// leave), taken back with `undo_trial` before anything else applies.
    /// Most groups are turned down, and the Action's lists cost more than
    /// the change itself.
    void apply_trial(const Candidate& c);
    /// Takes back the last apply_trial exactly as `undo_last` would.
    void undo_trial();
    size_t action_count() const { return _actions.size(); }
    const std::vector<Action>& actions() const { return _actions; }
    std::vector<Action> take_actions() { return std::exchange(_actions, {}); }
    /// Room for a plan's actions before its first: mostly one a partition at
    /// most, within actions_max, so a large plan does not move its actions
    /// as the vector grows. Asked by the plan, not by every state built
    /// (violated_goals builds one and plans nothing).
    void reserve_actions();

    /// Recomputes the brokers' aggregates and the eligible totals and orders
    /// from the overlay, in the same order as the constructor, so the result
    /// is bit for bit what a state built from the plan's resulting model
    /// would hold (incremental sums of loads drift by rounding). The topic
    /// counts need no recompute: they are integers, kept exact by every
    /// action, in the same sorted form a build gives.
    void recompute_aggregates();

    /// Makes this state, after a plan on it (its sums as a build would make
    /// them, its actions taken), the one a new state of the model would be once
    /// apply_actions_to brought that model up to the plan's actions: the
    /// next round of a complete plan without a pass that rebuilds it all.
    /// The overlay, sums, orders and topic and rack counts already are that
    /// state's; what a plan spends (touched partitions, budgets, epochs) is
    /// cleared, and each broker's partitions are listed again with the ones
    /// that arrived.
    void start_next_round();

private:
    struct Undo {
        Candidate candidate;
        int32_t leader_before = no_leader;
        int32_t swap_leader_before = no_leader;
        uint32_t slot = 0;       // move/swap: slot of `partition` that changed; leader: old slot of destination
        uint32_t swap_slot = 0;  // swap: slot of `swap_partition` that changed
        // The sums as they were: an undo restores them, so a trial run
        // taken back leaves no rounding behind (x + d - d need not be x).
        Load source_load_before;
        Load destination_load_before;
        Load eligible_load_before;
    };

    /// build_overlay's per-topic part: each topic's first partition and,
    /// when topics are tracked, its replicas per broker, counted as the
    /// pass goes through the partitions (sorted by topic).
    class TopicCounter {
    public:
        explicit TopicCounter(PlanningState& state);
        void start(uint32_t p);   // partition p's replicas come next
        void count(uint32_t b) {  // one of them is on b
            if (!_state._tracks_topics) return;
            if (_scratch[b]++ == 0) _seen.push_back(b);
            if (_state._brokers[b].eligible) _state._topic_eligible[_next - 1]++;
        }
        void finish();            // after the last partition

    private:
        void flush(uint32_t t);   // topic t's partitions are all counted
        PlanningState& _state;
        std::vector<int32_t> _scratch;  // per broker, the topic being counted
        std::vector<uint32_t> _seen;    // brokers with a nonzero scratch
        uint32_t _next = 0;             // the first topic not begun yet
    };

    void build_brokers();
    void build_overlay();
    /// model_partitions_of's rows from the overlay, given where each
    /// broker's row begins (its replicas counted).
    void fill_rows(std::vector<uint32_t> begin);
    void clear_sums();  // every broker's load and counts to zero, for add_to_sums
    void add_to_sums(const Partition& partition, uint32_t b, bool leads) {
        const Load load = replica_load(partition, leads);
        BrokerState& broker = _brokers[b];
        broker.load.bytes_in_per_s += load.bytes_in_per_s;
        broker.load.bytes_out_per_s += load.bytes_out_per_s;
        broker.load.size_bytes += load.size_bytes;
        broker.replica_count++;
        broker.leader_count += leads;
    }
    void finish_aggregates();  // recompute_aggregates' part after the sums
    void totals_changed();     // a new totals_version
    void add_replica_load(uint32_t b, uint32_t p, int sign);
    void change_broker(uint32_t b, const Load& delta, int32_t replica_delta, int32_t leader_delta);
    void restore_broker(uint32_t b, const Load& load, int32_t replica_delta, int32_t leader_delta);
    void rekey(uint32_t b);
    void index_add(uint32_t b);
    void topic_add(uint32_t t, uint32_t b, int32_t delta);
    void count_action(const Candidate& c, int32_t delta);
    void touch(uint32_t p, int delta) {
        assert((_marks[p] & ~fixed_mark) + delta >= 0 && (_marks[p] & ~fixed_mark) + delta < fixed_mark);
        _marks[p] = static_cast<uint8_t>(_marks[p] + delta);
    }
    bool rack_closed(uint32_t p) const;
    /// The eligible racks, and rack_open cleared (build_overlay counts it).
    void start_rack_open();
    /// Adds `sign` to rack_open of `p`'s holders if `p` is open, and to
    /// rack_crowded if `p` has a rack excess.
    void rack_open_add(uint32_t p, int32_t sign);
    /// rack_open_add for the partitions whose holders `c` changes (none for a leader change).
    void rack_open_change(const Candidate& c, int32_t sign);
    /// Moves holder_epoch on for the holders of the partitions `c` changes,
    /// and its destination (called before an apply and after an undo).
    void holders_changed(const Candidate& c);
    /// What apply and undo_last do to the state, the Action apart.
    void apply_change(const Candidate& c);
    void undo_change();
    uint32_t slot_of(uint32_t p, uint32_t b) const;
    Action describe(const Candidate& c, GoalKind goal) const;

    const ClusterModel& _model;
    const PlannerConfig& _config;
    bool _tracks_topics = false;

    std::vector<BrokerState> _brokers;
    std::vector<BrokerNote> _broker_notes;
    int64_t _replan_at_ms = INT64_MAX;
    std::vector<int32_t> _sorted_ids;  // == broker ids, for binary search
    uint32_t _racks_usable = 0;

    std::vector<uint32_t> _replicas;   // broker indexes, parallel to model.replicas
    std::vector<int32_t> _leader;      // broker index or no_leader
    /// Per partition: fixed_mark when excluded, in flight or cooling down,
    /// plus the actions of this plan on it. One byte, so that movable(), asked
    /// of nearly every replica a search passes, reads one array.
    std::vector<uint8_t> _marks;
    static constexpr uint8_t fixed_mark = 0x80;
    std::vector<uint8_t> _uncopyable;  // apache with a throttle only (else empty): see copyable()
    std::vector<uint32_t> _broker_partition_begin;  // CSR over the model's replicas
    std::vector<uint32_t> _broker_partitions;

    uint32_t _eligible_count = 0;
    Load _eligible_load;
    int64_t _eligible_replicas = 0;
    int64_t _eligible_leaders = 0;
    bool _relative_in = false;
    bool _relative_out = false;
    double _eligible_divisor_in = 0;
    double _eligible_divisor_out = 0;
    LoadOrder _by_in;
    LoadOrder _by_out;
    CountOrder _by_replicas;
    CountOrder _by_leaders;

    std::vector<uint32_t> _topic_begin;  // topic t: partitions [begin[t], begin[t + 1])
    /// Per topic, its brokers and counts (topic_counts). With the dense
    /// counts below, an action updates only those and marks the topic
    /// stale; the list is made again when next asked for.
    mutable std::vector<std::vector<TopicBrokerCount>> _topic_counts;
    mutable std::vector<uint8_t> _topic_stale;  // per topic, with _topic_dense only
    /// The same counts, topic-major and dense (topic x broker), when that
    /// takes at most topic_dense_max entries: topic_count_on is asked for
    /// millions of (topic, broker) pairs per plan, and an index beats a
    /// binary search. Empty otherwise.
    std::vector<int32_t> _topic_dense;
    std::vector<int64_t> _topic_eligible;

    std::vector<uint32_t> _broker_actions;  // per broker, see broker_actions()
    uint32_t _eligible_with_budget = 0;
    std::vector<uint32_t> _rack_eligible;              // per rack index
    std::vector<uint32_t> _eligible_racks;             // racks with an eligible broker
    uint32_t _eligible_rack_set = 0;                   // the same as a rack_set, or rack_set_unknown
    std::vector<uint32_t> _rack_open;                  // per broker, see rack_open()
    std::vector<uint32_t> _rack_set;                   // per partition, see rack_set()
    uint64_t _undone = 0;                              // see undone()
    uint64_t _totals_version = 0;                      // see totals_version()
    std::vector<uint64_t> _holder_epoch;               // per broker, see holder_epoch()
    uint32_t _rack_crowded = 0;                        // see rack_crowded()
    std::vector<uint32_t> _rack_eligible_with_budget;  // per rack index

    std::vector<Action> _actions;
    std::vector<Undo> _undo;  // per action, then per trial (apply_trial) on top
    size_t _trials = 0;
};

}  // namespace ballast::goals
