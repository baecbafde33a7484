#include <algorithm>
#include <cassert>

#include "goals/planner_types.h"

namespace ballast::goals {

namespace {

void set_replicas(ClusterModel& m, uint32_t index, const std::vector<int32_t>& after, int32_t from, int32_t to,
                  bool revives) {
    Partition& p = m.partitions[index];
    assert(after.size() == p.replica_count);
    int32_t* slots = m.replicas.data() + p.replica_begin;
    std::copy(after.begin(), after.end(), slots);
    if (from >= 0 && from != to) {
        p.left_broker = from;
        p.left_ms = m.now_ms;
    }
    p.out_of_sync_slots = 0;  // planned on as if every copy had caught up, as the scheduler projects
    if (p.leader == from || revives) {
        if (p.leader >= 0) {
            p.left_leader = p.leader;
            p.left_leader_ms = m.now_ms;
        }
        p.leader = to;
    }
}

}  // namespace

ClusterModel apply_actions(const ClusterModel& model, const std::vector<Action>& actions, Flavor flavor) {
    ClusterModel out = model;
    apply_actions_to(out, actions, flavor);
    return out;
}

void apply_actions_to(ClusterModel& out, const std::vector<Action>& actions, Flavor flavor) {
    for (const Action& a : actions) {
        Partition& p = out.partitions[a.partition];
        switch (a.kind) {
            case ActionKind::move: {
                const bool revives = p.leader < 0 && a.evacuation && flavor == Flavor::automq;
                set_replicas(out, a.partition, a.replicas_after, a.source, a.destination, revives);
                break;
            }
            case ActionKind::swap:
                set_replicas(out, a.partition, a.replicas_after, a.source, a.destination, false);
                set_replicas(out, a.swap_partition, a.swap_replicas_after, a.destination, a.source, false);
                break;
            case ActionKind::leader: {
                std::copy(a.replicas_after.begin(), a.replicas_after.end(), out.replicas.begin() + p.replica_begin);
                p.left_leader = p.leader;
                p.left_leader_ms = out.now_ms;
                p.leader = a.destination;
                break;
            }
        }
    }
}

}  // namespace ballast::goals
