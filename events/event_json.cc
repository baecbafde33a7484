/// JSON rendering of events: one line per event, for `ballast log` and for
/// tools that read it (jq, scripts). Field names are the schema's.

#include <charconv>
#include <cmath>
#include <cstdio>

#include "events/event.h"

namespace ballast::events {

namespace {

/// A minimal JSON writer: it only ever appends, and commas are placed by
/// remembering whether the current object or array has a member yet.
class JsonWriter {
public:
    std::string take() { return std::move(_out); }

    void begin_object() { open('{'); }
    void end_object() { close('}'); }
    void begin_array() { open('['); }
    void end_array() { close(']'); }

    void key(std::string_view name) {
        comma();
        string_literal(name);
        _out.push_back(':');
        _after_key = true;
    }

    void value(std::string_view s) {
        comma();
        string_literal(s);
    }
    void value(const char* s) { value(std::string_view(s)); }
    void value(bool b) {
        comma();
        _out += b ? "true" : "false";
    }
    void value(double d) {
        comma();
        if (!std::isfinite(d)) {  // JSON has no NaN or infinity
            _out += "null";
            return;
        }
        char buffer[32];
        const auto result = std::to_chars(buffer, buffer + sizeof buffer, d);
        _out.append(buffer, result.ptr);
    }
    template <class Int>
    requires std::is_integral_v<Int>
    void value(Int i) {
        comma();
        char buffer[24];
        const auto result = std::to_chars(buffer, buffer + sizeof buffer, i);
        _out.append(buffer, result.ptr);
    }

    template <class T>
    void field(std::string_view name, const T& v) {
        key(name);
        value(v);
    }
    template <class T>
    void array_field(std::string_view name, const std::vector<T>& items) {
        key(name);
        begin_array();
        for (const T& item : items) value(item);
        end_array();
    }

private:
    void open(char c) {
        comma();
        _out.push_back(c);
        _first = true;
    }
    void close(char c) {
        _out.push_back(c);
        _first = false;
    }
    void comma() {
        if (_after_key) {
            _after_key = false;
            _first = false;
            return;
        }
        if (!_first && !_out.empty()) _out.push_back(',');
        _first = false;
    }
    /// Valid UTF-8 passes through; each byte that is not part of a valid
    /// sequence becomes U+FFFD, so the line is always valid JSON (jq and
    /// every parser reject ill-formed UTF-8) even when a name is not.
    void string_literal(std::string_view s) {
        _out.push_back('"');
        for (size_t i = 0; i < s.size(); i++) {
            const char c = s[i];
            if (static_cast<unsigned char>(c) >= 0x80) {
                const size_t length = utf8_sequence_length(s.substr(i));
                if (length == 0) {
                    _out += "\\ufffd";
                } else {
                    _out.append(s.substr(i, length));
                    i += length - 1;
                }
                continue;
            }
            switch (c) {
                case '"': _out += "\\\""; break;
                case '\\': _out += "\\\\"; break;
                case '\n': _out += "\\n"; break;
                case '\r': _out += "\\r"; break;
                case '\t': _out += "\\t"; break;
                default:
                    if (static_cast<unsigned char>(c) < 0x20) {
                        char escaped[8];
                        std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
                        _out += escaped;
                    } else {
                        _out.push_back(c);
                    }
            }
        }
        _out.push_back('"');
    }

    /// Length of the valid UTF-8 sequence at the start of `s` (which starts
    /// with a byte >= 0x80), or 0 when it is not one: no overlong forms, no
    /// surrogates, nothing above U+10FFFF.
    static size_t utf8_sequence_length(std::string_view s) {
        const auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
        const unsigned char lead = byte(0);
        size_t length = 0;
        unsigned char min_second = 0x80, max_second = 0xBF;
        if (lead >= 0xC2 && lead <= 0xDF) {
            length = 2;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            length = 3;
            if (lead == 0xE0) min_second = 0xA0;
            if (lead == 0xED) max_second = 0x9F;
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            length = 4;
            if (lead == 0xF0) min_second = 0x90;
            if (lead == 0xF4) max_second = 0x8F;
        } else {
            return 0;
        }
        if (s.size() < length) return 0;
        if (byte(1) < min_second || byte(1) > max_second) return 0;
        for (size_t i = 2; i < length; i++) {
            if (byte(i) < 0x80 || byte(i) > 0xBF) return 0;
        }
        return length;
    }

