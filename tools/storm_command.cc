/// `ballast storm`: a synthetic event storm against the whole engine
/// (journal, router, broker and partition actors, scheduler and planner,
/// executor through a simulated port), at a target rate of events per
/// wall-clock second. Reports the sustained rate, the latency from an
/// event's arrival (handed to feed()) to applied in the actors, plan time
/// per round, peak RSS and any invariant break; exits 2 when the engine
/// falls behind or an invariant breaks.
///
/// Time: the storm's clock is the wall clock since the storm began (Ticks
/// every second carry it), so planning rounds run as they would live.
/// Arrival-to-applied latency is measured per fed batch (about 1 ms of
/// events): a batch is applied once the router has routed it and the
/// partition actors have applied every message sent up to then.
///
/// With --api the HTTP API (tools/http/) answers on `ballast.http.listen`
/// during the storm as it does in `ballast run` (the engine's API from the
/// server's threads), so that its response time, and what serving it costs
/// the stream, can be measured beside the storm (bench/api_storm.sh).

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "actors/engine.h"
#include "adapters/sim/storm_generator.h"
#include "tools/cli_common.h"
#include "tools/commands.h"
#include "tools/driver/machine.h"
#include "tools/driver/percentile.h"
#include "tools/http/server.h"

namespace ballast::tools {

namespace {

using Clock = std::chrono::steady_clock;

struct StormOptions {
    int32_t brokers = 100;
    int32_t partitions = 100'000;
    double rate = 500'000;
    double duration_s = 30;
    std::string pattern = "metrics-flood";
    std::string journal;
    uint64_t seed = 1;
    int64_t move_ms = 1'500;
    std::string background_priority = "idle";
    bool json = false;
    bool api = false;
};

// Above this share of CPU time stolen by the hypervisor a storm's latency
// tail measures the neighbours as much as the engine: per second, the
// slowest batch follows the steal (bench/README.md).
constexpr double quiet_steal_pct = 2.0;

std::optional<store::BackgroundPriority> parse_background_priority(const std::string& text) {
    if (text == "idle") return store::BackgroundPriority::idle;
    if (text == "low") return store::BackgroundPriority::low;
    if (text == "normal") return store::BackgroundPriority::normal;
    return std::nullopt;
}

using driver::percentile;

/// Watches the engine's counters from outside and times each fed batch
/// from feed() to applied (see the file comment).
class LatencyMonitor {
public:
    explicit LatencyMonitor(const actors::Engine& engine) : _engine(engine) {
        _thread = std::thread([this] { run(); });
    }
    ~LatencyMonitor() { stop(); }
    void stop() {
        _stop = true;
        if (_thread.joinable()) _thread.join();
    }
    /// A batch fed at `at`; the engine has been fed `fed_total` events with it.
    void fed(Clock::time_point at, uint64_t fed_total) {
        std::lock_guard<std::mutex> lock(_mutex);
        _pending.push_back({at, fed_total, UINT64_MAX, {}});
    }
    std::vector<double> latencies_ms() {
        std::lock_guard<std::mutex> lock(_mutex);
        return _latencies_ms;
    }
    struct Slow {
        double fed_at_s;   // after the storm's start
        double ms;         // fed to applied
        double routed_ms;  // fed to routed: the rest is the partition actors' backlog
    };
    /// The `n` slowest batches.
    std::vector<Slow> slowest(size_t n, Clock::time_point start) {
        std::lock_guard<std::mutex> lock(_mutex);
        std::vector<size_t> order(_latencies_ms.size());
        for (size_t i = 0; i < order.size(); i++) order[i] = i;
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return _latencies_ms[a] > _latencies_ms[b]; });
        std::vector<Slow> out;
        for (size_t i = 0; i < order.size() && i < n; i++) {
            out.push_back({std::chrono::duration<double>(_fed_at[order[i]] - start).count(), _latencies_ms[order[i]],
                           _routed_ms[order[i]]});
        }
        return out;
    }
    /// The slowest batch fed in each second of the storm, in ms: where the
    /// tail comes from (rounds, snapshots) shows as spikes.
    std::vector<double> max_by_second(Clock::time_point start) {
        std::lock_guard<std::mutex> lock(_mutex);
        std::vector<double> out;
        for (size_t i = 0; i < _latencies_ms.size(); i++) {
            const double at_s = std::chrono::duration<double>(_fed_at[i] - start).count();
            const size_t second = at_s < 0 ? 0 : static_cast<size_t>(at_s);
            if (second >= out.size()) out.resize(second + 1, 0);
            out[second] = std::max(out[second], _latencies_ms[i]);
        }
        return out;
    }
    size_t pending() {
        std::lock_guard<std::mutex> lock(_mutex);
        return _pending.size();
    }

private:
    struct Batch {
        Clock::time_point fed_at;
        uint64_t fed_total;
        uint64_t messages_target;  // partition messages to be applied; UINT64_MAX: not routed yet
        Clock::time_point routed_at;
    };
    void run() {
        while (!_stop) {
            {
                std::lock_guard<std::mutex> lock(_mutex);
                const uint64_t routed = _engine.progress().events_routed.load(std::memory_order_acquire);
                const uint64_t sent = _engine.progress().partition_messages_sent.load(std::memory_order_acquire);
                const uint64_t applied = _engine.partition_table().applied();
                const Clock::time_point now = Clock::now();
                // Every routed batch gets its target now, not only once the
                // batches before it are applied: a target taken later counts
                // messages routed after the batch, and its latency would
                // include theirs (under a backlog, each batch would wait for
                // the one routed when its predecessor was applied).
                while (_targeted < _pending.size() && routed >= _pending[_targeted].fed_total) {
                    _pending[_targeted].messages_target = sent;  // read after routed: covers the batch's messages
                    _pending[_targeted].routed_at = now;
                    _targeted++;
                }
                while (_targeted > 0 && applied >= _pending.front().messages_target) {
                    _latencies_ms.push_back(std::chrono::duration<double, std::milli>(now - _pending.front().fed_at).count());
                    _fed_at.push_back(_pending.front().fed_at);
                    _routed_ms.push_back(
                        std::chrono::duration<double, std::milli>(_pending.front().routed_at - _pending.front().fed_at).count());
                    _pending.pop_front();
                    _targeted--;
                }
            }
            // Every 250 us: a latency is known to within that (the goal is
            // 20 ms). At 100 us the monitor takes 13% of a core from the
            // engine it measures (~5,000 wakeups/s on a KVM guest).
            std::this_thread::sleep_for(std::chrono::microseconds(250));
        }
    }

