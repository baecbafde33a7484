/// Scenario files: what they may say, and the errors a person gets when a
/// file says something wrong (the field's JSON path, the value, what was
/// expected).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "adapters/sim/random_scenario.h"
#include "adapters/sim/sim_scenario.h"

namespace ballast::sim {
namespace {

std::string error_of(const std::string& json) {
    events::Result<Scenario> s = parse_scenario_json(json, "test.json");
    return s.ok() ? std::string("(parsed)") : s.error().message;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(SimScenario, DurationsTakeUnitsAndPlainMilliseconds) {
    EXPECT_EQ(*parse_duration_ms("1500ms"), 1500);
    EXPECT_EQ(*parse_duration_ms("1.5s"), 1500);
    EXPECT_EQ(*parse_duration_ms("90s"), 90'000);
    EXPECT_EQ(*parse_duration_ms("10m"), 600'000);
    EXPECT_EQ(*parse_duration_ms("2h"), 7'200'000);
    EXPECT_EQ(*parse_duration_ms("250"), 250);
    for (const char* bad : {"", "s", "10x", "-5s", "1e3s", "ten"}) {
        events::Result<int64_t> d = parse_duration_ms(bad);
        ASSERT_FALSE(d.ok()) << bad;
        EXPECT_TRUE(contains(d.error().message, "is not a duration")) << d.error().message;
    }
}

TEST(SimScenario, AFullScenarioParses) {
    const char* json = R"({
      "name": "node-change", "description": "broker 3 stops", "flavor": "apache", "seed": 7,
      "duration": "10m", "report_interval": "10s",
      "settings": {"ballast.partition.cooldown.ms": 30000, "ballast.cluster.flavor": "apache"},
      "brokers": [{"id": 1, "rack": "a"}, {"id": 2, "rack": "b"}, {"id": 3, "rack": "c"}],
      "topics": [{"name": "t", "partitions": 3, "replication_factor": 2,
                  "assignment": [[1, 2], [2, 3], [3, 1]],
                  "traffic": {"profile": "step", "bytes_in_per_s": 1048576, "to_bytes_in_per_s": 2097152,
                              "at": "2m", "fanout": 2}}],
      "events": [{"at": "3m", "start_broker": 3}, {"at": "60s", "stop_broker": 3},
                 {"at": "4m", "traffic": {"topic": "t", "led_by": 1, "scale": 2}},
                 {"at": "5m", "add_broker": {"id": 4, "rack": "d"}}],
      "faults": {"submit_failure_ratio": 0.1, "engine_kills": ["90s"]}
    })";
    events::Result<Scenario> s = parse_scenario_json(json, "test.json");
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(s->flavor, Flavor::apache);
    EXPECT_EQ(s->duration_ms, 600'000);
    ASSERT_EQ(s->events.size(), 4u);
    EXPECT_EQ(s->events[0].kind, TimedEvent::Kind::stop_broker) << "sorted by time";
    EXPECT_EQ(s->events[0].at_ms, 60'000);
    EXPECT_EQ(s->topics[0].traffic.kind, ProfileKind::step);
    EXPECT_EQ(s->topics[0].traffic.at_ms, 120'000);
    EXPECT_EQ(s->settings.at("ballast.partition.cooldown.ms"), "30000");
    EXPECT_EQ(s->faults.engine_kills_ms, std::vector<int64_t>{90'000});
}

TEST(SimScenario, ErrorsNameTheFieldAndWhatWasExpected) {
    EXPECT_EQ(error_of("{"), error_of("{")) << "deterministic";
    EXPECT_TRUE(contains(error_of("{"), "test.json: not JSON at byte"));
    EXPECT_TRUE(contains(error_of("{\"seed\": 1e400}"), "test.json: not JSON: ")) << "a number past a double";
    EXPECT_TRUE(contains(error_of(R"({"brokers": [{"id": 1}], "flavour": "x"})"), "test.json: flavour: unknown field"));
    EXPECT_TRUE(contains(error_of(R"({"brokers": [{"id": 1}], "flavor": "kafka"})"),
                         "flavor: unknown flavor 'kafka' (expected apache or automq)"));
    EXPECT_TRUE(contains(error_of(R"({"topics": []})"), "brokers: a scenario needs brokers"));
    EXPECT_TRUE(contains(error_of(R"({"brokers": [{"id": 1}, {"id": 1}]})"), "brokers[1]: broker 1 is defined twice"));
    EXPECT_TRUE(contains(error_of(R"({"brokers": [{"id": 1}], "duration": "soon"})"),
                         "duration: 'soon' is not a duration"));
    EXPECT_TRUE(contains(error_of(R"({"brokers": [{"id": 1}], "events": [{"at": "1s", "stop_broker": 7}]})"),
                         "events[0]: broker 7 is not defined"));
    // Events are named in file order, though checked in time order.
    EXPECT_TRUE(contains(
        error_of(R"({"brokers": [{"id": 1}], "events": [{"at": "3m", "start_broker": 1}, {"at": "60s", "stop_broker": 7}]})"),
        "test.json: events[1]: broker 7 is not defined"));
    EXPECT_TRUE(contains(error_of(R"({"brokers": [{"id": 1}], "settings": {"a": {"b": [1]}}})"),
                         "test.json: settings.a.b: expected a string, number or boolean"));
    EXPECT_TRUE(contains(error_of(R"({"brokers": [{"id": 1}], "events": [{"at": "20m", "stop_broker": 1}]})"),
                         "is after the end of the run"));
    EXPECT_TRUE(contains(error_of(R"({"brokers": [{"id": 1}], "events": [{"at": "1s", "explode": 1}]})"),
                         "events[0]: expected one of stop_broker"));
    EXPECT_TRUE(contains(
        error_of(R"({"brokers": [{"id": 1}, {"id": 2}], "topics": [{"name": "t", "partitions": 1, "replication_factor": 2, "assignment": [[1, 1]]}]})"),
        "topics[0].assignment[0]: a broker is listed twice"));
    EXPECT_TRUE(contains(
        error_of(R"({"brokers": [{"id": 1}], "topics": [{"name": "t", "traffic": {"profile": "sine"}}]})"),
        "topics[0].traffic.profile: unknown profile 'sine'"));
    EXPECT_TRUE(contains(
        error_of(R"({"brokers": [{"id": 1}], "topics": [{"name": "t", "partitions": 0}]})"),
        "topics[0].partitions: value 0 is out of range [1, 1000000]"));
    EXPECT_TRUE(contains(error_of(R"({"brokers": [{"id": 1}], "faults": {"submit_failure_ratio": 2}})"),
                         "faults.submit_failure_ratio: value 2 is out of range [0, 1]"));
}

TEST(SimScenario, AMissingFileIsNamed) {
    events::Result<Scenario> s = load_scenario_file("/nonexistent/scenario.json");
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().message, "scenario file /nonexistent/scenario.json: cannot be opened");
}

TEST(SimScenario, RandomScenariosAreValidAndDependOnlyOnTheirSeed) {
    for (uint64_t seed = 1; seed <= 200; seed++) {
        events::Result<Scenario> a = random_scenario(seed);
        ASSERT_TRUE(a.ok()) << a.error().message;
        events::Result<Scenario> b = random_scenario(seed);
        EXPECT_EQ(a->events.size(), b->events.size());
        EXPECT_EQ(a->settings, b->settings);
        EXPECT_EQ(a->faults.engine_kills_ms, b->faults.engine_kills_ms);
        EXPECT_EQ(random_disturbed_until_ms(*a) + random_quiet_tail_ms, a->duration_ms);
        EXPECT_EQ(a->faults.until_ms, random_disturbed_until_ms(*a)) << "the quiet tail has no faults";
        for (const TimedEvent& e : a->events) EXPECT_LE(e.at_ms, random_disturbed_until_ms(*a));
    }
}

TEST(SimScenario, SkewsCapacitiesAndFencesParse) {
    const char* json = R"({
      "duration": "10m",
      "brokers": [{"id": 1, "rack": "a", "capacity": {"network_in_bytes_per_s": 104857600,
                   "network_out_bytes_per_s": 209715200, "disk_bytes": 1e12, "replicas_max": 4000}},
                  {"id": 2, "rack": "b", "capacity": {"disk_bytes": 5e11}}, {"id": 3}],
      "topics": [{"name": "z", "partitions": 8, "traffic": {"bytes_in_per_s": 1000, "skew": {"kind": "zipf", "s": 1.1}}},
                 {"name": "l", "partitions": 4, "traffic": {"skew": {"kind": "lognormal", "sigma": 0.5}}},
                 {"name": "plain"}],
      "events": [{"at": "60s", "fence_broker": 2}, {"at": "90s", "unfence_broker": 2},
                 {"at": "2m", "add_broker": {"id": 4, "rack": "c", "capacity": {"replicas_max": 100}}},
                 {"at": "3m", "create_topic": {"name": "n", "partitions": 2, "traffic": {"skew": {"kind": "zipf"}}}}]
    })";
    events::Result<Scenario> s = parse_scenario_json(json, "test.json");
    ASSERT_TRUE(s.ok()) << s.error().message;
    const BrokerCapacity& one = s->brokers[0].capacity;
    EXPECT_EQ(one.network_in_bytes_per_s, 104857600);
    EXPECT_EQ(one.network_out_bytes_per_s, 209715200);
    EXPECT_EQ(one.disk_bytes, 1e12);
    EXPECT_EQ(one.replicas_max, 4000);
    EXPECT_EQ(s->brokers[1].capacity.disk_bytes, 5e11);
    EXPECT_EQ(s->brokers[1].capacity.network_in_bytes_per_s, -1) << "not given";
    EXPECT_FALSE(s->brokers[2].capacity.given());
    EXPECT_EQ(s->topics[0].skew.kind, TrafficSkew::Kind::zipf);
    EXPECT_EQ(s->topics[0].skew.s, 1.1);
    EXPECT_EQ(s->topics[0].traffic.bytes_in_per_s, 1000);
    EXPECT_EQ(s->topics[1].skew.kind, TrafficSkew::Kind::lognormal);
    EXPECT_EQ(s->topics[1].skew.sigma, 0.5);
    EXPECT_EQ(s->topics[2].skew.kind, TrafficSkew::Kind::none);
    ASSERT_EQ(s->events.size(), 4u);
    EXPECT_EQ(s->events[0].kind, TimedEvent::Kind::fence_broker);
    EXPECT_EQ(s->events[0].broker_id, 2);
    EXPECT_EQ(s->events[1].kind, TimedEvent::Kind::unfence_broker);
    EXPECT_EQ(s->events[2].broker.capacity.replicas_max, 100);
    EXPECT_EQ(s->events[3].topic.skew.kind, TrafficSkew::Kind::zipf);
    EXPECT_EQ(s->events[3].topic.skew.s, 1) << "the default exponent";
}

TEST(SimScenario, ZipfWeightsAreTheRanksToTheMinusSInASeededOrder) {
    const TrafficSkew zipf{TrafficSkew::Kind::zipf, 1.1, 1};
    const std::vector<double> w = skew_weights(zipf, 7, "orders", 10);
    ASSERT_EQ(w.size(), 10u);
    double total = 0;
    for (double x : w) total += x;
    EXPECT_NEAR(total, 1, 1e-12);
    // The heaviest partition takes 10^1.1 (~12.6) times the lightest's share,
    // and the k-th heaviest 1/k^1.1 of the heaviest's.
    std::vector<double> sorted = w;
    std::sort(sorted.rbegin(), sorted.rend());
    EXPECT_NEAR(sorted.front() / sorted.back(), std::pow(10, 1.1), 1e-9);
    for (size_t k = 0; k < sorted.size(); k++) {
        EXPECT_NEAR(sorted[k] / sorted[0], 1 / std::pow(static_cast<double>(k + 1), 1.1), 1e-12) << "rank " << k + 1;
    }
    EXPECT_EQ(w, skew_weights(zipf, 7, "orders", 10)) << "a pure function of seed, topic and count";
    EXPECT_NE(w, skew_weights(zipf, 8, "orders", 10)) << "another seed deals the ranks otherwise";
    EXPECT_NE(w, skew_weights(zipf, 7, "clicks", 10)) << "another topic deals the ranks otherwise";
    const std::vector<double> flat = skew_weights(TrafficSkew{TrafficSkew::Kind::zipf, 0, 1}, 7, "orders", 4);
    for (double x : flat) EXPECT_DOUBLE_EQ(x, 0.25) << "s = 0: even";
    for (double x : skew_weights(TrafficSkew{}, 7, "orders", 4)) EXPECT_DOUBLE_EQ(x, 0.25) << "no skew: even";
}

TEST(SimScenario, LognormalWeightsHaveTheLogSpreadAsked) {
    const TrafficSkew lognormal{TrafficSkew::Kind::lognormal, 1, 1.0};
    const std::vector<double> w = skew_weights(lognormal, 3, "orders", 4000);
    ASSERT_EQ(w.size(), 4000u);
    double mean = 0;
    for (double x : w) {
        ASSERT_GT(x, 0);
        mean += std::log(x) / static_cast<double>(w.size());
    }
    double variance = 0;
    for (double x : w) variance += (std::log(x) - mean) * (std::log(x) - mean) / static_cast<double>(w.size() - 1);
    EXPECT_NEAR(std::sqrt(variance), 1.0, 0.05) << "sigma of the log-weights";
    EXPECT_EQ(w, skew_weights(lognormal, 3, "orders", 4000));
    EXPECT_NE(w, skew_weights(lognormal, 3, "clicks", 4000));
    const std::vector<double> narrow = skew_weights(TrafficSkew{TrafficSkew::Kind::lognormal, 1, 0.1}, 3, "orders", 100);
    EXPECT_LT(*std::max_element(narrow.begin(), narrow.end()) / *std::min_element(narrow.begin(), narrow.end()), 2.5)
        << "sigma 0.1: within e^(+-0.4) or so";
}

TEST(SimScenario, SkewMistakesAreNamed) {
    EXPECT_TRUE(contains(
        error_of(R"({"brokers": [{"id": 1}], "topics": [{"name": "t", "traffic": {"skew": {"kind": "pareto"}}}]})"),
        "test.json: topics[0].traffic.skew.kind: unknown skew 'pareto' (expected zipf or lognormal)"));
    EXPECT_TRUE(contains(
        error_of(R"({"brokers": [{"id": 1}], "topics": [{"name": "t", "traffic": {"skew": {"kind": "zipf", "sigma": 1}}}]})"),
        "topics[0].traffic.skew.sigma: unknown field (valid: kind, s)"));
    EXPECT_TRUE(contains(
        error_of(R"({"brokers": [{"id": 1}], "topics": [{"name": "t", "traffic": {"skew": {"kind": "zipf", "s": 11}}}]})"),
        "topics[0].traffic.skew.s: value 11 is out of range [0, 10]"));
    EXPECT_TRUE(contains(
        error_of(R"({"brokers": [{"id": 1}], "topics": [{"name": "t", "partitions": 2, "partition_weights": [1, 2],
                     "traffic": {"skew": {"kind": "zipf"}}}]})"),
        "topics[0].traffic.skew: partition_weights and traffic.skew both split the topic's traffic: give one"));
    EXPECT_TRUE(contains(
        error_of(R"({"brokers": [{"id": 1}], "topics": [{"name": "t"}],
                     "events": [{"at": "1s", "traffic": {"topic": "t", "set": {"skew": {"kind": "zipf"}}}}]})"),
        "events[0].traffic.set.skew: a skew splits a topic's traffic where the topic is defined"));
    EXPECT_TRUE(contains(error_of(R"({"brokers": [{"id": 1, "capacity": {"in": 5}}]})"),
                         "brokers[0].capacity.in: unknown field (valid: network_in_bytes_per_s, "
                         "network_out_bytes_per_s, disk_bytes, replicas_max)"));
    EXPECT_TRUE(contains(error_of(R"({"brokers": [{"id": 1}], "events": [{"at": "1s", "fence_broker": 2}]})"),
                         "events[0]: broker 2 is not defined"));
    EXPECT_TRUE(contains(error_of(R"({"brokers": [{"id": 1}], "events": [{"at": "1s", "fence_broker": 1, "stop_broker": 1}]})"),
                         "events[0]: an event does one thing: it has both stop_broker and fence_broker"));
}

TEST(SimScenario, EveryMistakeIsReportedNotOnlyTheFirst) {
    const std::string error = error_of(R"({
      "brokers": [{"id": 1, "rak": "a"}, {"id": 2}],
      "topics": [{"name": "t", "partitions": 2, "traffic": {"fanout": -1}}],
      "events": [{"at": "1s", "stop_broker": 7}]
    })");
    EXPECT_EQ(error,
              "test.json: brokers[0].rak: unknown field (valid: id, rack, running, capacity)\n"
              "test.json: topics[0].traffic.fanout: value -1 is out of range [0, 1000]\n"
              "test.json: events[0]: broker 7 is not defined");
}

