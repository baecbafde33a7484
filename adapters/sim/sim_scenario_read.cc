/// The one scenario schema: every field of a scenario document (what a JSON
/// file parses to, and what a TOML file is converted to), read into a
/// Scenario. Reading goes on past a problem, so one run over a file names
/// every field that is wrong; an unknown field lists the valid ones.

#include <cmath>
#include <set>
#include <sstream>

#include "adapters/sim/sim_scenario_document.h"

namespace ballast::sim {

namespace {

using events::ErrorCode;
using events::make_error;
using nlohmann::json;

std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
}

std::string fmt(double d) {
    std::ostringstream out;
    out << d;
    return out.str();
}

/// Where the problems go, and a count to tell whether a part read cleanly.
class Problems {
public:
    explicit Problems(std::vector<ScenarioProblem>& list) : _list(list) {}
    void add(std::string path, std::string what) { _list.push_back({std::move(path), std::move(what)}); }
    size_t count() const { return _list.size(); }

private:
    std::vector<ScenarioProblem>& _list;
};

/// Reads one JSON object whose valid fields are `fields`, remembering which
/// keys were used: a key nobody reads is a typo, and a problem that lists
/// the valid ones. A value that is not an object is one problem, and then
/// reads as an empty object (every field at its default, no more problems).
class Object {
public:
    Object(const json& value, std::string path, Problems& problems, std::vector<std::string> fields)
        : _value(value), _path(std::move(path)), _problems(problems), _fields(std::move(fields)) {
        _ok = _value.is_object();
        if (!_ok) _problems.add(_path, "expected an object");
    }

    bool ok() const { return _ok; }
    bool has(const std::string& key) const { return _ok && _value.contains(key); }

    const json& get(const std::string& key) {
        _used.insert(key);
        return _value.at(key);
    }

    /// Marks a field read without reading it (when nothing can judge it).
    void skip(const std::string& key) {
        if (has(key)) _used.insert(key);
    }

    std::string path(const std::string& key) const { return join(_path, key); }
    Problems& problems() { return _problems; }

    /// A field this object must have: a problem when the object lacks it.
    bool require(const std::string& key, const std::string& what) {
        if (!_ok || has(key)) return _ok;
        _problems.add(path(key), what);
        return false;
    }

    std::string string(const std::string& key, std::string fallback) {
        if (!has(key)) return fallback;
        const json& v = get(key);
        if (!v.is_string()) return bad(key, "expected a string", fallback);
        return v.get<std::string>();
    }

    double number(const std::string& key, double fallback, double min, double max) {
        if (!has(key)) return fallback;
        const json& v = get(key);
        if (!v.is_number()) return bad(key, "expected a number", fallback);
        const double d = v.get<double>();
        if (!std::isfinite(d) || d < min || d > max) {
            return bad(key, "value " + v.dump() + " is out of range [" + fmt(min) + ", " + fmt(max) + "]", fallback);
        }
        return d;
    }

    int64_t integer(const std::string& key, int64_t fallback, int64_t min, int64_t max) {
        if (!has(key)) return fallback;
        const json& v = get(key);
        if (!v.is_number_integer()) return bad(key, "expected an integer, got " + v.dump(), fallback);
        const int64_t i = v.get<int64_t>();
        if (i < min || i > max) {
            return bad(key, "value " + std::to_string(i) + " is out of range [" + std::to_string(min) + ", " +
                                std::to_string(max) + "]",
                       fallback);
        }
        return i;
    }

    /// A duration: "90s", "1.5s", "10m", or a number of ms.
    int64_t duration(const std::string& key, int64_t fallback) {
        if (!has(key)) return fallback;
        const json& v = get(key);
        events::Result<int64_t> ms = make_error(ErrorCode::invalid_argument, "expected a duration");
        if (v.is_number_integer() && v.get<int64_t>() >= 0) {
            ms = v.get<int64_t>();
        } else if (v.is_string()) {
            ms = parse_duration_ms(v.get<std::string>());
        }
        if (!ms) return bad(key, ms.error().message + " (got " + v.dump() + ")", fallback);
        return *ms;
    }

    bool boolean(const std::string& key, bool fallback) {
        if (!has(key)) return fallback;
        const json& v = get(key);
        if (!v.is_boolean()) return bad(key, "expected true or false", fallback);
        return v.get<bool>();
    }

