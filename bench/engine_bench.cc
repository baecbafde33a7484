/// The whole engine (RocksDB journal + router + broker and partition actors +
/// scheduler + planner + executor) on synthetic clusters:
///
///   BM_Ingest            events/s from feed() to applied in the actors, for
///                        metrics reports of 1 and 100 partition samples
///   BM_BarrierToPlan     from feeding the Tick that makes a round due to the
///                        journaled ActionsPlanned, at 100k and 1M partitions
///   peak RSS             of the process after the 1M-partition case
///
/// Goals: >= 500,000 events/s sustained; barrier-to-plan <= 100 ms
/// at 100k and <= 1 s at 1M partitions; peak RSS <= 2 GB at 1M partitions.

#include <benchmark/benchmark.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>

#include "actors/engine.h"
#include "tests/support/temp_dir.h"
#include "tools/driver/machine.h"

namespace ballast {
namespace {

using Clock = std::chrono::steady_clock;

/// A failed call ends the benchmark, saying why.
void must(const events::Status& status) {
    if (status.ok()) return;
    std::fprintf(stderr, "engine_bench: %s\n", status.error().to_string().c_str());
    std::abort();
}

events::Config bench_config(int64_t detect_interval_ms) {
    events::Config c = events::Config::defaults();
    for (const std::string& s :
         {std::string("ballast.journal.sync=false"), std::string("ballast.cluster.flavor=automq"),
          "autobalancer.controller.anomaly.detect.interval.ms=" + std::to_string(detect_interval_ms),
          std::string("autobalancer.controller.metrics.delay.ms=86400000"),
          std::string("ballast.snapshot.interval.events=100000000")}) {
        if (!c.apply_override(s).ok()) std::abort();
    }
    return c;
}

/// Waits for the first ActionsPlanned after `arm()`.
class PlanWatch {
public:
    void arm() {
        std::lock_guard<std::mutex> lock(_mutex);
        _seen = false;
    }
    std::function<void(const events::Event&)> sink() {
        return [this](const events::Event& e) {
            if (!std::holds_alternative<events::ActionsPlanned>(e.body)) return;
            std::lock_guard<std::mutex> lock(_mutex);
            _seen = true;
            _at = Clock::now();
            _actions = std::get<events::ActionsPlanned>(e.body).actions.size();
            _cv.notify_all();
        };
    }
    /// Aborts after 10 minutes: a round that never comes is a bug to see.
    Clock::time_point wait() {
        std::unique_lock<std::mutex> lock(_mutex);
        if (!_cv.wait_for(lock, std::chrono::minutes(10), [&] { return _seen; })) {
            std::fprintf(stderr, "no ActionsPlanned within 10 minutes\n");
            std::abort();
        }
        return _at;
    }
    size_t actions() const { return _actions; }

private:
    std::mutex _mutex;
    std::condition_variable _cv;
    bool _seen = false;
    Clock::time_point _at;
    size_t _actions = 0;
};

/// Brokers 1..brokers, one topic of `partitions` RF1 partitions placed
/// round robin, registered at time 0; fed in batches of 10,000.
void feed_cluster(actors::Engine& engine, int32_t brokers, int32_t partitions) {
    std::vector<events::Event> batch;
    for (int32_t b = 1; b <= brokers; b++) {
        batch.push_back({0, 0, events::Source::simulator,
                         events::BrokerRegistered{b, "rack-" + std::to_string(b % 3), {}}});
    }
    batch.push_back({0, 0, events::Source::simulator, events::TopicCreated{"bench", {}, partitions, 1}});
    for (int32_t p = 0; p < partitions; p++) {
        const int32_t b = p % brokers + 1;
        batch.push_back({0, 0, events::Source::simulator, events::PartitionChanged{"bench", p, {b}, b, {b}, 0}});
        if (batch.size() == 10'000) {
            must(engine.feed(std::move(batch)));
            batch.clear();
        }
    }
    must(engine.feed(std::move(batch)));
}

/// Metrics for every partition; brokers with a low id run hot (skew), so
/// that planning has work to do.
void feed_metrics(actors::Engine& engine, int32_t brokers, int32_t partitions, int64_t time_ms,
                  int32_t samples_per_event) {
    std::vector<events::Event> batch;
    events::PartitionMetrics report;
    report.topics = {"bench"};
    report.sample_time_ms = time_ms;
    for (int32_t p = 0; p < partitions; p++) {
        const int32_t b = p % brokers + 1;
        const double rate = 1024.0 * (b <= brokers / 4 ? 4 : 1) * (1 + p % 7);
        report.samples.push_back({0, p, rate, rate, rate / 100, static_cast<uint64_t>(rate * 3600)});
        if (static_cast<int32_t>(report.samples.size()) == samples_per_event) {
            batch.push_back({0, time_ms, events::Source::kafka_metrics, report});
            report.samples.clear();
            if (batch.size() == 1'000) {
                must(engine.feed(std::move(batch)));
                batch.clear();
            }
        }
    }
    if (!report.samples.empty()) batch.push_back({0, time_ms, events::Source::kafka_metrics, report});
    // Every broker reports too: brokers without fresh metrics neither give nor take load.
    events::BrokerMetrics brokers_report;
    brokers_report.sample_time_ms = time_ms;
    for (int32_t b = 1; b <= brokers; b++) brokers_report.samples.push_back({b, 0, 0, 0, 0});
    batch.push_back({0, time_ms, events::Source::kafka_metrics, brokers_report});
    must(engine.feed(std::move(batch)));
}

std::unique_ptr<actors::Engine> start_engine(const std::string& path, int64_t detect_interval_ms,
                                             PlanWatch* watch) {
    actors::EngineOptions options;
    options.config = bench_config(detect_interval_ms);
    options.journal_path = path;
    if (watch) options.on_decision = watch->sink();
    auto engine = actors::Engine::start(std::move(options));
    if (!engine) {
        std::fprintf(stderr, "%s\n", engine.error().to_string().c_str());
        std::abort();
    }
    return std::move(*engine);
}

/// Sustained ingest: metrics reports into a 100-broker / 100,000-partition
/// cluster, as fast as feed() takes them, until everything is applied.
void BM_Ingest(benchmark::State& state) {
    const auto samples_per_event = static_cast<int32_t>(state.range(0));
    const int32_t brokers = 100;
    const int32_t partitions = 100'000;
    testing::TempDir dir;
    auto engine = start_engine(dir.path(), 86'400'000, nullptr);
    feed_cluster(*engine, brokers, partitions);
    must(engine->wait_idle());
    uint64_t events = 0;
    int64_t time_ms = 1000;
    for (auto _ : state) {
        const uint64_t before = engine->progress().events_routed.load();
        const auto start = Clock::now();
        for (int round = 0; round < 5; round++) {
            feed_metrics(*engine, brokers, partitions, time_ms, samples_per_event);
            time_ms += 1000;
        }
        must(engine->wait_idle());
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
        state.SetIterationTime(seconds);
        events += engine->progress().events_routed.load() - before;
    }
    state.counters["events_per_s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
    state.counters["samples_per_event"] = samples_per_event;
}
BENCHMARK(BM_Ingest)->Arg(1)->Arg(100)->UseManualTime()->Iterations(3)->Unit(benchmark::kMillisecond);

/// From the Tick that makes a round due to the journaled ActionsPlanned.
/// The first round after the cluster appears builds the model from scratch;
/// the later ones patch the partitions whose metrics changed: both reported.
void BM_BarrierToPlan(benchmark::State& state) {
    const auto partitions = static_cast<int32_t>(state.range(0));
    const auto brokers = static_cast<int32_t>(state.range(1));
    testing::TempDir dir;
    PlanWatch watch;
    const int64_t interval_ms = 60'000;
    auto engine = start_engine(dir.path(), interval_ms, &watch);
    feed_cluster(*engine, brokers, partitions);
    feed_metrics(*engine, brokers, partitions, 1'000, 1'000);
    must(engine->wait_idle());
    int64_t now_ms = interval_ms;
    bool first = true;
    double first_ms = 0;
    size_t first_actions = 0;
    for (auto _ : state) {
        // New samples for every partition, then the Tick.
        feed_metrics(*engine, brokers, partitions, now_ms - 1, 1'000);
        must(engine->wait_idle());
        watch.arm();
        const auto start = Clock::now();
        must(engine->feed({{0, now_ms, events::Source::clock, events::Tick{now_ms}}}));
        const auto planned = watch.wait();
        const double seconds = std::chrono::duration<double>(planned - start).count();
        state.SetIterationTime(seconds);
        if (first) {
            first_ms = seconds * 1000;
            first_actions = watch.actions();
        }
        first = false;
        must(engine->wait_idle());
        now_ms += interval_ms;
    }
    state.counters["first_round_ms"] = first_ms;
    // Later rounds hold everything: the first round's actions never finish
    // here, so the concurrency cap (50) stays full.
    state.counters["first_round_actions"] = static_cast<double>(first_actions);
    state.counters["peak_rss_MiB"] = static_cast<double>(driver::memory_use().peak_rss_bytes) / (1 << 20);
}
BENCHMARK(BM_BarrierToPlan)
    ->Args({100'000, 100})
    ->Args({1'000'000, 1'000})
    ->UseManualTime()
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ballast

BENCHMARK_MAIN();
