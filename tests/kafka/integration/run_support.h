#pragma once

/// What the `ballast run` integration tests need around the process under
/// test, all real: the ballast binary as a child process
/// (tests/support/ballast_process.h), a librdkafka
/// producer that counts what the cluster acknowledged, a consumer that
/// counts what it received, and the journal read back with
/// `ballast log show --json` as an operator would.

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/ballast_process.h"

struct rd_kafka_s;

namespace ballast::testing {

/// Produces to every partition of a topic, round robin, at about
/// `records_per_s`, acks=all, idempotent; remembers each acknowledged offset.
class CountingProducer {
public:
    CountingProducer(const std::string& bootstrap, const std::string& topic, int32_t partitions,
                     int records_per_s, int record_bytes);
    ~CountingProducer();
    /// Stops producing and waits (bounded) for every record sent to be answered.
    void stop();
    std::set<std::pair<int32_t, int64_t>> acknowledged() const;
    uint64_t failed() const { return _failed.load(); }

    void on_delivery(int32_t partition, int64_t offset, bool ok);

private:
    void run(int32_t partitions, int records_per_s, int record_bytes);
    rd_kafka_s* _handle = nullptr;
    std::string _topic;
    std::thread _thread;
    std::atomic<bool> _stopping{false};
    mutable std::mutex _mutex;
    std::set<std::pair<int32_t, int64_t>> _acked;
    std::atomic<uint64_t> _failed{0};
};

/// Reads every partition of a topic from the beginning, no group; remembers
/// each offset received.
class CountingConsumer {
public:
    CountingConsumer(const std::string& bootstrap, const std::string& topic, int32_t partitions);
    ~CountingConsumer();
    std::set<std::pair<int32_t, int64_t>> received() const;

private:
    void run();
    rd_kafka_s* _handle = nullptr;
    std::thread _thread;
    std::atomic<bool> _stopping{false};
    mutable std::mutex _mutex;
    std::set<std::pair<int32_t, int64_t>> _received;
};

}  // namespace ballast::testing
