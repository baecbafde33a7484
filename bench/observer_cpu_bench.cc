/// The metadata-log observer's CPU at steady state with a million partitions in the log:
/// a scripted controller in this process (tests/kafka/unit/scripted_controller.h's answers on
/// a real loopback socket) serves a generated `__cluster_metadata` (10,000 TopicRecords and
/// 1,000,000 PartitionRecords in batches of 1,000, as Kafka's controllers write them), then
/// answers every Fetch empty after holding it max_wait_ms, as the quorum's leader does when
/// nothing is new. The figure is the CPU time of the thread that polls
/// (CLOCK_THREAD_CPUTIME_ID) per second of steady state: the observer's own work; the
/// scripted controller's thread is left out (the process's is printed too).
///
///   build/bench/observer_cpu_bench [--seconds 10] [--max-wait-ms 500]
///
/// One JSON line: the catch-up (records, ms, CPU ms) and the steady state (fetches, CPU ms
/// a second, the share of a core).

#include <gtest/gtest.h>  // scripted_controller.h checks what it encodes with gtest
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "adapters/kafka/metadata_log/metadata_records.h"
#include "adapters/kafka/metadata_log/observer.h"
#include "adapters/kafka/metadata_log/record_batch.h"
#include "bench/generated_metadata_log.h"
#include "tests/kafka/unit/scripted_controller.h"
#include "tests/kafka/support/scripted_broker.h"

namespace {

using namespace ballast::kafka::metadata_log;
using ballast::testing::ScriptedBroker;

constexpr int32_t leader_epoch = 5;

double cpu_ms(clockid_t clock) {
    timespec t{};
    clock_gettime(clock, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

/// 10,000 topics of 100 partitions in chunks of whole batches of at most `chunk_bytes`
/// (one Fetch answer each). Returns the records' count.
int64_t generated_log(size_t chunk_bytes, std::vector<std::vector<uint8_t>>& chunks) {
    const std::vector<MetadataRecord> records = ballast::bench::topics_log(10'000, 100);
    chunks.emplace_back();
    ballast::bench::for_each_batch(records, leader_epoch, [&](const std::vector<uint8_t>& batch) {
        if (chunks.back().size() + batch.size() > chunk_bytes) chunks.emplace_back();
        chunks.back().insert(chunks.back().end(), batch.begin(), batch.end());
    });
    return static_cast<int64_t>(records.size());
}

}  // namespace

int main(int argc, char** argv) {
    int seconds = 10;
    int32_t max_wait_ms = 500;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--seconds")) seconds = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--max-wait-ms")) max_wait_ms = std::atoi(argv[i + 1]);
        else {
            std::fprintf(stderr, "unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    ObserverOptions options;
    options.max_wait_ms = max_wait_ms;
    std::vector<std::vector<uint8_t>> chunks;
    const int64_t records = generated_log(static_cast<size_t>(options.max_bytes), chunks);

    std::mutex mutex;
    size_t fetches = 0;
    ScriptedBroker controller([&](const ScriptedBroker::Request& request) {
        if (request.api_key == 18) return api_versions(request);
        size_t n;
        {
            std::lock_guard lock(mutex);
            n = fetches++;
        }
        // First: INVALID_REQUEST, which names the leader's epoch (the observer starts at -1).
        if (n == 0) return fetch_answer(request, answer([&](Answer& a) { a.error = 42; a.high_watermark = records; }));
        if (n <= chunks.size()) {
            return fetch_answer(request, answer([&](Answer& a) {
                                    a.high_watermark = records;
                                    a.batches = chunks[n - 1];
                                }));
        }
        // Nothing new: the leader holds the fetch for max_wait_ms, then answers empty.
        std::this_thread::sleep_for(std::chrono::milliseconds(max_wait_ms));
        return fetch_answer(request, answer([&](Answer& a) { a.high_watermark = records; }));
    });
    options.controllers = {{"127.0.0.1", controller.port()}};
    options.call_timeout_ms = 60'000;
    MetadataLogObserver observer(options, 0, 0);

    const auto wall = [] { return std::chrono::steady_clock::now(); };
    const auto catch_up_start = wall();
    const double catch_up_cpu_start = cpu_ms(CLOCK_THREAD_CPUTIME_ID);
    int64_t handed_out = 0;
    while (observer.committed_offset() < records) {
        ballast::events::Result<PollResult> polled = observer.poll();
        if (!polled) {
            std::fprintf(stderr, "poll: %s\n", polled.error().to_string().c_str());
            return 1;
        }
        handed_out += static_cast<int64_t>(polled->entries.size());
    }
    const double catch_up_cpu = cpu_ms(CLOCK_THREAD_CPUTIME_ID) - catch_up_cpu_start;
    const double catch_up_ms = std::chrono::duration<double, std::milli>(wall() - catch_up_start).count();

    const auto steady_start = wall();
    const double thread_start = cpu_ms(CLOCK_THREAD_CPUTIME_ID);
    const double process_start = cpu_ms(CLOCK_PROCESS_CPUTIME_ID);
    int steady_fetches = 0;
    size_t steady_entries = 0;
    while (wall() - steady_start < std::chrono::seconds(seconds)) {
        ballast::events::Result<PollResult> polled = observer.poll();
        if (!polled) {
            std::fprintf(stderr, "poll: %s\n", polled.error().to_string().c_str());
            return 1;
        }
        steady_entries += polled->entries.size();
        steady_fetches++;
    }
    const double steady_s = std::chrono::duration<double>(wall() - steady_start).count();
    const double thread_ms = cpu_ms(CLOCK_THREAD_CPUTIME_ID) - thread_start;
    const double process_ms = cpu_ms(CLOCK_PROCESS_CPUTIME_ID) - process_start;
    std::printf(
        "{\"records\":%lld,\"chunks\":%zu,\"handed_out\":%lld,\"catch_up_ms\":%.0f,\"catch_up_cpu_ms\":%.0f,"
        "\"max_wait_ms\":%d,\"steady_s\":%.1f,\"steady_fetches\":%d,\"steady_entries\":%zu,"
        "\"cpu_ms_per_s\":%.3f,\"core_share\":%.6f,\"process_cpu_ms_per_s\":%.3f}\n",
        static_cast<long long>(records), chunks.size(), static_cast<long long>(handed_out), catch_up_ms, catch_up_cpu,
        max_wait_ms, steady_s, steady_fetches, steady_entries, thread_ms / steady_s, thread_ms / steady_s / 1000.0,
        process_ms / steady_s);
    return 0;
}