    const actors::Engine& _engine;
    std::mutex _mutex;
    std::deque<Batch> _pending;
    size_t _targeted = 0;  // the first `_targeted` of `_pending` have their target
    std::vector<double> _latencies_ms;
    std::vector<Clock::time_point> _fed_at;  // parallel to _latencies_ms
    std::vector<double> _routed_ms;          // parallel to _latencies_ms
    std::atomic<bool> _stop{false};
    std::thread _thread;
};

/// Storm defaults where the user set nothing: no fsync (a load test of the
/// engine, not of the disk; --set ballast.journal.sync=true measures both),
/// rounds every 10 s, snapshots every 20M events (a snapshot copies every
/// partition record: at storm rates the default 100,000 would take one
/// every 0.2 s), and decisions that take effect 3 s after their round, so
/// that the stream flows past the planner (a round at 1M partitions plans
/// for ~150 ms on a quiet machine and over a second on a loaded one; with
/// no delay the next Tick waits for it, and the whole stream behind it).
void storm_defaults(events::Config& c) {
    const auto unless_set = [&](const char* key, const char* value) {
        if (c.origin(key) == "default") (void)c.set(key, value, "storm");
    };
    unless_set("ballast.journal.sync", "false");
    unless_set("autobalancer.controller.anomaly.detect.interval.ms", "10000");
    unless_set("ballast.snapshot.interval.events", "20000000");
    unless_set("ballast.planner.decision.delay.ms", "3000");
    unless_set("ballast.cluster.flavor", "automq");
    unless_set("ballast.log.level", "warn");
}

