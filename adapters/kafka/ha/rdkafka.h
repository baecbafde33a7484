#pragma once

/// What the high-availability parts (the *.cc here) share of librdkafka: owned
/// handles, the settings every handle gets, error text, topic metadata, and
/// the read_committed reader of one partition that the journal's reader and
/// the snapshots' reader are built on. Private to this folder's .cc files: the only
/// header besides rdkafka_client.cc's code that includes rdkafka.h, and no
/// public header includes it.

#include <librdkafka/rdkafka.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "events/result.h"

namespace ballast::kafka::ha::detail {

struct HandleDeleter {
    void operator()(rd_kafka_t* handle) const { rd_kafka_destroy(handle); }
};
using Handle = std::unique_ptr<rd_kafka_t, HandleDeleter>;

struct ErrorDeleter {
    void operator()(rd_kafka_error_t* error) const { rd_kafka_error_destroy(error); }
};
using ErrorPtr = std::unique_ptr<rd_kafka_error_t, ErrorDeleter>;

struct PartitionListDeleter {
    void operator()(rd_kafka_topic_partition_list_t* list) const { rd_kafka_topic_partition_list_destroy(list); }
};
using PartitionListPtr = std::unique_ptr<rd_kafka_topic_partition_list_t, PartitionListDeleter>;

struct MessageDeleter {
    void operator()(rd_kafka_message_t* message) const { rd_kafka_message_destroy(message); }
};
using MessagePtr = std::unique_ptr<rd_kafka_message_t, MessageDeleter>;

struct QueueDeleter {
    void operator()(rd_kafka_queue_t* queue) const { rd_kafka_queue_destroy(queue); }
};
using QueuePtr = std::unique_ptr<rd_kafka_queue_t, QueueDeleter>;

struct EventDeleter {
    void operator()(rd_kafka_event_t* event) const { rd_kafka_event_destroy(event); }
};
using EventPtr = std::unique_ptr<rd_kafka_event_t, EventDeleter>;

struct AdminOptionsDeleter {
    void operator()(rd_kafka_AdminOptions_t* options) const { rd_kafka_AdminOptions_destroy(options); }
};
using AdminOptionsPtr = std::unique_ptr<rd_kafka_AdminOptions_t, AdminOptionsDeleter>;

using Settings = std::vector<std::pair<std::string, std::string>>;

/// Who to reach and how long a call may take, for every handle of one
/// instance.
struct Connection {
    std::string bootstrap_servers;
    std::string client_id;
    int64_t call_timeout_ms = 10'000;
    /// The security settings (KafkaHaOptions::client_settings).
    Settings client_settings = {};
};

/// A handle with the shared settings (bootstrap servers, client.id,
/// librdkafka's logs to spdlog at debug level, the connection's security)
/// and then `settings`. An error shows no password.
/// `configure` may set callbacks on the configuration before the handle is
/// made. `what` names the handle in the error ("the journal's writer").
events::Result<Handle> make_handle(rd_kafka_type_t type, const Connection& connection, const Settings& settings,
                                   const std::string& what,
                                   const std::function<void(rd_kafka_conf_t*)>& configure = {});

/// "NAME (description)".
std::string error_text(rd_kafka_resp_err_t error);
std::string error_text(const rd_kafka_error_t* error);

/// librdkafka's timeouts are ints.
int timeout_int(int64_t timeout_ms);

/// Milliseconds from now to `deadline`, never negative.
int64_t ms_until(std::chrono::steady_clock::time_point deadline);

/// What metadata says of one topic.
struct TopicInfo {
    bool exists = false;
    int partitions = 0;
    int32_t leader_of_0 = -1;  // -1: none (yet)
    int16_t replicas_of_0 = 0;
};

/// The number of brokers in the cluster and what it says of `topics`, from
/// one request for every topic (a request naming a missing topic may create
/// it with the broker's defaults when `auto.create.topics.enable` is on).
struct ClusterInfo {
    int brokers = 0;
    std::vector<TopicInfo> topics;  // in the order asked
};
events::Result<ClusterInfo> cluster_info(rd_kafka_t* handle, const std::vector<std::string>& topics,
                                         int64_t timeout_ms);
/// One topic that exists, asked for by name.
events::Result<TopicInfo> topic_info(rd_kafka_t* handle, const std::string& topic, int64_t timeout_ms);

/// Partition 0 of one topic read `read_committed`, assigned (no group is
/// joined, nothing is committed), from a chosen offset.
///
/// It reports the end of the partition: librdkafka's PARTITION_EOF, raised
/// when its fetch position reaches the last stable offset, past transaction
/// markers and aborted messages, which it never hands out. librdkafka 2.0.2
/// raises it once per fetch position it is given (its fetcher forgets the
/// end it reported when a new assignment arrives: rd_kafka_toppar_fetch_decide
/// resets the offset stats), so every `start_at` is followed by an end once
/// the reader gets there, even at an end reported before.
class CommittedReader {
public:
    /// How a reader fetches.
    struct Fetching {
        /// How long the broker holds a fetch that finds nothing new. A
        /// follower wants it long enough not to spin and short enough to see
        /// a commit soon; a search wants it short: librdkafka has one fetch
        /// in flight per broker, and a fetch held at the end delays the next
        /// probe's by this much.
        int64_t wait_max_ms = 50;
        /// At most this much of the partition per fetch (the broker sends
        /// a whole first batch whatever its size).
        int64_t partition_bytes_max = 8 << 20;
        /// What librdkafka fetches ahead of the reader.
        int64_t queued_kbytes_max = 32 << 10;
    };

    /// `group` only satisfies librdkafka (an assigned consumer still needs
    /// a group.id, see README); it is never joined.
    static events::Result<std::unique_ptr<CommittedReader>> create(Connection connection, std::string topic,
                                                                   std::string group, std::string what,
                                                                   Fetching fetching);

    /// Reads from `offset` on.
    events::Status start_at(int64_t offset);
    /// Stops fetching until the next start_at (a search done, a snapshot
    /// read: nothing more is fetched for nobody).
    void stop();

    struct Item {
        enum class Kind { message, end };
        Kind kind = Kind::message;
        int64_t offset = -1;  // the message's; the end's: the offset the reader reached
        /// The message's timestamp (the writer's clock when it produced
        /// it: CreateTime); -1 when it has none, and for the end.
        int64_t timestamp_ms = -1;
        std::string key;
        std::string value;
    };
    /// The next committed message, or the end, waiting up to `timeout_ms`;
    /// none when neither came. Errors: the offset is out of range (retention
    /// passed it), the topic is gone, librdkafka's fatal ones.
    events::Result<std::optional<Item>> next(int64_t timeout_ms);

    struct Bounds {
        int64_t log_start = 0;   // the first offset the log holds
        int64_t stable_end = 0;  // the last stable offset (ListOffsets latest, read_committed)
    };
    /// Asks the partition's leader.
    events::Result<Bounds> bounds();

    /// "topic T partition 0"
    std::string where() const;
    /// "at bootstrap servers B"
    std::string brokers() const;
    int64_t call_timeout_ms() const { return _connection.call_timeout_ms; }

private:
    CommittedReader(Connection connection, std::string topic, std::string group, std::string what,
                    Fetching fetching)
        : _connection(std::move(connection)),
          _topic(std::move(topic)),
          _group(std::move(group)),
          _what(std::move(what)),
          _fetching(fetching) {}
    events::Status make();

    Connection _connection;
    std::string _topic;
    std::string _group;
    std::string _what;
    Fetching _fetching;
    Handle _handle;
    int64_t _started_at = -1;
};

}  // namespace ballast::kafka::ha::detail
