#pragma once

/// A broker that goes down and comes back again and again (a flapping
/// broker) must not churn the cluster: every fence would start an
/// evacuation and every return a refill, most partitions moved twice inside
/// their cooldown. So its repeated fencing raises its failure grace, and a
/// broker fenced `broker_flap_fences` times within `broker_flap_window_ms`
/// is unstable: it takes no load (no refill, no evacuees, no leadership)
/// until it has been alive for `broker_stable_ms` without a break. Pure: from
/// the broker's fence history and the plan's clock, as every round decides.

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "goals/cluster_model.h"
#include "goals/planner_types.h"

namespace ballast::goals {

struct BrokerStability {
    uint32_t fences_in_window = 0;  // fencings within broker_flap_window_ms before now
    int64_t grace_ms = 0;           // its failure grace: the base, raised by repeated fencing
    bool unstable = false;
    /// When the answer changes without an event: the raised grace runs out
    /// (fenced) or the broker has been alive long enough (unstable); else
    /// INT64_MAX. A round is due then.
    int64_t changes_at_ms = INT64_MAX;
    /// One line for the plan when it is treated differently than its
    /// liveness alone says (a raised grace, unstable) or its grace ran out
    /// (its replicas move away); else empty.
    std::string note;
};

BrokerStability broker_stability(const Broker& broker, int64_t now_ms, const PlannerConfig& config);

/// A broker's liveness becomes `next` at `time_ms`. Only a change counts (a
/// repeated "fenced" from a metadata poll must not restart the grace), and
/// each change into fenced is one fencing, newest first in `fenced_ms`. The
/// broker actor keeps its record by this rule; the simulator's checks
/// repeat it from the stream.
inline void change_liveness(Liveness& liveness, int64_t& changed_ms,
                            std::array<int64_t, Broker::fence_history>& fenced_ms, Liveness next, int64_t time_ms) {
    if (liveness == next) return;
    liveness = next;
    changed_ms = time_ms;
    if (next != Liveness::fenced) return;
    std::copy_backward(fenced_ms.begin(), fenced_ms.end() - 1, fenced_ms.end());
    fenced_ms[0] = time_ms;
}

}  // namespace ballast::goals
