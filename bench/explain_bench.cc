/// `ballast replay --explain` (and the HTTP API's explain) on a large
/// journal, from the partition index (tools/driver/journal_explain.h).
///
/// The journal: `ballast storm`'s mixed stream (sim::StormGenerator: 90%
/// metrics, 5% leader/ISR changes, broker flaps, topic churn) at 100
/// brokers / 100,000 partitions, and every 100,000 events a planning round
/// of 20 moves on partitions drawn from a seeded source, each submitted and
/// completed 1,000 events later: --events in all (default 10,000,000),
/// appended in batches of 1,000 with sync off, as the engine's journal
/// writes them (so the index is kept as the engine keeps it). Built once per
/// process under $TMPDIR (~1 GB at 10M events; a minute or two here).
///
///   BM_ExplainOpen   explain one partition (one that moved, then one that
///                    only changed leaders) on the journal held open: what
///                    a running engine's API pays (goal <= 100 ms)
///   BM_ExplainCold   the same with the journal's read-only open: what
///                    `ballast replay --explain` pays beside the process start
///   BM_ExplainScan   the fallback when the index cannot answer: a scan of
///                    the whole journal (one iteration)
///
///   ./build/bench/explain_bench --events=10000000
///
/// The index's cost on the append path: bench/journal_bench's appends and
/// bench/storm.sh, before and after (bench/README.md).

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "adapters/sim/storm_generator.h"
#include "store/journal.h"
#include "tests/support/temp_dir.h"
#include "tools/driver/journal_explain.h"

