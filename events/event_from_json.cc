#include "events/event_from_json.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ballast::events {

namespace {

using events::ErrorCode;
using nlohmann::json;

constexpr const char* topic_id_expected = "32 hex digits (a 16-byte topic id) or \"\"";

/// How a value the user gave appears in an error message. Objects and arrays
/// are named rather than printed: the message names the field, and a
/// 10,000-element array would drown it.
std::string describe(const json& value) {
    if (value.is_object()) return "an object";
    if (value.is_array()) return "an array";
    std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
    constexpr size_t max_length = 60;
    if (text.size() > max_length) {
        size_t cut = max_length;
        // Never cut a UTF-8 sequence in half.
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) cut--;
        text.resize(cut);
        text += "...";
    }
    return text;
}

/// "samples[2]" + "broker_id" -> "samples[2].broker_id"; at the top, just the name.
std::string join_path(const std::string& path, std::string_view name) {
    return path.empty() ? std::string(name) : path + "." + std::string(name);
}

/// "one of a, b, c" for an enum of `count` values named by `name_of`.
template <class Enum, class NameOf>
std::string one_of(uint8_t count, NameOf name_of) {
    std::string text = "one of ";
    for (uint8_t i = 0; i < count; i++) {
        if (i > 0) text += ", ";
        text += name_of(static_cast<Enum>(i));
    }
    return text;
}

/// Holds the first error of a parse. Every read is skipped once one is set,
/// so the user sees the first problem in document order, not a cascade.
class Reader {
public:
    explicit Reader(events::EventType type) : _type(type) {}

    bool failed() const { return _error.has_value(); }
    const events::Error& error() const { return *_error; }

    void fail(std::string message) {
        if (!_error) _error = events::make_error(ErrorCode::invalid_argument, std::move(message));
    }
    void expected(const std::string& path, std::string_view what, const json& got) {
        fail("field '" + path + "': expected " + std::string(what) + ", got " + describe(got));
    }
    void unknown_field(const std::string& path) {
        fail("unknown field '" + path + "' for event type " + events::type_name(_type));
    }

private:
    events::EventType _type;
    std::optional<events::Error> _error;
};

/// The members of one JSON object, read by name. It remembers which names
/// were asked for so `finish` can reject every other member as unknown.
class Fields {
public:
    Fields(Reader& reader, const json& object, std::string path)
        : _reader(reader), _object(object), _path(std::move(path)) {}

    /// The member called `name`, or null when the object lacks it (the
    /// caller keeps its default) or an earlier read failed.
    const json* take(std::string_view name) {
        _known.push_back(name);
        if (_reader.failed()) return nullptr;
        const auto it = _object.find(name);
        return it == _object.end() ? nullptr : &*it;
    }

    std::string path_of(std::string_view name) const { return join_path(_path, name); }
    Reader& reader() { return _reader; }

    /// Reads member `name` into `out` if present (see the `read` overloads).
    template <class T>
    void field(std::string_view name, T& out);

    void finish() {
        if (_reader.failed()) return;
        for (const auto& [key, value] : _object.items()) {
            if (!is_known(key)) {
                _reader.unknown_field(path_of(key));
                return;
            }
        }
    }

private:
    bool is_known(std::string_view key) const {
        for (const std::string_view name : _known) {
            if (name == key) return true;
        }
        return false;
    }

    Reader& _reader;
    const json& _object;
    std::string _path;
    std::vector<std::string_view> _known;
};

// ---------------------------------------------------------------- scalars
//
// One `read` overload per C++ type. They take the Reader first so that calls
// from templates find the overloads declared further down by argument lookup.

template <class Int>
requires(std::is_integral_v<Int> && !std::is_same_v<Int, bool>)
void read(Reader& r, const json& v, const std::string& path, Int& out) {
    using limits = std::numeric_limits<Int>;
    // nlohmann keeps non-negative integers as unsigned and negative ones as
    // signed; a number with a fraction or exponent is a float and never an int.
    if (v.is_number_unsigned()) {
        const auto u = v.get<uint64_t>();
        if (std::in_range<Int>(u)) {
            out = static_cast<Int>(u);
            return;
        }
    } else if (v.is_number_integer()) {
        const auto i = v.get<int64_t>();
        if (std::in_range<Int>(i)) {
            out = static_cast<Int>(i);
            return;
        }
    }
    r.expected(path,
               "an integer in [" + std::to_string(limits::min()) + ", " +
                   std::to_string(limits::max()) + "]",
               v);
}

