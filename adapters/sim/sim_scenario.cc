#include "adapters/sim/sim_scenario.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "adapters/sim/sim_scenario_document.h"

namespace ballast::sim {

namespace {

using events::ErrorCode;
using events::make_error;
using nlohmann::json;

/// Thrown inside this file only, turned into an Error at the boundary.
struct Bad {
    std::string path;
    std::string what;
};

std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
}

/// Reads one JSON object, remembering which keys were used: a key nobody
/// reads is a typo, and an error that names it.
class Object {
public:
    Object(const json& value, std::string path) : _value(value), _path(std::move(path)) {
        if (!_value.is_object()) throw Bad{_path, "expected an object"};
    }

    bool has(const std::string& key) const { return _value.contains(key); }

    const json& get(const std::string& key) {
        _used.insert(key);
        return _value.at(key);
    }

    std::string path(const std::string& key) const { return join(_path, key); }

    std::string string(const std::string& key, std::string fallback) {
        if (!has(key)) return fallback;
        const json& v = get(key);
        if (!v.is_string()) throw Bad{path(key), "expected a string"};
        return v.get<std::string>();
    }

    double number(const std::string& key, double fallback, double min, double max) {
        if (!has(key)) return fallback;
        const json& v = get(key);
        if (!v.is_number()) throw Bad{path(key), "expected a number"};
        const double d = v.get<double>();
        if (!std::isfinite(d) || d < min || d > max) {
            throw Bad{path(key), "value " + v.dump() + " is out of range [" + fmt(min) + ", " + fmt(max) + "]"};
        }
        return d;
    }

