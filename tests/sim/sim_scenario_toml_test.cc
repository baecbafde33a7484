/// TOML scenario files: the same scenario as their JSON twins, field for
/// field, and errors that name the file, the line and the field.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "adapters/sim/sim_scenario.h"
#include "tests/support/temp_dir.h"

namespace ballast::sim {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

std::string toml_error(const std::string& toml) {
    events::Result<Scenario> s = parse_scenario_toml(toml, "test.toml");
    return s.ok() ? std::string("(parsed)") : s.error().message;
}

/// The fields a user would look at first, so a difference reads as one;
/// then the whole scenario, every field.
void expect_same(const Scenario& toml, const Scenario& json) {
    EXPECT_EQ(toml.name, json.name);
    EXPECT_EQ(toml.flavor, json.flavor);
    EXPECT_EQ(toml.seed, json.seed);
    EXPECT_EQ(toml.duration_ms, json.duration_ms);
    ASSERT_EQ(toml.brokers.size(), json.brokers.size());
    for (size_t i = 0; i < json.brokers.size(); i++) EXPECT_TRUE(toml.brokers[i] == json.brokers[i]) << "brokers[" << i << "]";
    ASSERT_EQ(toml.topics.size(), json.topics.size());
    for (size_t i = 0; i < json.topics.size(); i++) {
        EXPECT_EQ(toml.topics[i].assignment, json.topics[i].assignment) << "topics[" << i << "]";
        EXPECT_TRUE(toml.topics[i].traffic == json.topics[i].traffic) << "topics[" << i << "].traffic";
        EXPECT_TRUE(toml.topics[i] == json.topics[i]) << "topics[" << i << "]";
    }
    ASSERT_EQ(toml.events.size(), json.events.size());
    for (size_t i = 0; i < json.events.size(); i++) {
        EXPECT_EQ(toml.events[i].at_ms, json.events[i].at_ms) << "events[" << i << "]";
        EXPECT_EQ(toml.events[i].kind, json.events[i].kind) << "events[" << i << "]";
        EXPECT_TRUE(toml.events[i] == json.events[i]) << "events[" << i << "]";
    }
    EXPECT_EQ(toml.faults.engine_kills_ms, json.faults.engine_kills_ms);
    EXPECT_TRUE(toml.faults == json.faults);
    EXPECT_EQ(toml.settings, json.settings);
    EXPECT_TRUE(toml == json) << "a field not compared above differs";
}

TEST(SimScenarioToml, ReadsAsItsJsonTwinFieldForField) {
    const char* json = R"({
      "name": "twin", "description": "every kind of field", "flavor": "apache", "seed": 7,
      "duration": "10m", "report_interval": "10s", "session_timeout": 9000, "automq_move_time": "1.5s",
      "apache_throttle_bytes_per_s": 52428800,
      "settings": {"ballast.partition.cooldown.ms": 30000, "autobalancer.controller.enable": true,
                   "ballast.log.level": "off"},
      "brokers": [{"id": 1, "rack": "a"}, {"id": 2, "rack": "b"}, {"id": 3, "rack": "c", "running": false}],
      "topics": [{"name": "t", "partitions": 3, "replication_factor": 2,
                  "assignment": [[1, 2], [2, 1], [1, 2]], "partition_weights": [1, 2.5, 0.5],
                  "initial_size_bytes": 1073741824, "retention_bytes": 4294967296,
                  "traffic": {"profile": "ramp", "bytes_in_per_s": 1048576, "to_bytes_in_per_s": 2097152,
                              "at": "2m", "until": "4m", "fanout": 2, "record_bytes": 512}}],
      "events": [{"at": "3m", "start_broker": 3}, {"at": "60s", "stop_broker": 2},
                 {"at": "4m", "traffic": {"topic": "t", "led_by": 1, "scale": 2}},
                 {"at": "4m", "traffic": {"topic": "t", "partitions": [0, 1],
                                          "set": {"profile": "diurnal", "bytes_in_per_s": 1000, "period": "1h",
                                                  "amplitude": 0.25}}},
                 {"at": "5m", "add_broker": {"id": 4, "rack": "d"}}, {"at": "6m", "drain_broker": 1},
                 {"at": "7m", "create_topic": {"name": "u", "partitions": 2,
                                               "traffic": {"profile": "random_walk", "bytes_in_per_s": 5000, "sigma": 0.1}}},
                 {"at": "8m", "delete_topic": "u"}, {"at": "8m", "pause": true}, {"at": "9m", "resume": true},
                 {"at": "9m", "remove_broker": 2}],
      "faults": {"submit_failure_ratio": 0.1, "stuck_ratio": 0.02, "admin_delay": "2s", "metrics_loss_ratio": 0.05,
                 "metrics_late_ratio": 0.05, "metrics_late_by": "15s", "engine_kills": ["90s", 240000], "until": "8m"}
    })";
    // The same, as a person would write it in TOML: tables, arrays of
    // tables, inline tables, comments, and unquoted dotted settings keys.
    const char* toml = R"(
