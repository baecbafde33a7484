/// Decode rate of KRaft's metadata log (adapters/kafka/metadata_log/): a generated log of
/// record batches as Kafka's controllers write them (no key, one framed record a value, up
/// to 1,000 records a batch), decoded by `LogDecoder` from the first byte to the last on one
/// core: batch headers, CRC32C, record framing and every field of every record.
///
///   ./build-bench/bench/metadata_log_bench --benchmark_repetitions=3
///
/// Goal: >= 2,000,000 records/s on one core. Three logs (the `log` argument):
///   0  topics: 1,000 TopicRecords each followed by 100 PartitionRecords (v2: 3 replicas,
///      ISR of 3, a directory a replica): what a new observer reads from the log's start at
///      100,000 partitions.
///   1  changes: PartitionChangeRecords (v2) of a leader and ISR change, most of a live
///      log's traffic (a broker's restart writes one per partition it hosts).
///   2  brokers: BrokerRegistrationChangeRecords (fenced, unfenced) and RegisterBrokerRecords
///      (v3, two endpoints, a feature): liveness.
/// `BM_BatchesOnly` reads the same logs' batches and records without decoding the values:
/// the batch layer's share.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "adapters/kafka/metadata_log/log_decoder.h"
#include "adapters/kafka/metadata_log/metadata_records.h"
#include "adapters/kafka/metadata_log/record_batch.h"
#include "bench/generated_metadata_log.h"

namespace {

using namespace ballast::kafka::metadata_log;

using ballast::bench::as_log;
using ballast::bench::uuid_of;

std::vector<MetadataRecord> changes_log() {
    std::vector<MetadataRecord> records;
    for (int64_t i = 0; i < 100000; ++i) {
        PartitionChangeRecord change;
        change.partition_id = static_cast<int32_t>(i % 100);
        change.topic_id = uuid_of(i / 100);
        const int32_t leader = static_cast<int32_t>(i % 30);
        change.leader = leader;
        change.isr = std::vector<int32_t>{leader, (leader + 1) % 30};
        records.push_back({2, change});
    }
    return records;
}

std::vector<MetadataRecord> brokers_log() {
    std::vector<MetadataRecord> records;
    for (int32_t i = 0; i < 100000; ++i) {
        if (i % 10 == 0) {
            RegisterBrokerRecord broker;
            broker.broker_id = i % 30;
            broker.incarnation_id = uuid_of(i);
            broker.broker_epoch = i;
            broker.end_points = {{"PLAINTEXT", "broker-" + std::to_string(i % 30), 9092, 0},
                                 {"CONTROLLER", "broker-" + std::to_string(i % 30), 9093, 0}};
            broker.features = {{"metadata.version", 7, 27}};
            broker.rack = "rack-" + std::to_string(i % 3);
            broker.log_dirs = {uuid_of(i % 30)};
            records.push_back({3, broker});
        } else {
            BrokerRegistrationChangeRecord change;
            change.broker_id = i % 30;
            change.broker_epoch = i;
            change.fenced = i % 2 == 0 ? 1 : -1;
            records.push_back({2, change});
        }
    }
    return records;
}

const std::vector<uint8_t>& log_of(int64_t kind) {
    static const std::vector<uint8_t> logs[3] = {as_log(ballast::bench::topics_log(1000, 100)), as_log(changes_log()),
                                                 as_log(brokers_log())};
    return logs[kind];
}

const char* log_name(int64_t kind) {
    return kind == 0 ? "topics" : kind == 1 ? "changes" : "brokers";
}

void BM_DecodeLog(benchmark::State& state) {
    const std::vector<uint8_t>& log = log_of(state.range(0));
    state.SetLabel(log_name(state.range(0)));
    std::vector<MetadataEntry> entries;
    uint64_t records = 0;
    for (auto _ : state) {
        entries.clear();
        LogDecoder decoder;
        Result<size_t> used = decoder.decode(log, entries);
        if (!used.ok() || *used != log.size()) {
            state.SkipWithError("the generated log did not decode whole");
            return;
        }
        records += entries.size();
        benchmark::DoNotOptimize(entries.data());
    }
    state.counters["records_per_s"] = benchmark::Counter(static_cast<double>(records),
                                                         benchmark::Counter::kIsRate);
    state.counters["log_bytes"] = static_cast<double>(log.size());
    state.counters["bytes_per_record"] =
        static_cast<double>(log.size()) / static_cast<double>(entries.size());
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * log.size()));
}
BENCHMARK(BM_DecodeLog)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

void BM_BatchesOnly(benchmark::State& state) {
    const std::vector<uint8_t>& log = log_of(state.range(0));
    state.SetLabel(log_name(state.range(0)));
    RecordBatch batch;
    uint64_t records = 0;
    for (auto _ : state) {
        size_t used = 0;
        while (used < log.size()) {
            Result<size_t> taken = decode_batch(Bytes(log).subspan(used), batch);
            if (!taken.ok() || *taken == 0) {
                state.SkipWithError("the generated log did not decode whole");
                return;
            }
            used += *taken;
            records += batch.records.size();
        }
    }
    state.counters["records_per_s"] = benchmark::Counter(static_cast<double>(records),
                                                         benchmark::Counter::kIsRate);
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * log.size()));
}
BENCHMARK(BM_BatchesOnly)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
