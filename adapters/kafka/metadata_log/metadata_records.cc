#include "adapters/kafka/metadata_log/metadata_records.h"

#include <array>

#include "adapters/kafka/metadata_log/record_fields.h"

namespace ballast::kafka::metadata_log {

namespace {

constexpr uint32_t frame_version = 1;

struct TypeInfo {
    RecordType type;
    const char* name;
    int16_t highest_version;  // -1: not decoded
};

constexpr std::array<TypeInfo, 27> type_infos{{
    {RecordType::register_broker, "RegisterBrokerRecord", 3},
    {RecordType::unregister_broker, "UnregisterBrokerRecord", 0},
    {RecordType::topic, "TopicRecord", 0},
    {RecordType::partition, "PartitionRecord", 2},
    {RecordType::config, "ConfigRecord", -1},
    {RecordType::partition_change, "PartitionChangeRecord", 2},
    {RecordType::access_control_entry, "AccessControlRecord", -1},
    {RecordType::fence_broker, "FenceBrokerRecord", 0},
    {RecordType::unfence_broker, "UnfenceBrokerRecord", 0},
    {RecordType::remove_topic, "RemoveTopicRecord", 0},
    {RecordType::delegation_token, "DelegationTokenRecord", -1},
    {RecordType::user_scram_credential, "UserScramCredentialRecord", -1},
    {RecordType::feature_level, "FeatureLevelRecord", -1},
    {RecordType::client_quota, "ClientQuotaRecord", -1},
    {RecordType::producer_ids, "ProducerIdsRecord", -1},
    {RecordType::broker_registration_change, "BrokerRegistrationChangeRecord", 2},
    {RecordType::access_control_entry_v2, "AccessControlEntryRecord", -1},
    {RecordType::remove_access_control_entry, "RemoveAccessControlEntryRecord", -1},
    {RecordType::no_op, "NoOpRecord", -1},
    {RecordType::zk_migration_state, "ZkMigrationStateRecord", -1},
    {RecordType::remove_user_scram_credential, "RemoveUserScramCredentialRecord", -1},
    {RecordType::begin_transaction, "BeginTransactionRecord", 0},
    {RecordType::end_transaction, "EndTransactionRecord", 0},
    {RecordType::abort_transaction, "AbortTransactionRecord", 0},
    {RecordType::remove_delegation_token, "RemoveDelegationTokenRecord", -1},
    {RecordType::register_controller, "RegisterControllerRecord", -1},
    {RecordType::clear_elr, "ClearElrRecord", -1},
}};

const TypeInfo* find_type(int64_t api_key) {
    for (const TypeInfo& info : type_infos) {
        if (static_cast<int64_t>(info.type) == api_key) return &info;
    }
    return nullptr;
}

}  // namespace

std::string record_type_name(int16_t api_key) {
    const TypeInfo* info = find_type(api_key);
    return info ? info->name : "unknown record type " + std::to_string(api_key);
}

int16_t highest_version(RecordType type) {
    const TypeInfo* info = find_type(static_cast<int16_t>(type));
    return info ? info->highest_version : -1;
}

RecordType record_type(const RecordBody& body) {
    struct Visitor {
        RecordType operator()(const RegisterBrokerRecord&) { return RecordType::register_broker; }
        RecordType operator()(const UnregisterBrokerRecord&) { return RecordType::unregister_broker; }
        RecordType operator()(const TopicRecord&) { return RecordType::topic; }
        RecordType operator()(const PartitionRecord&) { return RecordType::partition; }
        RecordType operator()(const PartitionChangeRecord&) { return RecordType::partition_change; }
        RecordType operator()(const FenceBrokerRecord&) { return RecordType::fence_broker; }
        RecordType operator()(const UnfenceBrokerRecord&) { return RecordType::unfence_broker; }
        RecordType operator()(const RemoveTopicRecord&) { return RecordType::remove_topic; }
        RecordType operator()(const BrokerRegistrationChangeRecord&) {
            return RecordType::broker_registration_change;
        }
        RecordType operator()(const BeginTransactionRecord&) { return RecordType::begin_transaction; }
        RecordType operator()(const EndTransactionRecord&) { return RecordType::end_transaction; }
        RecordType operator()(const AbortTransactionRecord&) { return RecordType::abort_transaction; }
    };
    return std::visit(Visitor{}, body);
}

Result<std::vector<uint8_t>> encode_record(const MetadataRecord& record) {
    const RecordType type = record_type(record.body);
    const auto api_key = static_cast<int16_t>(type);
    const std::string what = record_type_name(api_key) + " v" + std::to_string(record.version);
    if (record.version < 0 || record.version > highest_version(type)) {
        return events::make_error(ErrorCode::invalid_argument,
                                  what + ": Kafka 4.1 defines versions 0-" +
                                      std::to_string(highest_version(type)));
    }
    wire::Writer writer;
    writer.uvarint(frame_version);
    writer.uvarint(static_cast<uint32_t>(api_key));
    writer.uvarint(static_cast<uint32_t>(record.version));
    FieldWriter fields(writer, record.version, what);
    std::visit([&](const auto& body) { encode_body(fields, body); }, record.body);
    if (!fields.ok()) return fields.error();
    return writer.take();
}

Result<DecodedRecord> decode_record(Bytes value) {
    wire::Reader reader(value, "frame");
    const uint32_t frame = reader.uvarint("frame_version");
    const uint32_t api_key = reader.uvarint("api_key");
    const uint32_t version = reader.uvarint("version");
    if (!reader.ok()) return reader.status().error();
    if (frame != frame_version) {
        return events::make_error(ErrorCode::corruption,
                                  "metadata record frame version " + std::to_string(frame) +
                                      ": only frame version 1 is defined");
    }
    if (api_key > INT16_MAX || version > INT16_MAX) {
        return events::make_error(ErrorCode::corruption,
                                  "metadata record api key " + std::to_string(api_key) +
                                      " version " + std::to_string(version) +
                                      ": out of int16 range");
    }
    SkippedRecord skipped{static_cast<int16_t>(api_key), static_cast<int16_t>(version),
                          SkipReason::not_needed};
    const TypeInfo* info = find_type(static_cast<int16_t>(api_key));
    if (info == nullptr) {
        skipped.reason = SkipReason::unknown_type;
        return DecodedRecord{skipped};
    }
    if (info->highest_version < 0) return DecodedRecord{skipped};
    if (skipped.version > info->highest_version) {
        skipped.reason = SkipReason::unknown_version;
        return DecodedRecord{skipped};
    }
    MetadataRecord record;
    record.version = skipped.version;
    const std::string what = std::string(info->name) + " v" + std::to_string(version);
    FieldReader fields(reader, record.version);
    decode_body(fields, info->type, record.body);
    Status status = reader.finish();
    if (!status.ok()) {
        return events::make_error(ErrorCode::corruption, what + ": " + status.error().message);
    }
    return DecodedRecord{std::move(record)};
}

}  // namespace ballast::kafka::metadata_log