name = "twin"
description = "every kind of field"
flavor = "apache"
seed = 7
duration = "10m"
report_interval = "10s"
session_timeout = 9000          # a bare number is ms, as in JSON
automq_move_time = "1.5s"
apache_throttle_bytes_per_s = 52428800

[settings]
ballast.partition.cooldown.ms = 30000
"autobalancer.controller.enable" = true
ballast.log.level = "off"

[[brokers]]
id = 1
rack = "a"
[[brokers]]
id = 2
rack = "b"
[[brokers]]
id = 3
rack = "c"
running = false

[[topics]]
name = "t"
partitions = 3
replication_factor = 2
assignment = [[1, 2], [2, 1], [1, 2]]
partition_weights = [1, 2.5, 0.5]
initial_size_bytes = 1073741824
retention_bytes = 4294967296
[topics.traffic]
profile = "ramp"
bytes_in_per_s = 1048576
to_bytes_in_per_s = 2097152
at = "2m"
until = "4m"
fanout = 2
record_bytes = 512

[[events]]
at = "3m"
start_broker = 3
[[events]]
at = "60s"
stop_broker = 2
[[events]]
at = "4m"
traffic = { topic = "t", led_by = 1, scale = 2 }
[[events]]
at = "4m"
traffic.topic = "t"
traffic.partitions = [0, 1]
traffic.set = { profile = "diurnal", bytes_in_per_s = 1000, period = "1h", amplitude = 0.25 }
[[events]]
at = "5m"
add_broker = { id = 4, rack = "d" }
[[events]]
at = "6m"
drain_broker = 1
[[events]]
at = "7m"
create_topic = { name = "u", partitions = 2, traffic = { profile = "random_walk", bytes_in_per_s = 5000, sigma = 0.1 } }
[[events]]
at = "8m"
delete_topic = "u"
[[events]]
at = "8m"
pause = true
[[events]]
at = "9m"
resume = true
[[events]]
at = "9m"
remove_broker = 2

[faults]
submit_failure_ratio = 0.1
stuck_ratio = 0.02
admin_delay = "2s"
metrics_loss_ratio = 0.05
metrics_late_ratio = 0.05
metrics_late_by = "15s"
engine_kills = ["90s", 240000]
until = "8m"
)";
    events::Result<Scenario> from_json = parse_scenario_json(json, "twin.json");
    ASSERT_TRUE(from_json.ok()) << from_json.error().message;
    events::Result<Scenario> from_toml = parse_scenario_toml(toml, "twin.toml");
    ASSERT_TRUE(from_toml.ok()) << from_toml.error().message;
    expect_same(*from_toml, *from_json);
    // Spot checks that the twin says what it seems to.
    EXPECT_EQ(from_toml->events.front().kind, TimedEvent::Kind::stop_broker) << "sorted by time";
    EXPECT_EQ(from_toml->topics[0].traffic.until_ms, 240'000);
    EXPECT_EQ(from_toml->faults.engine_kills_ms, (std::vector<int64_t>{90'000, 240'000}));
    EXPECT_EQ(from_toml->settings.at("ballast.partition.cooldown.ms"), "30000");
    EXPECT_EQ(from_toml->settings.at("autobalancer.controller.enable"), "true");
}