TEST(SimScenario, AProblemIsNotReportedAgainThroughWhatFollowsFromIt) {
    // Broker 1's id cannot be read: the event naming broker 1 is not "not defined" on top.
    EXPECT_EQ(error_of(R"({"brokers": [{"id": "one"}], "events": [{"at": "1s", "stop_broker": 1}]})"),
              "test.json: brokers[0].id: expected an integer, got \"one\"");
    // Nor is a traffic change of a topic that could not be read.
    EXPECT_EQ(error_of(R"({"brokers": [{"id": 1}], "topics": [{"name": "t", "partitions": 0}],
                           "events": [{"at": "1s", "traffic": {"topic": "t", "scale": 2}}]})"),
              "test.json: topics[0].partitions: value 0 is out of range [1, 1000000]");
    // A long list is cut, and says how many more there were.
    std::string many = R"({"brokers": [{"id": 1}], "topics": [{"name": "t", "partitions": 60, "partition_weights": [)";
    for (int i = 0; i < 60; i++) many += i == 0 ? "-1" : ", -1";
    many += "]}]}";
    const std::string cut = error_of(many);
    EXPECT_EQ(std::count(cut.begin(), cut.end(), '\n'), 50) << cut;
    EXPECT_TRUE(contains(cut, "... and 10 more problems")) << cut;
}

}  // namespace
}  // namespace ballast::sim
