#pragma once

/// What the adapter asks of librdkafka (2.0.2), behind one small class so
/// that nothing else includes rdkafka.h: a consumer of a whole topic for the
/// metrics readers, and the topic's metadata it needs.
/// librdkafka's own log lines go to spdlog at debug level (a broker that is
/// down makes librdkafka log every reconnect; the callers report the
/// failures that matter, once, in their own words).
///
/// Thread-safety: librdkafka's calls are thread-safe, but each adapter part
/// owns its own client, so none waits on another's call.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "adapters/kafka/metadata/cluster_state.h"
#include "adapters/kafka/wire/protocol_api.h"
#include "events/result.h"

struct rd_kafka_s;

namespace ballast::kafka {

using events::Result;
using events::Status;

/// One consumed record: where it came from and its value.
struct ConsumedRecord {
    int32_t partition = -1;
    int64_t offset = -1;
    int64_t timestamp_ms = -1;
    std::vector<uint8_t> value;
};

/// The librdkafka this process loaded, as rd_kafka_version() gives it
/// (0xMMmmrrxx): the shared library's, which may differ from the header the
/// build saw.
int librdkafka_version();

class RdKafkaClient {
public:
    enum class Kind { producer, consumer };

    /// `bootstrap_servers` as librdkafka takes them ("host:port,host:port");
    /// `settings` (the connection's security, rdkafka_security.h) come last.
    /// A consumer never commits and joins no group: it is assigned partitions.
    static events::Result<std::unique_ptr<RdKafkaClient>> create(
        Kind kind, const std::string& bootstrap_servers, const std::string& client_id,
        const std::vector<std::pair<std::string, std::string>>& settings = {});
    ~RdKafkaClient();
    RdKafkaClient(const RdKafkaClient&) = delete;
    RdKafkaClient& operator=(const RdKafkaClient&) = delete;

    /// Every broker and topic (internal ones too).
    events::Result<metadata::Metadata> metadata(int64_t timeout_ms);

    /// Consumer: the partitions of `topic`, each from the first offset whose
    /// timestamp is at or after `from_timestamp_ms` (the end if none).
    /// Replaces any earlier assignment.
    events::Status assign_topic_from(const std::string& topic, const std::vector<int32_t>& partitions,
                             int64_t from_timestamp_ms, int64_t timeout_ms);
    /// Consumer: records that arrive within `timeout_ms`, at most `max` of
    /// them (a bound on one call). Partition errors (end of partition,
    /// unknown topic) are not records and are skipped; a fatal error is.
    events::Result<std::vector<ConsumedRecord>> consume(int64_t timeout_ms, size_t max);

private:
    explicit RdKafkaClient(rd_kafka_s* handle) : _handle(handle) {}
    rd_kafka_s* _handle = nullptr;
};

}  // namespace ballast::kafka