    /// Every key was read by someone; each other one is a problem.
    void done() const {
        if (!_ok) return;
        for (auto it = _value.begin(); it != _value.end(); ++it) {
            if (_used.count(it.key())) continue;
            std::string valid;
            for (const std::string& f : _fields) valid += (valid.empty() ? "" : ", ") + f;
            _problems.add(join(_path, it.key()), "unknown field (valid: " + valid + ")");
        }
    }

private:
    template <typename T>
    T bad(const std::string& key, std::string what, T fallback) {
        _problems.add(path(key), std::move(what));
        return fallback;
    }

    const json& _value;
    std::string _path;
    Problems& _problems;
    std::vector<std::string> _fields;
    bool _ok = false;
    std::set<std::string> _used;
};

std::vector<int32_t> id_list(const json& v, const std::string& path, Problems& problems, const char* what) {
    std::vector<int32_t> out;
    if (!v.is_array()) {
        problems.add(path, std::string("expected an array of ") + what + "s");
        return out;
    }
    for (size_t i = 0; i < v.size(); i++) {
        if (!v[i].is_number_integer() || v[i].get<int64_t>() < 0 || v[i].get<int64_t>() > INT32_MAX) {
            problems.add(at_index(path, i), std::string("expected a ") + what);
            continue;
        }
        out.push_back(v[i].get<int32_t>());
    }
    return out;
}

BrokerCapacity read_capacity(const json& v, const std::string& path, Problems& problems) {
    Object o(v, path, problems, {"network_in_bytes_per_s", "network_out_bytes_per_s", "disk_bytes", "replicas_max"});
    BrokerCapacity c;
    // The ranges of the engine's own capacity keys (ballast.broker.capacity.*).
    c.network_in_bytes_per_s = o.number("network_in_bytes_per_s", -1, 0, 1e15);
    c.network_out_bytes_per_s = o.number("network_out_bytes_per_s", -1, 0, 1e15);
    c.disk_bytes = o.number("disk_bytes", -1, 0, 1e18);
    c.replicas_max = static_cast<int32_t>(o.integer("replicas_max", -1, 0, 10'000'000));
    o.done();
    return c;
}

/// A broker in `brokers` (`running` allowed) or in an add_broker event.
/// Sets `gaps.brokers` when its id cannot be read.
BrokerSpec read_broker(const json& v, const std::string& path, Problems& problems, bool with_running, ReadGaps& gaps) {
    std::vector<std::string> fields = {"id", "rack"};
    if (with_running) fields.push_back("running");
    fields.push_back("capacity");
    Object o(v, path, problems, fields);
    BrokerSpec spec;
    const size_t before = problems.count();
    if (o.require("id", "a broker needs an id")) spec.id = static_cast<int32_t>(o.integer("id", -1, 0, INT32_MAX));
    if (problems.count() != before) gaps.brokers = true;
    spec.rack = o.string("rack", "");
    if (with_running) spec.running = o.boolean("running", true);
    if (o.has("capacity")) spec.capacity = read_capacity(o.get("capacity"), o.path("capacity"), problems);
    o.done();
    return spec;
}

TrafficSkew read_skew(const json& v, const std::string& path, Problems& problems) {
    TrafficSkew skew;
    std::string kind;
    if (v.is_object() && v.contains("kind") && v.at("kind").is_string()) kind = v.at("kind").get<std::string>();
    // The fields a kind takes; a field of the other kind is unknown here.
    std::vector<std::string> fields = {"kind", "s", "sigma"};
    if (kind == "zipf") fields = {"kind", "s"};
    if (kind == "lognormal") fields = {"kind", "sigma"};
    Object o(v, path, problems, fields);
    if (!o.require("kind", "a skew names its kind (zipf or lognormal)")) return skew;
    kind = o.string("kind", "");
    if (kind == "zipf") {
        skew.kind = TrafficSkew::Kind::zipf;
        skew.s = o.number("s", skew.s, 0, 10);
    } else if (kind == "lognormal") {
        skew.kind = TrafficSkew::Kind::lognormal;
        skew.sigma = o.number("sigma", skew.sigma, 0, 5);
    } else {
        if (o.get("kind").is_string()) problems.add(o.path("kind"), "unknown skew '" + kind + "' (expected zipf or lognormal)");
        // No kind to judge them by: not unknown fields on top of the kind's problem.
        o.skip("s");
        o.skip("sigma");
    }
    o.done();
    return skew;
}

/// A traffic profile. `skew`: where the profile is a topic's (topics,
/// create_topic), its `skew` field goes there; elsewhere (a traffic change)
/// a skew is a problem.
TrafficProfile read_profile(const json& v, const std::string& path, Problems& problems, TrafficSkew* skew) {
    Object o(v, path, problems,
             {"profile", "bytes_in_per_s", "to_bytes_in_per_s", "at", "until", "period", "amplitude", "sigma",
              "fanout", "record_bytes", "skew"});
    TrafficProfile p;
    const std::string kind = o.string("profile", "constant");
    if (kind == "constant") {
        p.kind = ProfileKind::constant;
    } else if (kind == "step") {
        p.kind = ProfileKind::step;
    } else if (kind == "ramp") {
        p.kind = ProfileKind::ramp;
    } else if (kind == "diurnal") {
        p.kind = ProfileKind::diurnal;
    } else if (kind == "random_walk") {
        p.kind = ProfileKind::random_walk;
    } else {
        problems.add(o.path("profile"),
                     "unknown profile '" + kind + "' (expected constant, step, ramp, diurnal or random_walk)");
    }
    constexpr double rate_max = 1e12;
    p.bytes_in_per_s = o.number("bytes_in_per_s", 0, 0, rate_max);
    p.to_bytes_in_per_s = o.number("to_bytes_in_per_s", p.bytes_in_per_s, 0, rate_max);
    const size_t before = problems.count();
    p.at_ms = o.duration("at", 0);
    p.until_ms = o.duration("until", p.at_ms);
    p.period_ms = o.duration("period", p.period_ms);
    p.amplitude = o.number("amplitude", p.amplitude, 0, 1);
    p.walk_sigma = o.number("sigma", p.walk_sigma, 0, 1);
    p.fanout = o.number("fanout", p.fanout, 0, 1000);
    p.record_bytes = o.number("record_bytes", p.record_bytes, 1, 1e9);
    if (problems.count() == before) {
        if (p.kind == ProfileKind::ramp && p.until_ms <= p.at_ms) {
            problems.add(o.path("until"), "a ramp must end after it starts");
        }
        if (p.kind == ProfileKind::diurnal && p.period_ms <= 0) problems.add(o.path("period"), "must be positive");
    }
    if (o.has("skew")) {
        if (skew) {
            *skew = read_skew(o.get("skew"), o.path("skew"), problems);
        } else {
            o.get("skew");
            problems.add(o.path("skew"), "a skew splits a topic's traffic where the topic is defined (topics, "
                                         "create_topic), not in a traffic change");
        }
    }
    o.done();
    return p;
}

/// A topic in `topics` or a create_topic event. Sets `gaps.topics` when it
/// cannot be read whole.
TopicSpec read_topic(const json& v, const std::string& path, Problems& problems, ReadGaps& gaps) {
    Object o(v, path, problems,
             {"name", "partitions", "replication_factor", "assignment", "traffic", "partition_weights",
              "initial_size_bytes", "retention_bytes"});
    const size_t at_start = problems.count();
    TopicSpec t;
    if (o.require("name", "a topic needs a name")) {
        t.name = o.string("name", "");
        if (t.name.empty() && problems.count() == at_start) problems.add(o.path("name"), "a topic needs a name");
    }
    size_t before = problems.count();
    t.partitions = static_cast<int32_t>(o.integer("partitions", 1, 1, 1'000'000));
    const bool partitions_ok = problems.count() == before;
    before = problems.count();
    t.replication_factor = static_cast<int32_t>(o.integer("replication_factor", 1, 1, 8));
    const bool rf_ok = problems.count() == before;
    if (o.has("assignment")) {
        const json& a = o.get("assignment");
        const std::string a_path = o.path("assignment");
        if (!a.is_array()) {
            problems.add(a_path, "expected one replica list per partition");
        } else if (partitions_ok && a.size() != static_cast<size_t>(t.partitions)) {
            problems.add(a_path, "expected one replica list per partition (" + std::to_string(t.partitions) + ")");
        } else if (partitions_ok) {
            for (size_t i = 0; i < a.size(); i++) {
                const size_t list_before = problems.count();
                t.assignment.push_back(id_list(a[i], at_index(a_path, i), problems, "broker id"));
                if (rf_ok && problems.count() == list_before &&
                    t.assignment.back().size() != static_cast<size_t>(t.replication_factor)) {
                    problems.add(at_index(a_path, i), "expected " + std::to_string(t.replication_factor) + " replicas");
                }
            }
        }
    }
    if (o.has("traffic")) t.traffic = read_profile(o.get("traffic"), o.path("traffic"), problems, &t.skew);
    if (o.has("partition_weights")) {
        const json& w = o.get("partition_weights");
        const std::string w_path = o.path("partition_weights");
        if (!w.is_array() || (partitions_ok && w.size() != static_cast<size_t>(t.partitions))) {
            problems.add(w_path, "expected one weight per partition");
        } else if (partitions_ok) {
            for (size_t i = 0; i < w.size(); i++) {
                if (!w[i].is_number() || w[i].get<double>() < 0) {
                    problems.add(at_index(w_path, i), "expected a weight >= 0");
                    continue;
                }
                t.partition_weights.push_back(w[i].get<double>());
            }
        }
        if (t.skew.kind != TrafficSkew::Kind::none) {
            problems.add(o.path("traffic.skew"),
                         "partition_weights and traffic.skew both split the topic's traffic: give one");
        }
    }
    t.initial_size_bytes = o.number("initial_size_bytes", 0, 0, 1e15);
    t.retention_bytes = o.number("retention_bytes", 0, 0, 1e15);
    o.done();
    if (problems.count() != at_start) gaps.topics = true;
    return t;
}

PartitionSelector read_selector(Object& o) {
    PartitionSelector s;
    if (o.require("topic", "a traffic change names its topic")) s.topic = o.string("topic", "");
    if (o.has("partitions")) s.partitions = id_list(o.get("partitions"), o.path("partitions"), o.problems(), "partition");
    s.led_by = static_cast<int32_t>(o.integer("led_by", -1, -1, INT32_MAX));
    return s;
}

const std::vector<std::pair<std::string, TimedEvent::Kind>>& broker_event_kinds() {
    static const std::vector<std::pair<std::string, TimedEvent::Kind>> kinds = {
        {"stop_broker", TimedEvent::Kind::stop_broker},     {"start_broker", TimedEvent::Kind::start_broker},
        {"fence_broker", TimedEvent::Kind::fence_broker},   {"unfence_broker", TimedEvent::Kind::unfence_broker},
        {"remove_broker", TimedEvent::Kind::remove_broker}, {"drain_broker", TimedEvent::Kind::drain_broker},
    };
    return kinds;
}

/// What an event may do, one per event.
std::vector<std::string> event_kinds() {
    std::vector<std::string> kinds;
    for (const auto& [name, kind] : broker_event_kinds()) kinds.push_back(name);
    for (const char* other : {"add_broker", "traffic", "create_topic", "delete_topic", "pause", "resume"}) {
        kinds.push_back(other);
    }
    return kinds;
}

/// One event; false when it has a problem (it is then left out).
bool read_event(const json& v, const std::string& path, Problems& problems, ReadGaps& gaps, TimedEvent& e) {
    std::vector<std::string> fields = event_kinds();
    fields.insert(fields.begin(), "at");
    Object o(v, path, problems, fields);
    if (!o.ok()) return false;
    const size_t at_start = problems.count();
    if (o.require("at", "every event says when it happens")) e.at_ms = o.duration("at", -1);
    std::vector<std::string> given;
    for (const std::string& kind : event_kinds()) {
        if (o.has(kind)) given.push_back(kind);
    }
    std::string all;
    for (const std::string& kind : event_kinds()) all += (all.empty() ? "" : ", ") + kind;
    if (given.empty()) {
        problems.add(path, "expected one of " + all);
        o.done();
        return false;
    }
    if (given.size() > 1) {
        problems.add(path, "an event does one thing: it has both " + given[0] + " and " + given[1]);
        for (const std::string& kind : given) o.get(kind);
        o.done();
        return false;
    }
    const std::string& kind = given[0];
    bool broker_kind = false;
    for (const auto& [name, k] : broker_event_kinds()) {
        if (name != kind) continue;
        e.kind = k;
        e.broker_id = static_cast<int32_t>(o.integer(name, -1, 0, INT32_MAX));
        broker_kind = true;
    }
    if (broker_kind) {
    } else if (kind == "add_broker") {
        e.kind = TimedEvent::Kind::add_broker;
        e.broker = read_broker(o.get(kind), o.path(kind), problems, false, gaps);
        e.broker_id = e.broker.id;
    } else if (kind == "traffic") {
        Object t(o.get(kind), o.path(kind), problems, {"topic", "partitions", "led_by", "scale", "set"});
        e.select = read_selector(t);
        if (t.has("scale") && t.has("set")) {
            problems.add(t.path("set"), "a traffic change either scales or sets: it has both scale and set");
            t.get("set");
            t.get("scale");
        } else if (t.has("scale")) {
            e.kind = TimedEvent::Kind::scale_traffic;
            e.scale = t.number("scale", 1, 0, 1e6);
        } else if (t.require("set", "a traffic change has a scale or a profile to set")) {
            e.kind = TimedEvent::Kind::set_traffic;
            e.profile = read_profile(t.get("set"), t.path("set"), problems, nullptr);
        }
        t.done();
    } else if (kind == "create_topic") {
        e.kind = TimedEvent::Kind::create_topic;
        e.topic = read_topic(o.get(kind), o.path(kind), problems, gaps);
    } else if (kind == "delete_topic") {
        e.kind = TimedEvent::Kind::delete_topic;
        e.topic.name = o.string(kind, "");
    } else if (kind == "pause" || kind == "resume") {
        e.kind = kind == "pause" ? TimedEvent::Kind::pause : TimedEvent::Kind::resume;
        o.boolean(kind, true);
    }
    o.done();
    return problems.count() == at_start;
}

/// Engine settings, "key" -> "value". A nested object is a dotted key:
/// {"autobalancer": {"controller": {"enable": true}}} is
/// "autobalancer.controller.enable", which is what TOML makes of an
/// unquoted `autobalancer.controller.enable = true` under [settings].
void read_settings(const json& settings, const std::string& prefix, std::map<std::string, std::string>& out,
                   Problems& problems) {
    for (auto it = settings.begin(); it != settings.end(); ++it) {
        const std::string key = prefix.empty() ? it.key() : prefix + "." + it.key();
        std::string value;
        if (it.value().is_object()) {
            read_settings(it.value(), key, out, problems);
            continue;
        }
        if (it.value().is_string()) {
            value = it.value().get<std::string>();
        } else if (it.value().is_number() || it.value().is_boolean()) {
            value = it.value().dump();
        } else {
            problems.add("settings." + key, "expected a string, number or boolean");
            continue;
        }
        if (!out.emplace(key, value).second) problems.add("settings." + key, "given twice");
    }
}

void read_faults(Object& f, Faults& faults) {
    faults.submit_failure_ratio = f.number("submit_failure_ratio", 0, 0, 1);
    faults.stuck_ratio = f.number("stuck_ratio", 0, 0, 1);
    faults.admin_delay_ms = f.duration("admin_delay", 0);
    faults.metrics_loss_ratio = f.number("metrics_loss_ratio", 0, 0, 1);
    faults.metrics_late_ratio = f.number("metrics_late_ratio", 0, 0, 1);
    faults.metrics_late_by_ms = f.duration("metrics_late_by", faults.metrics_late_by_ms);
    faults.until_ms = f.duration("until", -1);
    if (f.has("engine_kills")) {
        const json& kills = f.get("engine_kills");
        if (!kills.is_array()) {
            f.problems().add("faults.engine_kills", "expected an array of times");
        } else {
            for (size_t i = 0; i < kills.size(); i++) {
                events::Result<int64_t> ms = kills[i].is_string()
                                                 ? parse_duration_ms(kills[i].get<std::string>())
                                                 : events::Result<int64_t>(
                                                       kills[i].is_number_integer() ? kills[i].get<int64_t>() : -1);
                if (!ms || *ms < 0) {
                    f.problems().add(at_index("faults.engine_kills", i), "expected a duration");
                    continue;
                }
                faults.engine_kills_ms.push_back(*ms);
            }
        }
    }
}

}  // namespace

