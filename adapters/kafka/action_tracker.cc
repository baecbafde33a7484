#include "adapters/kafka/action_tracker.h"

#include <algorithm>

#include "actors/admin_port.h"

namespace ballast::kafka {

namespace {

bool all_in(const std::vector<int32_t>& wanted, const std::vector<int32_t>& have) {
    return std::all_of(wanted.begin(), wanted.end(), [&](int32_t id) {
        return std::find(have.begin(), have.end(), id) != have.end();
    });
}

std::string list(const std::vector<int32_t>& ids) {
    std::string out = "[";
    for (size_t i = 0; i < ids.size(); i++) out += (i ? "," : "") + std::to_string(ids[i]);
    return out + "]";
}

std::string name(const TrackedPart& part) { return part.topic + "-" + std::to_string(part.partition); }

}  // namespace

TrackedAction track(const events::Action& action, uint32_t attempt) {
    TrackedAction tracked;
    tracked.action = action;
    tracked.attempt = attempt;
    tracked.parts.push_back({action.topic, action.partition, action.replicas_after});
    if (action.kind == events::ActionKind::swap) {
        tracked.parts.push_back({action.swap_topic, action.swap_partition, action.swap_replicas_after});
    }
    tracked.phase = action.kind == events::ActionKind::leader ? TrackPhase::reordering : TrackPhase::reassigning;
    return tracked;
}

TrackStep next_step(TrackedAction& tracked, const wire::messages::ListPartitionReassignmentsResponse& moving,
                    const metadata::ClusterState& reported, int64_t now_ms, int64_t abandon_after_ms, std::string* why) {
    if (tracked.phase == TrackPhase::electing) {
        const TrackedPart& part = tracked.parts.front();
        const metadata::PartitionState* p = reported.partition(part.topic, part.partition);
        if (p && !part.target.empty() && p->leader == part.target.front() && p->replicas == part.target) {
            return TrackStep::complete;
        }
        if (now_ms - tracked.electing_since_ms >= abandon_after_ms) {
            *why = name(part) + ": broker " + std::to_string(part.target.front()) + " was elected but " +
                   (p ? "broker " + std::to_string(p->leader) : std::string("nobody")) + " still leads after " +
                   std::to_string(abandon_after_ms) + " ms";
            return TrackStep::abandoned;
        }
        return TrackStep::wait;
    }
    const bool ordered = tracked.phase == TrackPhase::reordering;
    for (TrackedPart& part : tracked.parts) {
        if (part.done) continue;
        if (moving.find(part.topic, part.partition) != nullptr) {
            part.stray_since_ms = -1;  // still running
            tracked.seen_running = true;
            continue;
        }
        const metadata::PartitionState* p = reported.partition(part.topic, part.partition);
        const bool at_target =
            p && (ordered ? p->replicas == part.target : actors::same_replica_set(p->replicas, part.target));
        // A reorder moves no data: the ISR is whatever it was.
        if (at_target && (ordered || all_in(part.target, p->isr))) {
            part.done = true;
            continue;
        }
        if (part.stray_since_ms < 0) part.stray_since_ms = now_ms;
        if (now_ms - part.stray_since_ms >= abandon_after_ms) {
            *why = name(part) + ": no reassignment runs, yet " +
                   (p ? "the replicas are " + list(p->replicas) + " (in sync " + list(p->isr) + ")"
                      : std::string("the partition is not in metadata")) +
                   ", not the target " + list(part.target) + ", after " + std::to_string(abandon_after_ms) +
                   " ms: cancelled or replaced outside Ballast, or a target replica is out of sync";
            return TrackStep::abandoned;
        }
    }
    const bool all_done =
        std::all_of(tracked.parts.begin(), tracked.parts.end(), [](const TrackedPart& part) { return part.done; });
    if (!all_done) return TrackStep::wait;
    if (ordered) {
        tracked.phase = TrackPhase::electing;
        tracked.electing_since_ms = now_ms;
        return TrackStep::elect;
    }
    return TrackStep::complete;
}

}  // namespace ballast::kafka
