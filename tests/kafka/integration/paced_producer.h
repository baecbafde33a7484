#pragma once

/// A paced producer for the integration tests that measure rates against a
/// real cluster: records of a fixed size at a fixed pace, from its own thread.

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "events/result.h"

struct rd_kafka_s;

namespace ballast::testing {

/// A producer of its own (acks=all) writing records of `record_bytes` bytes
/// to one partition, one record per batch (batch.num.messages=1): every
/// record then takes the same room in the log whatever the pace, so a log's
/// bytes per record is its size over its end offset.
class PacedProducer {
public:
    PacedProducer(const std::string& bootstrap_servers, std::string topic, int32_t partition, int record_bytes);
    ~PacedProducer();  // stops
    PacedProducer(const PacedProducer&) = delete;
    PacedProducer& operator=(const PacedProducer&) = delete;

    /// Writes `count` records as fast as the cluster takes them and waits
    /// for every acknowledgement. Not while started.
    events::Status fill(int count);
    /// Writes `records_per_s` records a second from a thread, on a fixed
    /// schedule: a record late after a stall goes at once, so the pace holds
    /// over any second after it.
    void start(double records_per_s);
    /// Stops the thread and waits for the acknowledgements; an error says
    /// why the first record that failed was not delivered.
    events::Status stop();

private:
    events::Status produce_one();
    void run(double records_per_s);

    std::string _topic;
    int32_t _partition;
    std::string _payload;
    rd_kafka_s* _handle = nullptr;
    std::thread _thread;
    std::mutex _mutex;
    std::condition_variable _wake;
    bool _stopping = false;
    std::string _failure;  // the first failed delivery or produce call

    friend struct PacedProducerCallbacks;
};

}  // namespace ballast::testing
