// Record batches (magic 2) as Kafka's MemoryRecords builders wrote them (tests/kafka/vectors/,
// `batch.*`): decoded field by field and encoded back to the same bytes; a control batch
// recognized; a compressed batch, a bad CRC, another magic and damaged records refused with
// the offset and what was wrong; a batch cut short waits for the rest. Then the log decoder
// over them: metadata records in order with their offsets, control batches and records
// before the position passed over, one warning per unknown record type.

#include <gtest/gtest.h>

#include "adapters/kafka/metadata_log/log_decoder.h"
#include "adapters/kafka/metadata_log/record_batch.h"
#include "store/crc32c.h"
#include "tests/kafka/support/kafka_vectors.h"

namespace ballast::kafka::metadata_log {
namespace {

using testing::hex;
using testing::kafka_vectors;

constexpr int64_t append_time_ms = 1733356800000;

std::string text(const std::optional<Bytes>& bytes) {
    return bytes ? std::string(bytes->begin(), bytes->end()) : "(null)";
}

/// Rewrites the CRC after a test damaged the bytes it covers, so the damage is what fails.
void fix_crc(std::vector<uint8_t>& batch) {
    const uint32_t crc = store::crc32c(batch.data() + 21, batch.size() - 21);
    for (int i = 0; i < 4; ++i) batch[17 + i] = static_cast<uint8_t>(crc >> (24 - 8 * i));
}

TEST(RecordBatch, KafkasMetadataBatchDecodedAndEncodedBack) {
    const std::vector<uint8_t>& bytes = kafka_vectors().at("batch.metadata");
    RecordBatch batch;
    Result<size_t> used = decode_batch(bytes, batch);
    ASSERT_TRUE(used.ok()) << used.error().to_string();
    EXPECT_EQ(*used, bytes.size());
    const BatchHeader& header = batch.header;
    EXPECT_EQ(header.base_offset, 100);
    EXPECT_EQ(header.partition_leader_epoch, 5);
    EXPECT_EQ(header.last_offset(), 103);
    EXPECT_EQ(header.record_count, 4);
    EXPECT_EQ(header.compression(), 0);
    EXPECT_FALSE(header.control());
    EXPECT_FALSE(header.transactional());
    EXPECT_EQ(header.producer_id, -1);
    EXPECT_EQ(header.base_timestamp_ms, append_time_ms);
    EXPECT_EQ(header.max_timestamp_ms, append_time_ms);
    ASSERT_EQ(batch.records.size(), 4u);
    for (size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(batch.records[i].offset, 100 + static_cast<int64_t>(i));
        EXPECT_EQ(batch.records[i].timestamp_ms, append_time_ms);
        EXPECT_FALSE(batch.records[i].key.has_value());
        EXPECT_TRUE(batch.records[i].value.has_value());
    }
    EXPECT_EQ(hex(encode_batch(header, batch.records)), hex(bytes));
}

TEST(RecordBatch, KeysHeadersGapsAndProducerFieldsAsKafkaWritesThem) {
    const std::vector<uint8_t>& bytes = kafka_vectors().at("batch.general");
    RecordBatch batch;
    Result<size_t> used = decode_batch(bytes, batch);
    ASSERT_TRUE(used.ok()) << used.error().to_string();
    EXPECT_EQ(batch.header.base_offset, 7);
    EXPECT_EQ(batch.header.last_offset(), 9);
    EXPECT_EQ(batch.header.producer_id, 1000);
    EXPECT_EQ(batch.header.producer_epoch, 2);
    EXPECT_EQ(batch.header.base_sequence, 10);
    EXPECT_EQ(batch.header.partition_leader_epoch, 3);
    EXPECT_EQ(batch.header.max_timestamp_ms, append_time_ms);
    ASSERT_EQ(batch.records.size(), 2u);
    const Record& first = batch.records[0];
    EXPECT_EQ(text(first.key), "key-1");
    EXPECT_EQ(text(first.value), "value-1");
    ASSERT_EQ(first.headers.size(), 2u);
    EXPECT_EQ(first.headers[0].key, "trace");
    EXPECT_EQ(text(first.headers[0].value), "abc");
    EXPECT_EQ(first.headers[1].key, "empty");
    EXPECT_FALSE(first.headers[1].value.has_value());
    const Record& second = batch.records[1];
    EXPECT_EQ(second.offset, 9);
    EXPECT_EQ(second.timestamp_ms, append_time_ms - 1000);
    EXPECT_FALSE(second.key.has_value());
    EXPECT_FALSE(second.value.has_value());
    EXPECT_EQ(hex(encode_batch(batch.header, batch.records)), hex(bytes));
}

TEST(RecordBatch, ControlBatchRecognized) {
    const std::vector<uint8_t>& bytes = kafka_vectors().at("batch.control.leader_change");
    RecordBatch batch;
    Result<size_t> used = decode_batch(bytes, batch);
    ASSERT_TRUE(used.ok()) << used.error().to_string();
    EXPECT_TRUE(batch.header.control());
    EXPECT_EQ(batch.header.base_offset, 104);
    EXPECT_EQ(batch.header.partition_leader_epoch, 6);
    EXPECT_EQ(batch.records.size(), 1u);
}

TEST(RecordBatch, CompressedBatchRefusedNamingCodecAndOffset) {
    RecordBatch batch;
    Result<size_t> used = decode_batch(kafka_vectors().at("batch.gzip"), batch);
    ASSERT_FALSE(used.ok());
    EXPECT_EQ(used.error().code, ErrorCode::unsupported);
    EXPECT_NE(used.error().message.find("record batch at offset 200: compressed with gzip"),
              std::string::npos)
        << used.error().message;
}

TEST(RecordBatch, CrcMismatchNamesTheOffsetAndBothChecksums) {
    std::vector<uint8_t> bytes = kafka_vectors().at("batch.metadata");
    bytes[bytes.size() - 3] ^= 0x40;
    RecordBatch batch;
    Result<size_t> used = decode_batch(bytes, batch);
    ASSERT_FALSE(used.ok());
    EXPECT_NE(used.error().message.find("record batch at offset 100: CRC32C mismatch"),
              std::string::npos)
        << used.error().message;
}

TEST(RecordBatch, OtherMagicRefused) {
    std::vector<uint8_t> bytes = kafka_vectors().at("batch.metadata");
    bytes[16] = 1;  // magic is not under the CRC
    RecordBatch batch;
    Result<size_t> used = decode_batch(bytes, batch);
    ASSERT_FALSE(used.ok());
    EXPECT_NE(used.error().message.find("offset 100: magic 1"), std::string::npos)
        << used.error().message;
}

TEST(RecordBatch, DamagedRecordNamedByIndexEvenWithAGoodCrc) {
    std::vector<uint8_t> bytes = kafka_vectors().at("batch.metadata");
    // The first record's length (a varint right after the 61-byte header) one too large.
    bytes[61] += 2;
    fix_crc(bytes);
    RecordBatch batch;
    Result<size_t> used = decode_batch(bytes, batch);
    ASSERT_FALSE(used.ok());
    EXPECT_NE(used.error().message.find("record batch at offset 100: record 0:"),
              std::string::npos)
        << used.error().message;
    EXPECT_TRUE(batch.records.empty());
}

TEST(RecordBatch, ABatchCutShortWaitsForTheRest) {
    const std::vector<uint8_t>& bytes = kafka_vectors().at("batch.metadata");
    RecordBatch batch;
    for (size_t size = 0; size < bytes.size(); ++size) {
        Result<size_t> used = decode_batch(std::span(bytes.data(), size), batch);
        ASSERT_TRUE(used.ok()) << size << ": " << used.error().to_string();
        EXPECT_EQ(*used, 0u) << size;
    }
}

std::vector<uint8_t> concat(std::initializer_list<const std::vector<uint8_t>*> parts) {
    std::vector<uint8_t> out;
    for (const auto* part : parts) out.insert(out.end(), part->begin(), part->end());
    return out;
}

TEST(LogDecoder, MetadataRecordsInOrderWithOffsetsControlAndNoOpPassedOver) {
    const std::vector<uint8_t> log = concat({&kafka_vectors().at("batch.metadata"),
                                             &kafka_vectors().at("batch.control.leader_change")});
    LogDecoder decoder;
    std::vector<MetadataEntry> entries;
    Result<size_t> used = decoder.decode(log, entries);
    ASSERT_TRUE(used.ok()) << used.error().to_string();
    EXPECT_EQ(*used, log.size());
    ASSERT_EQ(entries.size(), 3u);
    EXPECT_EQ(entries[0].offset, 100);
    EXPECT_EQ(std::get<TopicRecord>(entries[0].record.body).name, "orders");
    EXPECT_EQ(entries[1].offset, 101);
    EXPECT_EQ(std::get<PartitionRecord>(entries[1].record.body).replicas,
              (std::vector<int32_t>{1, 2, 3}));
    EXPECT_EQ(entries[1].record.version, 1);
    EXPECT_EQ(entries[2].offset, 103);
    EXPECT_EQ(std::get<PartitionChangeRecord>(entries[2].record.body).leader, 4);
    EXPECT_EQ(entries[2].leader_epoch, 5);
    EXPECT_EQ(entries[2].timestamp_ms, append_time_ms);
    EXPECT_EQ(decoder.next_offset(), 105);
    EXPECT_EQ(decoder.counts().control_batches, 1u);
    EXPECT_EQ(decoder.counts().not_needed, 1u);
    EXPECT_EQ(decoder.counts().records, 3u);
    EXPECT_TRUE(decoder.take_warnings().empty());
}

TEST(LogDecoder, RecordsBeforeThePositionAndAPartialBatchAreLeft) {
    const std::vector<uint8_t>& metadata = kafka_vectors().at("batch.metadata");
    const std::vector<uint8_t>& control = kafka_vectors().at("batch.control.leader_change");
    std::vector<uint8_t> log = metadata;
    log.insert(log.end(), control.begin(), control.begin() + 30);
    LogDecoder decoder(103);
    std::vector<MetadataEntry> entries;
    Result<size_t> used = decoder.decode(log, entries);
    ASSERT_TRUE(used.ok()) << used.error().to_string();
    EXPECT_EQ(*used, metadata.size());
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_EQ(entries[0].offset, 103);
    EXPECT_EQ(decoder.next_offset(), 104);
}

TEST(LogDecoder, UnknownVersionsSkippedWithOneWarningPerType) {
    std::vector<uint8_t> partition_v3 = kafka_vectors().at("metadata.partition.v2");
    partition_v3[2] = 3;
    std::vector<uint8_t> change_v9 = kafka_vectors().at("metadata.partition_change.v2");
    change_v9[2] = 9;
    std::vector<uint8_t> topic = kafka_vectors().at("metadata.topic.v0");
    std::vector<Record> records;
    for (const std::vector<uint8_t>* value : {&partition_v3, &topic, &partition_v3, &change_v9}) {
        Record& record = records.emplace_back();
        record.offset = 40 + static_cast<int64_t>(records.size()) - 1;
        record.timestamp_ms = append_time_ms;
        record.value = Bytes(*value);
    }
    BatchHeader header;
    header.base_offset = 40;
    header.base_timestamp_ms = append_time_ms;
    const std::vector<uint8_t> batch = encode_batch(header, records);
    LogDecoder decoder(40);
    std::vector<MetadataEntry> entries;
    ASSERT_TRUE(decoder.decode(batch, entries).ok());
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_EQ(entries[0].offset, 41);
    const std::vector<std::string> warnings = decoder.take_warnings();
    ASSERT_EQ(warnings.size(), 2u);
    EXPECT_NE(warnings[0].find("offset 40: PartitionRecord version 3"), std::string::npos)
        << warnings[0];
    EXPECT_NE(warnings[1].find("offset 43: PartitionChangeRecord version 9"), std::string::npos)
        << warnings[1];
    EXPECT_EQ(decoder.counts().unknown_skipped, 3u);
    EXPECT_EQ(decoder.next_offset(), 44);

    // The same types again later: no second warning.
    LogDecoder again = decoder;
    ASSERT_TRUE(again.decode(batch, entries).ok());  // before the position: nothing
    EXPECT_TRUE(again.take_warnings().empty());
}

TEST(LogDecoder, ACorruptRecordNamesItsOffset) {
    std::vector<uint8_t> value = kafka_vectors().at("metadata.topic.v0");
    value.pop_back();
    Record record;
    record.offset = 7;
    record.value = Bytes(value);
    BatchHeader header;
    header.base_offset = 7;
    const std::vector<uint8_t> batch = encode_batch(header, std::span(&record, 1));
    LogDecoder decoder;
    std::vector<MetadataEntry> entries;
    Result<size_t> used = decoder.decode(batch, entries);
    ASSERT_FALSE(used.ok());
    EXPECT_NE(used.error().message.find("metadata record at offset 7: TopicRecord v0"),
              std::string::npos)
        << used.error().message;
}

}  // namespace
}  // namespace ballast::kafka::metadata_log
