#include "events/event_check.h"

#include <cmath>
#include <cstdio>
#include <type_traits>

namespace ballast::events {

namespace {

std::string number_text(double value) {
    char text[64];
    std::snprintf(text, sizeof text, "%.17g", value);
    return text;
}

/// Collects the first broken rule of one event, with the field's path.
class Checker {
public:
    bool failed() const { return !_problem.empty(); }
    const std::string& problem() const { return _problem; }

    void fail(const std::string& field, const std::string& what) {
        if (_problem.empty()) _problem = field + " " + what;
    }

    void broker_id(const std::string& field, int32_t id) {
        if (id < 0) fail(field, "is " + std::to_string(id) + ", not a broker id (0 or more)");
    }
    void partition(const std::string& field, int32_t p) {
        if (p < 0) fail(field, "is " + std::to_string(p) + ", not a partition (0 or more)");
    }
    void at_least(const std::string& field, int64_t value, int64_t min) {
        if (value < min) fail(field, "is " + std::to_string(value) + ", below " + std::to_string(min));
    }
    /// A rate or an amount: finite and not negative.
    void amount(const std::string& field, double value) {
        if (!std::isfinite(value)) {
            fail(field, "is " + number_text(value) + ", not a finite number");
        } else if (value < 0) {
            fail(field, "is " + number_text(value) + ", below 0");
        }
    }
    void topic(const std::string& field, const std::string& name) {
        if (name.empty()) {
            fail(field, "is empty");
        } else if (name.size() > topic_name_bytes_max) {
            fail(field, "is " + std::to_string(name.size()) + " bytes long, past Kafka's " +
                            std::to_string(topic_name_bytes_max));
        }
    }
    void brokers(const std::string& field, const std::vector<int32_t>& ids, bool distinct) {
        // Replica lists are short (a replication factor): pairs compared in
        // place, no allocation on the path every partition change takes.
        for (size_t i = 0; i < ids.size() && !failed(); i++) {
            if (ids[i] < 0) broker_id(field + "[" + std::to_string(i) + "]", ids[i]);
            for (size_t j = 0; distinct && j < i && !failed(); j++) {
                if (ids[j] == ids[i]) {
                    fail(field + "[" + std::to_string(i) + "]", "is " + std::to_string(ids[i]) + ", listed twice");
                }
            }
        }
    }
    void finite(const std::string& field, double value) {
        if (!std::isfinite(value)) fail(field, "is " + number_text(value) + ", not a finite number");
    }
    /// A broker's load as the planner computed it: finite (a load taken off
    /// may leave a rounding error just below zero).
    void load(const std::string& field, const Load& l) {
        finite(field + ".bytes_in_per_s", l.bytes_in_per_s);
        finite(field + ".bytes_out_per_s", l.bytes_out_per_s);
        at_least(field + ".replica_count", l.replica_count, 0);
        at_least(field + ".leader_count", l.leader_count, 0);
    }
    void action(const std::string& field, const Action& a) {
        if (static_cast<uint8_t>(a.kind) >= action_kind_count) {
            fail(field + ".kind", "is " + std::to_string(static_cast<int>(a.kind)) + ", not a known action kind");
        }
        topic(field + ".topic", a.topic);
        partition(field + ".partition", a.partition);
        brokers(field + ".replicas_before", a.replicas_before, true);
        brokers(field + ".replicas_after", a.replicas_after, true);
        if (a.kind == ActionKind::swap) {
            topic(field + ".swap_topic", a.swap_topic);
            partition(field + ".swap_partition", a.swap_partition);
            brokers(field + ".swap_replicas_before", a.swap_replicas_before, true);
            brokers(field + ".swap_replicas_after", a.swap_replicas_after, true);
        }
        for (size_t i = 0; i < a.loads.size() && !failed(); i++) {
            const std::string at = field + ".loads[" + std::to_string(i) + "]";
            broker_id(at + ".broker_id", a.loads[i].broker_id);
            load(at + ".before", a.loads[i].before);
            load(at + ".after", a.loads[i].after);
        }
    }

