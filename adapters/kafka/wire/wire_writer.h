#pragma once

/// Kafka's wire primitives, writing side: big-endian integers, unsigned
/// varints, the classic encodings (int16-length strings, int32-length arrays)
/// and the flexible ones (compact strings and arrays whose length is an
/// unsigned varint of length + 1, 0 meaning null; tagged-field sections).
/// Requests are small (a few KiB), so the writer simply appends to a vector.
///
/// `flexible` arguments choose between the two encodings, so that one encoder
/// serves every version of a message: a message's flexible versions use the
/// compact forms and end each structure with a tagged-field section.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "adapters/kafka/wire/uuid.h"

namespace ballast::kafka::wire {

class Writer {
public:
    void int8(int8_t value);
    void int16(int16_t value);
    void int32(int32_t value);
    void int64(int64_t value);
    void boolean(bool value);
    void uvarint(uint32_t value);
    void uuid(const Uuid& value);
    /// Zigzag varints, as record batches (v2) carry them.
    void varint(int32_t value);
    void varlong(int64_t value);

    /// A non-null string: int16 length (classic) or uvarint length + 1 (compact).
    void string(std::string_view value, bool flexible);
    /// A nullable string: length -1 (classic) or 0 (compact) for null.
    void nullable_string(const std::optional<std::string>& value, bool flexible);

    /// Kafka's `bytes`: int32 length (classic) or uvarint length + 1
    /// (compact), then the bytes. SASL tokens travel in this form.
    void bytes(std::span<const uint8_t> value, bool flexible);

    /// The length prefix of a non-null array of `count` elements.
    void array_length(size_t count, bool flexible);
    /// The length prefix of a nullable array; nullopt writes null.
    void nullable_array_length(std::optional<size_t> count, bool flexible);
    /// An array of int32 (replica ids, partition indexes).
    void int32_array(std::span<const int32_t> values, bool flexible);

    /// The tagged-field section that ends a structure in flexible versions:
    /// nothing in classic versions, and an empty section (count 0) otherwise.
    /// Ballast sends no tagged fields.
    void tagged_fields(bool flexible);

    /// Appends bytes encoded elsewhere (a message body after its header).
    void raw(std::span<const uint8_t> bytes);

    /// Overwrites 4 bytes at `offset` (the frame's size prefix).
    void patch_int32(size_t offset, int32_t value);

    size_t size() const { return _bytes.size(); }
    const std::vector<uint8_t>& bytes() const { return _bytes; }
    std::vector<uint8_t> take() { return std::move(_bytes); }

private:
    std::vector<uint8_t> _bytes;
};

/// A tagged-field section built field by field, in increasing tag order (each field's
/// size comes before it, so each is encoded apart first): `add(tag)` gives the field's
/// writer, `write_to` appends the count and the fields.
class TaggedFields {
public:
    Writer& add(uint32_t tag);
    void write_to(Writer& out) const;

private:
    std::vector<std::pair<uint32_t, Writer>> _fields;
};

}  // namespace ballast::kafka::wire
