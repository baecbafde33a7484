#pragma once

/// The capacity goals' promise, checked through a simulated run: a plan's
/// accepted actions never take a broker that was within a capacity limit
/// over it. The limits are the goals' own (goals/goal_capacity.cc):
///
/// - ReplicaCapacityGoal: replicas on the broker <= replicas_max; judged on
///   every alive broker (counts come from metadata);
/// - NetworkIn/NetworkOut/DiskCapacityGoal: load <= capacity x
///   `ballast.capacity.threshold`; judged on alive brokers whose metrics are
///   fresh (newer than `autobalancer.controller.metrics.delay.ms`): a stale
///   broker's load is not known, and an evacuation may use it as a last
///   resort. A capacity of 0 is unknown: not judged.
///
/// What "load" is: the cluster's own reports as the engine received them
/// (the newest sample of each partition, the metadata it was sent), summed
/// per broker the way a replica loads its broker (goals/cluster_model.h:
/// every replica takes bytes in and holds the size; the leader sends bytes
/// out plus a copy per follower). Not the simulator's live rates: a capacity
/// goal can only keep a promise about load it has been told of, and traffic
/// ramps between two reports. This is an independent account, kept from
/// the event stream, not read from the engine.
///
/// "Before" is the cluster as the planner plans on it: every action the
/// engine still tracks (planned, not yet completed, failed for good, timed
/// out or cancelled) counted as done, as the scheduler projects it. "After"
/// adds the plan's accepted actions, in order. Only the accepted ones: the
/// gate may release a later action of a plan and hold an earlier one that
/// made room for it, and that is a break too.

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "actors/engine_config.h"
#include "adapters/sim/sim_scenario.h"
#include "events/config.h"
#include "events/event.h"
#include "goals/cluster_model.h"

namespace ballast::driver {

class CapacityCheck {
public:
    CapacityCheck(const events::Config& config, sim::Flavor flavor);

    /// Some broker has some capacity: there is something to check.
    bool active() const { return _active; }

    /// What the cluster told the engine this step (metadata, metrics,
    /// outcomes), in order; before the step's decisions.
    void observe_fed(const events::Event& event);
    /// The step's decisions that end actions (timeouts, cancels); before
    /// the step's plans are checked (the executor applies a tick's timeouts
    /// before the scheduler's barrier of that tick).
    void observe_ended(const events::Event& decided);

    /// Checks one plan's accepted actions at `now_ms`; returns the breaks
    /// ("broker 3 over NetworkInCapacityGoal: ..."). Then tracks the actions
    /// as in flight, as the executor does.
    std::vector<std::string> check(const events::ActionsPlanned& plan, int64_t now_ms);

    /// Whether every judged broker still has room, under each limit, for
    /// the largest replica (or one more replica) at `now_ms`. When one has
    /// not, the capacity goals may be what keeps the load outside the
    /// balance band: the balance is not judged.
    bool leaves_room(int64_t now_ms) const;

    uint64_t plans_checked() const { return _plans_checked; }

private:
    using Key = std::pair<std::string, int32_t>;
    struct Placement {
        std::vector<int32_t> replicas;  // preference order
        int32_t leader = -1;
    };
    struct BrokerView {
        bool alive = false;
        int64_t metrics_time_ms = -1;
    };
    /// Per broker: replicas, bytes in/s, bytes out/s, bytes held (in the
    /// order of the .cc's Resource).
    using Totals = std::array<double, 4>;

    bool fresh(int32_t broker_id, int64_t now_ms) const;
    goals::Partition partition_load(const Key& key, size_t replica_count) const;
    std::map<int32_t, Totals> totals(const std::map<Key, Placement>& placement) const;
    std::map<Key, Placement> projected() const;
    void apply_planned(std::map<Key, Placement>& placement, const events::Action& action) const;
    void end(uint64_t action_id);

    actors::EngineSettings _settings;
    sim::Flavor _flavor;
    bool _active = false;
    std::map<Key, Placement> _reported;  // as metadata said
    std::map<Key, events::PartitionSample> _samples;  // rates: the window's load, as the engine's
    std::map<Key, actors::LoadWindow> _windows;
    std::map<Key, int64_t> _sample_time_ms;
    std::map<int32_t, BrokerView> _brokers;
    std::map<uint64_t, events::Action> _inflight;  // the executor's, by id
    std::set<uint64_t> _ended;                     // ended before (or as) they were tracked
    uint64_t _plans_checked = 0;
};

}  // namespace ballast::driver
