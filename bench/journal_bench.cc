/// Journal throughput: appends in batches of 1, 100 and 1,000, with and
/// without fsync, and sequential reads of 1,000,000 events (verify only,
/// verify + decode streaming, Journal::read into a vector, open's tail check).
///
/// Every case runs against a real RocksDB journal in a fresh directory under
/// $TMPDIR or /tmp (tests/support/temp_dir.h), removed when the case ends.
///
///   ./build/bench/journal_bench --benchmark_repetitions=3
///   (add --benchmark_report_aggregates_only=true for just mean/median/stddev)
///
/// Goals: >= 1,000,000 events/s appended with sync off in batches of
/// 1,000; >= 3,000,000 events/s read + verify; both for ~100-byte events.
///
/// Two event shapes (the `event` argument; `event_bytes` reports the encoded
/// size, `record_bytes` adds the 4-byte CRC header the journal stores):
///   0  partition_changed: a PartitionChanged with a short topic, 3 replicas
///      and 3 in sync, the most common metadata event. 152 bytes: the
///      flatbuffers framing (size prefix, identifier, root, two vtables,
///      three offsets) takes most of it.
///   1  topic_deleted: a TopicDeleted with a 20-character topic, 104 bytes,
///      the goal's ~100 (encoded sizes step by 8 here: 96 or 104).

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "events/event.h"
#include "store/journal.h"
#include "tests/support/temp_dir.h"

