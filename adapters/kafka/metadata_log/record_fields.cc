#include "adapters/kafka/metadata_log/record_fields.h"

#include <algorithm>
#include <utility>

namespace ballast::kafka::metadata_log {

namespace {

constexpr bool flexible = true;  // every metadata record, every version

// ---- writing ----

void write_uuids(wire::Writer& out, const std::vector<Uuid>& ids) {
    out.array_length(ids.size(), flexible);
    for (const Uuid& id : ids) out.uuid(id);
}

void write_int32s(wire::Writer& out, const std::vector<int32_t>& values) {
    out.int32_array(values, flexible);
}

void write_nullable_int32s(wire::Writer& out, const std::optional<std::vector<int32_t>>& values) {
    if (!values) {
        out.nullable_array_length(std::nullopt, flexible);
    } else {
        out.int32_array(*values, flexible);
    }
}

using wire::TaggedFields;

// ---- reading ----

std::vector<Uuid> read_uuid_elements(wire::Reader& in, const char* field, size_t count) {
    std::vector<Uuid> ids;
    if (!in.ok()) return ids;
    if (count > in.remaining() / 16) {
        in.fail(field, "truncated: " + std::to_string(count) + " uuids need " +
                           std::to_string(count * 16) + " bytes, " +
                           std::to_string(in.remaining()) + " left");
        return ids;
    }
    ids.reserve(count);
    for (size_t i = 0; i < count; ++i) ids.push_back(in.uuid(field));
    return ids;
}

std::vector<Uuid> read_uuids(wire::Reader& in, const char* field) {
    const size_t count = in.array_length(field, flexible);
    return read_uuid_elements(in, field, count);
}

std::optional<std::vector<Uuid>> read_nullable_uuids(wire::Reader& in, const char* field) {
    const std::optional<size_t> count = in.nullable_array_length(field, flexible);
    if (!count || !in.ok()) return std::nullopt;
    return read_uuid_elements(in, field, *count);
}

std::optional<std::vector<int32_t>> read_nullable_int32s(wire::Reader& in, const char* field) {
    const std::optional<size_t> count = in.nullable_array_length(field, flexible);
    if (!count || !in.ok()) return std::nullopt;
    std::vector<int32_t> values;
    if (*count > in.remaining() / 4) {
        in.fail(field, "truncated: " + std::to_string(*count) + " int32s need " +
                           std::to_string(*count * 4) + " bytes");
        return values;
    }
    values.reserve(*count);
    for (size_t i = 0; i < *count; ++i) values.push_back(in.int32(field));
    return values;
}

}  // namespace

void FieldWriter::refuse(const char* field, int16_t since) {
    if (_error) return;
    _error = events::make_error(ErrorCode::invalid_argument,
                                _what + ": " + field + " holds a non-default value, which only " +
                                    "versions " + std::to_string(since) + "+ can carry");
}

// ---- encoders, in the schema's field order ----

void encode_body(FieldWriter& fields, const RegisterBrokerRecord& record) {
    wire::Writer& out = fields.out;
    out.int32(record.broker_id);
    if (fields.version >= 2) {
        out.boolean(record.is_migrating_zk_broker);
    } else if (record.is_migrating_zk_broker) {
        fields.refuse("is_migrating_zk_broker", 2);
    }
    out.uuid(record.incarnation_id);
    out.int64(record.broker_epoch);
    out.array_length(record.end_points.size(), flexible);
    for (const BrokerEndpoint& end_point : record.end_points) {
        out.string(end_point.name, flexible);
        out.string(end_point.host, flexible);
        out.int16(static_cast<int16_t>(end_point.port));
        out.int16(end_point.security_protocol);
        out.tagged_fields(flexible);
    }
    out.array_length(record.features.size(), flexible);
    for (const BrokerFeature& feature : record.features) {
        out.string(feature.name, flexible);
        out.int16(feature.min_supported_version);
        out.int16(feature.max_supported_version);
        out.tagged_fields(flexible);
    }
    out.nullable_string(record.rack, flexible);
    out.boolean(record.fenced);
    if (fields.version >= 1) {
        out.boolean(record.in_controlled_shutdown);
    } else if (record.in_controlled_shutdown) {
        fields.refuse("in_controlled_shutdown", 1);
    }
    TaggedFields tagged;
    if (!record.log_dirs.empty()) {
        if (fields.version >= 3) {
            write_uuids(tagged.add(0), record.log_dirs);
        } else {
            fields.refuse("log_dirs", 3);
        }
    }
    tagged.write_to(out);
}

void encode_body(FieldWriter& fields, const UnregisterBrokerRecord& record) {
    fields.out.int32(record.broker_id);
    fields.out.int64(record.broker_epoch);
    fields.out.tagged_fields(flexible);
}

void encode_body(FieldWriter& fields, const TopicRecord& record) {
    fields.out.string(record.name, flexible);
    fields.out.uuid(record.topic_id);
    fields.out.tagged_fields(flexible);
}

void encode_body(FieldWriter& fields, const PartitionRecord& record) {
    wire::Writer& out = fields.out;
    out.int32(record.partition_id);
    out.uuid(record.topic_id);
    write_int32s(out, record.replicas);
    write_int32s(out, record.isr);
    write_int32s(out, record.removing_replicas);
    write_int32s(out, record.adding_replicas);
    out.int32(record.leader);
    out.int32(record.leader_epoch);
    out.int32(record.partition_epoch);
    if (fields.version >= 1) {
        write_uuids(out, record.directories);
    } else if (!record.directories.empty()) {
        fields.refuse("directories", 1);
    }
    TaggedFields tagged;
    if (record.leader_recovery_state != 0) tagged.add(0).int8(record.leader_recovery_state);
    if (fields.version >= 2) {
        if (record.eligible_leader_replicas) {
            write_nullable_int32s(tagged.add(1), record.eligible_leader_replicas);
        }
        if (record.last_known_elr) write_nullable_int32s(tagged.add(2), record.last_known_elr);
    } else if (record.eligible_leader_replicas || record.last_known_elr) {
        fields.refuse(record.eligible_leader_replicas ? "eligible_leader_replicas"
                                                      : "last_known_elr",
                      2);
    }
    tagged.write_to(out);
}

void encode_body(FieldWriter& fields, const PartitionChangeRecord& record) {
    wire::Writer& out = fields.out;
    out.int32(record.partition_id);
    out.uuid(record.topic_id);
    TaggedFields tagged;
    if (record.isr) write_nullable_int32s(tagged.add(0), record.isr);
    if (record.leader != leader_unchanged) tagged.add(1).int32(record.leader);
    if (record.replicas) write_nullable_int32s(tagged.add(2), record.replicas);
    if (record.removing_replicas) write_nullable_int32s(tagged.add(3), record.removing_replicas);
    if (record.adding_replicas) write_nullable_int32s(tagged.add(4), record.adding_replicas);
    if (record.leader_recovery_state != -1) tagged.add(5).int8(record.leader_recovery_state);
    if (fields.version >= 2) {
        if (record.eligible_leader_replicas) {
            write_nullable_int32s(tagged.add(6), record.eligible_leader_replicas);
        }
        if (record.last_known_elr) write_nullable_int32s(tagged.add(7), record.last_known_elr);
    } else if (record.eligible_leader_replicas || record.last_known_elr) {
        fields.refuse(record.eligible_leader_replicas ? "eligible_leader_replicas"
                                                      : "last_known_elr",
                      2);
    }
    if (record.directories) {
        if (fields.version >= 1) {
            wire::Writer& field = tagged.add(8);
            write_uuids(field, *record.directories);
        } else {
            fields.refuse("directories", 1);
        }
    }
    tagged.write_to(out);
}

void encode_body(FieldWriter& fields, const FenceBrokerRecord& record) {
    fields.out.int32(record.id);
    fields.out.int64(record.epoch);
    fields.out.tagged_fields(flexible);
}

void encode_body(FieldWriter& fields, const UnfenceBrokerRecord& record) {
    fields.out.int32(record.id);
    fields.out.int64(record.epoch);
    fields.out.tagged_fields(flexible);
}

void encode_body(FieldWriter& fields, const RemoveTopicRecord& record) {
    fields.out.uuid(record.topic_id);
    fields.out.tagged_fields(flexible);
}

void encode_body(FieldWriter& fields, const BrokerRegistrationChangeRecord& record) {
    wire::Writer& out = fields.out;
    out.int32(record.broker_id);
    out.int64(record.broker_epoch);
    TaggedFields tagged;
    if (record.fenced != 0) tagged.add(0).int8(record.fenced);
    if (record.in_controlled_shutdown != 0) {
        if (fields.version >= 1) {
            tagged.add(1).int8(record.in_controlled_shutdown);
        } else {
            fields.refuse("in_controlled_shutdown", 1);
        }
    }
    if (!record.log_dirs.empty()) {
        if (fields.version >= 2) {
            write_uuids(tagged.add(2), record.log_dirs);
        } else {
            fields.refuse("log_dirs", 2);
        }
    }
    tagged.write_to(out);
}

void encode_body(FieldWriter& fields, const BeginTransactionRecord& record) {
    TaggedFields tagged;
    if (record.name) tagged.add(0).nullable_string(record.name, flexible);
    tagged.write_to(fields.out);
}

void encode_body(FieldWriter& fields, const EndTransactionRecord&) {
    fields.out.tagged_fields(flexible);
}

void encode_body(FieldWriter& fields, const AbortTransactionRecord& record) {
    TaggedFields tagged;
    if (record.reason) tagged.add(0).nullable_string(record.reason, flexible);
    tagged.write_to(fields.out);
}

// ---- decoders ----

namespace {

RegisterBrokerRecord decode_register_broker(FieldReader& fields) {
    wire::Reader& in = fields.in;
    RegisterBrokerRecord record;
    record.broker_id = in.int32("broker_id");
    if (fields.version >= 2) record.is_migrating_zk_broker = in.boolean("is_migrating_zk_broker");
    record.incarnation_id = in.uuid("incarnation_id");
    record.broker_epoch = in.int64("broker_epoch");
    const size_t end_points = in.array_length("end_points", flexible);
    record.end_points.reserve(end_points);
    for (size_t i = 0; i < end_points && in.ok(); ++i) {
        const auto element = in.element("end_points", i);
        BrokerEndpoint& end_point = record.end_points.emplace_back();
        end_point.name = in.string("name", flexible);
        end_point.host = in.string("host", flexible);
        end_point.port = static_cast<uint16_t>(in.int16("port"));
        end_point.security_protocol = in.int16("security_protocol");
        in.skip_tagged_fields(flexible);
    }
    const size_t features = in.array_length("features", flexible);
    record.features.reserve(features);
    for (size_t i = 0; i < features && in.ok(); ++i) {
        const auto element = in.element("features", i);
        BrokerFeature& feature = record.features.emplace_back();
        feature.name = in.string("name", flexible);
        feature.min_supported_version = in.int16("min_supported_version");
        feature.max_supported_version = in.int16("max_supported_version");
        in.skip_tagged_fields(flexible);
    }
    record.rack = in.nullable_string("rack", flexible);
    record.fenced = in.boolean("fenced");
    if (fields.version >= 1) record.in_controlled_shutdown = in.boolean("in_controlled_shutdown");
    in.read_tagged_fields([&](uint32_t tag) {
        if (tag != 0 || fields.version < 3) return false;
        record.log_dirs = read_uuids(in, "log_dirs");
        return true;
    });
    return record;
}

PartitionRecord decode_partition(FieldReader& fields) {
    wire::Reader& in = fields.in;
    PartitionRecord record;
    record.partition_id = in.int32("partition_id");
    record.topic_id = in.uuid("topic_id");
    record.replicas = in.int32_array("replicas", flexible);
    record.isr = in.int32_array("isr", flexible);
    record.removing_replicas = in.int32_array("removing_replicas", flexible);
    record.adding_replicas = in.int32_array("adding_replicas", flexible);
    record.leader = in.int32("leader");
    record.leader_epoch = in.int32("leader_epoch");
    record.partition_epoch = in.int32("partition_epoch");
    if (fields.version >= 1) record.directories = read_uuids(in, "directories");
    in.read_tagged_fields([&](uint32_t tag) {
        switch (tag) {
            case 0: record.leader_recovery_state = in.int8("leader_recovery_state"); return true;
            case 1:
                if (fields.version < 2) return false;
                record.eligible_leader_replicas =
                    read_nullable_int32s(in, "eligible_leader_replicas");
                return true;
            case 2:
                if (fields.version < 2) return false;
                record.last_known_elr = read_nullable_int32s(in, "last_known_elr");
                return true;
            default: return false;
        }
    });
    return record;
}

PartitionChangeRecord decode_partition_change(FieldReader& fields) {
    wire::Reader& in = fields.in;
    PartitionChangeRecord record;
    record.partition_id = in.int32("partition_id");
    record.topic_id = in.uuid("topic_id");
    in.read_tagged_fields([&](uint32_t tag) {
        switch (tag) {
            case 0: record.isr = read_nullable_int32s(in, "isr"); return true;
            case 1: record.leader = in.int32("leader"); return true;
            case 2: record.replicas = read_nullable_int32s(in, "replicas"); return true;
            case 3:
                record.removing_replicas = read_nullable_int32s(in, "removing_replicas");
                return true;
            case 4:
                record.adding_replicas = read_nullable_int32s(in, "adding_replicas");
                return true;
            case 5: record.leader_recovery_state = in.int8("leader_recovery_state"); return true;
            case 6:
                if (fields.version < 2) return false;
                record.eligible_leader_replicas =
                    read_nullable_int32s(in, "eligible_leader_replicas");
                return true;
            case 7:
                if (fields.version < 2) return false;
                record.last_known_elr = read_nullable_int32s(in, "last_known_elr");
                return true;
            case 8:
                if (fields.version < 1) return false;
                record.directories = read_nullable_uuids(in, "directories");
                return true;
            default: return false;
        }
    });
    return record;
}

BrokerRegistrationChangeRecord decode_broker_registration_change(FieldReader& fields) {
    wire::Reader& in = fields.in;
    BrokerRegistrationChangeRecord record;
    record.broker_id = in.int32("broker_id");
    record.broker_epoch = in.int64("broker_epoch");
    in.read_tagged_fields([&](uint32_t tag) {
        switch (tag) {
            case 0: record.fenced = in.int8("fenced"); return true;
            case 1:
                if (fields.version < 1) return false;
                record.in_controlled_shutdown = in.int8("in_controlled_shutdown");
                return true;
            case 2:
                if (fields.version < 2) return false;
                record.log_dirs = read_uuids(in, "log_dirs");
                return true;
            default: return false;
        }
    });
    return record;
}

/// A record of one tagged nullable string (Begin and Abort of a transaction).
std::optional<std::string> decode_tagged_text(wire::Reader& in, const char* field) {
    std::optional<std::string> text;
    in.read_tagged_fields([&](uint32_t tag) {
        if (tag != 0) return false;
        text = in.nullable_string(field, flexible);
        return true;
    });
    return text;
}

}  // namespace

void decode_body(FieldReader& fields, RecordType type, RecordBody& body) {
    wire::Reader& in = fields.in;
    switch (type) {
        case RecordType::register_broker: body = decode_register_broker(fields); return;
        case RecordType::unregister_broker: {
            UnregisterBrokerRecord record;
            record.broker_id = in.int32("broker_id");
            record.broker_epoch = in.int64("broker_epoch");
            in.read_tagged_fields([](uint32_t) { return false; });
            body = record;
            return;
        }
        case RecordType::topic: {
            TopicRecord record;
            record.name = in.string("name", flexible);
            record.topic_id = in.uuid("topic_id");
            in.read_tagged_fields([](uint32_t) { return false; });
            body = std::move(record);
            return;
        }
        case RecordType::partition: body = decode_partition(fields); return;
        case RecordType::partition_change: body = decode_partition_change(fields); return;
        case RecordType::fence_broker:
        case RecordType::unfence_broker: {
            const int32_t id = in.int32("id");
            const int64_t epoch = in.int64("epoch");
            in.read_tagged_fields([](uint32_t) { return false; });
            if (type == RecordType::fence_broker) {
                body = FenceBrokerRecord{id, epoch};
            } else {
                body = UnfenceBrokerRecord{id, epoch};
            }
            return;
        }
        case RecordType::remove_topic: {
            RemoveTopicRecord record;
            record.topic_id = in.uuid("topic_id");
            in.read_tagged_fields([](uint32_t) { return false; });
            body = record;
            return;
        }
        case RecordType::broker_registration_change:
            body = decode_broker_registration_change(fields);
            return;
        case RecordType::begin_transaction:
            body = BeginTransactionRecord{decode_tagged_text(in, "name")};
            return;
        case RecordType::end_transaction:
            in.read_tagged_fields([](uint32_t) { return false; });
            body = EndTransactionRecord{};
            return;
        case RecordType::abort_transaction:
            body = AbortTransactionRecord{decode_tagged_text(in, "reason")};
            return;
        default:
            in.fail("api_key", "record type " + std::to_string(static_cast<int>(type)) +
                                   " has no decoder");
            return;
    }
}

}  // namespace ballast::kafka::metadata_log