    std::string _out;
    bool _first = true;
    bool _after_key = false;
};

void write_load(JsonWriter& w, std::string_view name, const Load& l) {
    w.key(name);
    w.begin_object();
    w.field("bytes_in_per_s", l.bytes_in_per_s);
    w.field("bytes_out_per_s", l.bytes_out_per_s);
    w.field("size_bytes", l.size_bytes);
    w.field("replica_count", l.replica_count);
    w.field("leader_count", l.leader_count);
    w.end_object();
}

void write_action(JsonWriter& w, const Action& a) {
    w.begin_object();
    w.field("action_id", a.action_id);
    w.field("kind", action_kind_name(a.kind));
    w.field("topic", a.topic);
    w.field("partition", a.partition);
    w.field("source_broker", a.source_broker);
    w.field("destination_broker", a.destination_broker);
    w.array_field("replicas_before", a.replicas_before);
    w.array_field("replicas_after", a.replicas_after);
    // Swap fields only where they mean something: a swap, or (never from
    // the planner, but possible in a hand-made event) a non-swap that sets them.
    const bool has_swap_fields = !a.swap_topic.empty() || a.swap_partition != -1 ||
                                 !a.swap_replicas_before.empty() || !a.swap_replicas_after.empty();
    if (a.kind == ActionKind::swap || has_swap_fields) {
        w.field("swap_topic", a.swap_topic);
        w.field("swap_partition", a.swap_partition);
        w.array_field("swap_replicas_before", a.swap_replicas_before);
        w.array_field("swap_replicas_after", a.swap_replicas_after);
    }
    w.field("goal", a.goal);
    w.key("loads");
    w.begin_array();
    for (const LoadChange& c : a.loads) {
        w.begin_object();
        w.field("broker_id", c.broker_id);
        write_load(w, "before", c.before);
        write_load(w, "after", c.after);
        w.end_object();
    }
    w.end_array();
    w.end_object();
}

struct BodyWriter {
    JsonWriter& w;

