#pragma once

/// Random scenarios for deterministic simulation testing: each seed gives a
/// cluster (3-9 brokers in 1-3 racks, a few topics of RF 1-3), traffic
/// (constant, steps, ramps), and a disturbed first part of the run (broker
/// crashes and restarts, flapping brokers, a broker added, traffic shifts,
/// lost and late metrics, failing and stuck admin calls, engine kills),
/// in about a third of the seeds broker capacities tight enough for the
/// capacity goals to act, then a quiet tail in which nothing changes and no fault is injected, so
/// that convergence can be checked. The same seed always gives the same scenario.

#include <cstdint>

#include "adapters/sim/sim_scenario.h"
#include "events/result.h"

namespace ballast::sim {

/// Time from the last disturbance to the end of a random scenario.
inline constexpr int64_t random_quiet_tail_ms = 1'500'000;

/// When the disturbed part of a random scenario ends (its last timed event
/// and engine kill happen before this).
int64_t random_disturbed_until_ms(const Scenario& scenario);

events::Result<Scenario> random_scenario(uint64_t seed);

}  // namespace ballast::sim
