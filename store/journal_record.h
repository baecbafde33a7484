#pragma once

/// The byte layout of journal records, private to store/.
///
///   key   = seq, 8 bytes big-endian (sorts in sequence order)
///   value = crc32c(payload) as 4 bytes little-endian, then payload
///
/// For events the payload is the event's flatbuffer (which carries its seq
/// too, so a record copied under the wrong key is caught); for snapshots it is
/// the engine's opaque state.

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "events/result.h"

namespace ballast::store {

inline constexpr size_t key_size = 8;
inline constexpr size_t record_header_size = 4;

inline void encode_key(uint64_t seq, char out[key_size]) {
    for (int i = key_size - 1; i >= 0; i--) {
        out[i] = static_cast<char>(seq & 0xFF);
        seq >>= 8;
    }
}

inline std::string key_string(uint64_t seq) {
    char key[key_size];
    encode_key(seq, key);
    return std::string(key, key_size);
}

/// false when `key` is not 8 bytes.
inline bool decode_key(std::string_view key, uint64_t* seq) {
    if (key.size() != key_size) return false;
    uint64_t value = 0;
    for (const char c : key) value = (value << 8) | static_cast<uint8_t>(c);
    *seq = value;
    return true;
}

/// Snapshots written in parts (see journal_snapshots.cc): key = seq as 8
/// big-endian bytes, then the part's index as 4 big-endian bytes. The parts
/// of snapshot seq sort right after key_string(seq) and before
/// key_string(seq + 1), so ranges by seq cover them.
inline constexpr size_t snapshot_part_key_size = key_size + 4;

inline std::string snapshot_part_key(uint64_t seq, uint32_t part) {
    std::string key = key_string(seq);
    for (int shift = 24; shift >= 0; shift -= 8) key.push_back(static_cast<char>((part >> shift) & 0xFF));
    return key;
}

/// A snapshot key: 8 bytes (a snapshot in one record) or 12 (one part of
/// one). false for any other size.
inline bool decode_snapshot_key(std::string_view key, uint64_t* seq, std::optional<uint32_t>* part) {
    if (key.size() == key_size) {
        part->reset();
        return decode_key(key, seq);
    }
    if (key.size() != snapshot_part_key_size || !decode_key(key.substr(0, key_size), seq)) return false;
    uint32_t index = 0;
    for (const char c : key.substr(key_size)) index = (index << 8) | static_cast<uint8_t>(c);
    *part = index;
    return true;
}

inline void put_u32_le(std::string* out, uint32_t v) {
    for (int i = 0; i < 4; i++) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

inline uint32_t get_u32_le(const char* p) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--) v = (v << 8) | static_cast<uint8_t>(p[i]);
    return v;
}

/// Builds a record value into `out` (cleared first).
void encode_record(std::span<const uint8_t> payload, std::string* out);

/// Checks a record's framing and CRC; on success `payload` views the bytes
/// after the header (inside `value`). `what` names the record in errors:
/// "journal record seq 42".
events::Status check_record(std::string_view what, std::string_view value,
                            std::span<const uint8_t>* payload);

/// Checks an event record completely: framing, CRC, the flatbuffers verifier
/// and that the event carries `seq`. The verified bytes are copied into
/// `aligned` (flatbuffers needs 8-byte alignment that RocksDB's values do not
/// promise) and `event_bytes` views them there.
events::Status check_event_record(uint64_t seq, std::string_view value,
                                  std::vector<uint64_t>* aligned,
                                  std::span<const uint8_t>* event_bytes);

}  // namespace ballast::store
