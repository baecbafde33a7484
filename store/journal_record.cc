#include "store/journal_record.h"

#include <cstdio>

#include "events/event.h"
#include "store/crc32c.h"
#include "store/journal_samples.h"

namespace ballast::store {

using events::ErrorCode;
using events::make_error;
using events::Status;

namespace {
std::string hex32(uint32_t v) {
    char text[16];
    std::snprintf(text, sizeof text, "0x%08x", v);
    return text;
}
}  // namespace

void encode_record(std::span<const uint8_t> payload, std::string* out) {
    out->clear();
    out->reserve(record_header_size + payload.size());
    put_u32_le(out, crc32c(payload));
    out->append(reinterpret_cast<const char*>(payload.data()), payload.size());
}

namespace {

/// check_record's body. `what` is called only when the record is bad, so a
/// good record costs no string building (a heap allocation per record
/// would be about a tenth of a scan).
template <typename What>
Status check_record_named(const What& what, std::string_view value,
                          std::span<const uint8_t>* payload) {
    if (value.size() < record_header_size) {
        return make_error(ErrorCode::corruption, what() + ": record of " +
                                                     std::to_string(value.size()) +
                                                     " bytes is shorter than its header");
    }
    const uint32_t stored = get_u32_le(value.data());
    const auto* data = reinterpret_cast<const uint8_t*>(value.data()) + record_header_size;
    const size_t size = value.size() - record_header_size;
    const uint32_t computed = crc32c(data, size);
    if (stored != computed) {
        return make_error(ErrorCode::corruption, what() + ": CRC32C mismatch (stored " +
                                                     hex32(stored) + ", computed " +
                                                     hex32(computed) + " over " +
                                                     std::to_string(size) + " bytes)");
    }
    *payload = {data, size};
    return {};
}

}  // namespace

Status check_record(std::string_view what, std::string_view value,
                    std::span<const uint8_t>* payload) {
    return check_record_named([what] { return std::string(what); }, value, payload);
}

Status check_event_record(uint64_t seq, std::string_view value, std::vector<uint64_t>* aligned,
                          std::span<const uint8_t>* event_bytes) {
    const auto what = [seq] { return "journal record seq " + std::to_string(seq); };
    std::span<const uint8_t> payload;
    if (Status status = check_record_named(what, value, &payload); !status) return status;

    if (is_compact_samples(payload)) {
        // Back to the event's flatbuffer, checked below like any other: the
        // reader's callers see one form (journal_samples.h).
        events::Event event;
        if (Status status = decode_compact_samples(payload, what(), &event); !status) return status;
        thread_local events::Encoder encoder;
        payload = encoder.encode(event);
    }
    aligned->resize((payload.size() + 7) / 8);
    if (!payload.empty()) std::memcpy(aligned->data(), payload.data(), payload.size());  // data() may be null
    const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(aligned->data()),
                                         payload.size());
    if (Status status = events::verify(bytes); !status) {
        return make_error(ErrorCode::corruption, what() + ": " + status.error().message);
    }
    const uint64_t inside = events::header(events::view(bytes)).seq;
    if (inside != seq) {
        return make_error(ErrorCode::corruption,
                          what() + ": event carries seq " + std::to_string(inside));
    }
    *event_bytes = bytes;
    return {};
}

void RunBuilder::add(uint64_t seq, std::span<const uint8_t> payload) {
    if (_count == 0) _first = seq;
    assert(seq == _first + _count);
    put_u32_le(&_value, static_cast<uint32_t>(record_header_size + payload.size()));
    put_u32_le(&_value, crc32c(payload));
    _value.append(reinterpret_cast<const char*>(payload.data()), payload.size());
    _count++;
}

void RunBuilder::add_record(uint64_t seq, std::string_view record) {
    if (_count == 0) _first = seq;
    assert(seq == _first + _count);
    put_u32_le(&_value, static_cast<uint32_t>(record.size()));
    _value.append(record);
    _count++;
}

Status RunCursor::next(uint64_t* seq, std::string_view* record) {
    assert(!done());
    *seq = _next;
    if (_legacy) {
        *record = _rest;
        _rest = {};
        advance();
        return {};
    }
    if (_rest.size() < run_length_size) {
        return make_error(ErrorCode::corruption, "journal record seq " + std::to_string(_next) +
                                                     ": missing (its run ends " +
                                                     std::to_string(_last - _next + 1) +
                                                     " record(s) early)");
    }
    const uint32_t length = get_u32_le(_rest.data());
    _rest.remove_prefix(run_length_size);
    if (length > _rest.size()) {
        return make_error(ErrorCode::corruption, "journal record seq " + std::to_string(_next) +
                                                     ": length " + std::to_string(length) +
                                                     " runs past the end of its run (" +
                                                     std::to_string(_rest.size()) + " bytes left)");
    }
    *record = _rest.substr(0, length);
    _rest.remove_prefix(length);
    advance();
    return {};
}

void RunCursor::advance() {
    if (_next == _last) {
        _done = true;
    } else {
        _next++;
    }
}

Status RunCursor::finish() const {
    assert(done());
    if (_rest.empty()) return {};
    return make_error(ErrorCode::corruption, "journal run ending at seq " + std::to_string(_last) +
                                                 ": " + std::to_string(_rest.size()) +
                                                 " bytes after its last record");
}

events::Result<std::string> slice_run(std::string_view key, std::string_view value, uint64_t from,
                                      uint64_t to) {
    RunCursor cursor = RunCursor::of(key, value);
    assert(cursor.next_seq() <= from && from <= to);
    RunBuilder out;
    while (!cursor.done() && cursor.next_seq() <= to) {
        uint64_t seq = 0;
        std::string_view record;
        if (Status status = cursor.next(&seq, &record); !status) return status.error();
        if (seq >= from) out.add_record(seq, record);
    }
    assert(!out.empty() && out.first() == from && out.last() == to);
    return out.value();
}

}  // namespace ballast::store
