/// The journal's size on disk for metrics: what a partition sample costs, and
/// what a day of a 100,000-partition cluster leaves.
///
///   BM_BytesPerSample   rounds of the cluster's PartitionMetrics (100,000
///                       samples a round, cluster_traffic.h) appended with
///                       Journal::append, sync off; then the journal closed
///                       and opened again, which flushes the write-ahead log
///                       into a table file (compressed) and deletes it, and
///                       closed again: every file of the directory
///                       (Journal::disk_size_bytes) over the samples.
///                       Goal: <= 8 bytes a sample.
///   BM_JournalDay       `--hours` of that cluster as `ballast run` journals
///                       it: every 10 s a PartitionMetrics and a BrokerMetrics
///                       per broker in one append, and a Tick each second in
///                       an append of its own; a snapshot of the engine's
///                       state at 100,000 partitions every
///                       ballast.snapshot.interval.events events or
///                       ballast.snapshot.interval.samples samples, and
///                       retention after each, as the engine does. Time moves
///                       only through the events' times. Goal: <= 10 GiB
///                       after 24 h.
///
///   ./build/bench/journal_size_bench --benchmark_filter=BytesPerSample --sample_rounds=100
///   ./build/bench/journal_size_bench --benchmark_filter=JournalDay --hours=24
///   (short runs while developing: --sample_rounds=5, --hours=0.25)
///
/// Both write under $TMPDIR (or /tmp) and remove what they wrote. A day is
/// 864M samples: while a sample is a 40-byte flatbuffer struct that RocksDB's
/// compression does not shrink (its doubles are noise to LZ4), ~35 GB of log
/// and nearly as much in table files: mind the free space.
///
/// Counters: bytes_per_sample (on disk, everything), encoded_bytes_per_sample
/// (the events as flatbuffers, before RocksDB: the codec's part),
/// topic_name_bytes_per_sample (the names each report lists, in that),
/// sst/log/other_MiB (the directory by kind of file), samples_per_s (the
/// appends' rate: time inside Journal::append) and, for the day, the wall
/// time, snapshots, their size, what retention deleted, and the 24 h figures
/// extrapolated linearly from a shorter run.

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "actors/engine_snapshot.h"
#include "bench/cluster_traffic.h"
#include "events/config.h"
#include "events/event.h"
#include "store/journal.h"
#include "tests/support/temp_dir.h"

