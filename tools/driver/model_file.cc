#include "tools/driver/model_file.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

namespace ballast::driver {

namespace {

using json = nlohmann::json;

/// A described cluster's clock: dead brokers are fenced a day before it, so
/// every grace has run out.
constexpr int64_t model_now_ms = 86'400'000;

class Parse {
public:
    explicit Parse(std::string what) : _what(std::move(what)) {}

    bool failed() const { return !_error.empty(); }
    const std::string& error() const { return _error; }

    void fail(const std::string& path, const std::string& problem) {
        if (_error.empty()) _error = _what + ": " + path + ": " + problem;
    }

    /// Every member of `object` must be one of `known`.
    bool only(const json& object, const std::string& path, std::initializer_list<const char*> known) {
        if (!object.is_object()) {
            fail(path, "expected an object");
            return false;
        }
        for (const auto& item : object.items()) {
            const std::string& key = item.key();
            if (std::find_if(known.begin(), known.end(), [&](const char* k) { return key == k; }) != known.end()) {
                continue;
            }
            std::string valid;
            for (const char* k : known) valid += (valid.empty() ? "" : ", ") + std::string(k);
            fail(path + "." + key, "unknown field (valid: " + valid + ")");
            return false;
        }
        return true;
    }

    double number(const json& object, const std::string& path, const char* key, double fallback, bool required) {
        auto it = object.find(key);
        if (it == object.end()) {
            if (required) fail(path + "." + key, "missing");
            return fallback;
        }
        if (!it->is_number()) {
            fail(path + "." + key, "expected a number, got " + it->dump());
            return fallback;
        }
        const double v = it->get<double>();
        if (!std::isfinite(v) || v < 0) fail(path + "." + key, "expected a finite number >= 0, got " + it->dump());
        return v;
    }

