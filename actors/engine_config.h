#pragma once

/// From the configuration (events::Config) to the numbers each actor uses,
/// and how a ConfigChanged event changes the configuration. Every actor that
/// needs settings applies the same ConfigChanged events in stream order, so
/// they all agree as of any sequence number.

#include <map>
#include <string>
#include <vector>

#include "actors/executor_actor.h"
#include "actors/load_window.h"
#include "events/config.h"
#include "goals/planner_types.h"

namespace ballast::actors {

struct EngineSettings {
    goals::PlannerConfig planner;
    goals::GateConfig gate;
    ExecutorSettings executor;
    bool execution_enabled = true;          // autobalancer.controller.enable
    LoadWindowSettings load_window;         // ballast.metrics.window.*: how samples make a load
    int64_t detect_interval_ms = 60'000;
    /// A round's decision takes effect at the first Tick this long after
    /// its barrier (or before an event for the scheduler, if sooner).
    int64_t decision_delay_ms = 0;
    uint64_t snapshot_interval_events = 100'000;
    uint64_t snapshot_interval_samples = 5'000'000;
    int64_t retention_ms = 0;      // ballast.journal.retention.ms
    int64_t snapshot_spacing_ms = 3'600'000;  // ballast.journal.snapshot.spacing.ms; 0: keep every snapshot
    uint64_t retention_bytes = 0;  // ballast.journal.retention.bytes; 0: no size bound
    goals::Capacity default_capacity;
    /// `ballast.broker.capacity.overrides`: a broker listed here has these
    /// capacities (fields not given keep the default); the rest the default.
    std::map<int32_t, goals::Capacity> broker_capacity;
    std::vector<int32_t> excluded_broker_ids;
    std::vector<std::string> excluded_topics;
};

EngineSettings settings_from(const events::Config& config);

/// The capacity of broker `id` under `settings`.
goals::Capacity capacity_of(const EngineSettings& settings, int32_t id);

/// Applies a ConfigChanged event, then `overrides` ("key=value", replay's
/// --set) on top so they always win. An entry that does not parse is
/// skipped (it was checked before it was journaled; skipping keeps a replay
/// going) and described in the returned list.
std::vector<std::string> apply_config_change(events::Config& config,
                                             const events::ConfigChanged& change,
                                             const std::vector<std::string>& overrides);

/// The ConfigChanged event that sets every journaled key to `config`'s
/// value: the engine journals it at start, so a replay runs with the same
/// settings (the `kafka.*` connection settings never reach the journal).
events::ConfigChanged full_config_event(const events::Config& config);

}  // namespace ballast::actors
