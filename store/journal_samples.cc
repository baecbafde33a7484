#include "store/journal_samples.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "events/event_generated.h"
#include "store/journal.h"
#include "store/journal_record.h"

namespace ballast::store {

using events::ErrorCode;
using events::make_error;
using events::Status;

namespace {

constexpr uint32_t compact_marker = 0xFFFFFFFFu;
constexpr uint8_t compact_format = 1;
constexpr int mantissa_bits = 10;  // stored; 11 significant with the leading one
constexpr int exponent_min = -14;  // the smallest value with a code: 2^-14
constexpr int exponent_max = 48;   // the largest: just under 2^49
constexpr double value_min = 0x1p-14;
constexpr double value_limit = 0x1p49;
constexpr uint64_t exact_integer_max = uint64_t{1} << 53;
constexpr int columns = 4;

/// The code of `value` when it has one exactly (0 is code 0; -0 has none).
bool code_of(double value, uint16_t* code) {
    if (!std::isfinite(value)) return false;
    if (value == 0) {
        if (std::signbit(value)) return false;
        *code = 0;
        return true;
    }
    int exp = 0;
    const double scaled = std::ldexp(std::frexp(value, &exp), mantissa_bits + 1);  // [1024, 2048)
    const int exponent = exp - 1;
    if (scaled != std::floor(scaled) || exponent < exponent_min || exponent > exponent_max) return false;
    *code = static_cast<uint16_t>(((exponent - exponent_min + 1) << mantissa_bits) |
                                  (static_cast<uint32_t>(scaled) - (1u << mantissa_bits)));
    return true;
}

/// The value of a code; false for codes no value has (a zero exponent field
/// with a mantissa).
bool value_of(uint16_t code, double* value) {
    const int field = code >> mantissa_bits;
    const uint32_t mantissa = code & ((1u << mantissa_bits) - 1);
    if (field == 0) {
        *value = 0;
        return mantissa == 0;
    }
    const int exponent = field - 1 + exponent_min;
    *value = std::ldexp(static_cast<double>((1u << mantissa_bits) | mantissa), exponent - mantissa_bits);
    return true;
}

bool size_code_of(uint64_t bytes, uint16_t* code) {
    return bytes <= exact_integer_max && code_of(static_cast<double>(bytes), code);
}

uint64_t zigzag(int64_t v) {
    return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

int64_t unzigzag(uint64_t v) { return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1)); }

/// Reads a compact payload front to back; the first thing that does not
/// hold becomes the error, named by `what` and the byte offset.
class Reader {
public:
    Reader(std::span<const uint8_t> bytes, const std::string& what) : _bytes(bytes), _what(what) {}

    bool failed() const { return !_error.empty(); }
    Status status() const {
        if (_error.empty()) return {};
        return make_error(ErrorCode::corruption, _what + ": compact samples record: " + _error);
    }
    size_t left() const { return _bytes.size() - _at; }
    size_t at() const { return _at; }

    void fail(const std::string& why) {
        if (_error.empty()) _error = why + " at byte " + std::to_string(_at);
    }
    uint8_t byte(const char* field) {
        if (failed()) return 0;
        if (left() < 1) {
            fail(std::string(field) + " runs past the end");
            return 0;
        }
        return _bytes[_at++];
    }
    uint64_t varint(const char* field) {
        uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (failed()) return 0;
            if (left() < 1) {
                fail(std::string(field) + " runs past the end");
                return 0;
            }
            const uint8_t b = _bytes[_at++];
            if (shift == 63 && b > 1) break;
            v |= static_cast<uint64_t>(b & 0x7F) << shift;
            if ((b & 0x80) == 0) return v;
        }
        fail(std::string(field) + " is not a varint of at most 64 bits");
        return 0;
    }
    std::span<const uint8_t> take(size_t n, const char* field) {
        if (failed()) return {};
        if (left() < n) {
            fail(std::string(field) + " of " + std::to_string(n) + " bytes runs past the end (" +
                 std::to_string(left()) + " left)");
            return {};
        }
        std::span<const uint8_t> out = _bytes.subspan(_at, n);
        _at += n;
        return out;
    }

private:
    std::span<const uint8_t> _bytes;
    const std::string& _what;
    size_t _at = 0;
    std::string _error;
};

}  // namespace