    int32_t id(const json& value, const std::string& path, int32_t min) {
        if (!value.is_number_integer() || value.get<int64_t>() < min || value.get<int64_t>() > INT32_MAX) {
            fail(path, "expected an integer from " + std::to_string(min) + ", got " + value.dump());
            return -1;
        }
        return static_cast<int32_t>(value.get<int64_t>());
    }

private:
    std::string _what;
    std::string _error;
};

struct DescribedPartition {
    std::string topic;
    int32_t partition = -1;
    std::vector<int32_t> replicas;
    int32_t leader = -1;
    goals::Load load;
};

}  // namespace

events::Result<goals::ClusterModel> parse_model_json(std::string_view text, const std::string& what) {
    json doc = json::parse(text, nullptr, false);
    if (doc.is_discarded()) return events::make_error(events::ErrorCode::invalid_argument, what + ": not valid JSON");
    Parse parse(what);
    if (!parse.only(doc, "(top)", {"brokers", "partitions"})) return events::make_error(events::ErrorCode::invalid_argument, parse.error());
    if (!doc.contains("brokers") || !doc["brokers"].is_array() || doc["brokers"].empty()) {
        return events::make_error(events::ErrorCode::invalid_argument, what + ": brokers: expected a non-empty array");
    }
    if (!doc.contains("partitions") || !doc["partitions"].is_array()) {
        return events::make_error(events::ErrorCode::invalid_argument, what + ": partitions: expected an array");
    }

    goals::ClusterModel m;
    m.now_ms = model_now_ms;
    std::map<int32_t, std::pair<goals::Broker, std::string>> brokers;  // by id: broker, rack
    const json& listed = doc["brokers"];
    for (size_t i = 0; i < listed.size() && !parse.failed(); i++) {
        const json& b = listed[i];
        const std::string path = "brokers[" + std::to_string(i) + "]";
        if (!parse.only(b, path, {"id", "rack", "capacity", "alive"})) break;
        goals::Broker broker;
        broker.id = b.contains("id") ? parse.id(b["id"], path + ".id", 0) : (parse.fail(path + ".id", "missing"), -1);
        std::string rack;
        if (b.contains("rack")) {
            if (!b["rack"].is_string()) parse.fail(path + ".rack", "expected a string");
            else rack = b["rack"].get<std::string>();
        }
        if (b.contains("alive") && !b["alive"].is_boolean()) parse.fail(path + ".alive", "expected true or false");
        if (b.value("alive", true)) {
            broker.liveness = goals::Liveness::alive;
        } else {
            broker.liveness = goals::Liveness::fenced;
            broker.liveness_changed_ms = 0;
        }
        broker.metrics_time_ms = model_now_ms;
        if (b.contains("capacity")) {
            const json& c = b["capacity"];
            const std::string cp = path + ".capacity";
            if (!parse.only(c, cp, {"network_in_bytes_per_s", "network_out_bytes_per_s", "disk_bytes", "replicas_max"})) break;
            broker.capacity.network_in_bytes_per_s = parse.number(c, cp, "network_in_bytes_per_s", 0, false);
            broker.capacity.network_out_bytes_per_s = parse.number(c, cp, "network_out_bytes_per_s", 0, false);
            broker.capacity.disk_bytes = parse.number(c, cp, "disk_bytes", 0, false);
            if (c.contains("replicas_max")) broker.capacity.replicas_max = parse.id(c["replicas_max"], cp + ".replicas_max", 0);
        }
        if (!parse.failed() && !brokers.emplace(broker.id, std::make_pair(broker, rack)).second) {
            parse.fail(path + ".id", "broker " + std::to_string(broker.id) + " is listed twice");
        }
    }

    std::vector<DescribedPartition> partitions;
    std::set<std::pair<std::string, int32_t>> seen;
    const json& plist = doc["partitions"];
    for (size_t i = 0; i < plist.size() && !parse.failed(); i++) {
        const json& p = plist[i];
        const std::string path = "partitions[" + std::to_string(i) + "]";
        if (!parse.only(p, path, {"topic", "partition", "replicas", "leader", "bytes_in_per_s", "bytes_out_per_s", "size_bytes"})) {
            break;
        }
        DescribedPartition d;
        if (!p.contains("topic") || !p["topic"].is_string() || p["topic"].get<std::string>().empty()) {
            parse.fail(path + ".topic", "expected a non-empty string");
            break;
        }
        d.topic = p["topic"].get<std::string>();
        d.partition = p.contains("partition") ? parse.id(p["partition"], path + ".partition", 0)
                                              : (parse.fail(path + ".partition", "missing"), -1);
        if (!p.contains("replicas") || !p["replicas"].is_array() || p["replicas"].empty()) {
            parse.fail(path + ".replicas", "expected a non-empty array of broker ids");
            break;
        }
        for (size_t r = 0; r < p["replicas"].size() && !parse.failed(); r++) {
            const std::string rp = path + ".replicas[" + std::to_string(r) + "]";
            const int32_t id = parse.id(p["replicas"][r], rp, 0);
            if (parse.failed()) break;
            if (!brokers.count(id)) parse.fail(rp, "broker " + std::to_string(id) + " is not among the brokers");
            if (std::find(d.replicas.begin(), d.replicas.end(), id) != d.replicas.end()) {
                parse.fail(rp, "broker " + std::to_string(id) + " holds the partition twice");
            }
            d.replicas.push_back(id);
        }
        d.leader = p.contains("leader") ? parse.id(p["leader"], path + ".leader", -1) : d.replicas.front();
        if (!parse.failed() && d.leader >= 0 && std::find(d.replicas.begin(), d.replicas.end(), d.leader) == d.replicas.end()) {
            parse.fail(path + ".leader", "broker " + std::to_string(d.leader) + " is not one of its replicas");
        }
        d.load.bytes_in_per_s = parse.number(p, path, "bytes_in_per_s", 0, true);
        d.load.bytes_out_per_s = parse.number(p, path, "bytes_out_per_s", 0, true);
        d.load.size_bytes = parse.number(p, path, "size_bytes", 0, true);
        if (!parse.failed() && !seen.insert({d.topic, d.partition}).second) {
            parse.fail(path, d.topic + "-" + std::to_string(d.partition) + " is listed twice");
        }
        partitions.push_back(std::move(d));
    }
    if (parse.failed()) return events::make_error(events::ErrorCode::invalid_argument, parse.error());

    std::set<std::string> racks;
    for (const auto& [id, b] : brokers) racks.insert(b.second);
    m.racks.assign(racks.begin(), racks.end());
    for (auto& [id, b] : brokers) {
        b.first.rack = static_cast<uint32_t>(std::lower_bound(m.racks.begin(), m.racks.end(), b.second) - m.racks.begin());
        m.brokers.push_back(b.first);
    }
    std::sort(partitions.begin(), partitions.end(), [](const DescribedPartition& a, const DescribedPartition& b) {
        return std::tie(a.topic, a.partition) < std::tie(b.topic, b.partition);
    });
    for (const DescribedPartition& d : partitions) {
        if (m.topics.empty() || m.topics.back() != d.topic) m.topics.push_back(d.topic);
        goals::Partition p;
        p.topic = static_cast<uint32_t>(m.topics.size() - 1);
        p.partition = d.partition;
        p.replica_begin = static_cast<uint32_t>(m.replicas.size());
        p.replica_count = static_cast<uint16_t>(d.replicas.size());
        p.leader = d.leader;
        p.load = d.load;
        m.replicas.insert(m.replicas.end(), d.replicas.begin(), d.replicas.end());
        m.partitions.push_back(p);
    }
    return m;
}

events::Result<goals::ClusterModel> read_model_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) return events::make_error(events::ErrorCode::io_error, path + ": cannot be read");
    std::stringstream text;
    text << in.rdbuf();
    return parse_model_json(text.str(), path);
}