void read(Reader& r, const json& v, const std::string& path, double& out) {
    // Integers are numbers too: to_json prints 5.0 as 5. to_json writes null
    // for NaN and infinity, which events never carry on purpose.
    if (v.is_number()) {
        const auto d = v.get<double>();
        if (std::isfinite(d)) {
            out = d;
            return;
        }
    }
    r.expected(path, "a finite number", v);
}

void read(Reader& r, const json& v, const std::string& path, bool& out) {
    if (v.is_boolean()) {
        out = v.get<bool>();
        return;
    }
    r.expected(path, "true or false", v);
}

void read(Reader& r, const json& v, const std::string& path, std::string& out) {
    if (v.is_string()) {
        out = v.get<std::string>();
        return;
    }
    r.expected(path, "a string", v);
}

/// Enums travel as the names `events::*_name` prints.
template <class Enum, class NameOf>
void read_enum(Reader& r, const json& v, const std::string& path, uint8_t count, NameOf name_of,
               Enum& out) {
    if (v.is_string()) {
        const auto& name = v.get_ref<const std::string&>();
        for (uint8_t i = 0; i < count; i++) {
            if (name == name_of(static_cast<Enum>(i))) {
                out = static_cast<Enum>(i);
                return;
            }
        }
    }
    r.expected(path, one_of<Enum>(count, name_of), v);
}

void read(Reader& r, const json& v, const std::string& path, events::Source& out) {
    read_enum(r, v, path, events::source_count, events::source_name, out);
}
void read(Reader& r, const json& v, const std::string& path, events::ActionKind& out) {
    read_enum(r, v, path, events::action_kind_count, events::action_kind_name, out);
}
void read(Reader& r, const json& v, const std::string& path, events::CommandKind& out) {
    read_enum(r, v, path, events::command_kind_count, events::command_kind_name, out);
}

/// A topic id is 16 bytes as 32 hex digits, or "" when unknown.
void read_topic_id(Reader& r, const json& v, const std::string& path, std::vector<uint8_t>& out) {
    const auto hex_value = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    if (v.is_string()) {
        const auto& text = v.get_ref<const std::string&>();
        std::vector<uint8_t> bytes;
        bool valid = text.empty() || text.size() == 32;
        for (size_t i = 0; valid && i < text.size(); i += 2) {
            const int high = hex_value(text[i]);
            const int low = hex_value(text[i + 1]);
            valid = high >= 0 && low >= 0;
            bytes.push_back(static_cast<uint8_t>(high * 16 + low));
        }
        if (valid) {
            out = std::move(bytes);
            return;
        }
    }
    r.expected(path, topic_id_expected, v);
}

// ---------------------------------------------------------------- arrays and objects

template <class T>
void read(Reader& r, const json& v, const std::string& path, std::vector<T>& out) {
    if (!v.is_array()) {
        r.expected(path, "an array", v);
        return;
    }
    std::vector<T> items(v.size());
    for (size_t i = 0; i < items.size() && !r.failed(); i++) {
        read(r, v[i], path + "[" + std::to_string(i) + "]", items[i]);
    }
    if (!r.failed()) out = std::move(items);
}

/// Checks that `v` is an object, lets `read_members` read its members, then
/// rejects any member it did not ask for.
template <class ReadMembers>
void read_object(Reader& r, const json& v, const std::string& path, ReadMembers read_members) {
    if (!v.is_object()) {
        r.expected(path, "an object", v);
        return;
    }
    Fields fields(r, v, path);
    read_members(fields);
    fields.finish();
}

template <class T>
void Fields::field(std::string_view name, T& out) {
    if (const json* v = take(name)) read(_reader, *v, path_of(name), out);
}

void read(Reader& r, const json& v, const std::string& path, events::Endpoint& out) {
    read_object(r, v, path, [&](Fields& f) {
        f.field("listener", out.listener);
        f.field("host", out.host);
        f.field("port", out.port);
    });
}

void read(Reader& r, const json& v, const std::string& path, events::BrokerSample& out) {
    read_object(r, v, path, [&](Fields& f) {
        f.field("broker_id", out.broker_id);
        f.field("bytes_in_per_s", out.bytes_in_per_s);
        f.field("bytes_out_per_s", out.bytes_out_per_s);
        f.field("messages_in_per_s", out.messages_in_per_s);
        f.field("size_bytes", out.size_bytes);
    });
}

void read(Reader& r, const json& v, const std::string& path, events::PartitionSample& out) {
    read_object(r, v, path, [&](Fields& f) {
        f.field("topic_index", out.topic_index);
        f.field("partition", out.partition);
        f.field("bytes_in_per_s", out.bytes_in_per_s);
        f.field("bytes_out_per_s", out.bytes_out_per_s);
        f.field("messages_in_per_s", out.messages_in_per_s);
        f.field("size_bytes", out.size_bytes);
    });
}

