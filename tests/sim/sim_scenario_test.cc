/// Scenario files: what they may say, and the errors a person gets when a
/// file says something wrong (the field's JSON path, the value, what was
/// expected).

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace ballast::sim