    int64_t integer(const std::string& key, int64_t fallback, int64_t min, int64_t max) {
        if (!has(key)) return fallback;
        const json& v = get(key);
        if (!v.is_number_integer()) throw Bad{path(key), "expected an integer, got " + v.dump()};
        const int64_t i = v.get<int64_t>();
        if (i < min || i > max) {
            throw Bad{path(key), "value " + std::to_string(i) + " is out of range [" +
                                     std::to_string(min) + ", " + std::to_string(max) + "]"};
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
        if (!ms) throw Bad{path(key), ms.error().message + " (got " + v.dump() + ")"};
        return *ms;
    }

    bool boolean(const std::string& key, bool fallback) {
        if (!has(key)) return fallback;
        const json& v = get(key);
        if (!v.is_boolean()) throw Bad{path(key), "expected true or false"};
        return v.get<bool>();
    }

    /// Every key was read by someone.
    void done() const {
        for (auto it = _value.begin(); it != _value.end(); ++it) {
            if (!_used.count(it.key())) throw Bad{join(_path, it.key()), "unknown field"};
        }
    }

private:
    static std::string fmt(double d) {
        std::ostringstream out;
        out << d;
        return out.str();
    }

    const json& _value;
    std::string _path;
    std::set<std::string> _used;
};

std::vector<int32_t> broker_list(const json& v, const std::string& path) {
    if (!v.is_array()) throw Bad{path, "expected an array of broker ids"};
    std::vector<int32_t> out;
    for (size_t i = 0; i < v.size(); i++) {
        if (!v[i].is_number_integer() || v[i].get<int64_t>() < 0 || v[i].get<int64_t>() > INT32_MAX) {
            throw Bad{at_index(path, i), "expected a broker id"};
        }
        out.push_back(v[i].get<int32_t>());
    }
    return out;
}

TrafficProfile read_profile(const json& v, const std::string& path) {
    Object o(v, path);
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
        throw Bad{o.path("profile"), "unknown profile '" + kind +
                                         "' (expected constant, step, ramp, diurnal or random_walk)"};
    }
    constexpr double rate_max = 1e12;
    p.bytes_in_per_s = o.number("bytes_in_per_s", 0, 0, rate_max);
    p.to_bytes_in_per_s = o.number("to_bytes_in_per_s", p.bytes_in_per_s, 0, rate_max);
    p.at_ms = o.duration("at", 0);
    p.until_ms = o.duration("until", p.at_ms);
    p.period_ms = o.duration("period", p.period_ms);
    p.amplitude = o.number("amplitude", p.amplitude, 0, 1);
    p.walk_sigma = o.number("sigma", p.walk_sigma, 0, 1);
    p.fanout = o.number("fanout", p.fanout, 0, 1000);
    p.record_bytes = o.number("record_bytes", p.record_bytes, 1, 1e9);
    if (p.kind == ProfileKind::ramp && p.until_ms <= p.at_ms) {
        throw Bad{o.path("until"), "a ramp must end after it starts"};
    }
    if (p.kind == ProfileKind::diurnal && p.period_ms <= 0) throw Bad{o.path("period"), "must be positive"};
    o.done();
    return p;
}

TopicSpec read_topic(const json& v, const std::string& path) {
    Object o(v, path);
    TopicSpec t;
    t.name = o.string("name", "");
    if (t.name.empty()) throw Bad{o.path("name"), "a topic needs a name"};
    t.partitions = static_cast<int32_t>(o.integer("partitions", 1, 1, 1'000'000));
    t.replication_factor = static_cast<int32_t>(o.integer("replication_factor", 1, 1, 8));
    if (o.has("assignment")) {
        const json& a = o.get("assignment");
        if (!a.is_array() || a.size() != static_cast<size_t>(t.partitions)) {
            throw Bad{o.path("assignment"), "expected one replica list per partition (" +
                                                std::to_string(t.partitions) + ")"};
        }
        for (size_t i = 0; i < a.size(); i++) {
            t.assignment.push_back(broker_list(a[i], at_index(o.path("assignment"), i)));
            if (t.assignment.back().size() != static_cast<size_t>(t.replication_factor)) {
                throw Bad{at_index(o.path("assignment"), i),
                          "expected " + std::to_string(t.replication_factor) + " replicas"};
            }
        }
    }
    if (o.has("traffic")) t.traffic = read_profile(o.get("traffic"), o.path("traffic"));
    if (o.has("partition_weights")) {
        const json& w = o.get("partition_weights");
        if (!w.is_array() || w.size() != static_cast<size_t>(t.partitions)) {
            throw Bad{o.path("partition_weights"), "expected one weight per partition"};
        }
        for (size_t i = 0; i < w.size(); i++) {
            if (!w[i].is_number() || w[i].get<double>() < 0) {
                throw Bad{at_index(o.path("partition_weights"), i), "expected a weight >= 0"};
            }
            t.partition_weights.push_back(w[i].get<double>());
        }
    }
    t.initial_size_bytes = o.number("initial_size_bytes", 0, 0, 1e15);
    t.retention_bytes = o.number("retention_bytes", 0, 0, 1e15);
    o.done();
    return t;
}

PartitionSelector read_selector(Object& o) {
    PartitionSelector s;
    s.topic = o.string("topic", "");
    if (s.topic.empty()) throw Bad{o.path("topic"), "a traffic change names its topic"};
    if (o.has("partitions")) s.partitions = broker_list(o.get("partitions"), o.path("partitions"));
    s.led_by = static_cast<int32_t>(o.integer("led_by", -1, -1, INT32_MAX));
    return s;
}

TimedEvent read_event(const json& v, const std::string& path) {
    Object o(v, path);
    TimedEvent e;
    e.at_ms = o.duration("at", -1);
    if (e.at_ms < 0) throw Bad{o.path("at"), "every event says when it happens"};
    const auto broker_field = [&](const char* key, TimedEvent::Kind kind) {
        if (!o.has(key)) return false;
        e.kind = kind;
        e.broker_id = static_cast<int32_t>(o.integer(key, -1, 0, INT32_MAX));
        return true;
    };
    if (broker_field("stop_broker", TimedEvent::Kind::stop_broker) ||
        broker_field("start_broker", TimedEvent::Kind::start_broker) ||
        broker_field("remove_broker", TimedEvent::Kind::remove_broker) ||
        broker_field("drain_broker", TimedEvent::Kind::drain_broker)) {
    } else if (o.has("add_broker")) {
        e.kind = TimedEvent::Kind::add_broker;
        Object b(o.get("add_broker"), o.path("add_broker"));
        e.broker.id = static_cast<int32_t>(b.integer("id", -1, 0, INT32_MAX));
        if (e.broker.id < 0) throw Bad{b.path("id"), "a broker needs an id"};
        e.broker.rack = b.string("rack", "");
        b.done();
        e.broker_id = e.broker.id;
    } else if (o.has("traffic")) {
        Object t(o.get("traffic"), o.path("traffic"));
        e.select = read_selector(t);
        if (t.has("scale")) {
            e.kind = TimedEvent::Kind::scale_traffic;
            e.scale = t.number("scale", 1, 0, 1e6);
        } else {
            e.kind = TimedEvent::Kind::set_traffic;
            e.profile = read_profile(t.get("set"), t.path("set"));
        }
        t.done();
    } else if (o.has("create_topic")) {
        e.kind = TimedEvent::Kind::create_topic;
        e.topic = read_topic(o.get("create_topic"), o.path("create_topic"));
    } else if (o.has("delete_topic")) {
        e.kind = TimedEvent::Kind::delete_topic;
        e.topic.name = o.string("delete_topic", "");
    } else if (o.has("pause")) {
        e.kind = TimedEvent::Kind::pause;
        o.boolean("pause", true);
    } else if (o.has("resume")) {
        e.kind = TimedEvent::Kind::resume;
        o.boolean("resume", true);
    } else {
        throw Bad{path, "expected one of stop_broker, start_broker, add_broker, remove_broker, "
                        "drain_broker, traffic, create_topic, delete_topic, pause, resume"};
    }
    o.done();
    return e;
}

/// Engine settings, "key" -> "value". A nested object is a dotted key:
/// {"autobalancer": {"controller": {"enable": true}}} is
/// "autobalancer.controller.enable", which is what TOML makes of an
/// unquoted `autobalancer.controller.enable = true` under [settings].
void read_settings(const json& settings, const std::string& prefix, std::map<std::string, std::string>& out) {
    for (auto it = settings.begin(); it != settings.end(); ++it) {
        const std::string key = prefix.empty() ? it.key() : prefix + "." + it.key();
        std::string value;
        if (it.value().is_object()) {
            read_settings(it.value(), key, out);
            continue;
        }
        if (it.value().is_string()) {
            value = it.value().get<std::string>();
        } else if (it.value().is_number() || it.value().is_boolean()) {
            value = it.value().dump();
        } else {
            throw Bad{"settings." + key, "expected a string, number or boolean"};
        }
        if (!out.emplace(key, value).second) throw Bad{"settings." + key, "given twice"};
    }
}

Scenario read_scenario(const json& root) {
    Object o(root, "");
    Scenario s;
    s.name = o.string("name", "scenario");
    s.description = o.string("description", "");
    const std::string flavor = o.string("flavor", "automq");
    if (flavor == "automq") {
        s.flavor = Flavor::automq;
    } else if (flavor == "apache") {
        s.flavor = Flavor::apache;
    } else {
        throw Bad{"flavor", "unknown flavor '" + flavor + "' (expected apache or automq)"};
    }
    s.seed = static_cast<uint64_t>(o.integer("seed", 1, 0, INT64_MAX));
    s.duration_ms = o.duration("duration", s.duration_ms);
    s.tick_interval_ms = o.duration("tick_interval", s.tick_interval_ms);
    s.report_interval_ms = o.duration("report_interval", s.report_interval_ms);
    s.session_timeout_ms = o.duration("session_timeout", s.session_timeout_ms);
    s.automq_move_ms = o.duration("automq_move_time", s.automq_move_ms);
    s.apache_throttle_bytes_per_s =
        o.number("apache_throttle_bytes_per_s", s.apache_throttle_bytes_per_s, 1, 1e12);
    s.leader_election_ms = o.duration("leader_election_time", s.leader_election_ms);
    if (!o.has("brokers")) throw Bad{"brokers", "a scenario needs brokers"};
    const json& brokers = o.get("brokers");
    if (!brokers.is_array()) throw Bad{"brokers", "expected an array"};
    for (size_t i = 0; i < brokers.size(); i++) {
        Object b(brokers[i], at_index("brokers", i));
        BrokerSpec spec;
        spec.id = static_cast<int32_t>(b.integer("id", -1, 0, INT32_MAX));
        if (spec.id < 0) throw Bad{b.path("id"), "a broker needs an id"};
        spec.rack = b.string("rack", "");
        spec.running = b.boolean("running", true);
        b.done();
        s.brokers.push_back(spec);
    }
    if (o.has("topics")) {
        const json& topics = o.get("topics");
        if (!topics.is_array()) throw Bad{"topics", "expected an array"};
        for (size_t i = 0; i < topics.size(); i++) s.topics.push_back(read_topic(topics[i], at_index("topics", i)));
    }
    if (o.has("events")) {
        const json& list = o.get("events");
        if (!list.is_array()) throw Bad{"events", "expected an array"};
        for (size_t i = 0; i < list.size(); i++) s.events.push_back(read_event(list[i], at_index("events", i)));
    }
    if (o.has("faults")) {
        Object f(o.get("faults"), "faults");
        s.faults.submit_failure_ratio = f.number("submit_failure_ratio", 0, 0, 1);
        s.faults.stuck_ratio = f.number("stuck_ratio", 0, 0, 1);
        s.faults.admin_delay_ms = f.duration("admin_delay", 0);
        s.faults.metrics_loss_ratio = f.number("metrics_loss_ratio", 0, 0, 1);
        s.faults.metrics_late_ratio = f.number("metrics_late_ratio", 0, 0, 1);
        s.faults.metrics_late_by_ms = f.duration("metrics_late_by", s.faults.metrics_late_by_ms);
        s.faults.until_ms = f.duration("until", -1);
        if (f.has("engine_kills")) {
            const json& kills = f.get("engine_kills");
            if (!kills.is_array()) throw Bad{"faults.engine_kills", "expected an array of times"};
            for (size_t i = 0; i < kills.size(); i++) {
                events::Result<int64_t> ms = kills[i].is_string()
                                                 ? parse_duration_ms(kills[i].get<std::string>())
                                                 : events::Result<int64_t>(kills[i].is_number_integer()
                                                                               ? kills[i].get<int64_t>()
                                                                               : -1);
                if (!ms || *ms < 0) throw Bad{at_index("faults.engine_kills", i), "expected a duration"};
                s.faults.engine_kills_ms.push_back(*ms);
            }
        }
        f.done();
    }
    if (o.has("settings")) {
        const json& settings = o.get("settings");
        if (!settings.is_object()) throw Bad{"settings", "expected an object of \"key\": \"value\""};
        read_settings(settings, "", s.settings);
    }
    o.done();
    return s;
}

/// ".toml" -> "toml": the extension, lower case, without its dot.
std::string extension_of(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    if (!ext.empty()) ext.erase(0, 1);
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    return ext;
}

}  // namespace

