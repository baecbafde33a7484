#include "adapters/kafka/metadata_log/record_batch.h"

#include <algorithm>
#include <cassert>

#include "adapters/kafka/wire/wire_reader.h"
#include "adapters/kafka/wire/wire_writer.h"
#include "store/crc32c.h"

namespace ballast::kafka::metadata_log {

namespace {

constexpr size_t crc_field_end_bytes = 21;  // base_offset .. crc: the CRC covers what follows

Error batch_error(int64_t base_offset, const std::string& problem) {
    return events::make_error(ErrorCode::corruption, "record batch at offset " +
                                                         std::to_string(base_offset) + ": " +
                                                         problem);
}

std::string hex32(uint32_t value) {
    static const char digits[] = "0123456789abcdef";
    std::string out = "0x";
    for (int shift = 28; shift >= 0; shift -= 4) out += digits[(value >> shift) & 0xf];
    return out;
}

/// A varint length where -1 means null: the span of bytes, nullopt for null.
std::optional<Bytes> nullable_bytes(wire::Reader& reader, const char* field) {
    const size_t start = reader.offset();
    const int32_t length = reader.varint(field);
    if (!reader.ok() || length == -1) return std::nullopt;
    if (length < -1) {
        reader.fail(field, "negative length " + std::to_string(length), start);
        return std::nullopt;
    }
    return reader.raw(field, static_cast<size_t>(length));
}

/// One record at the reader's position; `index` and `header` give offsets for errors.
void decode_record(wire::Reader& reader, const BatchHeader& header, Record& record) {
    const size_t start = reader.offset();
    const int32_t length = reader.varint("length");
    if (!reader.ok()) return;
    if (length < 0 || static_cast<size_t>(length) > reader.remaining()) {
        reader.fail("length",
                    "record length " + std::to_string(length) + " does not fit the " +
                        std::to_string(reader.remaining()) + " bytes left in the batch",
                    start);
        return;
    }
    const size_t body_start = reader.offset();
    record.attributes = reader.int8("attributes");
    record.timestamp_ms = header.base_timestamp_ms + reader.varlong("timestamp_delta");
    const int32_t offset_delta = reader.varint("offset_delta");
    record.offset = header.base_offset + offset_delta;
    record.key = nullable_bytes(reader, "key");
    record.value = nullable_bytes(reader, "value");
    const int32_t header_count = reader.varint("header_count");
    record.headers.clear();
    if (!reader.ok()) return;
    // Each header takes at least 2 bytes (two lengths).
    if (header_count < 0 || static_cast<size_t>(header_count) > reader.remaining() / 2) {
        reader.fail("header_count", "corrupt header count " + std::to_string(header_count));
        return;
    }
    for (int32_t i = 0; i < header_count && reader.ok(); ++i) {
        const auto element = reader.element("headers", static_cast<size_t>(i));
        const int32_t key_length = reader.varint("key_length");
        if (key_length < 0) {
            reader.fail("key", "a header key cannot be null or negative");
            return;
        }
        const Bytes key = reader.raw("key", static_cast<size_t>(key_length));
        RecordHeader& out = record.headers.emplace_back();
        out.key.assign(key.begin(), key.end());
        out.value = nullable_bytes(reader, "value");
    }
    if (!reader.ok()) return;
    const size_t used = reader.offset() - body_start;
    if (used != static_cast<size_t>(length)) {
        reader.fail("length",
                    "the record's length says " + std::to_string(length) +
                        " bytes, its fields took " + std::to_string(used),
                    start);
        return;
    }
    if (offset_delta < 0 || offset_delta > header.last_offset_delta) {
        reader.fail("offset_delta",
                    "offset delta " + std::to_string(offset_delta) +
                        " is outside the batch (last offset delta " +
                        std::to_string(header.last_offset_delta) + ")",
                    body_start);
    }
}

}  // namespace

std::string compression_name(int codec) {
    switch (codec) {
        case 0: return "none";
        case 1: return "gzip";
        case 2: return "snappy";
        case 3: return "lz4";
        case 4: return "zstd";
        default: return "unknown codec " + std::to_string(codec);
    }
}

Result<size_t> decode_batch(Bytes bytes, RecordBatch& batch) {
    batch.records.clear();
    if (bytes.size() < batch_log_overhead_bytes) return size_t{0};
    wire::Reader prefix(bytes.first(batch_log_overhead_bytes), "batch bytes");
    BatchHeader& header = batch.header;
    header.base_offset = prefix.int64("base_offset");
    header.batch_length_bytes = prefix.int32("batch_length");
    const int64_t base_offset = header.base_offset;
    if (header.batch_length_bytes < static_cast<int32_t>(batch_header_size_bytes -
                                                         batch_log_overhead_bytes) ||
        header.batch_length_bytes > batch_size_bytes_max) {
        return batch_error(base_offset, "batch length " +
                                            std::to_string(header.batch_length_bytes) +
                                            " is outside [49, " +
                                            std::to_string(batch_size_bytes_max) + "]");
    }
    const size_t total_bytes =
        batch_log_overhead_bytes + static_cast<size_t>(header.batch_length_bytes);
    if (bytes.size() < total_bytes) return size_t{0};
    const Bytes whole = bytes.first(total_bytes);

    wire::Reader reader(whole, "batch bytes");
    reader.raw("base_offset, batch_length", batch_log_overhead_bytes);
    header.partition_leader_epoch = reader.int32("partition_leader_epoch");
    header.magic = reader.int8("magic");
    if (header.magic != 2) {
        return batch_error(base_offset, "magic " + std::to_string(header.magic) +
                                            ": only magic 2 (Kafka 0.11 and later, and every "
                                            "KRaft log) is decoded");
    }
    header.crc = static_cast<uint32_t>(reader.int32("crc"));
    const uint32_t computed = store::crc32c(whole.subspan(crc_field_end_bytes));
    if (computed != header.crc) {
        return batch_error(base_offset, "CRC32C mismatch: the batch says " + hex32(header.crc) +
                                            ", its " + std::to_string(total_bytes) +
                                            " bytes give " + hex32(computed));
    }
    header.attributes = reader.int16("attributes");
    header.last_offset_delta = reader.int32("last_offset_delta");
    header.base_timestamp_ms = reader.int64("base_timestamp");
    header.max_timestamp_ms = reader.int64("max_timestamp");
    header.producer_id = reader.int64("producer_id");
    header.producer_epoch = reader.int16("producer_epoch");
    header.base_sequence = reader.int32("base_sequence");
    header.record_count = reader.int32("record_count");
    if (header.compression() != 0) {
        return events::make_error(
            ErrorCode::unsupported,
            "record batch at offset " + std::to_string(base_offset) + ": compressed with " +
                compression_name(header.compression()) +
                ": Kafka's controllers write the metadata log uncompressed and Ballast "
                "decodes only uncompressed batches");
    }
    // Each record takes at least 7 bytes (length, attributes, three deltas and lengths).
    if (header.record_count < 0 ||
        static_cast<size_t>(header.record_count) > reader.remaining() / 7 ||
        header.last_offset_delta < 0) {
        return batch_error(base_offset, "corrupt counts: " + std::to_string(header.record_count) +
                                            " records, last offset delta " +
                                            std::to_string(header.last_offset_delta) + " in " +
                                            std::to_string(total_bytes) + " bytes");
    }
    batch.records.resize(static_cast<size_t>(header.record_count));
    int64_t previous_offset = base_offset - 1;
    for (size_t i = 0; i < batch.records.size(); ++i) {
        Record& record = batch.records[i];
        decode_record(reader, header, record);
        if (!reader.ok()) {
            batch.records.clear();
            return batch_error(base_offset, "record " + std::to_string(i) + ": " +
                                                reader.status().error().message);
        }
        if (record.offset <= previous_offset) {
            batch.records.clear();
            return batch_error(base_offset, "record " + std::to_string(i) + " at offset " +
                                                std::to_string(record.offset) +
                                                " does not follow offset " +
                                                std::to_string(previous_offset));
        }
        previous_offset = record.offset;
    }
    if (reader.remaining() != 0) {
        const size_t left = reader.remaining();
        batch.records.clear();
        return batch_error(base_offset, std::to_string(left) + " bytes left over after its " +
                                            std::to_string(header.record_count) + " records");
    }
    return total_bytes;
}

std::vector<uint8_t> encode_batch(const BatchHeader& header, std::span<const Record> records) {
    wire::Writer body;  // everything after the CRC
    int32_t last_offset_delta = 0;
    int64_t max_timestamp_ms = records.empty() ? header.base_timestamp_ms : INT64_MIN;
    wire::Writer record_bytes;
    for (const Record& record : records) {
        assert(record.offset >= header.base_offset);
        const auto offset_delta = static_cast<int32_t>(record.offset - header.base_offset);
        last_offset_delta = std::max(last_offset_delta, offset_delta);
        max_timestamp_ms = std::max(max_timestamp_ms, record.timestamp_ms);
        wire::Writer one;
        one.int8(record.attributes);
        one.varlong(record.timestamp_ms - header.base_timestamp_ms);
        one.varint(offset_delta);
        for (const std::optional<Bytes>* part : {&record.key, &record.value}) {
            if (!*part) {
                one.varint(-1);
            } else {
                one.varint(static_cast<int32_t>((*part)->size()));
                one.raw(**part);
            }
        }
        one.varint(static_cast<int32_t>(record.headers.size()));
        for (const RecordHeader& item : record.headers) {
            one.varint(static_cast<int32_t>(item.key.size()));
            one.raw({reinterpret_cast<const uint8_t*>(item.key.data()), item.key.size()});
            if (!item.value) {
                one.varint(-1);
            } else {
                one.varint(static_cast<int32_t>(item.value->size()));
                one.raw(*item.value);
            }
        }
        record_bytes.varint(static_cast<int32_t>(one.size()));
        record_bytes.raw(one.bytes());
    }
    if (header.log_append_time()) max_timestamp_ms = header.max_timestamp_ms;
    body.int16(header.attributes);
    body.int32(last_offset_delta);
    body.int64(header.base_timestamp_ms);
    body.int64(max_timestamp_ms);
    body.int64(header.producer_id);
    body.int16(header.producer_epoch);
    body.int32(header.base_sequence);
    body.int32(static_cast<int32_t>(records.size()));
    body.raw(record_bytes.bytes());

    wire::Writer out;
    out.int64(header.base_offset);
    out.int32(static_cast<int32_t>(body.size() + 9));  // leader epoch, magic, crc, then body
    out.int32(header.partition_leader_epoch);
    out.int8(2);
    out.int32(static_cast<int32_t>(store::crc32c(body.bytes())));
    out.raw(body.bytes());
    return out.take();
}

}  // namespace ballast::kafka::metadata_log
