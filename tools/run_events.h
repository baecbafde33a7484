#pragma once

/// What `ballast run` puts between the adapter and the engine: one feed that
/// every adapter thread calls (the poller, the metrics sources, the admin
/// port, the clock), and one log line for each decision and outcome.

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "actors/admin_port.h"
#include "actors/engine.h"
#include "events/event.h"

namespace ballast::tools {

/// One line per decision (from the engine's threads) and per outcome (from
/// the admin port, through the feed); what cannot be fixed the engine logs
/// itself when it changes. Actions are named by what they do
/// ("MOVE orders-3 3 -> 1 [goal]"), remembered from the plan that made them.
class RunLog {
public:
    void decision(const events::Event& e);
    void outcome(const events::Event& e);
    /// What a retention deleted and which bound made the cut.
    void retention(const store::RetentionReport& report);
    /// While true (Engine::start replaying its journal, then reconciling),
    /// decisions are made again from the journal, not anew: they are counted
    /// (and logged at debug level), and one line says how many when it ends.
    void set_recovering(bool recovering);

private:
    std::string describe(uint64_t action_id);

    std::mutex _mutex;
    std::map<uint64_t, std::string> _actions;  // by id, bounded: forgotten on the outcome
    std::atomic<bool> _recovering{false};
    uint64_t _replayed_rounds = 0;  // while recovering
    uint64_t _replayed_actions = 0;
    uint64_t _replayed_submissions = 0;
};

/// The sink every adapter part feeds. Events that arrive before the engine
/// exists (the admin port can report while Engine::start reconciles) wait,
/// bounded, and go in first when it is set. A feed the engine refuses (its
/// journal failed) marks the run failed; `ballast run` then stops.
class EngineFeed {
public:
    explicit EngineFeed(RunLog* log) : _log(log) {}

    actors::EventSink sink() {
        return [this](std::vector<events::Event> batch) { feed(std::move(batch)); };
    }
    void feed(std::vector<events::Event> batch);
    /// Sets the engine (and feeds what waited); null: stop feeding.
    void set_engine(actors::Engine* engine);
    /// High availability, before a new leadership's engine starts: events
    /// wait again for `set_engine` (an earlier leadership stopped feeding, or
    /// its engine refused a batch); what waited before is dropped, it was
    /// the earlier leadership's.
    void wait_for_engine();
    bool failed() const { return _failed.load(); }
    const std::string& failure() const { return _failure; }

    /// The most events held before the engine exists.
    static constexpr size_t waiting_max = 100'000;

private:
    RunLog* _log;
    std::mutex _mutex;
    actors::Engine* _engine = nullptr;
    bool _stopped = false;
    std::vector<events::Event> _waiting;
    std::atomic<bool> _failed{false};
    std::string _failure;  // written once, before _failed is set
};

}  // namespace ballast::tools
