#pragma once

/// The promises Ballast makes, checked against the simulated cluster's own
/// truth at every step of a run (not against the engine's view of itself):
///
/// - no action touches a partition that is being moved (unless the engine
///   cancelled that move first), or one whose last move completed less than
///   the cooldown ago, unless it evacuates a dead or draining broker;
/// - the moves running plus those just released never exceed the
///   concurrency cap, nor the per-broker cap (destination always, source
///   when alive: the gate's rule);
/// - an action never breaks rack awareness for a partition that had it;
/// - a plan never takes a broker that was within a capacity limit over it
///   (replicas, network in and out, disk: the capacity goals' limits, on
///   the loads the cluster reported; see tools/driver/sim_capacity_check.h);
/// - every action names replicas that exist and brokers that are registered;
/// - after the disturbances stop, no partition goes straight back to the
///   replicas it just left, nor leadership to the broker that just lost it
///   (ping-pong A -> B -> A within the return block);
/// - the engine settles: no action in the last 2 minutes of the quiet
///   tail (25 minutes after the disturbances stop: soft goals held by
///   cooldowns can creep for ~20 minutes in rare seeds), and where the
///   cluster allows an even spread (no rack constraint, every broker back,
///   one fanout for every topic, room left under every capacity limit) the
///   load ends in AutoMQ's band, widened by what one partition weighs on
///   either side;
/// - replaying the journal through a fresh engine reproduces every
///   decision bit for bit.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "actors/engine_config.h"
#include "adapters/sim/sim_scenario.h"
#include "events/config.h"
#include "goals/broker_stability.h"
#include "tools/driver/sim_capacity_check.h"
#include "tools/driver/sim_runner.h"

namespace ballast::driver {

struct SimVerdict {
    std::string scenario;
    std::vector<std::string> breaks;  // "t+85.000s cooldown: topic-1-4 moved 12 s after its last move"
    bool replay_checked = false;
    size_t replay_decisions = 0;
    bool replay_identical = false;
    std::string replay_error;
    bool settled = false;            // no action in the final settle window
    int64_t last_action_ms = -1;
    bool balance_checked = false;    // the cluster allows an even spread
    bool balanced = true;
    double spread_in = 0;            // max/mean at the end
    bool spread_relative = false;    // of utilization (capacities known), not of load
    double spread_out = 0;
    double spread_allowed = 0;
    bool capacity_binds = false;     // a broker ends without room under a capacity limit
    uint64_t rounds = 0;
    uint64_t actions = 0;
    uint64_t move_actions = 0;           // of kind move (copies one replica)
    uint64_t swap_actions = 0;           // of kind swap (copies two)
    uint64_t leader_actions = 0;         // of kind leader (copies nothing)
    uint64_t capacity_actions = 0;       // by the capacity goals
    uint64_t capacity_plans_checked = 0; // plans judged against capacity limits
    uint64_t unstable_plans = 0;         // plans made while a broker was unstable (flapping)
    uint32_t most_moves = 0;             // of one partition (moves and swaps)
    std::string most_moved;              // that partition

    bool ok() const { return breaks.empty() && (!replay_checked || replay_identical) && settled && balanced; }
    std::string report() const;
};

class SimChecker {
public:
    /// `quiet_from_ms`: when the scenario stops changing (traffic, brokers,
    /// faults aside); -1: never (no thrash check).
    SimChecker(const sim::Scenario& scenario, const events::Config& config, int64_t quiet_from_ms = -1);

    /// Checks one step; breaks are collected, the run goes on.
    void step(const SimStep& step);
    /// Ends the run: settling, balance, recovery, and (when `journal` is
    /// set) replay.
    SimVerdict finish(const std::string& journal, const SimRunSummary& summary);

private:
    struct Liveness {
        bool registered = false;
        int64_t down_since_ms = -1;  // fenced or unregistered since; -1: alive
    };
    /// A broker's liveness changes with their times, to judge its stability
    /// as of a plan's clock as the planner did (goals/broker_stability.h).
    struct LivenessChange {
        int64_t time_ms = 0;
        goals::Liveness liveness = goals::Liveness::alive;
    };
    goals::Broker broker_as_of(int32_t id, int64_t time_ms, bool inclusive) const;
    bool alive(int32_t id) const;
    bool dead(int32_t id, int64_t now_ms) const;
    void check_plan(const SimStep& step, const events::ActionsPlanned& plan, int64_t time_ms);
    void fail(int64_t time_ms, const std::string& what);

    sim::Scenario _scenario;
    CapacityCheck _capacity;
    actors::EngineSettings _settings;  // the brokers' capacities, for balance as the goals judge it
    int64_t _last_step_ms = 0;
    int64_t _cooldown_ms;
    int64_t _grace_ms;
    uint32_t _concurrency_max;
    uint32_t _broker_inflight_max;
    double _avg_deviation_in;
    double _avg_deviation_out;
    int64_t _settle_window_ms;
    int64_t _quiet_from_ms;
    int64_t _return_block_ms;
    // Per partition: its replica set, the one before, and when it last changed.
    std::map<std::pair<std::string, int32_t>, std::vector<int32_t>> _last_set;  // sorted
    std::map<std::pair<std::string, int32_t>, std::vector<int32_t>> _before_last_set;
    std::map<std::pair<std::string, int32_t>, int64_t> _last_change_ms;
    std::map<std::pair<std::string, int32_t>, int32_t> _last_leader;
    std::map<std::pair<std::string, int32_t>, int32_t> _before_last_leader;
    std::map<std::pair<std::string, int32_t>, int64_t> _leader_change_ms;
    std::map<std::pair<std::string, int32_t>, bool> _leader_changed_by_engine;
    std::map<std::pair<std::string, int32_t>, std::string> _last_goal;  // of the last action on it

    std::map<int32_t, Liveness> _brokers;
    std::map<int32_t, std::vector<LivenessChange>> _liveness_changes;
    std::map<std::pair<std::string, int32_t>, uint32_t> _moves;  // moves and swaps of each partition
    std::set<int32_t> _draining;
    std::map<int32_t, std::string> _racks;
    std::map<uint64_t, events::Action> _actions;                    // by id, as planned
    std::map<std::pair<std::string, int32_t>, int64_t> _last_moved;  // completion time
    std::set<uint64_t> _completed;                                   // action ids seen completed
    std::set<uint64_t> _cancelled;                                   // by the engine, not yet seen by the cluster
    SimVerdict _verdict;
    std::vector<sim::BrokerLoad> _final_loads;
    double _largest_partition_in = 0;
    double _largest_partition_out = 0;
    bool _spread_possible = true;
    bool _multi_rack = false;
};

}  // namespace ballast::driver