TEST(SimScenarioToml, SkewsCapacitiesAndFencesReadAsTheirJsonTwin) {
    const char* json = R"({
      "duration": "10m",
      "brokers": [{"id": 1, "rack": "a", "capacity": {"network_in_bytes_per_s": 104857600,
                   "network_out_bytes_per_s": 209715200, "disk_bytes": 1e12, "replicas_max": 4000}},
                  {"id": 2, "rack": "b"}],
      "topics": [{"name": "z", "partitions": 8, "traffic": {"bytes_in_per_s": 1000, "skew": {"kind": "zipf", "s": 1.1}}},
                 {"name": "l", "partitions": 4, "traffic": {"skew": {"kind": "lognormal", "sigma": 0.5}}}],
      "events": [{"at": "60s", "fence_broker": 2}, {"at": "90s", "unfence_broker": 2},
                 {"at": "2m", "add_broker": {"id": 3, "rack": "c", "capacity": {"replicas_max": 100}}}]
    })";
    const char* toml = R"(
duration = "10m"

[[brokers]]
id = 1
rack = "a"
capacity = { network_in_bytes_per_s = 104857600, network_out_bytes_per_s = 209715200, disk_bytes = 1e12, replicas_max = 4000 }
[[brokers]]
id = 2
rack = "b"

[[topics]]
name = "z"
partitions = 8
traffic = { bytes_in_per_s = 1000, skew = { kind = "zipf", s = 1.1 } }
[[topics]]
name = "l"
partitions = 4
[topics.traffic.skew]
kind = "lognormal"
sigma = 0.5

[[events]]
at = "60s"
fence_broker = 2
[[events]]
at = "90s"
unfence_broker = 2
[[events]]
at = "2m"
add_broker = { id = 3, rack = "c", capacity = { replicas_max = 100 } }
)";
    events::Result<Scenario> from_json = parse_scenario_json(json, "twin.json");
    ASSERT_TRUE(from_json.ok()) << from_json.error().message;
    events::Result<Scenario> from_toml = parse_scenario_toml(toml, "twin.toml");
    ASSERT_TRUE(from_toml.ok()) << from_toml.error().message;
    expect_same(*from_toml, *from_json);
    EXPECT_EQ(from_toml->brokers[0].capacity.disk_bytes, 1e12);
    EXPECT_EQ(from_toml->topics[1].skew.kind, TrafficSkew::Kind::lognormal);
    EXPECT_EQ(from_toml->events[0].kind, TimedEvent::Kind::fence_broker);
    EXPECT_EQ(from_toml->events[2].broker.capacity.replicas_max, 100);
}

TEST(SimScenarioToml, EveryMistakeIsReportedWithItsLine) {
    EXPECT_EQ(toml_error("[[brokers]]\nid = 1\nrak = \"a\"\n\n[[topics]]\nname = \"t\"\n"
                         "traffic = { skew = { kind = \"zipf\", s = -1 } }\n\n[[events]]\nat = \"1s\"\nfence_broker = 7\n"),
              "test.toml:3: brokers[0].rak: unknown field (valid: id, rack, running, capacity)\n"
              "test.toml:7: topics[0].traffic.skew.s: value -1 is out of range [0, 10]\n"
              "test.toml:9: events[0]: broker 7 is not defined");
}

TEST(SimScenarioToml, TheSeedScenariosReadAsTheirJsonTwins) {
    const char* dir = std::getenv("BALLAST_SCENARIOS_DIR");
    ASSERT_NE(dir, nullptr) << "BALLAST_SCENARIOS_DIR names adapters/sim/scenarios (meson sets it)";
    for (const std::string name : {"node-change", "traffic-skew"}) {
        events::Result<Scenario> json = load_scenario_file(std::string(dir) + "/" + name + ".json");
        ASSERT_TRUE(json.ok()) << json.error().message;
        events::Result<Scenario> toml = load_scenario_file(std::string(dir) + "/" + name + ".toml");
        ASSERT_TRUE(toml.ok()) << toml.error().message;
        SCOPED_TRACE(name);
        expect_same(*toml, *json);
    }
}