    void operator()(const BrokerRegistered& e) const {
        w.field("broker_id", e.broker_id);
        w.field("rack", e.rack);
        w.key("endpoints");
        w.begin_array();
        for (const Endpoint& p : e.endpoints) {
            w.begin_object();
            w.field("listener", p.listener);
            w.field("host", p.host);
            w.field("port", p.port);
            w.end_object();
        }
        w.end_array();
    }
    void operator()(const BrokerFenced& e) const { w.field("broker_id", e.broker_id); }
    void operator()(const BrokerUnfenced& e) const { w.field("broker_id", e.broker_id); }
    void operator()(const BrokerUnregistered& e) const { w.field("broker_id", e.broker_id); }
    void operator()(const TopicCreated& e) const {
        w.field("topic", e.topic);
        std::string hex;
        for (const uint8_t byte : e.topic_id) {
            char digits[3];
            std::snprintf(digits, sizeof digits, "%02x", byte);
            hex += digits;
        }
        w.field("topic_id", hex);
        w.field("partition_count", e.partition_count);
        w.field("replication_factor", e.replication_factor);
    }
    void operator()(const TopicDeleted& e) const { w.field("topic", e.topic); }
    void operator()(const PartitionChanged& e) const {
        w.field("topic", e.topic);
        w.field("partition", e.partition);
        w.array_field("replicas", e.replicas);
        w.field("leader", e.leader);
        w.array_field("isr", e.isr);
        w.field("leader_epoch", e.leader_epoch);
        // Only the metadata log's reassignments carry them.
        if (!e.adding_replicas.empty()) w.array_field("adding_replicas", e.adding_replicas);
        if (!e.removing_replicas.empty()) w.array_field("removing_replicas", e.removing_replicas);
    }
    void operator()(const BrokerMetrics& e) const {
        w.field("sample_time_ms", e.sample_time_ms);
        w.key("samples");
        w.begin_array();
        for (const BrokerSample& s : e.samples) {
            w.begin_object();
            w.field("broker_id", s.broker_id);
            w.field("bytes_in_per_s", s.bytes_in_per_s);
            w.field("bytes_out_per_s", s.bytes_out_per_s);
            w.field("messages_in_per_s", s.messages_in_per_s);
            w.field("size_bytes", s.size_bytes);
            w.end_object();
        }
        w.end_array();
    }
    void operator()(const PartitionMetrics& e) const {
        w.field("broker_id", e.broker_id);
        w.field("sample_time_ms", e.sample_time_ms);
        w.array_field("topics", e.topics);
        w.key("samples");
        w.begin_array();
        for (const PartitionSample& s : e.samples) {
            w.begin_object();
            w.field("topic_index", s.topic_index);
            w.field("partition", s.partition);
            w.field("bytes_in_per_s", s.bytes_in_per_s);
            w.field("bytes_out_per_s", s.bytes_out_per_s);
            w.field("messages_in_per_s", s.messages_in_per_s);
            w.field("size_bytes", s.size_bytes);
            w.end_object();
        }
        w.end_array();
    }
    void operator()(const Tick& e) const { w.field("now_ms", e.now_ms); }
    void operator()(const ConfigChanged& e) const {
        w.key("entries");
        w.begin_array();
        for (const ConfigEntry& c : e.entries) {
            w.begin_object();
            w.field("key", c.key);
            w.field("value", c.value);
            w.field("reset", c.reset);
            w.end_object();
        }
        w.end_array();
    }
    void operator()(const OperatorCommand& e) const {
        w.field("command", command_kind_name(e.command));
        w.array_field("broker_ids", e.broker_ids);
        w.array_field("topics", e.topics);
        w.array_field("action_ids", e.action_ids);
        w.field("reason", e.reason);
    }
    void operator()(const LeadershipAcquired& e) const {
        w.field("epoch", e.epoch);
        w.field("instance_id", e.instance_id);
    }
    void operator()(const ActionsPlanned& e) const {
        w.field("round", e.round);
        w.field("barrier_seq", e.barrier_seq);
        w.key("actions");
        w.begin_array();
        for (const Action& a : e.actions) write_action(w, a);
        w.end_array();
        w.key("rejections");
        w.begin_array();
        for (const RejectionCount& r : e.rejections) {
            w.begin_object();
            w.field("reason", r.reason);
            w.field("count", r.count);
            w.end_object();
        }
        w.end_array();
        w.key("held");
        w.begin_array();
        for (const HeldAction& h : e.held) {
            w.begin_object();
            w.field("reason", h.reason);
            w.key("action");
            write_action(w, h.action);
            w.end_object();
        }
        w.end_array();
        w.key("unfixable");
        w.begin_array();
        for (const Unfixable& u : e.unfixable) {
            w.begin_object();
            w.field("topic", u.topic);
            w.field("partition", u.partition);
            w.field("broker_id", u.broker_id);
            w.field("goal", u.goal);
            w.field("reason", u.reason);
            w.end_object();
        }
        w.end_array();
        if (!e.broker_notes.empty()) {
            w.key("broker_notes");
            w.begin_array();
            for (const BrokerNote& n : e.broker_notes) {
                w.begin_object();
                w.field("broker_id", n.broker_id);
                w.field("reason", n.reason);
                w.end_object();
            }
            w.end_array();
        }
    }
    void operator()(const ActionSubmitted& e) const {
        w.field("action_id", e.action_id);
        w.field("attempt", e.attempt);
    }
    void operator()(const ActionCompleted& e) const { w.field("action_id", e.action_id); }
    void operator()(const ActionFailed& e) const {
        w.field("action_id", e.action_id);
        w.field("error_code", e.error_code);
        w.field("error_name", e.error_name);
        w.field("message", e.message);
        w.field("retriable", e.retriable);
        w.field("attempt", e.attempt);
    }
    void operator()(const ActionTimedOut& e) const {
        w.field("action_id", e.action_id);
        w.field("timeout_ms", e.timeout_ms);
    }
    void operator()(const ActionCancelled& e) const {
        w.field("action_id", e.action_id);
        w.field("reason", e.reason);
    }
};

}  // namespace

std::string to_json(const Event& event) {
    JsonWriter w;
    w.begin_object();
    w.field("seq", event.seq);
    w.field("time_ms", event.time_ms);
    w.field("source", source_name(event.source));
    if (event.metadata_offset >= 0) {
        w.field("metadata_offset", event.metadata_offset);
        w.field("metadata_epoch", event.metadata_epoch);
    }
    w.field("type", type_name(event.type()));
    std::visit(BodyWriter{w}, event.body);
    w.end_object();
    return w.take();
}

std::string describe_action(const Action& a) {
    const std::string name = a.topic + "-" + std::to_string(a.partition);
    std::string line;
    switch (a.kind) {
        case ActionKind::move:
            line = "MOVE " + name + " " + std::to_string(a.source_broker) + " -> " +
                   std::to_string(a.destination_broker);
            break;
        case ActionKind::swap:
            line = "SWAP " + name + " " + std::to_string(a.source_broker) + " -> " +
                   std::to_string(a.destination_broker) + " with " + a.swap_topic + "-" +
                   std::to_string(a.swap_partition) + " " + std::to_string(a.destination_broker) +
                   " -> " + std::to_string(a.source_broker);
            break;
        case ActionKind::leader:
            line = "LEADER " + name + " " + std::to_string(a.source_broker) + " -> " +
                   std::to_string(a.destination_broker);
            break;
    }
    return line + " [" + a.goal + "]";
}

}  // namespace ballast::events