int run_storm(const Context& ctx, const StormOptions& options) {
    events::Result<sim::StormPattern> pattern = sim::parse_storm_pattern(options.pattern);
    if (!pattern) return report_error(pattern.error());
    std::optional<store::BackgroundPriority> background = parse_background_priority(options.background_priority);
    if (!background) {
        return report_error("--background-priority " + options.background_priority + ": expected idle, low or normal");
    }
    if (options.brokers < 1 || options.partitions < 1 || options.rate <= 0 || options.duration_s <= 0) {
        return report_error("--brokers, --partitions, --rate and --duration must be positive");
    }
    events::Result<events::Config> config = load_config(ctx.global);
    if (!config) return report_error(config.error());
    storm_defaults(*config);
    setup_logging(*config);

    std::string journal = options.journal;
    bool temporary = false;
    if (journal.empty()) {
        std::string pattern_dir = (std::filesystem::temp_directory_path() / "ballast-storm-XXXXXX").string();
        if (!mkdtemp(pattern_dir.data())) return report_error("cannot create a temporary journal directory");
        journal = pattern_dir;
        temporary = true;
    } else if (std::filesystem::exists(journal) && !std::filesystem::is_empty(journal)) {
        return report_error("--journal " + journal + ": already holds a journal; a storm starts a new one");
    }

    // Where this ran, recorded beside the figures: a storm's latency depends
    // as much on how much of the machine it had as on the code.
    const double load_at_start = driver::load_average_1m();
    const double calibration_ms = driver::calibration_ms();
    const std::string journal_fs = driver::filesystem_type(journal);

    sim::StormPort port(options.move_ms);
    std::mutex plans_mutex;
    std::map<int64_t, Clock::time_point> tick_fed;  // Tick now_ms -> when it was fed
    std::vector<double> plan_ms;
    uint64_t rounds = 0;
    uint64_t actions = 0;
    actors::EngineOptions engine_options;
    engine_options.config = *config;
    engine_options.journal_path = journal;
    engine_options.port = &port;
    engine_options.background_priority = *background;
    engine_options.on_decision = [&](const events::Event& e) {
        const auto* plan = std::get_if<events::ActionsPlanned>(&e.body);
        if (!plan) return;
        const Clock::time_point now = Clock::now();
        std::lock_guard<std::mutex> lock(plans_mutex);
        rounds++;
        actions += plan->actions.size();
        auto it = tick_fed.find(e.time_ms);
        if (it != tick_fed.end()) plan_ms.push_back(std::chrono::duration<double, std::milli>(now - it->second).count());
    };
    events::Result<std::unique_ptr<actors::Engine>> started = actors::Engine::start(std::move(engine_options));
    if (!started) return report_error(started.error());
    actors::Engine& engine = **started;

    // The API, ready once the cluster is set up. Its commands are stamped
    // with the storm's time, which the Ticks carry: ms since the storm began.
    std::atomic<int64_t> storm_now_ms{0};
    http::EngineAccess access(http::EngineAccess::Mode::any_thread, [&storm_now_ms] { return storm_now_ms.load(); });
    std::unique_ptr<http::Server> server;
    if (options.api) {
        http::ApiOptions api;
        api.process_config = *config;
        events::Result<std::unique_ptr<http::Server>> serving = http::Server::start(*config, access, api);
        if (!serving) return report_error(serving.error());
        if (!*serving) return report_error("--api: ballast.http.listen is empty; give it HOST:PORT");
        server = std::move(*serving);
        access.set_readiness({"simulation", false, "setting up the storm's cluster"});
        access.attach(&engine);
        // Before the setup, so that a script can find the port and wait for /readyz.
        std::fprintf(stderr, "storm: HTTP API on %s (%s)\n", server->url().c_str(), server->access_text().c_str());
    }

    // The cluster first, untimed.
    sim::StormGenerator generator({options.brokers, options.partitions, *pattern, options.seed});
    const Clock::time_point setup_start = Clock::now();
    uint64_t setup_events = 0;
    for (std::vector<events::Event>& batch : generator.setup(10'000)) {
        setup_events += batch.size();
        if (events::Status s = engine.feed(std::move(batch)); !s) return report_error(s.error());
    }
    if (events::Status s = engine.wait_idle(); !s) return report_error(s.error());
    const double setup_s = std::chrono::duration<double>(Clock::now() - setup_start).count();
    if (!options.json) {
        std::fprintf(stderr, "storm: %d brokers, %d partitions, %s at %.0f events/s for %.0f s (setup: %" PRIu64
                             " events in %.1f s)\n",
                     options.brokers, options.partitions, sim::storm_pattern_name(*pattern), options.rate,
                     options.duration_s, setup_events, setup_s);
    }

    if (server) access.set_readiness({"simulation", true, "storm under way"});

    // The storm: about 1 ms of events per batch, a Tick and broker totals each second.
    LatencyMonitor monitor(engine);
    const uint64_t base_fed = engine.progress().events_routed.load();
    uint64_t fed = base_fed;
    uint64_t storm_events = 0;
    const size_t batch_events = std::max<size_t>(1, static_cast<size_t>(options.rate / 1000));
    const Clock::time_point start = Clock::now();
    const auto duration = std::chrono::duration<double>(options.duration_s);
    int64_t next_tick_ms = 1'000;
    std::vector<uint64_t> backlog_per_s;
    std::vector<double> steal_per_s;  // percent of the machine's CPU time stolen, each second
    const driver::CpuTimes cpu_start = driver::cpu_times();
    const double process_cpu_start_s = driver::process_cpu_s();
    driver::CpuTimes cpu_last = cpu_start;
    uint64_t last_second_events = 0;
    std::vector<events::Event> batch;
    events::Status failure;
    while (Clock::now() - start < duration) {
        const double elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
        const int64_t now_ms = static_cast<int64_t>(elapsed_s * 1000);
        const auto due = static_cast<uint64_t>(options.rate * elapsed_s);
        if (storm_events >= due && now_ms < next_tick_ms) {
            // Until the next batch is due (or the next Tick): one wakeup per
            // batch. On a KVM guest a wakeup costs tens of microseconds of a
            // core the engine shares; polling every 200 us would wake five
            // times per batch.
            const double batch_due_s = static_cast<double>(storm_events + batch_events) / options.rate;
            const double wake_s = std::min(batch_due_s, static_cast<double>(next_tick_ms) / 1000);
            std::this_thread::sleep_until(start + std::chrono::duration_cast<Clock::duration>(
                                                      std::chrono::duration<double>(wake_s)));
            continue;
        }
        batch.clear();
        if (now_ms >= next_tick_ms) {
            port.set_now(next_tick_ms);
            storm_now_ms = next_tick_ms;
            for (events::Event& e : port.due(next_tick_ms)) {
                if (const auto* c = std::get_if<events::PartitionChanged>(&e.body)) generator.moved(c->topic, c->partition, c->replicas);
                batch.push_back(std::move(e));
            }
            batch.push_back(generator.broker_report(next_tick_ms));
            batch.push_back({0, next_tick_ms, events::Source::clock, events::Tick{next_tick_ms}});
            {
                std::lock_guard<std::mutex> lock(plans_mutex);
                tick_fed[next_tick_ms] = Clock::now();
            }
            const uint64_t routed = engine.progress().events_routed.load();
            backlog_per_s.push_back(fed - routed);
            const driver::CpuTimes cpu_now = driver::cpu_times();
            steal_per_s.push_back(driver::steal_percent(cpu_last, cpu_now));
            cpu_last = cpu_now;
            if (!options.json) {
                const driver::MemoryUse rss = driver::memory_use();
                std::fprintf(stderr, "\r  t=%3" PRId64 "s  %9" PRIu64 " events/s  backlog %8" PRIu64 "  RSS %5" PRIu64
                                     " MiB  rounds %" PRIu64 "   ",
                             next_tick_ms / 1000, storm_events - last_second_events, fed - routed, rss.rss_bytes >> 20, rounds);
            }
            last_second_events = storm_events;
            next_tick_ms += 1'000;
        }
        const size_t n = static_cast<size_t>(std::min<uint64_t>(batch_events, due > storm_events ? due - storm_events : 0));
        generator.generate(n, now_ms, batch);
        storm_events += n;
        fed += batch.size();
        const Clock::time_point fed_at = Clock::now();
        if (events::Status s = engine.feed(std::move(batch)); !s) {
            failure = s;
            break;
        }
        batch = {};
        monitor.fed(fed_at, fed);
    }
    const double storm_s = std::chrono::duration<double>(Clock::now() - start).count();
    if (!options.json) std::fprintf(stderr, "\n");
    if (failure.ok()) failure = engine.wait_idle();
    const double drained_s = std::chrono::duration<double>(Clock::now() - start).count();
    // Give the monitor a moment to see the last batches applied.
    for (int i = 0; i < 100 && monitor.pending() > 0; i++) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    monitor.stop();

    // Verdict.
    std::vector<std::string> breaks;
    if (!failure.ok()) breaks.push_back("engine: " + failure.error().to_string());
    const uint64_t routed = engine.progress().events_routed.load();
    if (failure.ok() && routed < fed) {
        breaks.push_back("only " + std::to_string(routed) + " of " + std::to_string(fed) + " events routed after idle");
    }
    const uint64_t sent = engine.progress().partition_messages_sent.load();
    const uint64_t applied = engine.partition_table().applied();
    if (failure.ok() && applied != sent) {
        breaks.push_back(std::to_string(sent) + " partition messages sent but " + std::to_string(applied) + " applied");
    }
    const uint32_t concurrency = static_cast<uint32_t>(config->get_int32("autobalancer.controller.execution.concurrency"));
    if (port.outstanding_max() > concurrency) {
        breaks.push_back("executor ran " + std::to_string(port.outstanding_max()) + " actions at once, cap " +
                         std::to_string(concurrency));
    }
    const double sustained = static_cast<double>(storm_events) / storm_s;
    // Behind: the rate was not reached, or the backlog kept growing (the last
    // second's backlog above one second of events).
    const bool behind = sustained < 0.95 * options.rate ||
                        (!backlog_per_s.empty() && static_cast<double>(backlog_per_s.back()) > options.rate);
    const std::vector<double> latencies = monitor.latencies_ms();
    const std::vector<LatencyMonitor::Slow> slowest = monitor.slowest(5, start);
    const driver::MemoryUse rss = driver::memory_use();
    const driver::CpuTimes cpu_end = driver::cpu_times();
    const double steal_pct = driver::steal_percent(cpu_start, cpu_end);
    // The cores the engine (and this feeding thread) kept busy: the headroom
    // the machine had left, against its CPUs and what the hypervisor took.
    const double cores_used = (driver::process_cpu_s() - process_cpu_start_s) / storm_s;
    std::vector<double> plans;
    {
        std::lock_guard<std::mutex> lock(plans_mutex);
        plans = plan_ms;
    }
    if (server) {
        access.close("stopping");
        server->stop();
    }
    engine.stop();
    if (temporary) {
        std::error_code ec;
        std::filesystem::remove_all(journal, ec);
    }

    nlohmann::ordered_json out;
    out["pattern"] = sim::storm_pattern_name(*pattern);
    out["brokers"] = options.brokers;
    out["partitions"] = options.partitions;
    out["rate_target"] = options.rate;
    out["duration_s"] = storm_s;
    out["events"] = storm_events;
    out["events_per_s"] = sustained;
    out["drain_s"] = drained_s - storm_s;
    out["latency_ms"] = {{"batches", latencies.size()},
                         {"p50", percentile(latencies, 0.5)},
                         {"p99", percentile(latencies, 0.99)},
                         {"max", latencies.empty() ? 0 : *std::max_element(latencies.begin(), latencies.end())}};
    nlohmann::ordered_json worst = nlohmann::ordered_json::array();
    for (const LatencyMonitor::Slow& slow : slowest) {
        worst.push_back({{"fed_at_s", slow.fed_at_s}, {"ms", slow.ms}, {"routed_ms", slow.routed_ms}});
    }
    out["latency_ms"]["slowest"] = worst;
    out["latency_ms"]["max_by_second"] = monitor.max_by_second(start);
    out["backlog_by_second"] = backlog_per_s;  // events fed but not routed, at each Tick
    out["rounds"] = rounds;
    out["actions"] = actions;
    out["plan_ms"] = {{"p50", percentile(plans, 0.5)},
                      {"max", plans.empty() ? 0 : *std::max_element(plans.begin(), plans.end())}};
    out["peak_rss_mib"] = static_cast<double>(rss.peak_rss_bytes) / (1 << 20);
    out["journal_sync"] = config->get_bool("ballast.journal.sync");
    out["journal_fs"] = journal_fs;
    out["background_priority"] = options.background_priority;
    out["build"] = {{"type", BALLAST_BUILD_TYPE},
                    {"optimization", BALLAST_OPTIMIZATION},
                    {"sanitize", BALLAST_SANITIZE},
#ifdef NDEBUG
                    {"assertions", false},
#else
                    {"assertions", true},
#endif
                    {"compiler", __VERSION__}};
    out["machine"] = {{"cpu_model", driver::cpu_model()},
                      {"cpus", driver::cpu_count()},
                      {"load_avg_1m_at_start", load_at_start},
                      {"calibration_ms", calibration_ms},
                      {"steal_pct", steal_pct},
                      {"steal_pct_by_second", steal_per_s},
                      {"quiet", steal_pct < quiet_steal_pct}};
    out["cores_used"] = cores_used;
    out["setup_s"] = setup_s;
    out["behind"] = behind;
    out["breaks"] = breaks;
    if (options.json) {
        std::printf("%s\n", out.dump().c_str());
    } else {
        std::printf("sustained %.0f events/s (target %.0f) over %.1f s; %" PRIu64 " events, drained %.2f s after\n",
                    sustained, options.rate, storm_s, storm_events, drained_s - storm_s);
        std::printf("arrival to applied: p50 %.2f ms, p99 %.2f ms, max %.2f ms (%zu batches of ~%zu events)\n",
                    percentile(latencies, 0.5), percentile(latencies, 0.99),
                    out["latency_ms"]["max"].get<double>(), latencies.size(), batch_events);
        std::printf("planning: %" PRIu64 " rounds, %" PRIu64 " actions; Tick to ActionsPlanned p50 %.1f ms, max %.1f ms\n",
                    rounds, actions, percentile(plans, 0.5), out["plan_ms"]["max"].get<double>());
        std::printf("peak RSS %.0f MiB; journal sync %s (%s)\n", static_cast<double>(rss.peak_rss_bytes) / (1 << 20),
                    config->get_bool("ballast.journal.sync") ? "on" : "off", journal_fs.c_str());
        std::printf("machine: %d CPUs (%s), calibration %.0f ms, load %.2f at start, %.1f%% of CPU time stolen; "
                    "the storm kept %.2f cores busy; build %s (-O%s)\n",
                    driver::cpu_count(), driver::cpu_model().c_str(), calibration_ms, load_at_start, steal_pct,
                    cores_used, BALLAST_BUILD_TYPE, BALLAST_OPTIMIZATION);
        if (steal_pct >= quiet_steal_pct) {
            std::printf("NOT QUIET: the hypervisor took %.1f%% of the CPU time (%.0f%% in the worst second); the "
                        "latency tail follows it, so compare these figures only with a storm as noisy\n",
                        steal_pct, steal_per_s.empty() ? 0.0 : *std::max_element(steal_per_s.begin(), steal_per_s.end()));
        }
        for (const std::string& b : breaks) std::printf("BROKEN: %s\n", b.c_str());
        if (behind) std::printf("BEHIND: the engine did not keep up with the target rate\n");
        if (breaks.empty() && !behind) std::printf("ok: kept up, no invariant broken\n");
    }
    return breaks.empty() && !behind ? exit_ok : 2;
}

}  // namespace