    void body(const BrokerRegistered& b) {
        broker_id("broker_id", b.broker_id);
        for (size_t i = 0; i < b.endpoints.size(); i++) {
            const int32_t port = b.endpoints[i].port;
            if (port < 0 || port > 65535) {
                fail("endpoints[" + std::to_string(i) + "].port", "is " + std::to_string(port) + ", not a port");
            }
        }
    }
    void body(const BrokerFenced& b) { broker_id("broker_id", b.broker_id); }
    void body(const BrokerUnfenced& b) { broker_id("broker_id", b.broker_id); }
    void body(const BrokerUnregistered& b) { broker_id("broker_id", b.broker_id); }
    void body(const TopicCreated& t) {
        topic("topic", t.topic);
        if (!t.topic_id.empty() && t.topic_id.size() != 16) {
            fail("topic_id", "is " + std::to_string(t.topic_id.size()) + " bytes, not 16 (or none)");
        }
        at_least("partition_count", t.partition_count, 0);
        at_least("replication_factor", t.replication_factor, 0);
    }
    void body(const TopicDeleted& t) { topic("topic", t.topic); }
    void body(const PartitionChanged& p) {
        topic("topic", p.topic);
        partition("partition", p.partition);
        brokers("replicas", p.replicas, true);
        at_least("leader", p.leader, -1);
        brokers("isr", p.isr, true);
        at_least("leader_epoch", p.leader_epoch, -1);
        brokers("adding_replicas", p.adding_replicas, true);
        brokers("removing_replicas", p.removing_replicas, true);
    }
    void body(const BrokerMetrics& m) {
        at_least("sample_time_ms", m.sample_time_ms, 0);
        for (size_t i = 0; i < m.samples.size() && !failed(); i++) {
            const BrokerSample& s = m.samples[i];
            if (s.broker_id >= 0 && std::isfinite(s.bytes_in_per_s) && s.bytes_in_per_s >= 0 &&
                std::isfinite(s.bytes_out_per_s) && s.bytes_out_per_s >= 0 && std::isfinite(s.messages_in_per_s) &&
                s.messages_in_per_s >= 0) {
                continue;  // the common case, without building a field's name
            }
            const std::string at = "samples[" + std::to_string(i) + "]";
            broker_id(at + ".broker_id", s.broker_id);
            amount(at + ".bytes_in_per_s", s.bytes_in_per_s);
            amount(at + ".bytes_out_per_s", s.bytes_out_per_s);
            amount(at + ".messages_in_per_s", s.messages_in_per_s);
        }
    }
    void body(const PartitionMetrics& m) {
        at_least("broker_id", m.broker_id, -1);  // -1: the report names no broker
        at_least("sample_time_ms", m.sample_time_ms, 0);
        for (size_t i = 0; i < m.topics.size() && !failed(); i++) {
            topic("topics[" + std::to_string(i) + "]", m.topics[i]);
        }
        for (size_t i = 0; i < m.samples.size() && !failed(); i++) {
            const PartitionSample& s = m.samples[i];
            // The common case first and cheaply: a report carries up to a
            // broker's every partition, and the stream is hundreds of
            // thousands of samples a second.
            if (s.topic_index < m.topics.size() && s.partition >= 0 && std::isfinite(s.bytes_in_per_s) &&
                s.bytes_in_per_s >= 0 && std::isfinite(s.bytes_out_per_s) && s.bytes_out_per_s >= 0 &&
                std::isfinite(s.messages_in_per_s) && s.messages_in_per_s >= 0) {
                continue;
            }
            const std::string at = "samples[" + std::to_string(i) + "]";
            if (s.topic_index >= m.topics.size()) {
                fail(at + ".topic_index", "is " + std::to_string(s.topic_index) + ", past its " +
                                              std::to_string(m.topics.size()) + " topics");
            }
            partition(at + ".partition", s.partition);
            amount(at + ".bytes_in_per_s", s.bytes_in_per_s);
            amount(at + ".bytes_out_per_s", s.bytes_out_per_s);
            amount(at + ".messages_in_per_s", s.messages_in_per_s);
        }
    }
    void body(const Tick& t) { at_least("now_ms", t.now_ms, 0); }
    void body(const ConfigChanged& c) {
        for (size_t i = 0; i < c.entries.size(); i++) {
            if (c.entries[i].key.empty()) fail("entries[" + std::to_string(i) + "].key", "is empty");
        }
    }
    void body(const OperatorCommand& c) {
        if (static_cast<uint8_t>(c.command) >= command_kind_count) {
            fail("command", "is " + std::to_string(static_cast<int>(c.command)) + ", not a known command");
        }
        brokers("broker_ids", c.broker_ids, false);
        for (size_t i = 0; i < c.topics.size() && !failed(); i++) topic("topics[" + std::to_string(i) + "]", c.topics[i]);
    }
    void body(const LeadershipAcquired& l) { at_least("epoch", l.epoch, 0); }
    void body(const ActionsPlanned& p) {
        for (size_t i = 0; i < p.actions.size() && !failed(); i++) action("actions[" + std::to_string(i) + "]", p.actions[i]);
        for (size_t i = 0; i < p.held.size() && !failed(); i++) {
            action("held[" + std::to_string(i) + "].action", p.held[i].action);
        }
        for (size_t i = 0; i < p.broker_notes.size() && !failed(); i++) {
            broker_id("broker_notes[" + std::to_string(i) + "].broker_id", p.broker_notes[i].broker_id);
        }
    }
    void body(const ActionSubmitted&) {}
    void body(const ActionCompleted&) {}
    void body(const ActionFailed&) {}
    void body(const ActionTimedOut& t) { at_least("timeout_ms", t.timeout_ms, 0); }
    void body(const ActionCancelled&) {}

private:
    std::string _problem;
};

}  // namespace

Status check(const Event& event) {
    Checker checker;
    if (static_cast<uint8_t>(event.source) >= source_count) {
        checker.fail("source", "is " + std::to_string(static_cast<int>(event.source)) + ", not a known source");
    }
    checker.at_least("time_ms", event.time_ms, 0);
    checker.at_least("metadata_offset", event.metadata_offset, -1);
    checker.at_least("metadata_epoch", event.metadata_epoch, -1);
    std::visit([&](const auto& body) { checker.body(body); }, event.body);
    if (!checker.failed()) return {};
    return make_error(ErrorCode::invalid_argument, std::string(type_name(event.type())) + " from " +
                                                       source_name(event.source) + ": " + checker.problem());
}

Status check_batch(std::span<const Event> batch) {
    for (size_t i = 0; i < batch.size(); i++) {
        if (Status status = check(batch[i]); !status) {
            return make_error(ErrorCode::invalid_argument, "event " + std::to_string(i) + " of " +
                                                               std::to_string(batch.size()) + ": " +
                                                               status.error().message);
        }
    }
    return {};
}

}  // namespace ballast::events
