#pragma once

/// The fields of metadata records, one encoder and one decoder per record type (private to
/// this folder; metadata_records.h is the surface). Uuids are two big-endian int64s; arrays
/// and strings are compact; tagged fields are written in tag order, each only when it
/// differs from its default, as Kafka's generated classes do.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "adapters/kafka/metadata_log/metadata_records.h"
#include "adapters/kafka/wire/wire_reader.h"
#include "adapters/kafka/wire/wire_writer.h"

namespace ballast::kafka::metadata_log {

class FieldWriter {
public:
    FieldWriter(wire::Writer& out, int16_t version, std::string what)
        : out(out), version(version), _what(std::move(what)) {}

    wire::Writer& out;
    const int16_t version;

    /// A field holds a non-default value that `version` cannot carry.
    void refuse(const char* field, int16_t since);
    bool ok() const { return !_error; }
    const Error& error() const { return *_error; }

private:
    std::string _what;
    std::optional<Error> _error;
};

class FieldReader {
public:
    FieldReader(wire::Reader& in, int16_t version) : in(in), version(version) {}
    wire::Reader& in;
    const int16_t version;
};

void encode_body(FieldWriter& fields, const RegisterBrokerRecord& record);
void encode_body(FieldWriter& fields, const UnregisterBrokerRecord& record);
void encode_body(FieldWriter& fields, const TopicRecord& record);
void encode_body(FieldWriter& fields, const PartitionRecord& record);
void encode_body(FieldWriter& fields, const PartitionChangeRecord& record);
void encode_body(FieldWriter& fields, const FenceBrokerRecord& record);
void encode_body(FieldWriter& fields, const UnfenceBrokerRecord& record);
void encode_body(FieldWriter& fields, const RemoveTopicRecord& record);
void encode_body(FieldWriter& fields, const BrokerRegistrationChangeRecord& record);
void encode_body(FieldWriter& fields, const BeginTransactionRecord& record);
void encode_body(FieldWriter& fields, const EndTransactionRecord& record);
void encode_body(FieldWriter& fields, const AbortTransactionRecord& record);

/// Decodes a record of `type` (one this folder reads) into `body`; errors stay in the reader.
void decode_body(FieldReader& fields, RecordType type, RecordBody& body);

}  // namespace ballast::kafka::metadata_log