void register_storm_command(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<StormOptions>();
    CLI::App* storm = app.add_subcommand("storm", "Load-test the whole engine with a synthetic event storm");
    storm->add_option("--brokers", options->brokers, "Brokers in the synthetic cluster (default 100)");
    storm->add_option("--partitions", options->partitions, "Partitions (default 100000)");
    storm->add_option("--rate", options->rate, "Target events per second (default 500000)");
    storm->add_option("--duration", options->duration_s, "Seconds of storm (default 30)");
    storm->add_option("--pattern", options->pattern, "metrics-flood (default), broker-flap, topic-churn or mixed");
    storm->add_option("--journal", options->journal, "Journal directory (default: a temporary one, removed)");
    storm->add_option("--seed", options->seed, "Seed of the generator (default 1)");
    storm->add_option("--move-ms", options->move_ms, "Simulated executor: ms until an action completes (default 1500)");
    storm->add_option("--background-priority", options->background_priority,
                      "Planner, snapshot writer and RocksDB flushes: idle (default: SCHED_IDLE, the stream "
                      "first), low (the engine's threads at nice 10) or normal");
    storm->add_flag("--json", options->json, "One JSON object instead of the report");
    storm->add_flag("--api", options->api,
                    "Serve the HTTP API on ballast.http.listen during the storm, to measure it beside the stream");
    storm->callback([&ctx, options] { ctx.exit_code = run_storm(ctx, *options); });
}

}  // namespace ballast::tools
