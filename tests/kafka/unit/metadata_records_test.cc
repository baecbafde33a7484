// KRaft's metadata records, encoded and decoded byte for byte against what Kafka's own
// generated classes and MetadataRecordSerde wrote (tests/kafka/vectors/, `metadata.*`): every
// version of every record Ballast reads, the values built here with the same recipes as
// VectorGen.java. Then what Kafka's classes refuse (a field the version cannot carry), what
// is skipped rather than decoded (types not needed, newer types and versions), and damaged
// values: an error naming the record, its version and the field, never a crash.

#include <gtest/gtest.h>

#include "adapters/kafka/metadata_log/metadata_records.h"
#include "tests/kafka/support/kafka_vectors.h"

namespace ballast::kafka::metadata_log {
namespace {

using testing::hex;
using testing::kafka_vectors;

const Uuid topic_id{0x0102030405060708, 0x1112131415161718};
const Uuid incarnation_id{0x2122232425262728, 0x3132333435363738};
const Uuid dir_a{0x4142434445464748, 0x5152535455565758};
const Uuid dir_b{0x6162636465666768, 0x7172737475767778};
const Uuid zero{};

RegisterBrokerRecord register_broker(int v) {
    RegisterBrokerRecord record;
    record.broker_id = 3;
    record.incarnation_id = incarnation_id;
    record.broker_epoch = 4242;
    if (v != 1) record.rack = "rack-b";
    record.fenced = true;
    record.end_points = {{"PLAINTEXT", "broker-3.example", 49092, 0},
                         {"SASL_SSL", "broker-3.example", 9094, 3}};
    record.features = {{"metadata.version", 7, 27}};
    if (v >= 1) record.in_controlled_shutdown = true;
    if (v >= 2) record.is_migrating_zk_broker = v == 2;
    if (v >= 3) record.log_dirs = {dir_a, dir_b};
    return record;
}

PartitionRecord partition(int v) {
    PartitionRecord record;
    record.partition_id = 7;
    record.topic_id = topic_id;
    record.replicas = {1, 2, 3};
    record.isr = {1, 3};
    record.removing_replicas = {2};
    record.leader = 1;
    record.leader_epoch = 12;
    record.partition_epoch = 34;
    record.leader_recovery_state = v == 0 ? 1 : 0;
    if (v >= 1) record.directories = {dir_a, dir_b, zero};
    if (v >= 2) {
        record.eligible_leader_replicas = std::vector<int32_t>{2};
        record.last_known_elr = std::vector<int32_t>{};
    }
    return record;
}

PartitionChangeRecord partition_change(int v) {
    PartitionChangeRecord record;
    record.partition_id = 7;
    record.topic_id = topic_id;
    record.isr = std::vector<int32_t>{1, 2, 4};
    record.leader = 4;
    record.replicas = std::vector<int32_t>{1, 2, 4, 3};
    record.removing_replicas = std::vector<int32_t>{3};
    record.adding_replicas = std::vector<int32_t>{4};
    record.leader_recovery_state = 0;
    if (v >= 1) record.directories = std::vector<Uuid>{dir_a, dir_b, dir_a, zero};
    if (v >= 2) {
        record.eligible_leader_replicas = std::vector<int32_t>{2};
        record.last_known_elr = std::vector<int32_t>{3};
    }
    return record;
}

BrokerRegistrationChangeRecord broker_change(int v) {
    BrokerRegistrationChangeRecord record;
    record.broker_id = 3;
    record.broker_epoch = 4242;
    record.fenced = -1;
    if (v >= 1) record.in_controlled_shutdown = 1;
    if (v >= 2) record.log_dirs = {dir_b};
    return record;
}

/// Encodes `record` and compares with the vector, then decodes the vector and compares
/// with `record`.
void expect_kafkas_bytes(const std::string& name, const MetadataRecord& record) {
    SCOPED_TRACE(name);
    const std::vector<uint8_t>& expected = kafka_vectors().at(name);
    Result<std::vector<uint8_t>> encoded = encode_record(record);
    ASSERT_TRUE(encoded.ok()) << encoded.error().to_string();
    EXPECT_EQ(hex(*encoded), hex(expected));
    Result<DecodedRecord> decoded = decode_record(expected);
    ASSERT_TRUE(decoded.ok()) << decoded.error().to_string();
    ASSERT_TRUE(std::holds_alternative<MetadataRecord>(*decoded));
    EXPECT_TRUE(std::get<MetadataRecord>(*decoded) == record) << "decoded value differs";
}

MetadataRecord with_version(int v, RecordBody body) {
    return MetadataRecord{static_cast<int16_t>(v), std::move(body)};
}

TEST(MetadataRecords, BrokerRecordsEveryVersionAsKafkaWritesThem) {
    for (int v = 0; v <= 3; ++v) {
        expect_kafkas_bytes("metadata.register_broker.v" + std::to_string(v),
                            with_version(v, register_broker(v)));
    }
    for (int v = 0; v <= 2; ++v) {
        expect_kafkas_bytes("metadata.broker_registration_change.v" + std::to_string(v),
                            with_version(v, broker_change(v)));
    }
    BrokerRegistrationChangeRecord fenced;
    fenced.broker_id = 1;
    fenced.broker_epoch = 9;
    fenced.fenced = 1;
    expect_kafkas_bytes("metadata.broker_registration_change.fenced.v2", with_version(2, fenced));
    expect_kafkas_bytes("metadata.unregister_broker.v0",
                        with_version(0, UnregisterBrokerRecord{3, 4242}));
    expect_kafkas_bytes("metadata.fence_broker.v0", with_version(0, FenceBrokerRecord{2, 77}));
    expect_kafkas_bytes("metadata.unfence_broker.v0", with_version(0, UnfenceBrokerRecord{2, 78}));
}

TEST(MetadataRecords, TopicAndPartitionRecordsEveryVersionAsKafkaWritesThem) {
    expect_kafkas_bytes("metadata.topic.v0", with_version(0, TopicRecord{"orders", topic_id}));
    expect_kafkas_bytes("metadata.remove_topic.v0", with_version(0, RemoveTopicRecord{topic_id}));
    for (int v = 0; v <= 2; ++v) {
        expect_kafkas_bytes("metadata.partition.v" + std::to_string(v),
                            with_version(v, partition(v)));
        expect_kafkas_bytes("metadata.partition_change.v" + std::to_string(v),
                            with_version(v, partition_change(v)));
    }
}

TEST(MetadataRecords, PartitionChangesCarryOnlyWhatChanged) {
    PartitionChangeRecord leader;
    leader.partition_id = 0;
    leader.topic_id = topic_id;
    leader.leader = 2;
    expect_kafkas_bytes("metadata.partition_change.leader.v0", with_version(0, leader));

    PartitionChangeRecord no_leader = leader;
    no_leader.leader = -1;
    no_leader.isr = std::vector<int32_t>{};
    expect_kafkas_bytes("metadata.partition_change.no_leader.v1", with_version(1, no_leader));

    PartitionChangeRecord empty;
    empty.partition_id = 0;
    empty.topic_id = topic_id;
    expect_kafkas_bytes("metadata.partition_change.empty.v2", with_version(2, empty));
    EXPECT_EQ(empty.leader, leader_unchanged);
    EXPECT_FALSE(empty.isr.has_value());
}

TEST(MetadataRecords, TransactionMarkersAsKafkaWritesThem) {
    expect_kafkas_bytes("metadata.begin_transaction.v0",
                        with_version(0, BeginTransactionRecord{"create 3 topics"}));
    expect_kafkas_bytes("metadata.begin_transaction.unnamed.v0",
                        with_version(0, BeginTransactionRecord{}));
    expect_kafkas_bytes("metadata.end_transaction.v0", with_version(0, EndTransactionRecord{}));
    expect_kafkas_bytes("metadata.abort_transaction.v0",
                        with_version(0, AbortTransactionRecord{"controller failover"}));
}

TEST(MetadataRecords, FieldsTheVersionCannotCarryAreRefusedByName) {
    struct Case {
        MetadataRecord record;
        std::string field;
    };
    PartitionRecord directories = partition(1);
    PartitionRecord elr = partition(2);
    PartitionChangeRecord change_directories = partition_change(1);
    RegisterBrokerRecord log_dirs = register_broker(3);
    BrokerRegistrationChangeRecord shutdown = broker_change(1);
    const std::vector<Case> cases{
        {with_version(0, directories), "directories"},
        {with_version(1, elr), "eligible_leader_replicas"},
        {with_version(0, change_directories), "directories"},
        {with_version(2, log_dirs), "log_dirs"},
        {with_version(0, shutdown), "in_controlled_shutdown"},
    };
    for (const Case& item : cases) {
        Result<std::vector<uint8_t>> encoded = encode_record(item.record);
        ASSERT_FALSE(encoded.ok()) << item.field;
        EXPECT_NE(encoded.error().message.find(item.field), std::string::npos)
            << encoded.error().message;
    }
    Result<std::vector<uint8_t>> too_new = encode_record(with_version(3, partition(2)));
    ASSERT_FALSE(too_new.ok());
    EXPECT_NE(too_new.error().message.find("PartitionRecord v3"), std::string::npos)
        << too_new.error().message;
}

TEST(MetadataRecords, TypesNotReadAndNewerVersionsAreSkippedNotErrors) {
    Result<DecodedRecord> no_op = decode_record(kafka_vectors().at("metadata.no_op.v0"));
    ASSERT_TRUE(no_op.ok()) << no_op.error().to_string();
    ASSERT_TRUE(std::holds_alternative<SkippedRecord>(*no_op));
    EXPECT_EQ(std::get<SkippedRecord>(*no_op).api_key, static_cast<int16_t>(RecordType::no_op));
    EXPECT_EQ(std::get<SkippedRecord>(*no_op).reason, SkipReason::not_needed);

    // PartitionRecord v3: a version Kafka may add; its body is not looked at.
    std::vector<uint8_t> newer = kafka_vectors().at("metadata.partition.v2");
    newer[2] = 3;
    Result<DecodedRecord> skipped = decode_record(newer);
    ASSERT_TRUE(skipped.ok()) << skipped.error().to_string();
    ASSERT_TRUE(std::holds_alternative<SkippedRecord>(*skipped));
    EXPECT_EQ(std::get<SkippedRecord>(*skipped).reason, SkipReason::unknown_version);
    EXPECT_EQ(std::get<SkippedRecord>(*skipped).version, 3);

    // Api key 200 (two varint bytes), a type newer than Kafka 4.1.
    const std::vector<uint8_t> unknown{0x01, 0xc8, 0x01, 0x00, 0x00};
    Result<DecodedRecord> unknown_type = decode_record(unknown);
    ASSERT_TRUE(unknown_type.ok()) << unknown_type.error().to_string();
    EXPECT_EQ(std::get<SkippedRecord>(*unknown_type).reason, SkipReason::unknown_type);
    EXPECT_EQ(std::get<SkippedRecord>(*unknown_type).api_key, 200);
    EXPECT_EQ(record_type_name(200), "unknown record type 200");
}

TEST(MetadataRecords, UnknownTaggedFieldsAreSkipped) {
    // TopicRecord v0 with a tagged field 9 of 2 bytes that Kafka may add later.
    std::vector<uint8_t> value = kafka_vectors().at("metadata.topic.v0");
    value.back() = 1;  // one tagged field
    for (uint8_t byte : {0x09, 0x02, 0xab, 0xcd}) value.push_back(byte);
    Result<DecodedRecord> decoded = decode_record(value);
    ASSERT_TRUE(decoded.ok()) << decoded.error().to_string();
    EXPECT_EQ(std::get<TopicRecord>(std::get<MetadataRecord>(*decoded).body).name, "orders");
}

TEST(MetadataRecords, EveryTruncationIsAnErrorNamingTheRecordAndField) {
    for (const char* name : {"metadata.partition.v2", "metadata.partition_change.v2",
                             "metadata.register_broker.v3", "metadata.topic.v0"}) {
        const std::vector<uint8_t>& whole = kafka_vectors().at(name);
        for (size_t size = 0; size < whole.size(); ++size) {
            Result<DecodedRecord> decoded =
                decode_record(std::span<const uint8_t>(whole.data(), size));
            ASSERT_FALSE(decoded.ok()) << name << " cut to " << size << " bytes";
            if (size >= 3) {
                EXPECT_NE(decoded.error().message.find(" v"), std::string::npos)
                    << decoded.error().message;
            }
        }
    }
    std::vector<uint8_t> frame_zero = kafka_vectors().at("metadata.topic.v0");
    frame_zero[0] = 0;
    Result<DecodedRecord> bad_frame = decode_record(frame_zero);
    ASSERT_FALSE(bad_frame.ok());
    EXPECT_NE(bad_frame.error().message.find("frame version 0"), std::string::npos);

    std::vector<uint8_t> extra = kafka_vectors().at("metadata.remove_topic.v0");
    extra.push_back(0);
    Result<DecodedRecord> left_over = decode_record(extra);
    ASSERT_FALSE(left_over.ok());
    EXPECT_NE(left_over.error().message.find("RemoveTopicRecord v0"), std::string::npos)
        << left_over.error().message;
    EXPECT_NE(left_over.error().message.find("left over"), std::string::npos);
}

TEST(MetadataRecords, ATaggedFieldWhoseSizeLiesIsCorrupt) {
    // PartitionChangeRecord with tag 1 (leader, an int32) announced as 5 bytes.
    std::vector<uint8_t> value = kafka_vectors().at("metadata.partition_change.leader.v0");
    const size_t size_at = value.size() - 5;
    ASSERT_EQ(value[size_at], 4);
    value[size_at] = 5;
    value.push_back(0);
    Result<DecodedRecord> decoded = decode_record(value);
    ASSERT_FALSE(decoded.ok());
    EXPECT_NE(decoded.error().message.find("tagged field 1 says 5 bytes, its value took 4"),
              std::string::npos)
        << decoded.error().message;
}

}  // namespace
}  // namespace ballast::kafka::metadata_log