TEST(SimScenarioToml, DurationsAreWhatJsonTakes) {
    const auto at_of = [](const std::string& at) -> std::string {
        const std::string text = "duration = \"1h\"\n[[brokers]]\nid = 1\n[[events]]\nat = " + at + "\nstop_broker = 1\n";
        events::Result<Scenario> s = parse_scenario_toml(text, "test.toml");
        return s.ok() ? std::to_string(s->events[0].at_ms) : s.error().message;
    };
    EXPECT_EQ(at_of("\"60s\""), "60000");
    EXPECT_EQ(at_of("\"10m\""), "600000");
    EXPECT_EQ(at_of("\"1.5s\""), "1500");
    EXPECT_EQ(at_of("\"1500ms\""), "1500");
    EXPECT_EQ(at_of("90000"), "90000") << "a bare integer is ms";
    // As in JSON: a float is no number of ms, nor is a negative one.
    EXPECT_EQ(at_of("1500.0"), "test.toml:5: events[0].at: expected a duration (got 1500.0)");
    EXPECT_EQ(at_of("-5"), "test.toml:5: events[0].at: expected a duration (got -5)");
    EXPECT_TRUE(contains(at_of("\"soon\""), "test.toml:5: events[0].at: 'soon' is not a duration")) << at_of("\"soon\"");
    // TOML's own times are not durations, and the error says what is.
    const std::string time = at_of("00:01:00");
    EXPECT_TRUE(contains(time, "test.toml:5: events[0].at: a TOML date or time is no scenario value")) << time;
    EXPECT_TRUE(contains(time, "\"90s\"")) << time;
}

TEST(SimScenarioToml, ASyntaxErrorNamesTheFileLineAndColumn) {
    const std::string error = toml_error("name = \"x\"\nduration = \n[[brokers]]\nid = 1\n");
    EXPECT_TRUE(contains(error, "test.toml:2:")) << error;
    EXPECT_TRUE(contains(error, ": not TOML: ")) << error;
    const std::string unclosed = toml_error("[[brokers]]\nid = 1\n\n[[topics]\nname = \"t\"\n");
    EXPECT_TRUE(contains(unclosed, "test.toml:4:")) << unclosed;
}

TEST(SimScenarioToml, SyntaxErrorsInSeveralTablesAreAllNamed) {
    const std::string toml =
        "name = \"x\"\n"             // 1
        "[[brokers]]\n"              // 2
        "id = \n"                    // 3: no value
        "rack = \"a\"\n"             // 4
        "[[brokers]]\n"              // 5
        "id = 2\n"                   // 6
        "rack = \"b\n"               // 7: unclosed string
        "[[topics]]\n"               // 8
        "name = \"t\"\n"             // 9
        "partitions = [1, 2\n"       // 10: unclosed array, seen at the header below
        "[[topics]]\n"               // 11
        "name = \"u\"\n"             // 12
        "[settings]\n"               // 13
        "\"ballast.x\" = 1 2\n";      // 14: two values
    const std::string error = toml_error(toml);
    const std::vector<std::string> lines = split_lines(error);
    ASSERT_EQ(lines.size(), 4u) << error;
    EXPECT_TRUE(lines[0].starts_with("test.toml:3:")) << error;
    EXPECT_TRUE(lines[1].starts_with("test.toml:7:")) << error;
    EXPECT_TRUE(lines[2].starts_with("test.toml:11:1:")) << error;
    EXPECT_TRUE(lines[3].starts_with("test.toml:14:")) << error;
    for (const std::string& line : lines) EXPECT_TRUE(contains(line, ": not TOML: ")) << line;
}

TEST(SimScenarioToml, ASyntaxErrorIsNamedOnceWhenTheRestOfItsTableFollowsFromIt) {
    // The unclosed string runs on through the table's next lines: those are
    // not errors of their own, and the tables after it are clean.
    const std::string error =
        toml_error("[[brokers]]\nid = 1\nrack = \"a\nweight = 2\nzone = \"q\"\n[[brokers]]\nid = 2\n[[topics]]\nname = \"t\"\n");
    const std::vector<std::string> lines = split_lines(error);
    ASSERT_EQ(lines.size(), 1u) << error;
    EXPECT_TRUE(lines[0].starts_with("test.toml:3:")) << error;
}

