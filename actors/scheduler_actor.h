#pragma once

/// The scheduler: at each barrier the router gathers the brokers' records,
/// the executor's in-flight actions and the partitions that changed; the
/// scheduler patches its copy of the cluster model with them, runs the
/// planner, passes the plan through the cooldown gate, journals the result
/// as one ActionsPlanned event and answers the router with the accepted
/// actions. Config changes and operator commands reach it from the router in
/// stream order, so its settings as of a barrier are the same in a replay.
///
/// The engine runs it on a thread of its own at a lower priority
/// (actors/thread_priority.h): the stream keeps flowing while a round reads the table
/// and plans (partition and broker state pass a barrier), and on a busy
/// machine the stream, whose latency is what an operator feels, goes first;
/// the round takes what is left. Priority changes when a decision comes,
/// never what it is.

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>
#include <caf/response_promise.hpp>

#include "actors/engine_config.h"
#include "actors/engine_snapshot.h"
#include "actors/messages.h"
#include "actors/partition_table.h"
#include "goals/planner_types.h"
#include "store/journal.h"

namespace ballast::actors {

struct SchedulerState {
    static inline const char* name = "scheduler";
    const PartitionTable* table = nullptr;
    events::Config config = events::Config::defaults();
    std::vector<std::string> overrides;  // replay's --set, applied after every change
    EngineSettings settings;
    SchedulerMemory memory;
    caf::actor journal;
    std::function<void(const events::Event&)> on_decision;
    /// Recovery: barrier seqs whose ActionsPlanned the journal already holds.
    std::set<uint64_t> journaled_barriers;

    // The model and how it maps to the partition table.
    goals::ClusterModel model;
    std::vector<uint32_t> model_slots;      // model partition index -> table slot
    std::vector<uint32_t> slot_to_model;    // table slot -> model index (UINT32_MAX: absent)
    std::vector<std::string> router_topics; // the router's topic names by index
    bool structure_dirty = true;            // partitions added, removed or resized
    /// Model indexes whose replicas and leader were projected from an action
    /// in flight at the last barrier: filled from their slots again first.
    std::vector<uint32_t> projected;
};

caf::behavior scheduler_actor(caf::stateful_actor<SchedulerState>* self, const PartitionTable* table,
                              caf::actor journal, events::Config config,
                              std::vector<std::string> overrides, SchedulerMemory memory,
                              std::set<uint64_t> journaled_barriers,
                              std::function<void(const events::Event&)> on_decision,
                              store::BackgroundPriority background_priority);

/// Converts a planner action to the event form (names instead of indexes).
events::Action to_event_action(const goals::ClusterModel& model, const goals::Action& action,
                               uint64_t action_id);

}  // namespace ballast::actors