double round_sample_value(double value) {
    if (value == 0) return 0;
    if (!(value >= value_min && value < value_limit)) return value;
    int exp = 0;
    const double scaled = std::round(std::ldexp(std::frexp(value, &exp), mantissa_bits + 1));
    return std::ldexp(scaled, exp - (mantissa_bits + 1));
}

uint64_t round_sample_size(uint64_t bytes) {
    if (bytes > exact_integer_max) return bytes;
    // Whole numbers under 2^11 are exact already; above, the rounded value
    // is a whole multiple of a power of two.
    return static_cast<uint64_t>(round_sample_value(static_cast<double>(bytes)));
}

void round_samples(events::PartitionMetrics& metrics) {
    for (events::PartitionSample& s : metrics.samples) {
        s.bytes_in_per_s = round_sample_value(s.bytes_in_per_s);
        s.bytes_out_per_s = round_sample_value(s.bytes_out_per_s);
        s.messages_in_per_s = round_sample_value(s.messages_in_per_s);
        s.size_bytes = round_sample_size(s.size_bytes);
    }
}

events::Event as_journaled(events::Event event) {
    if (auto* metrics = std::get_if<events::PartitionMetrics>(&event.body)) round_samples(*metrics);
    return event;
}

bool encode_compact_samples(const events::Event& event, std::string* out) {
    const auto* metrics = std::get_if<events::PartitionMetrics>(&event.body);
    if (!metrics) return false;
    const std::vector<events::PartitionSample>& samples = metrics->samples;
    const size_t n = samples.size();
    thread_local std::vector<uint16_t> codes;
    codes.resize(columns * n);
    for (size_t i = 0; i < n; i++) {
        const events::PartitionSample& s = samples[i];
        if (s.partition < 0 || s.topic_index >= metrics->topics.size()) return false;
        if (!code_of(s.bytes_in_per_s, &codes[i]) || !code_of(s.bytes_out_per_s, &codes[n + i]) ||
            !code_of(s.messages_in_per_s, &codes[2 * n + i]) || !size_code_of(s.size_bytes, &codes[3 * n + i])) {
            return false;
        }
    }

    out->clear();
    const uint32_t marker = compact_marker;
    out->append(reinterpret_cast<const char*>(&marker), sizeof marker);
    out->push_back(static_cast<char>(compact_format));
    put_varint(out, event.seq);
    put_varint(out, zigzag(event.time_ms));
    out->push_back(static_cast<char>(event.source));
    put_varint(out, zigzag(metrics->broker_id));
    put_varint(out, zigzag(metrics->sample_time_ms));
    // Topic names front-coded: the adapters list them in name order, and a
    // name shares most of its start with the one before.
    put_varint(out, metrics->topics.size());
    const std::string* previous = nullptr;
    for (const std::string& topic : metrics->topics) {
        size_t shared = 0;
        if (previous) {
            while (shared < previous->size() && shared < topic.size() && (*previous)[shared] == topic[shared]) shared++;
        }
        put_varint(out, shared);
        put_varint(out, topic.size() - shared);
        out->append(topic, shared);
        previous = &topic;
    }
    // Topic runs: consecutive samples of one topic, each with whether its
    // partitions go up.
    std::string runs;
    std::string partitions;
    size_t run_count = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        bool ascending = true;
        for (; j < n && samples[j].topic_index == samples[i].topic_index; j++) {
            ascending = ascending && samples[j].partition > samples[j - 1].partition;
        }
        put_varint(&runs, samples[i].topic_index);
        put_varint(&runs, (uint64_t{j - i} << 1) | (ascending ? 1 : 0));
        run_count++;
        // Partitions: the first as it is, each next as its difference from
        // the one before (less one when they go up, else zigzag). A broker's
        // report lists a topic's partitions in order, spaced by about the
        // broker count: short varints, and a repeated spacing that block
        // compression takes away.
        put_varint(&partitions, static_cast<uint64_t>(samples[i].partition));
        for (size_t k = i + 1; k < j; k++) {
            const int64_t step = int64_t{samples[k].partition} - samples[k - 1].partition;
            put_varint(&partitions, ascending ? static_cast<uint64_t>(step - 1) : zigzag(step));
        }
        i = j;
    }
    put_varint(out, run_count);
    out->append(runs);
    out->append(partitions);
    const size_t planes_at = out->size();
    out->resize(planes_at + 2 * codes.size());
    char* plane = out->data() + planes_at;
    // Bytes out, messages in and size as their code's difference from bytes
    // in's (modulo 2^16): a code is close to a logarithm, so that is close to
    // the log of their ratio (the topic's fan-out, record size, retention
    // time), which neighbouring samples share: a high byte that repeats.
    for (size_t i = 0; i < n; i++) {
        for (int c = 1; c < columns; c++) codes[c * n + i] = static_cast<uint16_t>(codes[c * n + i] - codes[i]);
    }
    for (int c = 0; c < columns; c++) {
        const uint16_t* column = codes.data() + c * n;
        for (size_t i = 0; i < n; i++) *plane++ = static_cast<char>(column[i] >> 8);
        for (size_t i = 0; i < n; i++) *plane++ = static_cast<char>(column[i] & 0xFF);
    }
    return true;
}