namespace {
uint64_t topic_replicas_over(const goals::ClusterModel& m, const std::map<int32_t, size_t>& index,
                             const std::vector<size_t>& alive, double deviation) {
    std::vector<uint8_t> is_alive(m.brokers.size(), 0);
    for (size_t b : alive) is_alive[b] = 1;
    std::vector<int64_t> counts(m.brokers.size(), 0);
    uint64_t over = 0;
    // Partitions are sorted by topic: one topic at a time.
    for (size_t first = 0; first < m.partitions.size();) {
        size_t last = first;
        int64_t on_alive = 0;
        std::fill(counts.begin(), counts.end(), 0);
        for (; last < m.partitions.size() && m.partitions[last].topic == m.partitions[first].topic; last++) {
            const goals::Partition& p = m.partitions[last];
            for (uint16_t r = 0; r < p.replica_count; r++) {
                const size_t b = index.at(m.replicas[p.replica_begin + r]);
                if (!is_alive[b]) continue;
                counts[b]++;
                on_alive++;
            }
        }
        const double mean = static_cast<double>(on_alive) / static_cast<double>(alive.size());
        const int64_t upper = std::max(static_cast<int64_t>(std::ceil(mean * (1 + deviation))),
                                       static_cast<int64_t>(std::ceil(mean)) + 1);
        for (size_t b : alive) over += static_cast<uint64_t>(std::max<int64_t>(0, counts[b] - upper));
        first = last;
    }
    return over;
}
}  // namespace