void read(Reader& r, const json& v, const std::string& path, events::ConfigEntry& out) {
    read_object(r, v, path, [&](Fields& f) {
        f.field("key", out.key);
        f.field("value", out.value);
        f.field("reset", out.reset);
    });
}

void read(Reader& r, const json& v, const std::string& path, events::Load& out) {
    read_object(r, v, path, [&](Fields& f) {
        f.field("bytes_in_per_s", out.bytes_in_per_s);
        f.field("bytes_out_per_s", out.bytes_out_per_s);
        f.field("size_bytes", out.size_bytes);
        f.field("replica_count", out.replica_count);
        f.field("leader_count", out.leader_count);
    });
}

void read(Reader& r, const json& v, const std::string& path, events::LoadChange& out) {
    read_object(r, v, path, [&](Fields& f) {
        f.field("broker_id", out.broker_id);
        f.field("before", out.before);
        f.field("after", out.after);
    });
}

/// to_json writes the swap_* members only for swap actions; they are
/// accepted on any kind, as the struct has them.
void read(Reader& r, const json& v, const std::string& path, events::Action& out) {
    read_object(r, v, path, [&](Fields& f) {
        f.field("action_id", out.action_id);
        f.field("kind", out.kind);
        f.field("topic", out.topic);
        f.field("partition", out.partition);
        f.field("source_broker", out.source_broker);
        f.field("destination_broker", out.destination_broker);
        f.field("replicas_before", out.replicas_before);
        f.field("replicas_after", out.replicas_after);
        f.field("swap_topic", out.swap_topic);
        f.field("swap_partition", out.swap_partition);
        f.field("swap_replicas_before", out.swap_replicas_before);
        f.field("swap_replicas_after", out.swap_replicas_after);
        f.field("goal", out.goal);
        f.field("loads", out.loads);
    });
}

void read(Reader& r, const json& v, const std::string& path, events::RejectionCount& out) {
    read_object(r, v, path, [&](Fields& f) {
        f.field("reason", out.reason);
        f.field("count", out.count);
    });
}

void read(Reader& r, const json& v, const std::string& path, events::HeldAction& out) {
    read_object(r, v, path, [&](Fields& f) {
        f.field("reason", out.reason);
        f.field("action", out.action);
    });
}

void read(Reader& r, const json& v, const std::string& path, events::Unfixable& out) {
    read_object(r, v, path, [&](Fields& f) {
        f.field("topic", out.topic);
        f.field("partition", out.partition);
        f.field("broker_id", out.broker_id);
        f.field("goal", out.goal);
        f.field("reason", out.reason);
    });
}

void read(Reader& r, const json& v, const std::string& path, events::BrokerNote& out) {
    read_object(r, v, path, [&](Fields& f) {
        f.field("broker_id", out.broker_id);
        f.field("reason", out.reason);
    });
}

// ---------------------------------------------------------------- bodies
//
// A body's members sit beside the header's in the top-level object.