namespace ballast {
namespace {

using Clock = std::chrono::steady_clock;
using bench::ClusterTraffic;
using bench::TrafficShape;
using events::Event;
using store::Journal;
using store::JournalOptions;

/// Set from the command line (main); see the top of the file.
double g_hours = 24;
int64_t g_sample_rounds = 100;

/// The first report's time: any epoch-ms will do; time moves only from here.
constexpr int64_t start_ms = 1'700'000'000'000;

[[noreturn]] void die(const std::string& what) {
    std::fprintf(stderr, "journal_size_bench: %s\n", what.c_str());
    std::abort();
}

std::unique_ptr<Journal> open_or_die(const std::string& path, const JournalOptions& options) {
    auto journal = Journal::open(path, options);
    if (!journal) die("cannot open journal " + path + ": " + journal.error().message);
    return std::move(journal.value());
}

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

/// The journal's directory by kind of file, as it stands.
struct DiskUse {
    uint64_t total_bytes = 0;  // Journal::disk_size_bytes
    uint64_t sst_bytes = 0;    // table files: events and snapshots, compressed
    uint64_t log_bytes = 0;    // write-ahead logs (RocksDB's *.log)
    uint64_t other_bytes = 0;  // MANIFEST, OPTIONS, RocksDB's info LOG files, ...
};

/// Closes the journal and brings everything it holds into the form it keeps:
/// an open replays the write-ahead log into a table file (RocksDB flushes
/// what it recovered) and the log goes; the close after it waits for that
/// deletion. Then measured through a read-only open, which writes nothing.
DiskUse settle_and_measure(std::unique_ptr<Journal>& journal) {
    const std::string path = journal->path();
    journal.reset();
    JournalOptions reopen;
    reopen.sync = false;
    reopen.verify_tail = false;  // the flush is what is wanted, not the check
    open_or_die(path, reopen).reset();
    JournalOptions read_only;
    read_only.read_only = true;
    read_only.verify_tail = false;
    DiskUse use;
    use.total_bytes = open_or_die(path, read_only)->disk_size_bytes();
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
        if (!entry.is_regular_file(ec)) continue;
        const uint64_t size = entry.file_size(ec);
        const std::string ext = entry.path().extension().string();
        (ext == ".sst" ? use.sst_bytes : ext == ".log" ? use.log_bytes : use.other_bytes) += size;
    }
    return use;
}

void set_disk_counters(benchmark::State& state, const DiskUse& use, uint64_t samples) {
    constexpr double mib = 1 << 20;
    state.counters["bytes_per_sample"] = static_cast<double>(use.total_bytes) / static_cast<double>(samples);
    state.counters["disk_MiB"] = static_cast<double>(use.total_bytes) / mib;
    state.counters["sst_MiB"] = static_cast<double>(use.sst_bytes) / mib;
    state.counters["log_MiB"] = static_cast<double>(use.log_bytes) / mib;
    state.counters["other_MiB"] = static_cast<double>(use.other_bytes) / mib;
    state.counters["samples"] = static_cast<double>(samples);
}

/// One round's PartitionMetrics as the journal stores them: flatbuffer bytes
/// (with a seq, as stored), and the bytes of the topic names they list.
struct RoundBytes {
    uint64_t encoded_bytes = 0;
    uint64_t topic_name_bytes = 0;
};

RoundBytes round_bytes(const std::vector<Event>& round) {
    RoundBytes bytes;
    for (Event event : round) {
        if (const auto* metrics = std::get_if<events::PartitionMetrics>(&event.body)) {
            for (const std::string& topic : metrics->topics) bytes.topic_name_bytes += topic.size();
        }
        event.seq = 123'456'789;
        bytes.encoded_bytes += events::encode(event).size();
    }
    return bytes;
}

// ---------------------------------------------------------------- bytes per sample

void BM_BytesPerSample(benchmark::State& state) {
    const int64_t rounds = g_sample_rounds;
    for (auto _ : state) {
        testing::TempDir dir;
        JournalOptions options;
        options.sync = false;
        std::unique_ptr<Journal> journal = open_or_die(dir / "journal", options);
        ClusterTraffic traffic{TrafficShape{}};
        std::vector<Event> round;
        RoundBytes per_round;
        double append_s = 0;
        const auto started = Clock::now();
        for (int64_t r = 0; r < rounds; r++) {
            traffic.next_round(start_ms + r * traffic.shape().interval_ms, false, round);
            if (r == 0) per_round = round_bytes(round);
            const auto append_started = Clock::now();
            // One append a round: the sampler feeds a round's reports in one batch.
            if (auto appended = journal->append(round); !appended) die(appended.error().message);
            append_s += seconds_since(append_started);
        }
        const double loop_s = seconds_since(started);
        const uint64_t samples = static_cast<uint64_t>(rounds) * traffic.samples_per_round();
        const DiskUse use = settle_and_measure(journal);
        state.SetIterationTime(loop_s);

        set_disk_counters(state, use, samples);
        state.counters["encoded_bytes_per_sample"] =
            static_cast<double>(per_round.encoded_bytes) / static_cast<double>(traffic.samples_per_round());
        state.counters["topic_name_bytes_per_sample"] =
            static_cast<double>(per_round.topic_name_bytes) / static_cast<double>(traffic.samples_per_round());
        state.counters["samples_per_event"] =
            static_cast<double>(traffic.samples_per_round()) / static_cast<double>(round.size());
        state.counters["samples_per_s"] = static_cast<double>(samples) / append_s;
        state.counters["rounds"] = static_cast<double>(rounds);
    }
}

// ---------------------------------------------------------------- a day

/// An engine snapshot of the traffic's cluster as of `seq` (what the router
/// captures, actors/router_actor.cc): every partition's record with its
/// newest sample, the brokers, the effective configuration. Encoded by the
/// engine's own encode_snapshot, so its size is the engine's (~167 bytes a
/// partition: ~16 MB at 100,000, as a table file compressed by RocksDB). The
/// executor holds no actions in flight here; a real one holds at most its
/// concurrency's (tens), a few KB.
std::string engine_snapshot_bytes(const ClusterTraffic& traffic, uint64_t seq, int64_t now_ms, uint64_t rounds) {
    actors::EngineSnapshot s;
    s.seq = seq;
    s.router.now_ms = now_ms;
    s.router.last_plan_ms = now_ms - now_ms % 60'000;
    s.router.last_seq = seq;
    s.router.last_snapshot_seq = seq;
    s.config_properties = events::Config::defaults().to_properties_text();
    for (const ClusterTraffic::Topic& t : traffic.topics()) s.topics.push_back(t.name);
    s.partitions.reserve(traffic.partitions().size());
    const int32_t replicas = traffic.shape().replication_factor;
    for (const ClusterTraffic::Partition& p : traffic.partitions()) {
        actors::PartitionRecord record;
        record.topic = p.topic;
        record.partition = p.id;
        record.leader = p.leader;
        record.replica_count = static_cast<uint8_t>(replicas);
        record.isr_count = static_cast<uint8_t>(replicas);
        record.exists = true;
        for (int32_t k = 0; k < replicas; k++) {
            record.replicas[static_cast<size_t>(k)] = traffic.replica(p, k);
            record.isr[static_cast<size_t>(k)] = record.replicas[static_cast<size_t>(k)];
        }
        record.reporting_broker = p.leader;
        record.bytes_in_per_s = p.last.bytes_in_per_s;
        record.bytes_out_per_s = p.last.bytes_out_per_s;
        record.messages_in_per_s = p.last.messages_in_per_s;
        record.size_bytes = static_cast<double>(p.last.size_bytes);
        record.metrics_time_ms = now_ms - 1000;
        // Applied in the last round: a sample a round reaches every partition.
        record.applied_seq = seq - (seq > 200 ? p.leader : 0);
        s.partitions.push_back(record);
    }
    for (int32_t b = 0; b < traffic.shape().brokers; b++) {
        actors::BrokerRecord broker;
        broker.id = traffic.broker_id(b);
        broker.rack = "rack-" + std::to_string(b % 3);
        broker.registered = true;
        broker.metrics_time_ms = now_ms - 1000;
        broker.sample.broker_id = broker.id;
        broker.applied_seq = seq;
        s.brokers.push_back(broker);
    }
    s.scheduler.round = rounds / 6;  // a planning round a minute (detect interval's default)
    s.scheduler.next_action_id = 1 + rounds;
    return actors::encode_snapshot(s);
}

/// Retention as the engine applies it after each snapshot
/// (actors/router_actor.cc: the newest Tick's time, the configured window
/// and size bound).
store::RetentionReport apply_engine_retention(Journal& journal, int64_t now_ms, const events::Config& config) {
    const store::RetentionPolicy policy{
        .retention_ms = config.get_int64("ballast.journal.retention.ms"),
        .retention_bytes = static_cast<uint64_t>(config.get_int64("ballast.journal.retention.bytes")),
        .snapshot_spacing_ms = config.get_int64("ballast.journal.snapshot.spacing.ms")};
    auto report = journal.apply_retention(now_ms, policy);
    if (!report) die("retention: " + report.error().message);
    return *report;
}

void BM_JournalDay(benchmark::State& state) {
    const events::Config config = events::Config::defaults();
    const auto snapshot_interval_events = static_cast<uint64_t>(config.get_int64("ballast.snapshot.interval.events"));
    const auto snapshot_interval_samples = static_cast<uint64_t>(config.get_int64("ballast.snapshot.interval.samples"));
    const int64_t tick_interval_ms = config.get_int64("ballast.tick.interval.ms");
    for (auto _ : state) {
        testing::TempDir dir;
        JournalOptions options;
        options.sync = false;
        std::unique_ptr<Journal> journal = open_or_die(dir / "journal", options);
        ClusterTraffic traffic{TrafficShape{}};
        const int64_t interval_ms = traffic.shape().interval_ms;
        const auto rounds = static_cast<int64_t>(g_hours * 3'600'000 / static_cast<double>(interval_ms) + 0.5);
        const int64_t rounds_per_hour = 3'600'000 / interval_ms;

        std::vector<Event> round;
        std::vector<Event> tick(1);
        uint64_t last_snapshot_seq = 0;
        uint64_t samples_since_snapshot = 0;
        uint64_t snapshots = 0;
        uint64_t snapshot_bytes = 0;
        double snapshot_s = 0;
        uint64_t events_deleted = 0;
        double append_s = 0;
        const auto started = Clock::now();
        auto timed_append = [&](std::vector<Event>& batch) {
            const auto append_started = Clock::now();
            if (auto appended = journal->append(batch); !appended) die(appended.error().message);
            append_s += seconds_since(append_started);
        };
        for (int64_t r = 0; r < rounds; r++) {
            const int64_t round_ms = start_ms + r * interval_ms;
            traffic.next_round(round_ms, true, round);
            timed_append(round);
            samples_since_snapshot += traffic.samples_per_round();
            int64_t now_ms = round_ms;
            for (int64_t t = 0; t < interval_ms; t += tick_interval_ms) {
                now_ms = round_ms + t;
                tick[0] = Event{0, now_ms, events::Source::clock, events::Tick{now_ms}};
                timed_append(tick);
            }
            if (journal->last_seq() - last_snapshot_seq >= snapshot_interval_events ||
                samples_since_snapshot >= snapshot_interval_samples) {
                samples_since_snapshot = 0;
                // The engine snapshots at a batch's end once the interval is
                // past, on a thread of its own; here in line, timed apart.
                const auto snapshot_started = Clock::now();
                last_snapshot_seq = journal->last_seq();
                const std::string bytes =
                    engine_snapshot_bytes(traffic, last_snapshot_seq, now_ms, static_cast<uint64_t>(r));
                const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
                if (auto written = journal->write_snapshot(last_snapshot_seq, {data, bytes.size()}); !written) {
                    die("snapshot: " + written.error().message);
                }
                events_deleted += apply_engine_retention(*journal, now_ms, config).events_deleted;
                snapshots++;
                snapshot_bytes = bytes.size();
                snapshot_s += seconds_since(snapshot_started);
            }
            if ((r + 1) % rounds_per_hour == 0 || r + 1 == rounds) {
                const double wall_s = seconds_since(started);
                std::fprintf(stderr,
                             "  %.2f h simulated: %.0f s wall, journal %.2f GiB (log not yet flushed included), "
                             "%llu events, %llu snapshots\n",
                             static_cast<double>(r + 1) / static_cast<double>(rounds_per_hour), wall_s,
                             static_cast<double>(journal->disk_size_bytes()) / (1 << 30),
                             static_cast<unsigned long long>(journal->last_seq()),
                             static_cast<unsigned long long>(snapshots));
            }
        }
        const double wall_s = seconds_since(started);
        const uint64_t events_appended = journal->last_seq();
        const uint64_t samples = static_cast<uint64_t>(rounds) * traffic.samples_per_round();
        const DiskUse use = settle_and_measure(journal);
        state.SetIterationTime(wall_s);

        set_disk_counters(state, use, samples);
        const double hours = static_cast<double>(rounds * interval_ms) / 3'600'000;
        state.counters["hours"] = hours;
        state.counters["disk_GiB"] = static_cast<double>(use.total_bytes) / (1 << 30);
        state.counters["events"] = static_cast<double>(events_appended);
        state.counters["samples_per_s"] = static_cast<double>(samples) / append_s;
        state.counters["events_per_s"] = static_cast<double>(events_appended) / append_s;
        state.counters["wall_s"] = wall_s;
        state.counters["snapshots"] = static_cast<double>(snapshots);
        state.counters["snapshot_MiB"] = static_cast<double>(snapshot_bytes) / (1 << 20);
        state.counters["snapshot_s"] = snapshot_s;
        state.counters["retention_events_deleted"] = static_cast<double>(events_deleted);
        // Linear: retention deletes nothing within its default 7 days, nor
        // while the journal is under its default 10 GiB, so a shorter run's
        // journal only grows; compactions grow with it, so the wall time is
        // a lower bound. (Past 10 GiB the size bound cuts: disk_GiB of a
        // long run stops near it.)
        state.counters["day_GiB_linear"] = static_cast<double>(use.total_bytes) / (1 << 30) * 24 / hours;
        state.counters["day_wall_s_linear"] = wall_s * 24 / hours;
    }
}

/// Takes this program's own flags out of argv (Google Benchmark refuses
/// flags it does not know).
void take_own_flags(int* argc, char** argv) {
    int kept = 1;
    for (int i = 1; i < *argc; i++) {
        const char* arg = argv[i];
        if (std::strncmp(arg, "--hours=", 8) == 0) {
            g_hours = std::atof(arg + 8);
            if (!(g_hours > 0)) die(std::string("--hours must be > 0: ") + arg);
        } else if (std::strncmp(arg, "--sample_rounds=", 16) == 0) {
            g_sample_rounds = std::atoll(arg + 16);
            if (g_sample_rounds < 1) die(std::string("--sample_rounds must be >= 1: ") + arg);
        } else {
            argv[kept++] = argv[i];
        }
    }
    *argc = kept;
    argv[kept] = nullptr;
}

}  // namespace
}  // namespace ballast

int main(int argc, char** argv) {
    ballast::take_own_flags(&argc, argv);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    // Each case is one long run; repetitions are runs of the whole program.
    benchmark::RegisterBenchmark("BM_BytesPerSample", ballast::BM_BytesPerSample)
        ->Iterations(1)
        ->UseManualTime()
        ->Unit(benchmark::kSecond);
    benchmark::RegisterBenchmark("BM_JournalDay", ballast::BM_JournalDay)
        ->Iterations(1)
        ->UseManualTime()
        ->Unit(benchmark::kSecond);
    benchmark::AddCustomContext("sample_rounds", std::to_string(ballast::g_sample_rounds));
    benchmark::AddCustomContext("hours", std::to_string(ballast::g_hours));
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
