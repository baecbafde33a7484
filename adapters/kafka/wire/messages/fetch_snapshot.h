#pragma once

/// FetchSnapshot (key 59, versions 0-1, all flexible), as a KRaft observer sends it to the
/// controller quorum's leader when its Fetch position is older than the log's start: the
/// snapshot the Fetch answer named (its end offset and epoch), read in chunks from a byte
/// position. Replica id -1 (an observer). v1 adds the fetcher's directory (tagged, in the
/// request) and the endpoints of the nodes the answer names (tagged, in the response). The
/// answer carries the snapshot's whole size, the position of the chunk and the chunk: record
/// batches cut anywhere, so a chunk may end (and the next begin) inside a batch.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "adapters/kafka/wire/messages/fetch.h"
#include "adapters/kafka/wire/protocol_api.h"
#include "adapters/kafka/wire/protocol_errors.h"
#include "adapters/kafka/wire/uuid.h"
#include "adapters/kafka/wire/wire_reader.h"
#include "adapters/kafka/wire/wire_writer.h"

namespace ballast::kafka::wire::messages {

struct FetchSnapshotRequestPartition {
    int32_t partition = 0;
    int32_t current_leader_epoch = -1;
    FetchEpochEndOffset snapshot_id;  // end offset and epoch, as the Fetch answer named it
    int64_t position = 0;             // the byte in the snapshot to start from
    Uuid replica_directory_id;        // v1+, tagged; zero: unwritten
};

struct FetchSnapshotRequestTopic {
    std::string name;  // by name: FetchSnapshot has no topic id
    std::vector<FetchSnapshotRequestPartition> partitions;
};

struct FetchSnapshotRequest {
    std::optional<std::string> cluster_id;  // tagged; null: not checked by the leader
    int32_t replica_id = -1;
    int32_t max_bytes = std::numeric_limits<int32_t>::max();
    std::vector<FetchSnapshotRequestTopic> topics;
};

struct FetchSnapshotResponsePartition {
    int32_t index = 0;
    KafkaError error;
    FetchEpochEndOffset snapshot_id;
    std::optional<FetchLeader> current_leader;  // tagged 0
    int64_t size = 0;                           // the whole snapshot's bytes
    int64_t position = 0;                       // where `bytes` starts in it
    std::vector<uint8_t> bytes;                 // a chunk of record batches, cut anywhere
};

struct FetchSnapshotResponseTopic {
    std::string name;
    std::vector<FetchSnapshotResponsePartition> partitions;
};

struct FetchSnapshotNodeEndpoint {
    int32_t node_id = -1;
    std::string host;
    uint16_t port = 0;
    bool operator==(const FetchSnapshotNodeEndpoint&) const = default;
};

struct FetchSnapshotResponse {
    int32_t throttle_time_ms = 0;
    KafkaError error;  // the code alone
    std::vector<FetchSnapshotResponseTopic> topics;
    std::vector<FetchSnapshotNodeEndpoint> node_endpoints;  // v1+, tagged 0
};

struct FetchSnapshot {
    using Request = FetchSnapshotRequest;
    using Response = FetchSnapshotResponse;
    static constexpr ApiKey key = ApiKey::fetch_snapshot;
    static Status encode(const Request& request, int16_t version, Writer& writer);
    static Response decode(Reader& reader, int16_t version);
};

}  // namespace ballast::kafka::wire::messages