namespace {

using ballast::driver::ExplainRequest;
using ballast::driver::Explanation;
using ballast::events::Event;
using ballast::store::Journal;

uint64_t events_wanted = 10'000'000;

constexpr uint64_t round_every_events = 100'000;
constexpr int moves_per_round = 20;
constexpr uint64_t outcome_after_events = 1'000;
constexpr size_t batch_events = 1'000;
constexpr int32_t partitions = 100'000;

struct BuiltJournal {
    ballast::testing::TempDir dir;
    std::string path;
    uint64_t events = 0;
    uint64_t disk_bytes = 0;  // when built, logs included
    std::vector<int32_t> moved;  // partitions of "storm" that a round moved
};

Event at(int64_t time_ms, ballast::events::Body body, ballast::events::Source source) {
    return Event{0, time_ms, source, std::move(body)};
}

[[noreturn]] void fail(const ballast::events::Error& error) {
    std::fprintf(stderr, "explain_bench: building the journal: %s\n", error.to_string().c_str());
    std::exit(1);
}

/// Builds the journal once (see the header comment).
const BuiltJournal& built() {
    static std::unique_ptr<BuiltJournal> journal = [] {
        auto out = std::make_unique<BuiltJournal>();
        out->path = out->dir / "journal";
        ballast::store::JournalOptions options;
        options.sync = false;
        auto opened = Journal::open(out->path, options);
        if (!opened) fail(opened.error());
        Journal& j = **opened;
        ballast::sim::StormGenerator storm({100, partitions, ballast::sim::StormPattern::mixed, 1});
        for (std::vector<Event>& batch : storm.setup(batch_events)) {
            if (auto appended = j.append(batch); !appended) fail(appended.error());
        }
        std::mt19937_64 random(7);
        std::uniform_int_distribution<int32_t> pick(0, partitions - 1);
        std::vector<std::pair<uint64_t, std::vector<uint64_t>>> due;  // (at seq, action ids)
        uint64_t next_round = round_every_events;
        uint64_t next_action = 1;
        uint64_t round = 0;
        std::vector<Event> batch;
        int64_t time_ms = 1'700'000'000'000;
        while (j.last_seq() < events_wanted) {
            batch.clear();
            storm.generate(batch_events, time_ms, batch);
            const uint64_t last = j.last_seq() + batch.size();
            if (last >= next_round) {
                ballast::events::ActionsPlanned plan;
                plan.round = ++round;
                plan.barrier_seq = j.last_seq();
                std::vector<uint64_t> ids;
                for (int m = 0; m < moves_per_round; m++) {
                    ballast::events::Action a;
                    a.action_id = next_action++;
                    a.topic = "storm";
                    a.partition = pick(random);
                    a.source_broker = 1 + a.partition % 100;
                    a.destination_broker = 1 + (a.partition + 1) % 100;
                    a.replicas_before = {a.source_broker};
                    a.replicas_after = {a.destination_broker};
                    a.goal = "NetworkInUsageDistributionGoal";
                    ids.push_back(a.action_id);
                    out->moved.push_back(a.partition);
                    plan.actions.push_back(std::move(a));
                }
                batch.push_back(at(time_ms, std::move(plan), ballast::events::Source::engine));
                for (const uint64_t id : ids) {
                    batch.push_back(at(time_ms, ballast::events::ActionSubmitted{id, 1}, ballast::events::Source::engine));
                }
                due.emplace_back(last + outcome_after_events, std::move(ids));
                next_round += round_every_events;
            }
            while (!due.empty() && due.front().first <= last) {
                for (const uint64_t id : due.front().second) {
                    batch.push_back(at(time_ms, ballast::events::ActionCompleted{id}, ballast::events::Source::kafka_admin));
                }
                due.erase(due.begin());
            }
            if (auto appended = j.append(batch); !appended) fail(appended.error());
            time_ms += 2;  // 500,000 events/s
        }
        out->events = j.last_seq();
        out->disk_bytes = j.disk_size_bytes();
        return out;
    }();
    return *journal;
}

ExplainRequest request_for(int32_t partition) {
    ExplainRequest request;
    request.topic = "storm";
    request.partition = partition;
    return request;
}

/// Alternates a partition that a round moved with one that did not.
int32_t partition_of(const BuiltJournal& j, int64_t i) {
    return i % 2 == 0 ? j.moved[static_cast<size_t>(i / 2) % j.moved.size()]
                      : static_cast<int32_t>((i * 7919) % partitions);
}

std::unique_ptr<Journal> open_read_only(const BuiltJournal& j) {
    ballast::store::JournalOptions options;
    options.read_only = true;
    options.verify_tail = false;
    auto journal = Journal::open(j.path, options);
    if (!journal) fail(journal.error());
    return std::move(*journal);
}

/// Times `explain(partition)` over the partitions partition_of gives; with
/// `from_index`, an answer the index did not give stops the benchmark.
void explain_loop(benchmark::State& state, const BuiltJournal& j, bool from_index,
                  const std::function<ballast::events::Result<Explanation>(const ExplainRequest&)>& explain) {
    uint64_t read = 0;
    int64_t i = 0;
    for (auto _ : state) {
        auto answer = explain(request_for(partition_of(j, i++)));
        if (!answer || (from_index && answer->how.rfind("partition index", 0) != 0)) {
            state.SkipWithError(answer ? answer->how.c_str() : answer.error().message.c_str());
            return;
        }
        read += answer->events_read;
        benchmark::DoNotOptimize(answer->text.data());
    }
    state.counters["journal_events"] = static_cast<double>(j.events);
    state.counters["journal_disk_bytes"] = static_cast<double>(j.disk_bytes);
    state.counters["events_read_per_answer"] = static_cast<double>(read) / static_cast<double>(i);
}

void BM_ExplainOpen(benchmark::State& state) {
    const BuiltJournal& j = built();
    std::unique_ptr<Journal> journal = open_read_only(j);
    explain_loop(state, j, true, [&](const ExplainRequest& r) { return ballast::driver::explain_partition(*journal, r); });
}
BENCHMARK(BM_ExplainOpen)->Unit(benchmark::kMillisecond)->Iterations(40);

void BM_ExplainCold(benchmark::State& state) {
    const BuiltJournal& j = built();
    explain_loop(state, j, true, [&](const ExplainRequest& r) { return ballast::driver::explain_partition(j.path, r); });
}
BENCHMARK(BM_ExplainCold)->Unit(benchmark::kMillisecond)->Iterations(10);

void BM_ExplainScan(benchmark::State& state) {
    const BuiltJournal& j = built();
    std::unique_ptr<Journal> journal = open_read_only(j);
    // Marked wrong, the index stops answering: every answer is a scan.
    journal->index_damaged("the benchmark measures the scan");
    explain_loop(state, j, false, [&](const ExplainRequest& r) { return ballast::driver::explain_partition(*journal, r); });
}
BENCHMARK(BM_ExplainScan)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

int main(int argc, char** argv) {
    for (int i = 1; i < argc; i++) {
        if (std::strncmp(argv[i], "--events=", 9) == 0) {
            events_wanted = std::strtoull(argv[i] + 9, nullptr, 10);
            for (int k = i; k + 1 < argc; k++) argv[k] = argv[k + 1];
            argc--;
            i--;
        }
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
