#pragma once

/// The metadata records Ballast reads from KRaft's `__cluster_metadata`, as Kafka 4.1's
/// schema files define them (`metadata/src/main/resources/common/metadata/*.json`): the
/// brokers' registrations and liveness, topics, partitions and every change of a
/// partition's replicas, leader, ISR or directories, topic removal, and the metadata
/// transactions that group them. Every record is flexible in every version: compact
/// strings and arrays, a tagged-field section at the end.
///
/// A record's value in the log is framed: frame version (unsigned varint, always 1), api
/// key (unsigned varint), record version (unsigned varint), then the record. The encoders
/// write exactly what Kafka's generated classes write (tested against their bytes); a
/// field set to a non-default value that the chosen version cannot carry is an error, as
/// Kafka's UnsupportedVersionException.

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "adapters/kafka/metadata_log/record_batch.h"
#include "adapters/kafka/wire/uuid.h"

namespace ballast::kafka::metadata_log {

using wire::Uuid;

/// Kafka's api keys of metadata records (MetadataRecordType), every one Kafka 4.1 defines.
enum class RecordType : int16_t {
    register_broker = 0,
    unregister_broker = 1,
    topic = 2,
    partition = 3,
    config = 4,
    partition_change = 5,
    access_control_entry = 6,  // unused since 3.x: key 18 replaced it
    fence_broker = 7,
    unfence_broker = 8,
    remove_topic = 9,
    delegation_token = 10,
    user_scram_credential = 11,
    feature_level = 12,
    client_quota = 14,
    producer_ids = 15,
    broker_registration_change = 17,
    access_control_entry_v2 = 18,
    remove_access_control_entry = 19,
    no_op = 20,
    zk_migration_state = 21,
    remove_user_scram_credential = 22,
    begin_transaction = 23,
    end_transaction = 24,
    abort_transaction = 25,
    remove_delegation_token = 26,
    register_controller = 27,
    clear_elr = 28,
};

/// "PartitionChangeRecord", or "unknown record type 42".
std::string record_type_name(int16_t api_key);

struct BrokerEndpoint {
    std::string name;
    std::string host;
    uint16_t port = 0;
    int16_t security_protocol = 0;
    bool operator==(const BrokerEndpoint&) const = default;
};

struct BrokerFeature {
    std::string name;
    int16_t min_supported_version = 0;
    int16_t max_supported_version = 0;
    bool operator==(const BrokerFeature&) const = default;
};

/// A broker registered (at startup, or again with a new incarnation). Versions 0-3.
struct RegisterBrokerRecord {
    int32_t broker_id = 0;
    bool is_migrating_zk_broker = false;  // v2+
    Uuid incarnation_id;
    int64_t broker_epoch = 0;
    std::vector<BrokerEndpoint> end_points;
    std::vector<BrokerFeature> features;
    std::optional<std::string> rack;
    bool fenced = true;
    bool in_controlled_shutdown = false;  // v1+
    std::vector<Uuid> log_dirs;           // v3+, tagged 0
    bool operator==(const RegisterBrokerRecord&) const = default;
};

/// A broker left the cluster. Version 0.
struct UnregisterBrokerRecord {
    int32_t broker_id = 0;
    int64_t broker_epoch = 0;
    bool operator==(const UnregisterBrokerRecord&) const = default;
};

/// Fenced (removed from every ISR) or unfenced; version 0. Kafka 4.1 writes
/// BrokerRegistrationChangeRecord instead, but a log may still hold these.
struct FenceBrokerRecord {
    int32_t id = 0;
    int64_t epoch = 0;
    bool operator==(const FenceBrokerRecord&) const = default;
};
struct UnfenceBrokerRecord {
    int32_t id = 0;
    int64_t epoch = 0;
    bool operator==(const UnfenceBrokerRecord&) const = default;
};

/// A registered broker's liveness changed. Versions 0-2.
struct BrokerRegistrationChangeRecord {
    int32_t broker_id = 0;
    int64_t broker_epoch = 0;
    int8_t fenced = 0;                  // tagged 0: -1 unfenced, 0 no change, 1 fenced
    int8_t in_controlled_shutdown = 0;  // v1+, tagged 1: 0 no change, 1 in controlled shutdown
    std::vector<Uuid> log_dirs;         // v2+, tagged 2
    bool operator==(const BrokerRegistrationChangeRecord&) const = default;
};

/// A topic created. Version 0.
struct TopicRecord {
    std::string name;
    Uuid topic_id;
    bool operator==(const TopicRecord&) const = default;
};

/// A partition created (with its topic, or by CreatePartitions), whole. Versions 0-2.
struct PartitionRecord {
    int32_t partition_id = -1;
    Uuid topic_id;
    std::vector<int32_t> replicas;  // in preferred order
    std::vector<int32_t> isr;
    std::vector<int32_t> removing_replicas;
    std::vector<int32_t> adding_replicas;
    int32_t leader = -1;
    int8_t leader_recovery_state = 0;  // tagged 0
    int32_t leader_epoch = -1;
    int32_t partition_epoch = -1;
    std::vector<Uuid> directories;                               // v1+, one per replica
    std::optional<std::vector<int32_t>> eligible_leader_replicas;  // v2+, tagged 1
    std::optional<std::vector<int32_t>> last_known_elr;            // v2+, tagged 2
    bool operator==(const PartitionRecord&) const = default;
};

/// Leader not changed, in PartitionChangeRecord.
inline constexpr int32_t leader_unchanged = -2;

/// What changed in a partition; a field left at its default did not change. The leader
/// epoch is not in the record: the controller bumps it by one whenever the leader changes
/// (and when the ISR shrinks or replicas are removed), so a reader keeps the count. Every
/// record bumps the partition epoch by one. Versions 0-2.
struct PartitionChangeRecord {
    int32_t partition_id = -1;
    Uuid topic_id;
    std::optional<std::vector<int32_t>> isr;                // tagged 0
    int32_t leader = leader_unchanged;                      // tagged 1; -1: no leader now
    std::optional<std::vector<int32_t>> replicas;           // tagged 2
    std::optional<std::vector<int32_t>> removing_replicas;  // tagged 3
    std::optional<std::vector<int32_t>> adding_replicas;    // tagged 4
    int8_t leader_recovery_state = -1;                      // tagged 5; -1: no change
    std::optional<std::vector<Uuid>> directories;           // v1+, tagged 8
    std::optional<std::vector<int32_t>> eligible_leader_replicas;  // v2+, tagged 6
    std::optional<std::vector<int32_t>> last_known_elr;            // v2+, tagged 7
    bool operator==(const PartitionChangeRecord&) const = default;
};

/// A topic and all its partitions deleted. Version 0.
struct RemoveTopicRecord {
    Uuid topic_id;
    bool operator==(const RemoveTopicRecord&) const = default;
};

/// Metadata transactions: the records between Begin and End apply together; after Abort,
/// none of them apply. Version 0.
struct BeginTransactionRecord {
    std::optional<std::string> name;  // tagged 0
    bool operator==(const BeginTransactionRecord&) const = default;
};
struct EndTransactionRecord {
    bool operator==(const EndTransactionRecord&) const = default;
};
struct AbortTransactionRecord {
    std::optional<std::string> reason;  // tagged 0
    bool operator==(const AbortTransactionRecord&) const = default;
};

using RecordBody = std::variant<RegisterBrokerRecord, UnregisterBrokerRecord, TopicRecord,
                                PartitionRecord, PartitionChangeRecord, FenceBrokerRecord,
                                UnfenceBrokerRecord, RemoveTopicRecord,
                                BrokerRegistrationChangeRecord, BeginTransactionRecord,
                                EndTransactionRecord, AbortTransactionRecord>;

/// A decoded record with the version it was written in.
struct MetadataRecord {
    int16_t version = 0;
    RecordBody body;
    bool operator==(const MetadataRecord&) const = default;
};

RecordType record_type(const RecordBody& body);

/// The versions of `type` this decoder reads (Kafka 4.1's validVersions); -1 for a type it
/// does not decode.
int16_t highest_version(RecordType type);

/// The value of a metadata record as Kafka frames it in the log. Fails when the version is
/// not one Kafka 4.1 defines for the type, or a field holds a non-default value the version
/// cannot carry.
Result<std::vector<uint8_t>> encode_record(const MetadataRecord& record);

/// Why a record was read but not decoded.
enum class SkipReason : uint8_t {
    not_needed,       // a record type Kafka defines and Ballast does not read (ConfigRecord, NoOp...)
    unknown_type,     // an api key newer than Kafka 4.1's
    unknown_version,  // a type Ballast reads, in a version newer than it knows
};

struct SkippedRecord {
    int16_t api_key = 0;
    int16_t version = 0;
    SkipReason reason = SkipReason::not_needed;
};

using DecodedRecord = std::variant<MetadataRecord, SkippedRecord>;

/// Decodes one framed record value. A corrupt value (truncated, a frame version other than 1,
/// a field that does not parse, bytes left over) is an error naming the type, the version and
/// the field; a type or version it does not read is a SkippedRecord, not an error.
Result<DecodedRecord> decode_record(Bytes value);

}  // namespace ballast::kafka::metadata_log
