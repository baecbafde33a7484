/// Journal throughput: appends of ~100-byte events in batches, with and
/// without fsync, and sequential reads (verify only, verify + decode).
///
/// Every case runs against a real RocksDB journal in a fresh directory under
/// /tmp (mkdtemp), removed when the case (or the program) ends.
///
///   ./build/bench/journal_bench --benchmark_repetitions=3
///   (add --benchmark_report_aggregates_only=true for just mean/median/stddev)
///
/// Goals (issue): >= 1,000,000 events/s appended with sync off in batches of
/// 1,000; >= 3,000,000 events/s read + verify.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "events/event.h"
#include "store/journal.h"

namespace {

using ballast::events::Event;
using ballast::store::Journal;
using ballast::store::JournalOptions;

/// A directory made by mkdtemp under /tmp, removed with everything in it.
class TempDir {
public:
    TempDir() {
        std::string pattern = "/tmp/ballast-journal-bench-XXXXXX";
        if (::mkdtemp(pattern.data()) == nullptr) {
            std::perror("mkdtemp");
            std::abort();
        }
        _path = pattern;
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(_path, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::string& path() const { return _path; }
    std::string journal_path() const { return _path + "/journal"; }

private:
    std::string _path;
};

/// The event every case uses: a partition change with a short topic, three
/// replicas and three in sync, about 100 bytes encoded.
Event make_event(uint64_t i) {
    ballast::events::PartitionChanged change;
    change.topic = "orders.v1";
    change.partition = static_cast<int32_t>(i % 64);
    change.replicas = {1, 2, 3};
    change.leader = 1 + static_cast<int32_t>(i % 3);
    change.isr = {1, 2, 3};
    change.leader_epoch = static_cast<int32_t>(7 + i % 1000);
    Event event;
    event.seq = 0;
    event.time_ms = 1'700'000'000'000 + static_cast<int64_t>(i);
    event.source = ballast::events::Source::kafka_metadata;
    event.body = std::move(change);
    return event;
}

/// The encoded size of the benchmark event as the journal stores it (with a
/// non-zero seq, as every stored event has), and the record value size (plus
/// the 4-byte CRC header).
size_t encoded_event_size() {
    Event event = make_event(1);
    event.seq = 123'456;
    return ballast::events::encode(event).size();
}

std::unique_ptr<Journal> open_or_die(const std::string& path, const JournalOptions& options) {
    auto journal = Journal::open(path, options);
    if (!journal) {
        std::fprintf(stderr, "cannot open journal %s: %s\n", path.c_str(),
                     journal.error().message.c_str());
        std::abort();
    }
    return std::move(journal.value());
}

void set_size_counters(benchmark::State& state) {
    const size_t size = encoded_event_size();
    state.counters["event_bytes"] = static_cast<double>(size);
    state.counters["record_bytes"] = static_cast<double>(size + 4);
}

// ---------------------------------------------------------------- append

/// Args: {batch size, sync (0/1)}. Each iteration appends one batch as one
/// WriteBatch (Journal::append). The journal is fresh for each run, so it
/// grows over the run as it would in service (memtable flushes included).
void BM_Append(benchmark::State& state) {
    const auto batch_size = static_cast<size_t>(state.range(0));
    const bool sync = state.range(1) != 0;

    TempDir dir;
    JournalOptions options;
    options.sync = sync;
    std::unique_ptr<Journal> journal = open_or_die(dir.journal_path(), options);

    std::vector<Event> batch;
    batch.reserve(batch_size);
    for (size_t i = 0; i < batch_size; i++) batch.push_back(make_event(i));

    for (auto _ : state) {
        auto appended = journal->append(batch);
        if (!appended) {
            state.SkipWithError(appended.error().message.c_str());
            break;
        }
        benchmark::DoNotOptimize(appended.value());
    }

    const auto events = static_cast<double>(state.iterations() * batch_size);
    state.counters["events_per_s"] = benchmark::Counter(events, benchmark::Counter::kIsRate);
    state.counters["batches_per_s"] =
        benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
    set_size_counters(state);
    state.SetBytesProcessed(static_cast<int64_t>(events * encoded_event_size()));
    state.SetLabel(std::string("batch=") + std::to_string(batch_size) +
                   (sync ? " sync=on" : " sync=off"));

    journal.reset();  // close before the directory goes
}

// ---------------------------------------------------------------- read

constexpr uint64_t read_event_count = 1'000'000;

/// One journal of `read_event_count` events shared by the read cases: written
/// in batches of 1,000 with sync off, then closed and reopened (so the reads
/// come from SST files as after a restart, not from the write's memtable).
class ReadJournal {
public:
    static ReadJournal& get() {
        static ReadJournal* instance = new ReadJournal();
        return *instance;
    }
    static void cleanup() {
        // Called from main after the run; the static above is never destroyed
        // otherwise, and the directory must go.
        delete &get();
    }

    Journal& journal() { return *_journal; }

private:
    ReadJournal() {
        JournalOptions options;
        options.sync = false;
        {
            std::unique_ptr<Journal> writer = open_or_die(_dir.journal_path(), options);
            std::vector<Event> batch;
            batch.reserve(1000);
            for (uint64_t done = 0; done < read_event_count; done += 1000) {
                batch.clear();
                for (uint64_t i = 0; i < 1000; i++) batch.push_back(make_event(done + i));
                if (auto appended = writer->append(batch); !appended) {
                    std::fprintf(stderr, "populate: %s\n", appended.error().message.c_str());
                    std::abort();
                }
            }
        }
        _journal = open_or_die(_dir.journal_path(), options);
        if (_journal->event_count() != read_event_count) {
            std::fprintf(stderr, "populate: journal holds %llu events, expected %llu\n",
                         static_cast<unsigned long long>(_journal->event_count()),
                         static_cast<unsigned long long>(read_event_count));
            std::abort();
        }
    }
    ~ReadJournal() { _journal.reset(); }

    TempDir _dir;
    std::unique_ptr<Journal> _journal;
};

bool journal_ready = false;

/// Called before a case's timed loop, so the first case that needs the
/// journal builds it untimed.
Journal& read_journal() {
    Journal& journal = ReadJournal::get().journal();
    journal_ready = true;
    return journal;
}

void set_read_counters(benchmark::State& state, uint64_t events_read) {
    state.counters["events_per_s"] =
        benchmark::Counter(static_cast<double>(events_read), benchmark::Counter::kIsRate);
    state.counters["events"] = static_cast<double>(read_event_count);
    set_size_counters(state);
    state.SetBytesProcessed(static_cast<int64_t>(events_read * encoded_event_size()));
}

/// Journal::scan over every event with a visitor that does nothing: key
/// decode, seq density, CRC32C, flatbuffers verifier, embedded seq.
void BM_ScanVerify(benchmark::State& state) {
    Journal& journal = read_journal();
    uint64_t total = 0;
    for (auto _ : state) {
        uint64_t seen = 0;
        auto status = journal.scan(journal.first_seq(), journal.last_seq(),
                                   [&](uint64_t, std::span<const uint8_t> bytes) {
                                       benchmark::DoNotOptimize(bytes.data());
                                       seen++;
                                       return true;
                                   });
        if (!status || seen != read_event_count) {
            state.SkipWithError(status ? "short scan" : status.error().message.c_str());
            break;
        }
        total += seen;
    }
    set_read_counters(state, total);
}

/// Journal::scan + events::from_flatbuffer for each event, streaming (each
/// decoded event is dropped before the next).
void BM_ScanVerifyDecode(benchmark::State& state) {
    Journal& journal = read_journal();
    uint64_t total = 0;
    for (auto _ : state) {
        uint64_t seen = 0;
        auto status = journal.scan(journal.first_seq(), journal.last_seq(),
                                   [&](uint64_t, std::span<const uint8_t> bytes) {
                                       Event event = ballast::events::from_flatbuffer(
                                           ballast::events::view(bytes));
                                       benchmark::DoNotOptimize(event);
                                       seen++;
                                       return true;
                                   });
        if (!status || seen != read_event_count) {
            state.SkipWithError(status ? "short scan" : status.error().message.c_str());
            break;
        }
        total += seen;
    }
    set_read_counters(state, total);
}

/// Journal::read of every event into one std::vector<Event> (what recovery
/// and `ballast log` use), freed outside the timed region.
void BM_Read(benchmark::State& state) {
    Journal& journal = read_journal();
    uint64_t total = 0;
    for (auto _ : state) {
        auto events = journal.read(journal.first_seq(), journal.last_seq());
        if (!events || events->size() != read_event_count) {
            state.SkipWithError(events ? "short read" : events.error().message.c_str());
            break;
        }
        total += events->size();
        state.PauseTiming();
        events = std::vector<Event>();  // the million frees are not the read's
        state.ResumeTiming();
    }
    set_read_counters(state, total);
}

/// Reopening the journal: recovery verifies every record after the newest
/// snapshot, here all of them (there is no snapshot).
void BM_OpenVerifyTail(benchmark::State& state) {
    Journal& shared = read_journal();
    const std::string path = shared.path();
    JournalOptions options;
    options.read_only = true;  // the shared journal holds the writer's lock
    options.verify_tail = true;
    for (auto _ : state) {
        std::unique_ptr<Journal> journal = open_or_die(path, options);
        benchmark::DoNotOptimize(journal->last_seq());
    }
    state.counters["events_per_s"] =
        benchmark::Counter(static_cast<double>(state.iterations() * read_event_count),
                           benchmark::Counter::kIsRate);
    state.counters["events"] = static_cast<double>(read_event_count);
}

// Sync off: time-bounded by the default min time.
BENCHMARK(BM_Append)
    ->ArgNames({"batch", "sync"})
    ->Args({1, 0})
    ->Args({100, 0})
    ->Args({1000, 0})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
// Sync on: an fsync per batch. Batch 1 gets a fixed iteration count so the
// whole program stays within a couple of minutes.
BENCHMARK(BM_Append)
    ->ArgNames({"batch", "sync"})
    ->Args({1, 1})
    ->Iterations(200)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK(BM_Append)
    ->ArgNames({"batch", "sync"})
    ->Args({100, 1})
    ->Args({1000, 1})
    ->MinTime(0.5)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

BENCHMARK(BM_ScanVerify)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ScanVerifyDecode)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Read)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_OpenVerifyTail)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::AddCustomContext("event_bytes", std::to_string(encoded_event_size()));
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    if (journal_ready) ReadJournal::cleanup();
    return 0;
}