Scenario read_scenario_fields(const json& root, std::vector<ScenarioProblem>& list,
                              std::vector<size_t>& event_file_index, ReadGaps& gaps) {
    Problems problems(list);
    Object o(root, "", problems,
             {"name", "description", "flavor", "seed", "duration", "tick_interval", "report_interval",
              "session_timeout", "automq_move_time", "apache_throttle_bytes_per_s", "leader_election_time",
              "brokers", "topics", "events", "faults", "settings"});
    Scenario s;
    s.name = o.string("name", "scenario");
    s.description = o.string("description", "");
    const std::string flavor = o.string("flavor", "automq");
    if (flavor == "automq") {
        s.flavor = Flavor::automq;
    } else if (flavor == "apache") {
        s.flavor = Flavor::apache;
    } else {
        problems.add("flavor", "unknown flavor '" + flavor + "' (expected apache or automq)");
    }
    s.seed = static_cast<uint64_t>(o.integer("seed", 1, 0, INT64_MAX));
    size_t before = problems.count();
    s.duration_ms = o.duration("duration", s.duration_ms);
    gaps.duration = problems.count() != before;
    s.tick_interval_ms = o.duration("tick_interval", s.tick_interval_ms);
    s.report_interval_ms = o.duration("report_interval", s.report_interval_ms);
    s.session_timeout_ms = o.duration("session_timeout", s.session_timeout_ms);
    s.automq_move_ms = o.duration("automq_move_time", s.automq_move_ms);
    s.apache_throttle_bytes_per_s = o.number("apache_throttle_bytes_per_s", s.apache_throttle_bytes_per_s, 1, 1e12);
    s.leader_election_ms = o.duration("leader_election_time", s.leader_election_ms);
    if (!o.ok()) return s;
    if (o.require("brokers", "a scenario needs brokers")) {
        const json& brokers = o.get("brokers");
        if (!brokers.is_array()) {
            problems.add("brokers", "expected an array");
            gaps.brokers = true;
        }
        for (size_t i = 0; brokers.is_array() && i < brokers.size(); i++) {
            s.brokers.push_back(read_broker(brokers[i], at_index("brokers", i), problems, true, gaps));
        }
    } else {
        gaps.brokers = true;
    }
    if (o.has("topics")) {
        const json& topics = o.get("topics");
        if (!topics.is_array()) {
            problems.add("topics", "expected an array");
            gaps.topics = true;
        }
        for (size_t i = 0; topics.is_array() && i < topics.size(); i++) {
            s.topics.push_back(read_topic(topics[i], at_index("topics", i), problems, gaps));
        }
    }
    if (o.has("events")) {
        const json& list = o.get("events");
        if (!list.is_array()) problems.add("events", "expected an array");
        for (size_t i = 0; list.is_array() && i < list.size(); i++) {
            TimedEvent e;
            ReadGaps event_gaps;
            if (read_event(list[i], at_index("events", i), problems, event_gaps, e)) {
                s.events.push_back(std::move(e));
                event_file_index.push_back(i);
                continue;
            }
            // Left out: what it would have defined is unknown to the checks.
            gaps.brokers = gaps.brokers || event_gaps.brokers || e.kind == TimedEvent::Kind::add_broker;
            gaps.topics = gaps.topics || event_gaps.topics || e.kind == TimedEvent::Kind::create_topic;
        }
    }
    if (o.has("faults")) {
        Object f(o.get("faults"), "faults", problems,
                 {"submit_failure_ratio", "stuck_ratio", "admin_delay", "metrics_loss_ratio", "metrics_late_ratio",
                  "metrics_late_by", "engine_kills", "until"});
        if (f.ok()) read_faults(f, s.faults);
        f.done();
    }
    if (o.has("settings")) {
        const json& settings = o.get("settings");
        if (!settings.is_object()) {
            problems.add("settings", "expected an object of \"key\": \"value\"");
        } else {
            read_settings(settings, "", s.settings, problems);
        }
    }
    o.done();
    return s;
}

}  // namespace ballast::sim
