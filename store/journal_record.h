#pragma once

/// The byte layout of journal records, private to store/.
///
///   record = crc32c(payload) as 4 bytes little-endian, then payload
///
/// For events the payload is the event's flatbuffer (which carries its seq
/// too, so a record copied under the wrong key is caught), or for a metrics
/// report its compact samples record (journal_samples.h, which carries the
/// seq as well); for snapshots it is the engine's opaque state.
///
/// Events are stored in runs: one RocksDB key per run of consecutive events
/// (an append's batch, split at `run_events_max` / `run_bytes_max`), not one
/// per event.
///
///   key   = first seq, then last seq, 8 bytes big-endian each (16 bytes;
///           runs never overlap, so keys sort in sequence order)
///   value = for each event of the run, in seq order: the record's length
///           as 4 bytes little-endian, then the record
///
/// Why runs: a RocksDB key costs a memtable insert (a skip-list walk of
/// key comparisons), a WriteBatch entry and its share of every flush and
/// compaction. One per event costs 1.38 us of CPU per ~156-byte event on
/// this machine; one per run of 1,000 costs 0.35 us (`bench/journal_bench`;
/// bench/README.md has the figures with the whole append path). At 500,000
/// events/s that is half a core of two. The keys still carry the bounds, so density and
/// the journal's first and last seq are known without reading a value.
/// Journals written before runs have one 8-byte key per event, whose value
/// is the record alone: they read as runs of one.

#include <cassert>
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

/// LEB128: 7 bits a byte, low first, the high bit set on all but the last.
inline void put_varint(std::string* out, uint64_t v) {
    while (v >= 0x80) {
        out->push_back(static_cast<char>((v & 0x7F) | 0x80));
        v >>= 7;
    }
    out->push_back(static_cast<char>(v));
}

inline uint32_t get_u32_le(const char* p) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--) v = (v << 8) | static_cast<uint8_t>(p[i]);
    return v;
}

inline uint64_t get_u64_le(const char* p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | static_cast<uint8_t>(p[i]);
    return v;
}

// ------------------------------------------------------------------ runs

/// At most this many events, or about this many bytes, per run: an append
/// of more is split into several runs in the same WriteBatch (still
/// atomic). Bounds what a reader of one event in the middle of a run reads
/// (read_one, retention's look at a snapshot's event), and a value stays a
/// few blocks of a table file.
inline constexpr size_t run_events_max = 4096;
inline constexpr size_t run_bytes_max = 1u << 20;
inline constexpr size_t run_key_size = 2 * key_size;
inline constexpr size_t run_length_size = 4;

inline std::string run_key(uint64_t first, uint64_t last) {
    char key[run_key_size];
    encode_key(first, key);
    encode_key(last, key + key_size);
    return std::string(key, run_key_size);
}

/// The events a run key covers: 16 bytes (first, last), or 8 (a journal
/// written before runs: one event). false for any other size, or last < first.
inline bool decode_run_key(std::string_view key, uint64_t* first, uint64_t* last) {
    if (key.size() == key_size) {
        if (!decode_key(key, first)) return false;
        *last = *first;
        return true;
    }
    if (key.size() != run_key_size || !decode_key(key.substr(0, key_size), first) ||
        !decode_key(key.substr(key_size), last)) {
        return false;
    }
    return *first <= *last;
}

/// Collects consecutive events into one run value.
class RunBuilder {
public:
    bool empty() const { return _count == 0; }
    uint64_t first() const { return _first; }
    uint64_t last() const { return _first + _count - 1; }
    /// Whether the next event would make the run longer than its bounds.
    bool full() const { return _count >= run_events_max || _value.size() >= run_bytes_max; }
    /// Appends the record of event `seq` (the one after the last).
    void add(uint64_t seq, std::span<const uint8_t> payload);
    /// The same with a record already framed (crc + payload).
    void add_record(uint64_t seq, std::string_view record);
    std::string key() const { return run_key(_first, last()); }
    const std::string& value() const { return _value; }
    void clear() {
        _value.clear();
        _count = 0;
    }

private:
    uint64_t _first = 0;
    uint64_t _count = 0;
    std::string _value;
};

/// Walks the records of one run in seq order. Framing errors name the seq
/// whose record could not be found, the way a missing record is named.
class RunCursor {
public:
    RunCursor(uint64_t first, uint64_t last, bool legacy, std::string_view value)
        : _next(first), _last(last), _done(first > last), _legacy(legacy), _rest(value) {}
    /// A cursor over the run stored under `key` (decode_run_key succeeded).
    static RunCursor of(std::string_view key, std::string_view value) {
        uint64_t first = 0;
        uint64_t last = 0;
        const bool decoded = decode_run_key(key, &first, &last);
        assert(decoded);
        (void)decoded;
        return RunCursor(first, last, key.size() == key_size, value);
    }
    /// A flag rather than next > last: a run that ends at the largest seq
    /// (a damaged key can say so) would wrap next to 0 and never be done.
    bool done() const { return _done; }
    /// The seq of the record next() reads (meaningless once done).
    uint64_t next_seq() const { return _next; }
    /// The next record (crc + payload, unchecked) and its seq; an error when
    /// the framing does not hold it.
    events::Status next(uint64_t* seq, std::string_view* record);
    /// After the last record: an error if bytes are left over.
    events::Status finish() const;

private:
    void advance();

    uint64_t _next;
    uint64_t _last;
    bool _done;
    bool _legacy;
    std::string_view _rest;
};

/// The part of a run that holds events [from, to] (inside its bounds), as a
/// new run value: for retention and repair, which cut runs. Records are
/// moved as they are, unchecked; an error if the framing breaks before `to`.
events::Result<std::string> slice_run(std::string_view key, std::string_view value, uint64_t from,
                                      uint64_t to);

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