BalanceSummary balance_of(const goals::ClusterModel& m, double capacity_threshold, double topic_deviation) {
    BalanceSummary s;
    const size_t n = m.brokers.size();
    std::vector<goals::Load> loads(n);
    std::vector<int32_t> replicas(n, 0), leaders(n, 0);
    std::map<int32_t, size_t> index;
    for (size_t b = 0; b < n; b++) index[m.brokers[b].id] = b;
    for (const goals::Partition& p : m.partitions) {
        std::set<uint32_t> racks_used;
        bool crowded = false;
        for (uint16_t r = 0; r < p.replica_count; r++) {
            const size_t b = index.at(m.replicas[p.replica_begin + r]);
            const goals::Load l = goals::replica_load(p, p.leader == m.brokers[b].id);
            loads[b].bytes_in_per_s += l.bytes_in_per_s;
            loads[b].bytes_out_per_s += l.bytes_out_per_s;
            loads[b].size_bytes += l.size_bytes;
            replicas[b]++;
            leaders[b] += p.leader == m.brokers[b].id;
            crowded = crowded || !racks_used.insert(m.brokers[b].rack).second;
        }
        if (crowded && m.racks.size() >= p.replica_count) s.rack_violations++;
    }
    // Relative to capacity where every alive broker's is known, as the
    // distribution goals judge.
    std::vector<size_t> alive;
    for (size_t b = 0; b < n; b++) {
        if (m.brokers[b].liveness == goals::Liveness::alive) alive.push_back(b);
    }
    if (alive.empty()) return s;
    auto ratios = [&](auto load_of, auto capacity_of, double* max_mean, double* min_mean) {
        const bool relative =
            std::all_of(alive.begin(), alive.end(), [&](size_t b) { return capacity_of(m.brokers[b].capacity) > 0; });
        std::vector<double> v;
        for (size_t b : alive) v.push_back(load_of(loads[b]) / (relative ? capacity_of(m.brokers[b].capacity) : 1.0));
        const double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
        *max_mean = mean > 0 ? *std::max_element(v.begin(), v.end()) / mean : 1;
        *min_mean = mean > 0 ? *std::min_element(v.begin(), v.end()) / mean : 1;
    };
    ratios([](const goals::Load& l) { return l.bytes_in_per_s; },
           [](const goals::Capacity& c) { return c.network_in_bytes_per_s; }, &s.in_max_mean, &s.in_min_mean);
    ratios([](const goals::Load& l) { return l.bytes_out_per_s; },
           [](const goals::Capacity& c) { return c.network_out_bytes_per_s; }, &s.out_max_mean, &s.out_min_mean);
    ratios([](const goals::Load& l) { return l.size_bytes; }, [](const goals::Capacity& c) { return c.disk_bytes; },
           &s.disk_max_mean, &s.disk_min_mean);
    s.replicas_min = s.leaders_min = INT32_MAX;
    for (size_t b : alive) {
        s.replicas_min = std::min(s.replicas_min, replicas[b]);
        s.replicas_max = std::max(s.replicas_max, replicas[b]);
        s.leaders_min = std::min(s.leaders_min, leaders[b]);
        s.leaders_max = std::max(s.leaders_max, leaders[b]);
        const goals::Capacity& c = m.brokers[b].capacity;
        const bool over = (c.network_in_bytes_per_s > 0 && loads[b].bytes_in_per_s > c.network_in_bytes_per_s * capacity_threshold) ||
                          (c.network_out_bytes_per_s > 0 && loads[b].bytes_out_per_s > c.network_out_bytes_per_s * capacity_threshold) ||
                          (c.disk_bytes > 0 && loads[b].size_bytes > c.disk_bytes * capacity_threshold) ||
                          (c.replicas_max > 0 && replicas[b] > c.replicas_max);
        s.brokers_over_capacity += over;
    }
    s.topic_replicas_over = topic_replicas_over(m, index, alive, topic_deviation);
    return s;
}

MovedSummary moved_between(const goals::ClusterModel& before, const goals::ClusterModel& after) {
    MovedSummary s;
    for (size_t i = 0; i < before.partitions.size(); i++) {
        const goals::Partition& b = before.partitions[i];
        const goals::Partition& a = after.partitions[i];
        const int32_t* was = before.replicas_of(b);
        const int32_t* now = after.replicas_of(a);
        uint32_t added = 0;
        for (uint16_t r = 0; r < a.replica_count; r++) {
            added += std::find(was, was + b.replica_count, now[r]) == was + b.replica_count;
        }
        s.partitions_moved += added > 0;
        s.replicas_moved += added;
        s.bytes_moved += added * a.load.size_bytes;
        s.leaders_changed += a.leader != b.leader;
    }
    return s;
}

