#pragma once

/// The scheduler's `ClusterModel`, kept in step with the partition table at
/// each barrier: the partitions that changed are patched in place, the ones
/// that appeared, disappeared or changed replication factor are merged in
/// or out, and only a change of exclusions (or the first round) rebuilds the
/// whole model. Then in-flight actions are projected and backed-off
/// partitions held, both undone at the next barrier.

#include "actors/messages.h"
#include "actors/scheduler_actor.h"

namespace ballast::actors {

/// Brings `st.model`'s partitions to the table as of `input`'s barrier.
void update_partitions(SchedulerState& st, const PlanInput& input);

}  // namespace ballast::actors
