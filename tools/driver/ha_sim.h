#pragma once

/// High availability in simulated time: several instances (actors::HaNode),
/// each with its own journal, share one simulated journal log with Kafka's
/// election and fencing (sim::SimHaLog) and one simulated cluster. Faults
/// drawn from the seed: the leader killed (abandoned without draining, its
/// session left to time out, started again later on its journal), paused
/// past the session timeout and resumed (a zombie: it is first fed what its
/// sources would feed it, acting on its stale belief that it leads, before
/// it polls the election), and stopped cleanly (a handover); and an instance
/// that joins late with an empty journal, after the log's retention cut
/// everything before a snapshot.
///
/// Checked at every admin call (the promises of ha_ports.h): the caller is
/// the log's current writer (at most one instance acts per epoch, and never
/// a fenced one); the call's intent (ActionSubmitted of that action and
/// attempt) was committed in the caller's epoch; no action attempt is
/// submitted twice. Checked at the end: every standby decided every round
/// it made exactly as the leader did, and every instance's journal holds
/// exactly the log's events.

#include <cstdint>
#include <string>
#include <vector>

#include "adapters/sim/sim_cluster.h"
#include "adapters/sim/sim_ha_log.h"
#include "events/config.h"
#include "events/result.h"

namespace ballast::driver {

struct HaSimOptions {
    sim::Scenario scenario;
    events::Config config = events::Config::defaults();
    std::string dir;  // each instance's journal goes in a folder of its own here
    uint32_t instances = 3;
    int64_t until_ms = -1;  // -1: the scenario's duration
    sim::SimHaSettings ha;
};

struct HaSimSummary {
    int64_t simulated_ms = 0;
    uint32_t kills = 0;
    uint32_t pauses = 0;
    uint32_t handovers = 0;
    uint32_t late_joins = 0;
    uint32_t promotions = 0;
    uint32_t demotions = 0;
    uint64_t submissions = 0;
    uint64_t calls_refused = 0;        // by the lease or the election, in a deposed leader
    uint64_t fenced_publications = 0;  // a deposed leader's publications the log refused
    uint64_t decisions_matched = 0;    // standby rounds equal to the leader's
    uint64_t log_last_seq = 0;
    /// Each broken promise: what, who, when.
    std::vector<std::string> violations;
    sim::SimCluster::Counters cluster;
};

events::Result<HaSimSummary> run_ha_simulation(const HaSimOptions& options);

}  // namespace ballast::driver