std::string reassignment_json(const goals::ClusterModel& before, const goals::ClusterModel& after) {
    nlohmann::ordered_json partitions = nlohmann::ordered_json::array();
    for (size_t i = 0; i < before.partitions.size(); i++) {
        const goals::Partition& b = before.partitions[i];
        const goals::Partition& a = after.partitions[i];
        // Kafka elects the first in-sync replica: each leader goes first.
        auto leader_first = [](const int32_t* replicas, uint16_t count, int32_t leader) {
            std::vector<int32_t> list(replicas, replicas + count);
            if (auto at = std::find(list.begin(), list.end(), leader); at != list.end()) std::rotate(list.begin(), at, at + 1);
            return list;
        };
        const std::vector<int32_t> was = leader_first(before.replicas_of(b), b.replica_count, b.leader);
        const std::vector<int32_t> now = leader_first(after.replicas_of(a), a.replica_count, a.leader);
        if (now == was) continue;
        partitions.push_back({{"topic", after.topics[a.topic]}, {"partition", a.partition}, {"replicas", now}});
    }
    nlohmann::ordered_json out;
    out["version"] = 1;
    out["partitions"] = partitions;
    return out.dump(2) + "\n";
}

events::Result<goals::ClusterModel> apply_assignment_json(const goals::ClusterModel& model, std::string_view text,
                                                          const std::string& what) {
    auto bad = [&](const std::string& path, const std::string& problem) {
        return events::make_error(events::ErrorCode::invalid_argument, what + ": " + path + ": " + problem);
    };
    json doc = json::parse(text, nullptr, false);
    if (doc.is_discarded()) return events::make_error(events::ErrorCode::invalid_argument, what + ": not valid JSON");
    if (!doc.is_object() || !doc.contains("partitions") || !doc["partitions"].is_array()) {
        return bad("partitions", "expected an array (the JSON kafka-reassign-partitions --execute reads)");
    }
    std::map<std::pair<std::string_view, int32_t>, uint32_t> index;  // (topic, partition) -> model index
    for (uint32_t i = 0; i < model.partitions.size(); i++) {
        const goals::Partition& p = model.partitions[i];
        index.emplace(std::make_pair(std::string_view(model.topics[p.topic]), p.partition), i);
    }
    std::set<int32_t> broker_ids;
    for (const goals::Broker& b : model.brokers) broker_ids.insert(b.id);

    goals::ClusterModel out = model;
    std::set<uint32_t> seen;
    const json& listed = doc["partitions"];
    for (size_t i = 0; i < listed.size(); i++) {
        const json& e = listed[i];
        const std::string path = "partitions[" + std::to_string(i) + "]";
        if (!e.is_object() || !e.contains("topic") || !e["topic"].is_string() || !e.contains("partition") ||
            !e["partition"].is_number_integer() || !e.contains("replicas") || !e["replicas"].is_array()) {
            return bad(path, "expected {\"topic\": string, \"partition\": integer, \"replicas\": [broker ids]}");
        }
        const std::string topic = e["topic"].get<std::string>();
        const int64_t partition = e["partition"].get<int64_t>();
        auto at = partition >= 0 && partition <= INT32_MAX
                      ? index.find({std::string_view(topic), static_cast<int32_t>(partition)})
                      : index.end();
        if (at == index.end()) return bad(path, topic + "-" + std::to_string(partition) + " is not in the model");
        if (!seen.insert(at->second).second) return bad(path, topic + "-" + std::to_string(partition) + " is listed twice");
        goals::Partition& p = out.partitions[at->second];
        const json& replicas = e["replicas"];
        if (replicas.size() != p.replica_count) {
            return bad(path + ".replicas", std::to_string(replicas.size()) + " replicas where the model has " +
                                               std::to_string(p.replica_count) + " (changing the replication factor is not scored)");
        }
        std::vector<int32_t> list;
        for (size_t r = 0; r < replicas.size(); r++) {
            const std::string rp = path + ".replicas[" + std::to_string(r) + "]";
            if (!replicas[r].is_number_integer() || !broker_ids.count(replicas[r].get<int32_t>())) {
                return bad(rp, replicas[r].dump() + " is not a broker of the model");
            }
            const int32_t id = replicas[r].get<int32_t>();
            if (std::find(list.begin(), list.end(), id) != list.end()) {
                return bad(rp, "broker " + std::to_string(id) + " holds the partition twice");
            }
            list.push_back(id);
        }
        std::copy(list.begin(), list.end(), out.replicas.begin() + p.replica_begin);
        p.leader = list.front();
    }
    return out;
}

}  // namespace ballast::driver
