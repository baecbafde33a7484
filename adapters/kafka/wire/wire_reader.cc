#include "adapters/kafka/wire/wire_reader.h"

#include <bit>
#include <cassert>

namespace ballast::kafka::wire {

Reader::Reader(std::span<const uint8_t> bytes, std::string what)
    : _bytes(bytes), _what(std::move(what)) {}

Reader::Element::~Element() {
    assert(!_reader._path.empty());
    _reader._path.pop_back();
}

Reader::Element Reader::element(const char* field, size_t index) {
    _path.push_back({field, index});
    return Element(*this);
}

std::string Reader::path(const char* field) const {
    std::string out;
    for (const Step& step : _path) {
        out += step.field;
        out += '[';
        out += std::to_string(step.index);
        out += "].";
    }
    out += field;
    return out;
}

void Reader::fail(const char* field, const std::string& problem, std::optional<size_t> at) {
    if (_error) return;  // the first error is the one that explains the rest
    _error = events::make_error(ErrorCode::corruption,
                                _what + ": " + path(field) + " at offset " +
                                    std::to_string(at.value_or(_offset)) + ": " + problem);
}

bool Reader::need(const char* field, size_t count) {
    if (_error) return false;
    if (count > remaining()) {
        fail(field, "truncated: needs " + std::to_string(count) + " bytes, " +
                        std::to_string(remaining()) + " left");
        return false;
    }
    return true;
}

template <class T>
T Reader::big_endian(const char* field) {
    if (!need(field, sizeof(T))) return 0;
    std::make_unsigned_t<T> bits = 0;
    for (size_t i = 0; i < sizeof(T); ++i) bits = (bits << 8) | _bytes[_offset + i];
    _offset += sizeof(T);
    return static_cast<T>(bits);
}

int8_t Reader::int8(const char* field) { return big_endian<int8_t>(field); }
int16_t Reader::int16(const char* field) { return big_endian<int16_t>(field); }
int32_t Reader::int32(const char* field) { return big_endian<int32_t>(field); }
int64_t Reader::int64(const char* field) { return big_endian<int64_t>(field); }

double Reader::float64(const char* field) {
    return std::bit_cast<double>(static_cast<uint64_t>(big_endian<int64_t>(field)));
}

std::string Reader::fixed_string(const char* field, size_t length) {
    if (!need(field, length)) return {};
    std::string value(reinterpret_cast<const char*>(_bytes.data() + _offset), length);
    _offset += length;
    return value;
}

bool Reader::boolean(const char* field) { return big_endian<int8_t>(field) != 0; }

uint32_t Reader::uvarint(const char* field) {
    uint32_t value = 0;
    const size_t start = _offset;
    // At most 5 bytes; the fifth may carry only the top 4 bits of 32.
    for (int shift = 0; shift < 35; shift += 7) {
        if (!need(field, 1)) return 0;
        uint8_t byte = _bytes[_offset++];
        if (shift == 28 && (byte & 0xf0) != 0) {
            _offset = start;
            fail(field, "unsigned varint does not fit in 32 bits");
            return 0;
        }
        value |= static_cast<uint32_t>(byte & 0x7f) << shift;
        if ((byte & 0x80) == 0) return value;
    }
    _offset = start;
    fail(field, "unsigned varint longer than 5 bytes");
    return 0;
}

Uuid Reader::uuid(const char* field) {
    Uuid value;
    value.high = int64(field);
    value.low = int64(field);
    return value;
}

int32_t Reader::varint(const char* field) {
    const uint32_t bits = uvarint(field);
    return static_cast<int32_t>((bits >> 1) ^ (~(bits & 1) + 1));
}

int64_t Reader::varlong(const char* field) {
    uint64_t bits = 0;
    const size_t start = _offset;
    // At most 10 bytes; the tenth may carry only the top bit of 64.
    for (int shift = 0; shift < 70; shift += 7) {
        if (!need(field, 1)) return 0;
        const uint8_t byte = _bytes[_offset++];
        if (shift == 63 && (byte & 0xfe) != 0) {
            _offset = start;
            fail(field, "varlong does not fit in 64 bits");
            return 0;
        }
        bits |= static_cast<uint64_t>(byte & 0x7f) << shift;
        if ((byte & 0x80) == 0) return static_cast<int64_t>((bits >> 1) ^ (~(bits & 1) + 1));
    }
    _offset = start;
    fail(field, "varlong longer than 10 bytes");
    return 0;
}

std::span<const uint8_t> Reader::raw(const char* field, size_t count) {
    if (!need(field, count)) return {};
    std::span<const uint8_t> value = _bytes.subspan(_offset, count);
    _offset += count;
    return value;
}

std::optional<std::string> Reader::nullable_string(const char* field, bool flexible) {
    const size_t start = _offset;
    int64_t length;
    if (flexible) {
        length = static_cast<int64_t>(uvarint(field)) - 1;
    } else {
        length = int16(field);
    }
    if (!ok()) return std::nullopt;
    if (length < -1) {
        _offset = start;
        fail(field, "negative string length " + std::to_string(length));
        return std::nullopt;
    }
    if (length == -1) return std::nullopt;
    if (!need(field, static_cast<size_t>(length))) return std::nullopt;
    std::string value(reinterpret_cast<const char*>(_bytes.data() + _offset),
                      static_cast<size_t>(length));
    _offset += static_cast<size_t>(length);
    return value;
}

std::string Reader::string(const char* field, bool flexible) {
    const size_t start = _offset;
    std::optional<std::string> value = nullable_string(field, flexible);
    if (!ok()) return {};
    if (!value) {
        _offset = start;
        fail(field, "null, but the field is not nullable");
        return {};
    }
    return std::move(*value);
}

std::vector<uint8_t> Reader::bytes(const char* field, bool flexible) {
    const size_t start = _offset;
    int64_t length;
    if (flexible) {
        length = static_cast<int64_t>(uvarint(field)) - 1;
    } else {
        length = int32(field);
    }
    if (!ok()) return {};
    if (length < 0) {
        _offset = start;
        fail(field, length == -1 ? "null, but the field is not nullable"
                                 : "negative bytes length " + std::to_string(length));
        return {};
    }
    if (!need(field, static_cast<size_t>(length))) return {};
    const auto first = _bytes.begin() + static_cast<std::ptrdiff_t>(_offset);
    std::vector<uint8_t> value(first, first + static_cast<std::ptrdiff_t>(length));
    _offset += static_cast<size_t>(length);
    return value;
}

std::optional<size_t> Reader::nullable_array_length(const char* field, bool flexible) {
    const size_t start = _offset;
    int64_t count;
    if (flexible) {
        count = static_cast<int64_t>(uvarint(field)) - 1;
    } else {
        count = int32(field);
    }
    if (!ok()) return std::nullopt;
    if (count < -1) {
        _offset = start;
        fail(field, "negative array length " + std::to_string(count));
        return std::nullopt;
    }
    if (count == -1) return std::nullopt;
    // Every element takes at least one byte: a larger count is corrupt, and
    // refusing it here bounds what a decoder reserves.
    if (static_cast<size_t>(count) > remaining()) {
        const size_t left = remaining();
        _offset = start;
        fail(field, "truncated or corrupt: array length " + std::to_string(count) +
                        " exceeds the " + std::to_string(left) + " bytes left");
        return std::nullopt;
    }
    return static_cast<size_t>(count);
}

size_t Reader::array_length(const char* field, bool flexible) {
    const size_t start = _offset;
    std::optional<size_t> count = nullable_array_length(field, flexible);
    if (!ok()) return 0;
    if (!count) {
        _offset = start;
        fail(field, "null, but the array is not nullable");
        return 0;
    }
    return *count;
}

std::vector<int32_t> Reader::int32_array(const char* field, bool flexible) {
    const size_t count = array_length(field, flexible);
    std::vector<int32_t> values;
    if (!ok() || !need(field, count * 4)) return values;
    values.reserve(count);
    for (size_t i = 0; i < count; ++i) values.push_back(int32(field));
    return values;
}

uint32_t Reader::skip_tagged_fields(bool flexible) {
    if (!flexible || !ok()) return 0;
    const uint32_t count = uvarint("_tagged_fields");
    if (!ok()) return 0;
    // Each field is at least 2 bytes (tag, size).
    if (count > remaining() / 2) {
        fail("_tagged_fields", "truncated or corrupt: tagged field count " +
                                   std::to_string(count) + " exceeds the " +
                                   std::to_string(remaining()) + " bytes left");
        return 0;
    }
    for (uint32_t i = 0; i < count && ok(); ++i) {
        uvarint("_tagged_fields.tag");
        const uint32_t size = uvarint("_tagged_fields.size");
        if (need("_tagged_fields.data", size)) _offset += size;
    }
    return ok() ? count : 0;
}

Status Reader::status() const {
    if (_error) return *_error;
    return Status();
}

Status Reader::finish() {
    if (ok() && remaining() != 0) {
        fail("(end)", std::to_string(remaining()) + " bytes left over after the last field");
    }
    return status();
}

}  // namespace ballast::kafka::wire
