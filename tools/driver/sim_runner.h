#pragma once

/// Runs the engine against the simulated cluster in simulated time: the
/// driver behind `ballast sim`, `ballast demo` and the seeded fault tests.
///
/// One step per tick interval: the cluster advances to the next tick and
/// returns what happened (metadata, metrics, outcomes, the Tick); the engine
/// journals and routes it, plans if a round is due, and submits through the
/// cluster's port; the driver waits until the engine is idle, so the
/// cluster sees every request of a tick before it advances again. The run
/// is therefore a pure function of the scenario, its seed and the config.
///
/// Engine crashes (`Faults::engine_kills_ms`): from such a time the engine
/// runs a number of actor messages drawn from the scenario's seed (or, for
/// half the crashes, up to the 1st-5th message after which a kind of work
/// drawn from the seed is under way) and then stops dead, wherever that lands (mid-append, mid-round, mid-snapshot,
/// between an intent and its admin call, between a submission and its
/// outcome, or between two steps; three times in a row, each after the
/// last restart): it is abandoned without draining
/// (Engine::abandon), with a power cut under its journal if the scenario
/// says so (every write not yet synced is lost), and started again on the
/// same journal. It recovers from its snapshot and tail, adopts what was in
/// flight, and is fed the cluster's state again (SimCluster::resync), as a
/// poller that starts again reports it: the inputs it had not journaled are
/// gone.

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "adapters/sim/sim_cluster.h"
#include "events/config.h"
#include "events/event.h"
#include "events/result.h"

namespace ballast::actors {
class Engine;
}

namespace ballast::driver {

/// What a step looked like, for timelines and checks (the engine is idle).
struct SimStep {
    int64_t now_ms = 0;
    const sim::SimCluster& cluster;
    const std::vector<events::Event>& fed;  // what the cluster produced this step
    /// Decisions and execution records the engine made this step, in order
    /// (a recovered engine's repeats of decisions before the crash left out).
    const std::vector<events::Event>& decided;
};

struct SimRunOptions {
    sim::Scenario scenario;
    /// The engine's configuration (see `sim_config`).
    events::Config config = events::Config::defaults();
    int64_t until_ms = -1;     // -1: the scenario's duration
    std::string journal_path;  // where the engine journals; must be set
    bool realtime = false;     // pace simulated time to the wall clock
    std::function<void(const SimStep&)> on_step;
    /// Realtime: called between two steps instead of sleeping until the
    /// next one's wall-clock time, on the driver's thread, with the engine
    /// (idle), the simulated time of the step just taken and the wall-clock
    /// time of the next; it returns by then (`ballast sim --realtime` serves
    /// the HTTP API's requests meanwhile). False ends the run there, as if
    /// `until_ms` had come.
    std::function<bool(actors::Engine& engine, int64_t now_ms, std::chrono::steady_clock::time_point next_step)>
        between_steps;
};

struct SimRunSummary {
    int64_t simulated_ms = 0;
    uint64_t events_fed = 0;
    uint64_t rounds = 0;            // ActionsPlanned events
    uint64_t actions_accepted = 0;  // actions in them (released by the gate)
    uint64_t engine_restarts = 0;
    /// What the crashes interrupted (a crash may count under several).
    struct Crashes {
        uint64_t mid_append = 0;
        uint64_t mid_round = 0;
        uint64_t mid_snapshot = 0;
        uint64_t between_intent_and_submit = 0;
        uint64_t between_submit_and_outcome = 0;
        uint64_t power_cuts = 0;
        uint64_t power_cut_bytes_dropped = 0;
    } crashes;
    sim::SimCluster::Counters cluster;
    /// Rounds a recovered engine decided differently than before its crash.
    std::vector<std::string> recovery_divergences;
};

/// The configuration a simulated run uses: the defaults without fsync (a
/// simulated run loses nothing on a process crash), the scenario's own
/// settings, then the user's --config file and --set (so the user wins),
/// and the scenario's flavor (a contradicting flavor is an error). An
/// apache scenario also sets `ballast.replication.throttle.bytes.per.s` to
/// its copy rate (`apache_throttle_bytes_per_s`), as an operator sets it to
/// the cluster's throttle, unless the scenario or the user set the key.
/// The brokers' own capacities (`brokers[i].capacity`, `add_broker`'s)
/// join `ballast.broker.capacity.overrides`, one element per broker, next
/// to what the settings, the file or --set listed there; a field of one
/// broker given both ways must agree, else the error names both. The error
/// names the scenario setting that does not parse.
events::Result<events::Config> sim_config(const sim::Scenario& scenario,
                                          const std::vector<std::string>& base_overrides,
                                          const std::string& config_file);

/// Runs the scenario; the cluster's final state is handed to `on_step` at
/// the last step. Errors: the engine's (journal, recovery), with the time.
events::Result<SimRunSummary> run_simulation(const SimRunOptions& options);

}  // namespace ballast::driver
