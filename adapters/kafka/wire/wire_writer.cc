#include "adapters/kafka/wire/wire_writer.h"

#include <cassert>
#include <limits>

namespace ballast::kafka::wire {

namespace {

template <class T>
void put_big_endian(std::vector<uint8_t>& bytes, T value) {
    auto bits = static_cast<std::make_unsigned_t<T>>(value);
    for (int shift = (sizeof(T) - 1) * 8; shift >= 0; shift -= 8) {
        bytes.push_back(static_cast<uint8_t>(bits >> shift));
    }
}

}  // namespace

void Writer::int8(int8_t value) { _bytes.push_back(static_cast<uint8_t>(value)); }
void Writer::int16(int16_t value) { put_big_endian(_bytes, value); }
void Writer::int32(int32_t value) { put_big_endian(_bytes, value); }
void Writer::int64(int64_t value) { put_big_endian(_bytes, value); }
void Writer::boolean(bool value) { _bytes.push_back(value ? 1 : 0); }

/// Seven bits a byte, least significant group first; the high bit says that
/// another byte follows. A uint32 takes at most 5 bytes.
void Writer::uvarint(uint32_t value) {
    while (value >= 0x80) {
        _bytes.push_back(static_cast<uint8_t>(value | 0x80));
        value >>= 7;
    }
    _bytes.push_back(static_cast<uint8_t>(value));
}

void Writer::uuid(const Uuid& value) {
    int64(value.high);
    int64(value.low);
}

void Writer::varint(int32_t value) {
    uvarint((static_cast<uint32_t>(value) << 1) ^ static_cast<uint32_t>(value >> 31));
}

void Writer::varlong(int64_t value) {
    uint64_t bits = (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
    while (bits >= 0x80) {
        _bytes.push_back(static_cast<uint8_t>(bits | 0x80));
        bits >>= 7;
    }
    _bytes.push_back(static_cast<uint8_t>(bits));
}

void Writer::string(std::string_view value, bool flexible) {
    if (flexible) {
        assert(value.size() < std::numeric_limits<uint32_t>::max());
        uvarint(static_cast<uint32_t>(value.size() + 1));
    } else {
        // A precondition, not input validation: callers pass topic names and
        // ids, which Kafka limits to 249 characters.
        assert(value.size() <= static_cast<size_t>(std::numeric_limits<int16_t>::max()));
        int16(static_cast<int16_t>(value.size()));
    }
    _bytes.insert(_bytes.end(), value.begin(), value.end());
}

void Writer::nullable_string(const std::optional<std::string>& value, bool flexible) {
    if (value) {
        string(*value, flexible);
    } else if (flexible) {
        uvarint(0);
    } else {
        int16(-1);
    }
}

void Writer::bytes(std::span<const uint8_t> value, bool flexible) {
    assert(value.size() < static_cast<size_t>(std::numeric_limits<int32_t>::max()));
    if (flexible) {
        uvarint(static_cast<uint32_t>(value.size() + 1));
    } else {
        int32(static_cast<int32_t>(value.size()));
    }
    _bytes.insert(_bytes.end(), value.begin(), value.end());
}

void Writer::array_length(size_t count, bool flexible) {
    assert(count < static_cast<size_t>(std::numeric_limits<int32_t>::max()));
    if (flexible) {
        uvarint(static_cast<uint32_t>(count + 1));
    } else {
        int32(static_cast<int32_t>(count));
    }
}

void Writer::nullable_array_length(std::optional<size_t> count, bool flexible) {
    if (count) {
        array_length(*count, flexible);
    } else if (flexible) {
        uvarint(0);
    } else {
        int32(-1);
    }
}

void Writer::int32_array(std::span<const int32_t> values, bool flexible) {
    array_length(values.size(), flexible);
    for (int32_t value : values) int32(value);
}

void Writer::tagged_fields(bool flexible) {
    if (flexible) uvarint(0);
}

void Writer::raw(std::span<const uint8_t> bytes) {
    _bytes.insert(_bytes.end(), bytes.begin(), bytes.end());
}

void Writer::patch_int32(size_t offset, int32_t value) {
    assert(offset + 4 <= _bytes.size());
    auto bits = static_cast<uint32_t>(value);
    for (int i = 0; i < 4; ++i) {
        _bytes[offset + i] = static_cast<uint8_t>(bits >> (24 - 8 * i));
    }
}

Writer& TaggedFields::add(uint32_t tag) {
    assert(_fields.empty() || _fields.back().first < tag);
    return _fields.emplace_back(tag, Writer()).second;
}

void TaggedFields::write_to(Writer& out) const {
    out.uvarint(static_cast<uint32_t>(_fields.size()));
    for (const auto& [tag, field] : _fields) {
        out.uvarint(tag);
        out.uvarint(static_cast<uint32_t>(field.size()));
        out.raw(field.bytes());
    }
}

}  // namespace ballast::kafka::wire