TEST(SimScenarioToml, AWrongTypedKeyIsNamedWithItsLine) {
    EXPECT_EQ(toml_error("[[brokers]]\nid = 1\n\n[[brokers]]\nid = \"two\"\n"),
              "test.toml:5: brokers[1].id: expected an integer, got \"two\"");
    EXPECT_EQ(toml_error("seed = 1\nflavor = 3\n[[brokers]]\nid = 1\n"), "test.toml:2: flavor: expected a string");
    EXPECT_EQ(toml_error("[[brokers]]\nid = 1\n[[topics]]\nname = \"t\"\ntraffic = { profile = \"step\", at = true }\n"),
              "test.toml:5: topics[0].traffic.at: expected a duration (got true)");
    EXPECT_EQ(toml_error("[[brokers]]\nid = 1\n[settings]\n\"ballast.goals\" = [\"RackAwareGoal\"]\n"),
              "test.toml:4: settings.ballast.goals: expected a string, number or boolean");
}

TEST(SimScenarioToml, SchemaErrorsNameTheLineOfTheFieldOrOfItsTable) {
    // An unknown field: its own line, and the fields that are valid there.
    EXPECT_EQ(toml_error("flavour = \"automq\"\n[[brokers]]\nid = 1\n"),
              "test.toml:1: flavour: unknown field (valid: name, description, flavor, seed, duration, tick_interval, "
              "report_interval, session_timeout, automq_move_time, apache_throttle_bytes_per_s, "
              "leader_election_time, brokers, topics, events, faults, settings)");
    // A missing field: the line of the table that lacks it.
    EXPECT_EQ(toml_error("[[brokers]]\nid = 1\n\n[[topics]]\npartitions = 3\n"),
              "test.toml:4: topics[0].name: a topic needs a name");
    // Checks across fields name the event in file order (the second one
    // here, though it is the first in time) and its line.
    EXPECT_EQ(toml_error("[[brokers]]\nid = 1\n[[events]]\nat = \"3m\"\nstart_broker = 1\n[[events]]\nat = \"60s\"\nstop_broker = 7\n"),
              "test.toml:6: events[1]: broker 7 is not defined");
    // Nothing to point at: no line.
    EXPECT_EQ(toml_error("name = \"x\"\n"), "test.toml: brokers: a scenario needs brokers");
    // The same setting twice (dotted and quoted) is one key given twice.
    EXPECT_TRUE(contains(toml_error("[[brokers]]\nid = 1\n[settings]\na.b = 1\n\"a.b\" = 2\n"),
                         "settings.a.b: given twice"));
}

TEST(SimScenarioToml, TheFileExtensionPicksTheFormat) {
    testing::TempDir dir;
    const std::string body = "[[brokers]]\nid = 1\n";
    std::ofstream(dir / "one.toml") << body;
    std::ofstream(dir / "one.TOML") << body;
    std::ofstream(dir / "one.json") << body;  // TOML in a .json file: read as JSON, and refused
    std::ofstream(dir / "one.yaml") << body;
    std::ofstream(dir / "one") << body;
    EXPECT_TRUE(load_scenario_file(dir / "one.toml").ok());
    EXPECT_TRUE(load_scenario_file(dir / "one.TOML").ok());
    events::Result<Scenario> json = load_scenario_file(dir / "one.json");
    ASSERT_FALSE(json.ok());
    EXPECT_TRUE(contains(json.error().message, dir / "one.json: not JSON at byte")) << json.error().message;
    events::Result<Scenario> yaml = load_scenario_file(dir / "one.yaml");
    ASSERT_FALSE(yaml.ok());
    EXPECT_EQ(yaml.error().message,
              "scenario file " + (dir / "one.yaml") + ": unknown extension .yaml (a scenario is a .json or a .toml file)");
    events::Result<Scenario> bare = load_scenario_file(dir / "one");
    ASSERT_FALSE(bare.ok());
    EXPECT_EQ(bare.error().message,
              "scenario file " + (dir / "one") + ": no extension (a scenario is a .json or a .toml file)");
    events::Result<Scenario> missing = load_scenario_file(dir / "none.toml");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().message, "scenario file " + (dir / "none.toml") + ": cannot be opened");
}

}  // namespace
}  // namespace ballast::sim