namespace {

using ballast::events::Event;
using ballast::store::Journal;
using ballast::store::JournalOptions;
using ballast::testing::TempDir;

enum Shape : int64_t { partition_changed = 0, topic_deleted = 1 };

const char* shape_name(int64_t shape) {
    return shape == topic_deleted ? "topic_deleted" : "partition_changed";
}

/// The i-th event of a run; fields vary a little with i, sizes do not.
Event make_event(int64_t shape, uint64_t i) {
    Event event;
    event.seq = 0;  // the journal assigns it
    event.time_ms = 1'700'000'000'000 + static_cast<int64_t>(i);
    event.source = ballast::events::Source::kafka_metadata;
    if (shape == topic_deleted) {
        std::string topic = "payments.settlements";  // 20 characters
        topic.back() = static_cast<char>('a' + i % 26);
        event.body = ballast::events::TopicDeleted{std::move(topic)};
        return event;
    }
    ballast::events::PartitionChanged change;
    change.topic = "orders.v1";
    change.partition = static_cast<int32_t>(i % 64);
    change.replicas = {1, 2, 3};
    change.leader = 1 + static_cast<int32_t>(i % 3);
    change.isr = {1, 2, 3};
    change.leader_epoch = static_cast<int32_t>(7 + i % 1000);
    event.body = std::move(change);
    return event;
}

/// The encoded size of the shape as the journal stores it (with a non-zero
/// seq, as every stored event has).
size_t encoded_size(int64_t shape) {
    Event event = make_event(shape, 1);
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

void set_size_counters(benchmark::State& state, int64_t shape, double events) {
    const size_t size = encoded_size(shape);
    state.counters["event_bytes"] = static_cast<double>(size);
    state.counters["record_bytes"] = static_cast<double>(size + 4);
    state.SetBytesProcessed(static_cast<int64_t>(events * static_cast<double>(size)));
}

// ---------------------------------------------------------------- append

/// Args: {batch size, sync (0/1), event shape}. Each iteration appends one
/// batch with Journal::append (one WriteBatch). The journal is fresh for each
/// run and grows over it as in service, memtable flushes included.
void BM_Append(benchmark::State& state) {
    const auto batch_size = static_cast<size_t>(state.range(0));
    const bool sync = state.range(1) != 0;
    const int64_t shape = state.range(2);

    TempDir dir;
    JournalOptions options;
    options.sync = sync;
    std::unique_ptr<Journal> journal = open_or_die(dir / "journal", options);

    std::vector<Event> batch;
    batch.reserve(batch_size);
    for (size_t i = 0; i < batch_size; i++) batch.push_back(make_event(shape, i));

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
    set_size_counters(state, shape, events);
    state.SetLabel(std::string(shape_name(shape)) + (sync ? " sync=on" : " sync=off"));

    journal.reset();  // close before the directory goes
}

// ---------------------------------------------------------------- read

constexpr uint64_t read_event_count = 1'000'000;

/// One journal of `read_event_count` events per shape, shared by the read
/// cases: written in batches of 1,000 with sync off, then closed and reopened
/// (so reads come from SST files, as after a restart, not from the memtable).
class ReadJournal {
public:
    static Journal& get(int64_t shape) {
        std::unique_ptr<ReadJournal>& slot = instances()[shape];
        if (!slot) slot.reset(new ReadJournal(shape));
        return *slot->_journal;
    }
    /// Closes and removes every read journal; main calls it after the run.
    static void cleanup() { instances().clear(); }

    ~ReadJournal() { _journal.reset(); }  // close before _dir goes

private:
    static std::map<int64_t, std::unique_ptr<ReadJournal>>& instances() {
        static std::map<int64_t, std::unique_ptr<ReadJournal>> map;
        return map;
    }

    explicit ReadJournal(int64_t shape) {
        JournalOptions options;
        options.sync = false;
        {
            std::unique_ptr<Journal> writer = open_or_die(_dir / "journal", options);
            std::vector<Event> batch;
            batch.reserve(1000);
            for (uint64_t done = 0; done < read_event_count; done += 1000) {
                batch.clear();
                for (uint64_t i = 0; i < 1000; i++) batch.push_back(make_event(shape, done + i));
                if (auto appended = writer->append(batch); !appended) {
                    std::fprintf(stderr, "populate: %s\n", appended.error().message.c_str());
                    std::abort();
                }
            }
        }
        _journal = open_or_die(_dir / "journal", options);
        if (_journal->event_count() != read_event_count) {
            std::fprintf(stderr, "populate: journal holds %llu events, expected %llu\n",
                         static_cast<unsigned long long>(_journal->event_count()),
                         static_cast<unsigned long long>(read_event_count));
            std::abort();
        }
    }

    TempDir _dir;
    std::unique_ptr<Journal> _journal;
};

void set_read_counters(benchmark::State& state, int64_t shape, uint64_t events_read) {
    state.counters["events_per_s"] =
        benchmark::Counter(static_cast<double>(events_read), benchmark::Counter::kIsRate);
    state.counters["events"] = static_cast<double>(read_event_count);
    set_size_counters(state, shape, static_cast<double>(events_read));
    state.SetLabel(shape_name(shape));
}

/// Journal::scan over every event with a visitor that does nothing: key
/// decode, seq density, CRC32C, flatbuffers verifier, embedded seq.
/// Arg: event shape. (The journal is built before the timed loop.)
void BM_ScanVerify(benchmark::State& state) {
    const int64_t shape = state.range(0);
    Journal& journal = ReadJournal::get(shape);
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
    set_read_counters(state, shape, total);
}

/// Journal::scan + events::from_flatbuffer for each event, streaming (each
/// decoded event is dropped before the next).
void BM_ScanVerifyDecode(benchmark::State& state) {
    const int64_t shape = state.range(0);
    Journal& journal = ReadJournal::get(shape);
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
    set_read_counters(state, shape, total);
}

/// Journal::read of every event into one std::vector<Event> (what recovery
/// and `ballast log` use); the vector is freed outside the timed region.
void BM_Read(benchmark::State& state) {
    const int64_t shape = state.range(0);
    Journal& journal = ReadJournal::get(shape);
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
    set_read_counters(state, shape, total);
}

/// Opening the journal: recovery verifies every record after the newest
/// snapshot, here all of them (there is none). Opened read-only, beside the
/// shared journal's writer.
void BM_OpenVerifyTail(benchmark::State& state) {
    const int64_t shape = state.range(0);
    const std::string path = ReadJournal::get(shape).path();
    JournalOptions options;
    options.read_only = true;
    options.verify_tail = true;
    for (auto _ : state) {
        std::unique_ptr<Journal> journal = open_or_die(path, options);
        benchmark::DoNotOptimize(journal->last_seq());
    }
    set_read_counters(state, shape, state.iterations() * read_event_count);
}

// Sync off: bounded by the default min time.
BENCHMARK(BM_Append)
    ->ArgNames({"batch", "sync", "event"})
    ->ArgsProduct({{1, 100, 1000}, {0}, {partition_changed, topic_deleted}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
// Sync on: an fsync per batch. Batch 1 gets a fixed iteration count so the
// whole program stays within a couple of minutes on slow disks.
BENCHMARK(BM_Append)
    ->ArgNames({"batch", "sync", "event"})
    ->Args({1, 1, partition_changed})
    ->Iterations(200)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK(BM_Append)
    ->ArgNames({"batch", "sync", "event"})
    ->ArgsProduct({{100, 1000}, {1}, {partition_changed}})
    ->MinTime(0.5)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

BENCHMARK(BM_ScanVerify)
    ->ArgName("event")
    ->Arg(partition_changed)
    ->Arg(topic_deleted)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_ScanVerifyDecode)
    ->ArgName("event")
    ->Arg(partition_changed)
    ->Arg(topic_deleted)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_Read)
    ->ArgName("event")
    ->Arg(partition_changed)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_OpenVerifyTail)
    ->ArgName("event")
    ->Arg(partition_changed)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::AddCustomContext("event_bytes",
                                std::string("partition_changed=") +
                                    std::to_string(encoded_size(partition_changed)) +
                                    " topic_deleted=" + std::to_string(encoded_size(topic_deleted)));
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    ReadJournal::cleanup();
    return 0;
}
