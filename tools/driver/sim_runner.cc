#include "tools/driver/sim_runner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <tuple>

#include "actors/engine.h"
#include "store/journal.h"
#include "store/power_cut_fs.h"

namespace ballast::driver {

namespace {

using events::ErrorCode;
using events::make_error;

/// Decisions as the engine reports them, from its threads. A recovered
/// engine reports again what it re-decides while replaying its tail
/// quietly; those repeats are dropped, so each decision appears once, and
/// each is compared with the original: recovery must decide exactly as the
/// engine did before the crash.
class DecisionCollector {
public:
    void add(const events::Event& e) {
        std::lock_guard<std::mutex> lock(_mutex);
        if (const auto* plan = std::get_if<events::ActionsPlanned>(&e.body)) {
            if (plan->round <= _last_round) {
                auto original = _plans.find(plan->round);
                if (original != _plans.end() &&
                    !(original->second.body == e.body && original->second.time_ms == e.time_ms)) {
                    _divergences.push_back("round " + std::to_string(plan->round) + " at t+" +
                                           std::to_string(e.time_ms) + " ms decided differently after recovery");
                }
                return;
            }
            _last_round = plan->round;
            _plans[plan->round] = e;
        } else if (const auto* s = std::get_if<events::ActionSubmitted>(&e.body)) {
            if (!_seen.insert({e.type(), s->action_id, s->attempt}).second) return;
        } else if (const auto* t = std::get_if<events::ActionTimedOut>(&e.body)) {
            if (!_seen.insert({e.type(), t->action_id, 0}).second) return;
        } else if (const auto* c = std::get_if<events::ActionCancelled>(&e.body)) {
            if (!_seen.insert({e.type(), c->action_id, 0}).second) return;
        }
        _pending.push_back(e);
    }
    std::vector<std::string> divergences() {
        std::lock_guard<std::mutex> lock(_mutex);
        return _divergences;
    }
    std::vector<events::Event> take() {
        std::lock_guard<std::mutex> lock(_mutex);
        std::vector<events::Event> out;
        out.swap(_pending);
        return out;
    }

private:
    std::mutex _mutex;
    uint64_t _last_round = 0;
    std::map<uint64_t, events::Event> _plans;  // by round
    std::vector<std::string> _divergences;
    std::set<std::tuple<events::EventType, uint64_t, uint32_t>> _seen;
    std::vector<events::Event> _pending;
};

events::Result<std::unique_ptr<actors::Engine>> start_engine(const SimRunOptions& options,
                                                             sim::SimCluster& cluster,
                                                             DecisionCollector& decisions,
                                                             store::PowerCutFileSystem* fs) {
    actors::EngineOptions engine;
    engine.journal_env = fs ? fs->env() : nullptr;
    engine.config = options.config;
    engine.journal_path = options.journal_path;
    engine.port = &cluster.port();
    // Every tick waits for the engine: on the driver's thread a step costs
    // no thread wakeups (EngineOptions::threads).
    engine.threads = 0;
    engine.on_decision = [&decisions](const events::Event& e) { decisions.add(e); };
    return actors::Engine::start(std::move(engine));
}

std::string number_text(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", value);
    return text;
}

/// The scenario's broker capacities as `ballast.broker.capacity.overrides`
/// elements after those the key lists already; a field both give one broker
/// must have one value (the engine would take the later silently).
events::Status add_broker_capacities(const sim::Scenario& scenario, events::Config& config) {
    const std::string key = "ballast.broker.capacity.overrides";
    std::vector<std::pair<std::string, const sim::BrokerSpec*>> given;  // (where the file gives it, the broker)
    for (size_t i = 0; i < scenario.brokers.size(); i++) {
        if (scenario.brokers[i].capacity.given()) given.emplace_back("brokers[" + std::to_string(i) + "].", &scenario.brokers[i]);
    }
    for (const sim::TimedEvent& e : scenario.events) {
        if (e.kind == sim::TimedEvent::Kind::add_broker && e.broker.capacity.given()) {
            given.emplace_back("add_broker of broker " + std::to_string(e.broker.id) + ": ", &e.broker);
        }
    }
    if (given.empty()) return {};
    std::vector<std::string> elements = config.get_string_list(key);
    std::map<int32_t, events::CapacityOverride> listed;  // by broker: the key's fields, later elements winning
    for (const std::string& element : elements) {
        const events::Result<events::CapacityOverride> o = events::parse_capacity_override(element);
        if (!o) continue;  // checked when the key was set
        events::CapacityOverride& merged = listed.try_emplace(o->broker_id).first->second;
        merged.broker_id = o->broker_id;
        if (o->network_in_bytes_per_s >= 0) merged.network_in_bytes_per_s = o->network_in_bytes_per_s;
        if (o->network_out_bytes_per_s >= 0) merged.network_out_bytes_per_s = o->network_out_bytes_per_s;
        if (o->disk_bytes >= 0) merged.disk_bytes = o->disk_bytes;
        if (o->replicas_max >= 0) merged.replicas_max = o->replicas_max;
    }
    for (const auto& [where, broker] : given) {
        const sim::BrokerCapacity& c = broker->capacity;
        const std::string id = std::to_string(broker->id);
        const auto it = listed.find(broker->id);
        const struct {
            const char* field;
            const char* element_field;
            double scenario_value;
            double key_value;
        } fields[] = {
            {"network_in_bytes_per_s", "in", c.network_in_bytes_per_s,
             it == listed.end() ? -1 : it->second.network_in_bytes_per_s},
            {"network_out_bytes_per_s", "out", c.network_out_bytes_per_s,
             it == listed.end() ? -1 : it->second.network_out_bytes_per_s},
            {"disk_bytes", "disk", c.disk_bytes, it == listed.end() ? -1 : it->second.disk_bytes},
            {"replicas_max", "replicas", static_cast<double>(c.replicas_max),
             it == listed.end() ? -1 : static_cast<double>(it->second.replicas_max)},
        };
        std::string element = id;
        for (const auto& f : fields) {
            if (f.scenario_value < 0) continue;
            if (f.key_value >= 0 && f.key_value != f.scenario_value) {
                return make_error(ErrorCode::invalid_argument,
                                  "scenario " + scenario.name + ": " + where + "capacity." + f.field + " = " +
                                      number_text(f.scenario_value) + " contradicts " + key + " (from " +
                                      config.origin(key) + "), which gives broker " + id + " " + f.element_field +
                                      "=" + number_text(f.key_value) + ": give the capacity in one place");
            }
            element += std::string(":") + f.element_field + "=" + number_text(f.scenario_value);
        }
        elements.push_back(element);
    }
    std::string value;
    for (const std::string& element : elements) value += (value.empty() ? "" : ",") + element;
    const std::string origin = config.origin(key) == "default" ? "scenario" : config.origin(key);
    if (events::Status set = config.set(key, value, origin); !set) {
        return make_error(ErrorCode::invalid_argument, "scenario " + scenario.name + ": broker capacities: " +
                                                           set.error().message);
    }
    return {};
}

}  // namespace

events::Result<events::Config> sim_config(const sim::Scenario& scenario,
                                          const std::vector<std::string>& base_overrides,
                                          const std::string& config_file) {
    events::Config config = events::Config::defaults();
    // A simulated run needs no fsync; the scenario or the user may still ask for it.
    (void)config.set("ballast.journal.sync", "false", "simulator");
    for (const auto& [key, value] : scenario.settings) {
        if (events::Status set = config.set(key, value, "scenario"); !set) {
            return make_error(ErrorCode::invalid_argument,
                              "scenario " + scenario.name + ": settings: " + set.error().message);
        }
    }
    if (!config_file.empty()) {
        if (events::Status loaded = config.load_properties_file(config_file); !loaded) return loaded.error();
    }
    for (const std::string& assignment : base_overrides) {
        if (events::Status set = config.apply_override(assignment); !set) return set.error();
    }
    const std::string flavor = sim::flavor_name(scenario.flavor);
    if (config.origin("ballast.cluster.flavor") != "default" &&
        config.get_string("ballast.cluster.flavor") != flavor) {
        return make_error(ErrorCode::invalid_argument,
                          "ballast.cluster.flavor=" + config.get_string("ballast.cluster.flavor") +
                              " contradicts the scenario's flavor " + flavor);
    }
    (void)config.set("ballast.cluster.flavor", flavor, "scenario");
    if (events::Status capacities = add_broker_capacities(scenario, config); !capacities) return capacities.error();
    // apache: the engine knows the simulated copy rate, as an operator sets
    // the key to their cluster's reassignment throttle. Unless the scenario
    // or the user set it (0 rehearses a Ballast that was not told).
    const std::string throttle_key = "ballast.replication.throttle.bytes.per.s";
    if (scenario.flavor == sim::Flavor::apache && config.origin(throttle_key) == "default") {
        char value[32];
        std::snprintf(value, sizeof value, "%.17g", scenario.apache_throttle_bytes_per_s);
        if (events::Status set = config.set(throttle_key, value, "scenario"); !set) {
            return make_error(ErrorCode::invalid_argument,
                              "scenario " + scenario.name + ": apache_throttle_bytes_per_s: " + set.error().message);
        }
    }
    return config;
}

events::Result<SimRunSummary> run_simulation(const SimRunOptions& options) {
    if (options.journal_path.empty()) {
        return make_error(ErrorCode::invalid_argument, "a simulated run needs a journal directory");
    }
    const sim::Scenario& scenario = options.scenario;
    const int64_t until_ms = options.until_ms >= 0 ? options.until_ms : scenario.duration_ms;
    sim::SimCluster cluster(scenario);
    DecisionCollector decisions;
    const bool power_cuts = scenario.faults.engine_kills_cut_power;
    std::shared_ptr<store::PowerCutFileSystem> fs = power_cuts ? store::PowerCutFileSystem::make() : nullptr;
    events::Result<std::unique_ptr<actors::Engine>> started = start_engine(options, cluster, decisions, fs.get());
    if (!started) return started.error();
    std::unique_ptr<actors::Engine> engine = std::move(*started);

    SimRunSummary summary;
    std::vector<int64_t> kills = scenario.faults.engine_kills_ms;
    std::sort(kills.begin(), kills.end());
    size_t next_kill = 0;
    // Where each crash lands: a number of actor messages from the seed. A
    // step takes from a few dozen messages to tens of thousands (a metrics
    // report reaches every partition); a count past the step lands in a later one.
    std::mt19937_64 crash_random(scenario.seed ^ 0xc4a5'4000'0000'0000ULL);
    std::uniform_int_distribution<uint64_t> crash_messages(1, 20'000);
    // Half the crashes are aimed at a kind of moment (some are a couple of
    // messages wide among thousands, and a count alone would rarely hit
    // them): the crash comes after the 1st-5th message that leaves one under way.
    auto arm_crash = [&] {
        if (crash_random() % 2 == 0) {
            engine->crash_after_messages(crash_messages(crash_random));
            return;
        }
        const auto kind = static_cast<actors::CrashKind>(crash_random() % actors::crash_kind_count);
        engine->crash_at(kind, 1 + crash_random() % 5);
    };
    // Each kill is a burst of crashes, one after each restart (a crash loop):
    // more points hit per seed, and recovery from a recovery.
    constexpr int crashes_per_kill = 3;
    int crashes_left = 0;
    const auto wall_start = std::chrono::steady_clock::now();

    // The crash: abandoned as it stands, the power cut if the scenario says
    // so, started again on its journal and told the cluster's state.
    std::function<events::Status(int64_t)> crash_and_restart;  // calls itself: a crash during the resync
    crash_and_restart = [&](int64_t now_ms) -> events::Status {
        if (fs) fs->cut();
        const actors::CrashPoint point = engine->abandon();
        engine.reset();
        SimRunSummary::Crashes& c = summary.crashes;
        c.mid_append += point.mid_append;
        c.mid_round += point.mid_round;
        c.mid_snapshot += point.mid_snapshot;
        c.between_intent_and_submit += point.between_intent_and_submit;
        c.between_submit_and_outcome += point.between_submit_and_outcome;
        if (fs) {
            events::Result<uint64_t> dropped = fs->restore();
            if (!dropped) return dropped.error();
            c.power_cuts++;
            c.power_cut_bytes_dropped += *dropped;
        }
        started = start_engine(options, cluster, decisions, fs.get());
        if (!started) {
            return make_error(started.error().code,
                              "engine restart at t+" + std::to_string(now_ms) + " ms: " + started.error().message);
        }
        engine = std::move(*started);
        summary.engine_restarts++;
        if (--crashes_left > 0) arm_crash();
        std::vector<events::Event> state = cluster.resync();
        summary.events_fed += state.size();
        events::Status status = engine->feed(std::move(state));
        if (status) status = engine->wait_idle();
        if (!status && engine->crashed()) return crash_and_restart(now_ms);
        return status;
    };

    auto step = [&](std::vector<events::Event> fed, int64_t now_ms) -> events::Status {
        // As the journal keeps them (samples rounded): the checks judge the
        // loads the engine acted on, not the cluster's last bits.
        for (events::Event& e : fed) e = store::as_journaled(std::move(e));
        summary.events_fed += fed.size();
        events::Status status = engine->feed(fed);
        if (status) status = engine->wait_idle();
        if (!status && engine->crashed()) status = crash_and_restart(now_ms);
        if (!status) return status;
        const std::vector<events::Event> decided = decisions.take();
        for (const events::Event& e : decided) {
            if (const auto* plan = std::get_if<events::ActionsPlanned>(&e.body)) {
                summary.rounds++;
                summary.actions_accepted += plan->actions.size();
            }
        }
        if (options.on_step) options.on_step(SimStep{now_ms, cluster, fed, decided});
        return {};
    };

    if (events::Status status = step(cluster.start(), 0); !status) return status.error();
    for (int64_t now_ms = scenario.tick_interval_ms; now_ms <= until_ms; now_ms += scenario.tick_interval_ms) {
        if (next_kill < kills.size() && kills[next_kill] <= now_ms) {
            while (next_kill < kills.size() && kills[next_kill] <= now_ms) next_kill++;
            arm_crash();
            crashes_left = crashes_per_kill;
        }
        if (options.realtime) {
            const auto next_step = wall_start + std::chrono::milliseconds(now_ms);
            if (!options.between_steps) {
                std::this_thread::sleep_until(next_step);
            } else if (!options.between_steps(*engine, summary.simulated_ms, next_step)) {
                break;
            }
        }
        if (events::Status status = step(cluster.advance(now_ms), now_ms); !status) {
            return make_error(status.error().code,
                              "at t+" + std::to_string(now_ms) + " ms: " + status.error().message);
        }
        summary.simulated_ms = now_ms;
    }
    engine->stop();
    summary.cluster = cluster.counters();
    summary.recovery_divergences = decisions.divergences();
    return summary;
}

}  // namespace ballast::driver
