/// The whole engine (RocksDB journal + router + broker and partition actors +
/// scheduler + planner + executor) on synthetic clusters:
///
///   BM_Ingest            events/s from feed() to applied in the actors, for
///                        metrics reports of 1 and 100 partition samples
///   BM_BarrierToPlan     from feeding the Tick that makes a round due to the
///                        journaled ActionsPlanned, at 100k and 1M partitions
///   peak RSS             of the process after the 1M-partition case
///   BM_Recovery          a fresh engine on a journal of 10,000,000 events
///                        (100,000 partitions, snapshots at the default
///                        interval): from Engine::start to idle
///
/// Goals: >= 500,000 events/s sustained; barrier-to-plan <= 100 ms
/// at 100k and <= 1 s at 1M partitions; peak RSS <= 2 GB at 1M partitions;
/// recovery of a 10M-event journal <= 2 s.

#include <benchmark/benchmark.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

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
/// that planning has work to do. With `reports_max`, only that many
/// PartitionMetrics and no broker report: a round cut short.
void feed_metrics(actors::Engine& engine, int32_t brokers, int32_t partitions, int64_t time_ms,
                  int32_t samples_per_event, uint64_t reports_max = UINT64_MAX) {
    std::vector<events::Event> batch;
    events::PartitionMetrics report;
    report.topics = {"bench"};
    report.sample_time_ms = time_ms;
    uint64_t reports = 0;
    for (int32_t p = 0; p < partitions && reports < reports_max; p++) {
        const int32_t b = p % brokers + 1;
        const double rate = 1024.0 * (b <= brokers / 4 ? 4 : 1) * (1 + p % 7);
        report.samples.push_back({0, p, rate, rate, rate / 100, static_cast<uint64_t>(rate * 3600)});
        if (static_cast<int32_t>(report.samples.size()) == samples_per_event) {
            batch.push_back({0, time_ms, events::Source::kafka_metrics, report});
            reports++;
            report.samples.clear();
            if (batch.size() == 1'000) {
                must(engine.feed(std::move(batch)));
                batch.clear();
            }
        }
    }
    if (reports_max != UINT64_MAX) {
        must(engine.feed(std::move(batch)));
        return;
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

// ---------------------------------------------------------------- recovery

/// The engine as `ballast run` configures it, but for the journal's sync
/// (off, as in the other cases: the fsyncs are not what recovery pays) and
/// the metrics' staleness (a day, as above: the samples' times are the feed's).
/// The snapshot interval and the detect interval are the defaults: what
/// recovery replays is what they leave.
events::Config recovery_config() {
    events::Config c = events::Config::defaults();
    for (const char* s : {"ballast.journal.sync=false", "ballast.cluster.flavor=automq",
                          "autobalancer.controller.metrics.delay.ms=86400000"}) {
        if (!c.apply_override(s).ok()) std::abort();
    }
    return c;
}

/// A journal of at least `events` events written through the engine, built
/// once per process and size (10M events take ~10-20 s) and kept, as the
/// engine left it when it stopped, for every recovery to start from. The
/// cluster and metrics are BM_Ingest's: 100 brokers, 100,000 partitions,
/// rounds of a metrics report per partition (`samples_per_event` samples an
/// event) and the broker's report, 10 s apart in event time, each followed
/// by ten Ticks a second apart (so rounds are planned every detect interval,
/// and a tail may hold one to plan again).
///
/// Where the engine stops decides the tail a restart replays: anywhere from
/// none to just short of the snapshot interval. A round of one-sample
/// reports is as long as the default interval (100,000 events), so rounds
/// that end at a snapshot would leave almost none. The build stops instead
/// `tail` events after the newest snapshot (metrics reports of a round cut
/// short): the tail the figure is for, 99,000 for the worst a restart meets
/// (at 100,000 the next snapshot would be written; the restart's own two
/// start events stay short of it too, so no snapshot is written in the
/// timed recovery).
class RecoveryJournal {
public:
    struct Built {
        std::string path;
        uint64_t events = 0;             // the journal's last seq
        uint64_t snapshot_seq = 0;       // the newest snapshot's
        uint64_t snapshot_bytes = 0;     // its encoded size
        uint64_t disk_bytes = 0;
        double build_s = 0;
    };

    static const Built& get(uint64_t events, int32_t samples_per_event, uint64_t tail) {
        std::unique_ptr<RecoveryJournal>& slot = instances()[{events, samples_per_event, tail}];
        if (!slot) slot.reset(new RecoveryJournal(events, samples_per_event, tail));
        return slot->_built;
    }

private:
    using Key = std::tuple<uint64_t, int32_t, uint64_t>;
    static std::map<Key, std::unique_ptr<RecoveryJournal>>& instances() {
        static std::map<Key, std::unique_ptr<RecoveryJournal>> map;
        return map;
    }

    RecoveryJournal(uint64_t events, int32_t samples_per_event, uint64_t tail) {
        const int32_t brokers = 100;
        const int32_t partitions = 100'000;
        _built.path = _dir / "journal";
        const auto started = Clock::now();
        {
            actors::EngineOptions options;
            options.config = recovery_config();
            options.journal_path = _built.path;
            auto engine = actors::Engine::start(std::move(options));
            if (!engine) {
                std::fprintf(stderr, "%s\n", engine.error().to_string().c_str());
                std::abort();
            }
            actors::Engine& e = **engine;
            feed_cluster(e, brokers, partitions);
            must(e.wait_idle());
            int64_t time_ms = 10'000;
            // A round: a report per partition (or the first `reports_max`),
            // then, when whole, the broker's report and ten Ticks.
            auto round = [&](uint64_t reports_max) {
                feed_metrics(e, brokers, partitions, time_ms, samples_per_event, reports_max);
                if (reports_max == UINT64_MAX) {
                    std::vector<events::Event> ticks;
                    for (int64_t t = time_ms; t < time_ms + 10'000; t += 1'000) {
                        ticks.push_back({0, t, events::Source::clock, events::Tick{t}});
                    }
                    must(e.feed(std::move(ticks)));
                }
                // Idle once a round: the journal's count is then exact for the
                // loops' tests, and a snapshot asked for is written.
                must(e.wait_idle());
                time_ms += 10'000;
            };
            while (e.journal()->last_seq() < events) round(UINT64_MAX);
            // Then `tail` events after the newest snapshot: whole rounds while
            // one fits (they write no snapshot: tail < the interval), then
            // rounds cut short.
            auto seqs = e.journal()->snapshot_seqs();
            const uint64_t snapshot_seq = seqs && !seqs->empty() ? seqs->back() : 0;
            const uint64_t round_events = static_cast<uint64_t>(partitions / samples_per_event) + 11;
            while (e.journal()->last_seq() + round_events <= snapshot_seq + tail) round(UINT64_MAX);
            while (e.journal()->last_seq() < snapshot_seq + tail) round(snapshot_seq + tail - e.journal()->last_seq());
            // The engine stops as on SIGTERM: what it holds is journaled, the
            // memtable's appends still only in the write-ahead log.
        }
        _built.build_s = std::chrono::duration<double>(Clock::now() - started).count();
        store::JournalOptions read_only;
        read_only.read_only = true;
        read_only.verify_tail = false;
        auto journal = store::Journal::open(_built.path, read_only);
        if (!journal) {
            std::fprintf(stderr, "%s\n", journal.error().to_string().c_str());
            std::abort();
        }
        _built.events = (*journal)->last_seq();
        auto snapshot = (*journal)->newest_snapshot();
        if (!snapshot || !*snapshot) {
            std::fprintf(stderr, "recovery journal: no snapshot\n");
            std::abort();
        }
        _built.snapshot_seq = (**snapshot).seq;
        _built.snapshot_bytes = (**snapshot).bytes.size();
        _built.disk_bytes = (*journal)->disk_size_bytes();
    }

    testing::TempDir _dir;
    Built _built;
};

/// A copy of the journal at `from` into `to` that the copy's opener may
/// change freely: table files are never written after they are made, so
/// they are hard links (a 10M-event journal is GBs of them); the rest (logs,
/// manifest, options, info log) are copied.
void copy_journal(const std::string& from, const std::string& to) {
    namespace fs = std::filesystem;
    fs::create_directories(to);
    for (const fs::directory_entry& entry : fs::directory_iterator(from)) {
        const fs::path target = fs::path(to) / entry.path().filename();
        if (entry.path().extension() == ".sst") {
            fs::create_hard_link(entry.path(), target);
        } else {
            fs::copy_file(entry.path(), target);
        }
    }
}

/// A restart as the engine tests do one (tests/engine/engine_test.cc,
/// run_with_kills: the engine destroyed, Engine::start on its journal).
/// From Engine::start on a copy of the journal the build left (open, the
/// tail's check, the newest snapshot read and decoded, the partition table
/// restored, the tail replayed quietly, the start events journaled) to the
/// engine idle. Each iteration starts from the same bytes (copy_journal),
/// out of the page cache: the build just wrote them (a cold start after a
/// reboot reads them from disk as well).
/// Also timed apart, on another copy: the journal's open alone (with the
/// write-ahead log's replay into a table file and the tail's check), and the
/// newest snapshot's read and decode.
void BM_Recovery(benchmark::State& state) {
    const auto events = static_cast<uint64_t>(state.range(0));
    const auto samples_per_event = static_cast<int32_t>(state.range(1));
    const auto tail = static_cast<uint64_t>(state.range(2));
    const RecoveryJournal::Built& built = RecoveryJournal::get(events, samples_per_event, tail);
    uint64_t tail_events = 0;
    double open_ms = 0;
    double snapshot_load_ms = 0;
    for (auto _ : state) {
        {
            testing::TempDir scratch;
            copy_journal(built.path, scratch / "journal");
            const auto opening = Clock::now();
            store::JournalOptions options;
            options.sync = false;
            auto journal = store::Journal::open(scratch / "journal", options);
            if (!journal) {
                state.SkipWithError(journal.error().message.c_str());
                break;
            }
            const auto loading = Clock::now();
            auto snapshot = (*journal)->newest_snapshot();
            if (!snapshot || !*snapshot || !actors::decode_snapshot((**snapshot).bytes)) {
                state.SkipWithError("the newest snapshot does not read");
                break;
            }
            const auto loaded = Clock::now();
            open_ms += std::chrono::duration<double, std::milli>(loading - opening).count();
            snapshot_load_ms += std::chrono::duration<double, std::milli>(loaded - loading).count();
        }
        testing::TempDir scratch;
        copy_journal(built.path, scratch / "journal");
        const auto start = Clock::now();
        actors::EngineOptions options;
        options.config = recovery_config();
        options.journal_path = scratch / "journal";
        auto engine = actors::Engine::start(std::move(options));
        if (!engine) {
            state.SkipWithError(engine.error().message.c_str());
            break;
        }
        must((*engine)->wait_idle());
        state.SetIterationTime(std::chrono::duration<double>(Clock::now() - start).count());
        tail_events = (*engine)->recovered_seq() - (*engine)->snapshot_seq();
        engine->reset();  // stopped outside the timing
    }
    const auto iterations = static_cast<double>(state.iterations());
    state.counters["events"] = static_cast<double>(built.events);
    state.counters["tail_events"] = static_cast<double>(tail_events);
    state.counters["snapshot_seq"] = static_cast<double>(built.snapshot_seq);
    state.counters["snapshot_MiB"] = static_cast<double>(built.snapshot_bytes) / (1 << 20);
    state.counters["journal_GiB"] = static_cast<double>(built.disk_bytes) / (1 << 30);
    state.counters["build_s"] = built.build_s;
    state.counters["open_ms"] = open_ms / iterations;
    state.counters["snapshot_load_ms"] = snapshot_load_ms / iterations;
    state.counters["samples_per_event"] = samples_per_event;
}
// 10M events of one sample each, the worst tail the event interval
// leaves: the figure. 1M: a short run while developing. Then reports as the
// Kafka adapter batches them at this size (1,000 samples: a broker's
// partitions, 100,000 over 100 brokers; bench/cluster_traffic.h), whose
// Ticks' planning rounds are replayed too: the worst tail the samples
// interval leaves (5,000 reports of 1,000 is its default of 5M samples), and
// half of it.
BENCHMARK(BM_Recovery)
    ->ArgNames({"events", "samples_per_event", "tail"})
    ->Args({10'000'000, 1, 99'000})
    ->Args({1'000'000, 1, 99'000})
    ->Args({100'000, 1'000, 2'500})
    ->Args({100'000, 1'000, 5'000})
    ->UseManualTime()
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ballast

BENCHMARK_MAIN();