std::variant<Scenario, ScenarioProblem> read_scenario_document(const json& root) {
    Scenario s;
    try {
        s = read_scenario(root);
    } catch (const Bad& bad) {
        return ScenarioProblem{bad.path, bad.what};
    } catch (const json::exception& e) {
        return ScenarioProblem{"", e.what()};
    }
    // Validated in time order (a traffic change may name a topic created
    // earlier in time but later in the file), named in file order.
    std::vector<size_t> order(s.events.size());
    for (size_t i = 0; i < order.size(); i++) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return s.events[a].at_ms < s.events[b].at_ms; });
    std::vector<TimedEvent> sorted;
    sorted.reserve(order.size());
    for (size_t i : order) sorted.push_back(std::move(s.events[i]));
    s.events = std::move(sorted);
    if (auto problem = check_scenario(s, order)) return *problem;
    return s;
}

std::string describe(const ScenarioProblem& problem) {
    return problem.path.empty() ? problem.what : problem.path + ": " + problem.what;
}

events::Result<int64_t> parse_duration_ms(std::string_view text) {
    const auto bad = [&] {
        return make_error(ErrorCode::invalid_argument,
                          "'" + std::string(text) + "' is not a duration (expected e.g. 1500ms, 90s, 1.5s, 10m, 2h)");
    };
    if (text.empty()) return bad();
    size_t unit_at = 0;
    while (unit_at < text.size() && (std::isdigit(static_cast<unsigned char>(text[unit_at])) || text[unit_at] == '.')) {
        unit_at++;
    }
    if (unit_at == 0) return bad();
    const std::string number(text.substr(0, unit_at));
    char* end = nullptr;
    const double value = std::strtod(number.c_str(), &end);
    if (*end != '\0' || !std::isfinite(value)) return bad();
    const std::string_view unit = text.substr(unit_at);
    double ms_per_unit = 0;
    if (unit.empty() || unit == "ms") {
        ms_per_unit = 1;
    } else if (unit == "s") {
        ms_per_unit = 1'000;
    } else if (unit == "m" || unit == "min") {
        ms_per_unit = 60'000;
    } else if (unit == "h") {
        ms_per_unit = 3'600'000;
    } else if (unit == "d") {
        ms_per_unit = 86'400'000;
    } else {
        return bad();
    }
    const double ms = value * ms_per_unit;
    if (ms > 1e15) return bad();
    return static_cast<int64_t>(std::llround(ms));
}