std::span<const uint8_t> stored_payload(std::span<const uint8_t> event_bytes, std::string* scratch) {
    const events::fb::Event& view = events::view(event_bytes);
    if (view.body_type() != events::fb::Body::PartitionMetrics) return event_bytes;
    if (!encode_compact_samples(events::from_flatbuffer(view), scratch)) return event_bytes;
    return {reinterpret_cast<const uint8_t*>(scratch->data()), scratch->size()};
}

bool is_compact_samples(std::span<const uint8_t> payload) {
    return payload.size() >= 4 && payload[0] == 0xFF && payload[1] == 0xFF && payload[2] == 0xFF && payload[3] == 0xFF;
}

Status decode_compact_samples(std::span<const uint8_t> payload, const std::string& what, events::Event* out) {
    Reader r(payload, what);
    r.take(4, "marker");
    const uint8_t format = r.byte("format");
    if (!r.failed() && format != compact_format) r.fail("format " + std::to_string(format) + " is unknown");
    events::Event event;
    event.seq = r.varint("seq");
    event.time_ms = unzigzag(r.varint("time_ms"));
    event.source = static_cast<events::Source>(r.byte("source"));
    events::PartitionMetrics metrics;
    const int64_t broker_id = unzigzag(r.varint("broker_id"));
    if (!r.failed() && (broker_id < std::numeric_limits<int32_t>::min() ||
                        broker_id > std::numeric_limits<int32_t>::max())) {
        r.fail("broker_id " + std::to_string(broker_id) + " is not a 32-bit id");
    }
    metrics.broker_id = static_cast<int32_t>(broker_id);
    metrics.sample_time_ms = unzigzag(r.varint("sample_time_ms"));
    const uint64_t topic_count = r.varint("topic count");
    // Each topic takes at least its length's byte: a count past what is
    // left is damage, not a reason to allocate.
    if (!r.failed() && topic_count > r.left()) {
        r.fail("topic count " + std::to_string(topic_count) + " is more than the " + std::to_string(r.left()) +
               " bytes left");
    }
    for (uint64_t t = 0; t < topic_count && !r.failed(); t++) {
        const uint64_t shared = r.varint("topic name's shared start");
        const uint64_t length = r.varint("topic name length");
        if (r.failed()) break;
        const size_t previous = metrics.topics.empty() ? 0 : metrics.topics.back().size();
        if (shared > previous) {
            r.fail("topic name shares " + std::to_string(shared) + " bytes with one of " + std::to_string(previous));
            break;
        }
        if (length > r.left()) {
            r.fail("topic name length " + std::to_string(length) + " runs past the end");
            break;
        }
        std::span<const uint8_t> rest = r.take(length, "topic name");
        std::string name = metrics.topics.empty() ? std::string() : metrics.topics.back().substr(0, shared);
        name.append(reinterpret_cast<const char*>(rest.data()), rest.size());
        metrics.topics.push_back(std::move(name));
    }
    const uint64_t run_count = r.varint("topic run count");
    // Each run takes at least 2 bytes, each sample at least 9 (a partition's
    // byte and 8 of codes): counts past what is left are damage, not a
    // reason to allocate.
    if (!r.failed() && run_count > r.left() / 2) {
        r.fail("topic run count " + std::to_string(run_count) + " is more than the bytes left hold");
    }
    struct Run {
        size_t first = 0;
        size_t end = 0;
        bool ascending = false;
    };
    std::vector<Run> runs;
    for (uint64_t g = 0; g < run_count && !r.failed(); g++) {
        const uint64_t topic_index = r.varint("topic index");
        const uint64_t count_and_order = r.varint("topic run size");
        if (r.failed()) break;
        const uint64_t count = count_and_order >> 1;
        if (topic_index >= metrics.topics.size()) {
            r.fail("topic index " + std::to_string(topic_index) + " is past its " +
                   std::to_string(metrics.topics.size()) + " topics");
            break;
        }
        if (count == 0 || count > r.left() / 9 || metrics.samples.size() + count > r.left() / 9) {
            r.fail("topic run of " + std::to_string(count) + " samples is empty or more than the bytes left hold");
            break;
        }
        runs.push_back({metrics.samples.size(), metrics.samples.size() + count, (count_and_order & 1) != 0});
        events::PartitionSample s;
        s.topic_index = static_cast<uint32_t>(topic_index);
        metrics.samples.insert(metrics.samples.end(), count, s);
    }
    for (const Run& run : runs) {
        for (size_t i = run.first; i < run.end && !r.failed(); i++) {
            const uint64_t stored = r.varint("partition");
            if (r.failed()) break;
            // Kept inside 2^33 before adding: no overflow, and any id out of
            // range stays out of range.
            constexpr int64_t bound = int64_t{1} << 33;
            const int64_t step = i == run.first  ? static_cast<int64_t>(std::min<uint64_t>(stored, bound))
                                 : run.ascending ? static_cast<int64_t>(std::min<uint64_t>(stored, bound)) + 1
                                                 : std::clamp(unzigzag(stored), -bound, bound);
            const int64_t partition = (i == run.first ? 0 : int64_t{metrics.samples[i - 1].partition}) + step;
            if (partition < 0 || partition > std::numeric_limits<int32_t>::max()) {
                r.fail("sample " + std::to_string(i) + "'s partition " + std::to_string(partition) +
                       " is not a partition id");
                break;
            }
            metrics.samples[i].partition = static_cast<int32_t>(partition);
        }
    }
    const size_t n = metrics.samples.size();
    if (!r.failed() && r.left() != 2 * columns * n) {
        r.fail(std::to_string(r.left()) + " bytes of codes for " + std::to_string(n) + " samples (" +
               std::to_string(2 * columns * n) + " expected)");
    }
    if (r.failed()) return r.status();
    std::span<const uint8_t> planes = r.take(2 * columns * n, "codes");
    const uint8_t* in_high = planes.data();
    const uint8_t* in_low = in_high + n;
    for (int c = 0; c < columns; c++) {
        const uint8_t* high = planes.data() + 2 * c * n;
        const uint8_t* low = high + n;
        for (size_t i = 0; i < n; i++) {
            const uint16_t in_code = c == 0 ? 0 : static_cast<uint16_t>((in_high[i] << 8) | in_low[i]);
            const auto code = static_cast<uint16_t>(((high[i] << 8) | low[i]) + in_code);
            double value = 0;
            if (!value_of(code, &value) || (c == 3 && value != std::floor(value))) {
                return make_error(ErrorCode::corruption,
                                  what + ": compact samples record: sample " + std::to_string(i) + " column " +
                                      std::to_string(c) + " has code " + std::to_string(code) +
                                      (c == 3 ? ", not a whole size" : ", which no value has"));
            }
            events::PartitionSample& s = metrics.samples[i];
            switch (c) {
                case 0: s.bytes_in_per_s = value; break;
                case 1: s.bytes_out_per_s = value; break;
                case 2: s.messages_in_per_s = value; break;
                default: s.size_bytes = static_cast<uint64_t>(value); break;
            }
        }
    }
    event.body = std::move(metrics);
    *out = std::move(event);
    return {};
}

}  // namespace ballast::store
