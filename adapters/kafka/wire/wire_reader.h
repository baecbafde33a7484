#pragma once

/// Kafka's wire primitives, reading side (see wire_writer.h for the
/// encodings). Bytes come from the network, so nothing is trusted: every read
/// is bounds-checked, lengths are checked against the bytes left (an array of
/// N elements needs at least N bytes, so a corrupt count cannot make us
/// allocate gigabytes), and a non-nullable field that arrives null fails.
///
/// Errors are sticky: the first failure is recorded with the message's name,
/// the field's path and the offset ("DescribeClusterResponse v2:
/// brokers[1].host at offset 37: truncated: needs 9 bytes, 4 left"), every
/// later read returns a zero value, and the decoder checks `status()` once at
/// the end. That keeps decoders a straight transcription of the schema.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "adapters/kafka/wire/uuid.h"
#include "events/result.h"

namespace ballast::kafka::wire {

using events::Error;
using events::ErrorCode;
using events::Result;
using events::Status;

class Reader {
public:
    /// `what` names the message in errors, e.g. "ElectLeadersResponse v2".
    /// Offsets in errors count from the first byte of `bytes`.
    Reader(std::span<const uint8_t> bytes, std::string what);

    int8_t int8(const char* field);
    int16_t int16(const char* field);
    int32_t int32(const char* field);
    int64_t int64(const char* field);
    bool boolean(const char* field);
    uint32_t uvarint(const char* field);
    /// Zigzag varints as record batches (v2) carry them: at most 5 and 10 bytes.
    int32_t varint(const char* field);
    int64_t varlong(const char* field);
    Uuid uuid(const char* field);
    /// IEEE 754 binary64, big-endian (Kafka's float64; Java's ByteBuffer.getDouble).
    double float64(const char* field);
    /// `length` bytes as a string, for formats that carry the length
    /// themselves (Java's int32-prefixed UTF-8 in the metrics reporters).
    std::string fixed_string(const char* field, size_t length);

    std::string string(const char* field, bool flexible);
    std::optional<std::string> nullable_string(const char* field, bool flexible);

    /// Kafka's non-null `bytes` (int32 or compact length, then the bytes).
    std::vector<uint8_t> bytes(const char* field, bool flexible);

    /// The next `count` bytes as they are, without copying (a record's key
    /// and value inside a batch); an empty span after an error.
    std::span<const uint8_t> raw(const char* field, size_t count);

    /// The element count of a non-null array (0 after an error).
    size_t array_length(const char* field, bool flexible);
    /// The element count of a nullable array; nullopt for null.
    std::optional<size_t> nullable_array_length(const char* field, bool flexible);
    std::vector<int32_t> int32_array(const char* field, bool flexible);

    /// Skips the tagged-field section that ends a structure in flexible
    /// versions (nothing to read in classic versions) and returns how many
    /// fields it skipped. Ballast reads no tagged field of these APIs.
    uint32_t skip_tagged_fields(bool flexible);

    /// Reads the tagged-field section of a flexible structure field by field:
    /// `on_field(tag)` reads a field it knows and returns true, or returns false
    /// to have it skipped. Tags must increase; a field that takes other than
    /// its announced size is corrupt.
    template <class OnField>
    void read_tagged_fields(OnField&& on_field);

    /// While alive, errors name fields as `field[index].name`.
    class Element {
    public:
        ~Element();
        Element(const Element&) = delete;
        Element& operator=(const Element&) = delete;

    private:
        friend class Reader;
        explicit Element(Reader& reader) : _reader(reader) {}
        Reader& _reader;
    };
    [[nodiscard]] Element element(const char* field, size_t index);

    bool ok() const { return !_error.has_value(); }
    size_t offset() const { return _offset; }
    size_t remaining() const { return _bytes.size() - _offset; }
    const std::string& what() const { return _what; }

    /// The first error, if any.
    Status status() const;
    /// `status()`, and fails if bytes are left over after the last field (a
    /// version mismatch or a corrupt length).
    Status finish();

    /// Records an error found by a decoder (a value outside its range) in
    /// the field that starts at `at` (default: the current offset).
    void fail(const char* field, const std::string& problem,
              std::optional<size_t> at = std::nullopt);

private:
    bool need(const char* field, size_t count);
    std::string path(const char* field) const;
    template <class T>
    T big_endian(const char* field);

    std::span<const uint8_t> _bytes;
    std::string _what;
    size_t _offset = 0;
    struct Step {
        const char* field;
        size_t index;
    };
    std::vector<Step> _path;  // bounded by the nesting depth of a schema (3 or 4)
    std::optional<Error> _error;
};

template <class OnField>
void Reader::read_tagged_fields(OnField&& on_field) {
    const uint32_t count = uvarint("_tagged_fields");
    if (!ok()) return;
    if (count > remaining() / 2) {  // each field is at least 2 bytes (tag, size)
        fail("_tagged_fields", "truncated or corrupt: tagged field count " +
                                   std::to_string(count) + " exceeds the " +
                                   std::to_string(remaining()) + " bytes left");
        return;
    }
    int64_t previous_tag = -1;
    for (uint32_t i = 0; i < count && ok(); ++i) {
        const uint32_t tag = uvarint("_tagged_fields.tag");
        const uint32_t size = uvarint("_tagged_fields.size");
        if (!ok()) return;
        if (static_cast<int64_t>(tag) <= previous_tag) {
            fail("_tagged_fields.tag", "tag " + std::to_string(tag) + " after tag " +
                                           std::to_string(previous_tag) + ": tags must increase");
            return;
        }
        previous_tag = tag;
        if (size > remaining()) {
            fail("_tagged_fields.size", "truncated: tagged field " + std::to_string(tag) + " of " +
                                            std::to_string(size) + " bytes, " +
                                            std::to_string(remaining()) + " left");
            return;
        }
        const size_t start = offset();
        if (!on_field(tag)) {
            raw("_tagged_fields.data", size);
            continue;
        }
        if (ok() && offset() - start != size) {
            fail("_tagged_fields", "tagged field " + std::to_string(tag) + " says " +
                                       std::to_string(size) + " bytes, its value took " +
                                       std::to_string(offset() - start),
                 start);
        }
    }
}

}  // namespace ballast::kafka::wire