events::Result<Scenario> parse_scenario_json(std::string_view text, const std::string& origin) {
    json root;
    try {
        root = json::parse(text);
    } catch (const json::parse_error& e) {
        return make_error(ErrorCode::invalid_argument,
                          origin + ": not JSON at byte " + std::to_string(e.byte) + ": " + e.what());
    } catch (const json::exception& e) {
        // A number past what a double holds (1e400) is out_of_range, not a parse_error.
        return make_error(ErrorCode::invalid_argument, origin + ": not JSON: " + e.what());
    }
    std::variant<Scenario, ScenarioProblem> read = read_scenario_document(root);
    if (auto* problem = std::get_if<ScenarioProblem>(&read)) {
        return make_error(ErrorCode::invalid_argument, origin + ": " + describe(*problem));
    }
    return std::get<Scenario>(std::move(read));
}

events::Result<Scenario> load_scenario_file(const std::string& path) {
    const std::string ext = extension_of(path);
    if (ext != "json" && ext != "toml") {
        return make_error(ErrorCode::invalid_argument,
                          "scenario file " + path + ": " +
                              (ext.empty() ? std::string("no extension") : "unknown extension ." + ext) +
                              " (a scenario is a .json or a .toml file)");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) return make_error(ErrorCode::not_found, "scenario file " + path + ": cannot be opened");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return make_error(ErrorCode::io_error, "scenario file " + path + ": read failed");
    return ext == "toml" ? parse_scenario_toml(text.str(), path) : parse_scenario_json(text.str(), path);
}

const char* flavor_name(Flavor flavor) { return flavor == Flavor::automq ? "automq" : "apache"; }

}  // namespace ballast::sim
