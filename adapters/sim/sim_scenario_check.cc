/// The scenario checks a document's types cannot make: ids unique, brokers
/// known, replica lists distinct and on defined brokers, topics defined
/// before their traffic changes, times inside the run.

#include <cassert>
#include <set>

#include "adapters/sim/sim_scenario_document.h"

namespace ballast::sim {

std::vector<ScenarioProblem> check_scenario(const Scenario& s, const std::vector<size_t>& file_index,
                                            const ReadGaps& gaps) {
    std::vector<ScenarioProblem> problems;
    const auto bad = [&](std::string path, std::string what) { problems.push_back({std::move(path), std::move(what)}); };
    if (s.tick_interval_ms <= 0) bad("tick_interval", "must be positive");
    if (s.report_interval_ms <= 0) bad("report_interval", "must be positive");
    if (s.duration_ms <= 0) bad("duration", "must be positive");
    std::set<int32_t> defined;
    for (size_t i = 0; i < s.brokers.size(); i++) {
        if (s.brokers[i].id >= 0 && !defined.insert(s.brokers[i].id).second) {
            bad(at_index("brokers", i), "broker " + std::to_string(s.brokers[i].id) + " is defined twice");
        }
    }
    std::set<int32_t> all = defined;  // with those added later
    for (const TimedEvent& e : s.events) {
        if (e.kind == TimedEvent::Kind::add_broker) all.insert(e.broker.id);
    }
    // A broker that could not be read may be the one an id names.
    const auto unknown_broker = [&](int32_t id) { return !gaps.brokers && !all.count(id); };
    std::set<std::string> topics;
    const auto check_topic = [&](const TopicSpec& t, const std::string& where) {
        for (size_t p = 0; p < t.assignment.size(); p++) {
            const std::string path = at_index(where + ".assignment", p);
            std::set<int32_t> distinct(t.assignment[p].begin(), t.assignment[p].end());
            if (distinct.size() != t.assignment[p].size()) bad(path, "a broker is listed twice");
            for (int32_t b : t.assignment[p]) {
                if (unknown_broker(b)) bad(path, "broker " + std::to_string(b) + " is not defined");
            }
        }
        if (!gaps.brokers && t.assignment.empty() && static_cast<size_t>(t.replication_factor) > all.size()) {
            bad(where, "replication factor " + std::to_string(t.replication_factor) + " exceeds the " +
                           std::to_string(all.size()) + " brokers");
        }
    };
    for (size_t i = 0; i < s.topics.size(); i++) {
        if (!s.topics[i].name.empty() && !topics.insert(s.topics[i].name).second) {
            bad(at_index("topics", i), "topic " + s.topics[i].name + " is defined twice");
        }
        check_topic(s.topics[i], at_index("topics", i));
    }
    assert(file_index.empty() || file_index.size() == s.events.size());
    // In time order: a traffic change may name a topic created earlier in
    // time, wherever the file lists it.
    for (size_t i = 0; i < s.events.size(); i++) {
        assert(i == 0 || s.events[i - 1].at_ms <= s.events[i].at_ms);
        const TimedEvent& e = s.events[i];
        const std::string where = at_index("events", file_index.empty() ? i : file_index[i]);
        if (!gaps.duration && s.duration_ms > 0 && e.at_ms > s.duration_ms) {
            bad(where, "at " + std::to_string(e.at_ms) + " ms is after the end of the run (" +
                           std::to_string(s.duration_ms) + " ms)");
        }
        switch (e.kind) {
            case TimedEvent::Kind::stop_broker:
            case TimedEvent::Kind::start_broker:
            case TimedEvent::Kind::fence_broker:
            case TimedEvent::Kind::unfence_broker:
            case TimedEvent::Kind::remove_broker:
            case TimedEvent::Kind::drain_broker:
                if (unknown_broker(e.broker_id)) bad(where, "broker " + std::to_string(e.broker_id) + " is not defined");
                break;
            case TimedEvent::Kind::add_broker:
                if (defined.count(e.broker.id)) bad(where, "broker " + std::to_string(e.broker.id) + " already exists");
                defined.insert(e.broker.id);
                break;
            case TimedEvent::Kind::create_topic:
                check_topic(e.topic, where + ".create_topic");
                topics.insert(e.topic.name);
                break;
            case TimedEvent::Kind::scale_traffic:
            case TimedEvent::Kind::set_traffic:
            case TimedEvent::Kind::delete_topic: {
                const std::string& name = e.kind == TimedEvent::Kind::delete_topic ? e.topic.name : e.select.topic;
                if (!gaps.topics && !topics.count(name)) bad(where, "topic '" + name + "' is not defined");
                break;
            }
            case TimedEvent::Kind::pause:
            case TimedEvent::Kind::resume: break;
        }
    }
    return problems;
}

events::Status validate(const Scenario& s) {
    const std::vector<ScenarioProblem> problems = check_scenario(s, {});
    if (!problems.empty()) {
        return events::make_error(events::ErrorCode::invalid_argument,
                                  describe_all(problems, [](const ScenarioProblem&) { return std::string(); }));
    }
    return {};
}

}  // namespace ballast::sim
