#pragma once

/// Fetch (key 1, versions 13-18, all flexible), as a KRaft observer sends it to the
/// controller quorum's leader for `__cluster_metadata`: replica id -1 (an observer that is
/// no replica; v15+ carry it in the tagged ReplicaState, which stays unwritten at its
/// default), the quorum's epoch as the current leader epoch, and the epoch of the last
/// record fetched. The raft leader answers INVALID_REQUEST to a fetch without
/// LastFetchedEpoch (before v12) and to one that names the topic otherwise than by its id
/// (before v13), so only 13-18 are implemented; Kafka 4.1.1 lists 4-18. v17 adds the
/// replica's directory, v18 the high watermark the fetcher knows. The answer carries, beside the records, the quorum's
/// high watermark, the current leader and its epoch, a diverging epoch (truncate) or a
/// snapshot id (the position is older than the log's start), and from v16 the endpoints of
/// the nodes it names.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "adapters/kafka/wire/uuid.h"
#include "adapters/kafka/wire/protocol_api.h"
#include "adapters/kafka/wire/protocol_errors.h"
#include "adapters/kafka/wire/wire_reader.h"
#include "adapters/kafka/wire/wire_writer.h"

namespace ballast::kafka::wire::messages {

/// KRaft's metadata log: `__cluster_metadata`, partition 0, its fixed topic id (which names
/// it in every version implemented).
inline constexpr const char* metadata_topic_name = "__cluster_metadata";
inline constexpr Uuid metadata_topic_id{0, 1};

struct FetchRequestPartition {
    int32_t partition = 0;
    int32_t current_leader_epoch = -1;
    int64_t fetch_offset = 0;
    int32_t last_fetched_epoch = -1;
    int64_t log_start_offset = -1;
    int32_t partition_max_bytes = 0;
    Uuid replica_directory_id;                                      // v17+, tagged; zero: unwritten
    int64_t high_watermark = std::numeric_limits<int64_t>::max();  // v18+, tagged
};

struct FetchRequestTopic {
    Uuid topic_id;
    std::vector<FetchRequestPartition> partitions;
};

struct FetchRequest {
    std::optional<std::string> cluster_id;  // tagged; null: not checked by the leader
    int32_t replica_id = -1;                // v13-14 a field, v15+ in the tagged ReplicaState
    int64_t replica_epoch = -1;             // v15+
    int32_t max_wait_ms = 0;
    int32_t min_bytes = 0;
    int32_t max_bytes = std::numeric_limits<int32_t>::max();
    int8_t isolation_level = 0;
    int32_t session_id = 0;
    int32_t session_epoch = -1;
    std::vector<FetchRequestTopic> topics;
    std::string rack_id;
};

struct FetchEpochEndOffset {
    int32_t epoch = -1;
    int64_t end_offset = -1;
    bool operator==(const FetchEpochEndOffset&) const = default;
};

struct FetchLeader {
    int32_t leader_id = -1;
    int32_t leader_epoch = -1;
    bool operator==(const FetchLeader&) const = default;
};

struct FetchAbortedTransaction {
    int64_t producer_id = 0;
    int64_t first_offset = 0;
    bool operator==(const FetchAbortedTransaction&) const = default;
};

struct FetchResponsePartition {
    int32_t partition_index = 0;
    KafkaError error;
    int64_t high_watermark = -1;
    int64_t last_stable_offset = -1;
    int64_t log_start_offset = -1;
    std::optional<FetchEpochEndOffset> diverging_epoch;  // tagged 0: truncate to it
    std::optional<FetchLeader> current_leader;           // tagged 1
    std::optional<FetchEpochEndOffset> snapshot_id;      // tagged 2: fetch this snapshot
    std::optional<std::vector<FetchAbortedTransaction>> aborted_transactions;
    int32_t preferred_read_replica = -1;
    std::optional<std::vector<uint8_t>> records;  // record batches, as they are in the log
};

struct FetchResponseTopic {
    Uuid topic_id;
    std::vector<FetchResponsePartition> partitions;
};

struct FetchNodeEndpoint {
    int32_t node_id = -1;
    std::string host;
    int32_t port = 0;
    std::optional<std::string> rack;
    bool operator==(const FetchNodeEndpoint&) const = default;
};

struct FetchResponse {
    int32_t throttle_time_ms = 0;
    KafkaError error;  // no message in Fetch: the code alone
    int32_t session_id = 0;
    std::vector<FetchResponseTopic> responses;
    std::vector<FetchNodeEndpoint> node_endpoints;  // v16+, tagged 0
};

struct Fetch {
    using Request = FetchRequest;
    using Response = FetchResponse;
    static constexpr ApiKey key = ApiKey::fetch;
    static Status encode(const Request& request, int16_t version, Writer& writer);
    static Response decode(Reader& reader, int16_t version);
};

}  // namespace ballast::kafka::wire::messages