void read_body(Fields& f, events::BrokerRegistered& e) {
    f.field("broker_id", e.broker_id);
    f.field("rack", e.rack);
    f.field("endpoints", e.endpoints);
}
void read_body(Fields& f, events::BrokerFenced& e) { f.field("broker_id", e.broker_id); }
void read_body(Fields& f, events::BrokerUnfenced& e) { f.field("broker_id", e.broker_id); }
void read_body(Fields& f, events::BrokerUnregistered& e) { f.field("broker_id", e.broker_id); }
void read_body(Fields& f, events::TopicCreated& e) {
    f.field("topic", e.topic);
    if (const json* v = f.take("topic_id")) {
        read_topic_id(f.reader(), *v, f.path_of("topic_id"), e.topic_id);
    }
    f.field("partition_count", e.partition_count);
    f.field("replication_factor", e.replication_factor);
}
void read_body(Fields& f, events::TopicDeleted& e) { f.field("topic", e.topic); }
void read_body(Fields& f, events::PartitionChanged& e) {
    f.field("topic", e.topic);
    f.field("partition", e.partition);
    f.field("replicas", e.replicas);
    f.field("leader", e.leader);
    f.field("isr", e.isr);
    f.field("leader_epoch", e.leader_epoch);
    f.field("adding_replicas", e.adding_replicas);
    f.field("removing_replicas", e.removing_replicas);
}
void read_body(Fields& f, events::BrokerMetrics& e) {
    f.field("sample_time_ms", e.sample_time_ms);
    f.field("samples", e.samples);
}
void read_body(Fields& f, events::PartitionMetrics& e) {
    f.field("broker_id", e.broker_id);
    f.field("sample_time_ms", e.sample_time_ms);
    f.field("topics", e.topics);
    f.field("samples", e.samples);
}
void read_body(Fields& f, events::Tick& e) { f.field("now_ms", e.now_ms); }
void read_body(Fields& f, events::ConfigChanged& e) { f.field("entries", e.entries); }
void read_body(Fields& f, events::OperatorCommand& e) {
    f.field("command", e.command);
    f.field("broker_ids", e.broker_ids);
    f.field("topics", e.topics);
    f.field("action_ids", e.action_ids);
    f.field("reason", e.reason);
}
void read_body(Fields& f, events::LeadershipAcquired& e) {
    f.field("epoch", e.epoch);
    f.field("instance_id", e.instance_id);
}
void read_body(Fields& f, events::ActionsPlanned& e) {
    f.field("round", e.round);
    f.field("barrier_seq", e.barrier_seq);
    f.field("actions", e.actions);
    f.field("rejections", e.rejections);
    f.field("held", e.held);
    f.field("unfixable", e.unfixable);
    f.field("broker_notes", e.broker_notes);
}
void read_body(Fields& f, events::ActionSubmitted& e) {
    f.field("action_id", e.action_id);
    f.field("attempt", e.attempt);
}
void read_body(Fields& f, events::ActionCompleted& e) { f.field("action_id", e.action_id); }
void read_body(Fields& f, events::ActionFailed& e) {
    f.field("action_id", e.action_id);
    f.field("error_code", e.error_code);
    f.field("error_name", e.error_name);
    f.field("message", e.message);
    f.field("retriable", e.retriable);
    f.field("attempt", e.attempt);
}
void read_body(Fields& f, events::ActionTimedOut& e) {
    f.field("action_id", e.action_id);
    f.field("timeout_ms", e.timeout_ms);
}
void read_body(Fields& f, events::ActionCancelled& e) {
    f.field("action_id", e.action_id);
    f.field("reason", e.reason);
}

/// A default-constructed body of the given kind.
template <size_t... I>
events::Body default_body(events::EventType type, std::index_sequence<I...>) {
    static const events::Body bodies[] = {events::Body(std::in_place_index<I>)...};
    return bodies[static_cast<size_t>(type)];
}

/// The event's kind, read first: it decides which members are allowed.
events::Result<events::EventType> read_type(const json& object) {
    const auto it = object.find("type");
    if (it == object.end()) {
        return events::make_error(ErrorCode::invalid_argument, "missing field 'type'");
    }
    if (it->is_string()) {
        if (auto type = events::type_from_name(it->get_ref<const std::string&>())) return *type;
    }
    return events::make_error(
        ErrorCode::invalid_argument,
        "field 'type': expected " +
            one_of<events::EventType>(events::event_type_count, events::type_name) + ", got " +
            describe(*it));
}

events::Result<events::Event> read_event(const json& object) {
    if (!object.is_object()) {
        return events::make_error(ErrorCode::invalid_argument,
                                  "expected a JSON object, got " + describe(object));
    }
    const auto type = read_type(object);
    if (!type) return type.error();

    events::Event event;
    event.source = events::Source::tool;
    event.body = default_body(*type, std::make_index_sequence<events::event_type_count>());

    Reader reader(*type);
    Fields fields(reader, object, "");
    fields.take("type");
    fields.field("seq", event.seq);
    fields.field("time_ms", event.time_ms);
    fields.field("source", event.source);
    fields.field("metadata_offset", event.metadata_offset);
    fields.field("metadata_epoch", event.metadata_epoch);
    std::visit([&](auto& body) { read_body(fields, body); }, event.body);
    fields.finish();
    if (reader.failed()) return reader.error();
    return event;
}

}  // namespace

events::Result<events::Event> event_from_json(std::string_view text) {
    json document;
    try {
        document = json::parse(text.begin(), text.end());
    } catch (const json::exception& e) {
        return events::make_error(ErrorCode::invalid_argument,
                                  std::string("invalid JSON: ") + e.what());
    }
    // Every access below checks the type first, so nothing should throw; the
    // guard keeps a slip from crossing the module boundary as an exception.
    try {
        return read_event(document);
    } catch (const json::exception& e) {
        return events::make_error(ErrorCode::invalid_argument,
                                  std::string("invalid event: ") + e.what());
    }
}

}  // namespace ballast::events
