#include "events/config.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "tests/unit/config_test_support.h"

namespace ballast::events {
namespace {

// GoogleTest reserves '_' in test names, so suites and tests are CamelCase here.

// ------------------------------------------------------------ the registry

TEST(ConfigKeys, AreUniqueFindableAndInDocumentedOrder) {
    const std::vector<KeySpec>& keys = config_keys();
    ASSERT_GE(keys.size(), 25u);
    EXPECT_EQ(keys.front().key, "autobalancer.controller.enable");
    // AutoMQ's 14 keys first, then Ballast's own.
    EXPECT_EQ(keys[13].key, "autobalancer.controller.network.out.trivial.change.ratio");
    EXPECT_EQ(keys[14].key, "ballast.journal.path");
    // Then the Kafka client's, which are never journaled.
    size_t i = 14;
    for (; i < keys.size() && keys[i].journaled; i++) {
        EXPECT_EQ(keys[i].key.substr(0, 8), "ballast.") << keys[i].key;
    }
    EXPECT_EQ(keys[i - 1].key, "ballast.log.level");
    // Then the HTTP API's, this process's alone: never journaled either.
    for (; i < keys.size() && keys[i].key.starts_with("ballast.http."); i++) {
        EXPECT_FALSE(keys[i].journaled) << keys[i].key;
        EXPECT_TRUE(keys[i].start_only) << keys[i].key;
    }
    EXPECT_EQ(keys[i - 1].key, "ballast.http.auth.token.file");
    EXPECT_EQ(keys[i].key, "kafka.security.protocol");
    for (; i < keys.size(); i++) {
        EXPECT_EQ(keys[i].key.substr(0, 6), "kafka.") << keys[i].key;
        EXPECT_FALSE(keys[i].journaled) << keys[i].key;
        EXPECT_TRUE(keys[i].start_only) << keys[i].key;
    }
    std::set<std::string_view> seen;
    for (const KeySpec& spec : keys) {
        EXPECT_TRUE(seen.insert(spec.key).second) << "duplicate key " << spec.key;
        EXPECT_EQ(find_key(spec.key), &spec);
        EXPECT_FALSE(spec.description.empty()) << spec.key;
    }
    EXPECT_EQ(find_key("ballast.no.such.key"), nullptr);
    EXPECT_EQ(find_key(""), nullptr);
}

TEST(ConfigKeys, EveryDefaultParsesCanonicallyAndRoundTrips) {
    const Config defaults = Config::defaults();
    for (const KeySpec& spec : config_keys()) {
        SCOPED_TRACE(std::string(spec.key));
        EXPECT_EQ(defaults.value_text(spec.key), spec.default_value);
        EXPECT_EQ(defaults.origin(spec.key), "default");

        Config config = Config::defaults();
        const std::string text = config.value_text(spec.key);
        ASSERT_TRUE(config.set(spec.key, text).ok());
        EXPECT_EQ(config.value_text(spec.key), text);
        EXPECT_EQ(config.origin(spec.key), "--set");
    }
}

TEST(ConfigKeys, TypedGettersReturnDocumentedDefaults) {
    const Config config = Config::defaults();
    EXPECT_TRUE(config.get_bool("autobalancer.controller.enable"));
    EXPECT_TRUE(config.get_bool("ballast.journal.sync"));
    EXPECT_EQ(config.get_int64("autobalancer.controller.anomaly.detect.interval.ms"), 60000);
    EXPECT_EQ(config.get_int64("autobalancer.controller.execution.interval.ms"), 5000);
    EXPECT_EQ(config.get_int32("autobalancer.controller.execution.concurrency"), 50);
    EXPECT_EQ(
        config.get_int64("autobalancer.controller.network.in.usage.distribution.detect.threshold"),
        1048576);
    EXPECT_EQ(config.get_int64("ballast.journal.retention.ms"), 604800000);
    EXPECT_EQ(config.get_int64("ballast.journal.retention.bytes"), int64_t{10} << 30);
    EXPECT_EQ(config.get_int64("ballast.snapshot.interval.events"), 100000);
    EXPECT_EQ(config.get_int32("ballast.broker.max.inflight.moves"), 5);
    EXPECT_EQ(config.get_int64("ballast.action.timeout.ms"), 600000);
    EXPECT_DOUBLE_EQ(config.get_double("ballast.capacity.threshold"), 0.8);
    EXPECT_DOUBLE_EQ(
        config.get_double("autobalancer.controller.network.in.trivial.change.ratio"), 0.05);
    EXPECT_EQ(config.get_string("ballast.journal.path"), "ballast-journal");
    EXPECT_EQ(config.get_string("ballast.cluster.flavor"), "apache");
    EXPECT_EQ(config.get_string("ballast.log.level"), "info");
    EXPECT_EQ(config.get_int64("ballast.tick.interval.ms"), 1000);
    EXPECT_EQ(config.get_int64("ballast.metadata.poll.ms"), 1000);
    EXPECT_EQ(config.get_int64("ballast.metadata.poll.sweep.ms"), 60000);
    EXPECT_EQ(config.get_string_list("ballast.metrics.source"), std::vector<std::string>{"sampler"});
    EXPECT_EQ(config.get_int64("ballast.metrics.sample.interval.ms"), 10000);
    EXPECT_EQ(config.get_string("ballast.metrics.automq.topic"), "__auto_balancer_metrics");
    EXPECT_EQ(config.get_string("ballast.metrics.cruise.control.topic"), "__CruiseControlMetrics");
    EXPECT_TRUE(config.get_int_list("autobalancer.controller.exclude.broker.ids").empty());
    EXPECT_TRUE(config.get_string_list("autobalancer.controller.exclude.topics").empty());
    const std::vector<std::string> goals = config.get_goals();
    ASSERT_EQ(goals.size(), 10u);
    EXPECT_EQ(goals.front(), "RackAwareGoal");
    EXPECT_EQ(goals.back(), "TopicSpreadGoal");
    EXPECT_EQ(goals, std::vector<std::string>(known_goals().begin(), known_goals().end()));
}

#ifndef NDEBUG
TEST(ConfigKeysDeathTest, AskingForAMissingKeyOrWrongTypeIsAProgrammingError) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    const Config config = Config::defaults();
    EXPECT_DEATH((void)config.get_bool("ballast.no.such.key"), "no such config key");
    EXPECT_DEATH((void)config.get_int32("ballast.journal.sync"), "wrong getter");
    EXPECT_DEATH((void)config.get_int64("autobalancer.controller.execution.concurrency"),
                 "wrong getter");
}
#endif

// ------------------------------------------------------------ values by type

TEST(ConfigValues, BooleansAreTrueOrFalseInAnyCase) {
    Config config = Config::defaults();
    ASSERT_TRUE(config.set("ballast.journal.sync", "FALSE").ok());
    EXPECT_FALSE(config.get_bool("ballast.journal.sync"));
    EXPECT_EQ(config.value_text("ballast.journal.sync"), "false");
    ASSERT_TRUE(config.set("ballast.journal.sync", "True").ok());
    EXPECT_TRUE(config.get_bool("ballast.journal.sync"));
    EXPECT_EQ(config.value_text("ballast.journal.sync"), "true");

    EXPECT_EQ(set_message(config, "ballast.journal.sync", "maybe"),
              "config key 'ballast.journal.sync': value 'maybe' is not a boolean (expected true "
              "or false)");
    for (const char* bad : {"1", "0", "yes", "on", "", " true", "truee"}) {
        EXPECT_TRUE(contains(set_message(config, "ballast.journal.sync", bad), "is not a boolean"))
            << bad;
    }
    Status status = config.set("ballast.journal.sync", "maybe");
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().code, ErrorCode::invalid_argument);
}

TEST(ConfigValues, Int32AcceptsItsBoundsAndRejectsTheRest) {
    const char* key = "autobalancer.controller.execution.concurrency";
    Config config = Config::defaults();
    for (auto [text, value] : std::vector<std::pair<const char*, int32_t>>{
             {"1", 1}, {"100000", 100000}, {"+7", 7}, {"007", 7}}) {
        ASSERT_TRUE(config.set(key, text).ok()) << text;
        EXPECT_EQ(config.get_int32(key), value);
    }
    EXPECT_EQ(config.value_text(key), "7");  // canonical: no sign, no leading zeros

    EXPECT_EQ(set_message(config, key, "abc"),
              "config key 'autobalancer.controller.execution.concurrency': value 'abc' is not an "
              "integer (expected an integer in [1, 100000])");
    EXPECT_EQ(set_message(config, key, "0"),
              "config key 'autobalancer.controller.execution.concurrency': value '0' is out of "
              "range (expected an integer in [1, 100000])");
    EXPECT_TRUE(contains(set_message(config, key, "100001"), "value '100001' is out of range"));
    EXPECT_TRUE(contains(set_message(config, key, "-5"), "value '-5' is out of range"));
    EXPECT_TRUE(contains(set_message(config, key, "99999999999999999999"), "is out of range"));
    for (const char* bad :
         {"", "12abc", " 5", "5 ", "1.5", "0x10", "1e3", "+", "-", "+-5", "++5"}) {
        EXPECT_TRUE(contains(set_message(config, key, bad), "is not an integer")) << bad;
    }
    EXPECT_EQ(config.get_int32(key), 7);  // failed sets changed nothing
}

TEST(ConfigValues, Int64AcceptsItsBoundsAndRejectsOverflow) {
    const char* key = "ballast.journal.retention.ms";
    Config config = Config::defaults();
    ASSERT_TRUE(config.set(key, "0").ok());
    EXPECT_EQ(config.get_int64(key), 0);
    ASSERT_TRUE(config.set(key, "4611686018427387904").ok());  // 2^62
    EXPECT_EQ(config.get_int64(key), int64_t{1} << 62);

    EXPECT_EQ(set_message(config, key, "4611686018427387905"),
              "config key 'ballast.journal.retention.ms': value '4611686018427387905' is out of "
              "range (expected an integer in [0, 4611686018427387904])");
    EXPECT_TRUE(contains(set_message(config, key, "9223372036854775808"), "is out of range"));
    EXPECT_TRUE(contains(set_message(config, key, "-1"), "is out of range"));

    const char* timeout = "ballast.action.timeout.ms";
    ASSERT_TRUE(config.set(timeout, "1000").ok());
    ASSERT_TRUE(config.set(timeout, "86400000").ok());
    EXPECT_EQ(set_message(config, timeout, "999"),
              "config key 'ballast.action.timeout.ms': value '999' is out of range (expected an "
              "integer in [1000, 86400000])");
    EXPECT_TRUE(contains(set_message(config, timeout, "86400001"), "is out of range"));

    // 0 is "no size bound", not "keep nothing"; a negative size is refused.
    const char* size = "ballast.journal.retention.bytes";
    ASSERT_TRUE(config.set(size, "0").ok());
    EXPECT_EQ(config.get_int64(size), 0);
    EXPECT_EQ(set_message(config, size, "-1"),
              "config key 'ballast.journal.retention.bytes': value '-1' is out of range (expected an "
              "integer in [0, 4611686018427387904])");
}

TEST(ConfigValues, DoublesAreFiniteAndBounded) {
    const char* key = "ballast.capacity.threshold";
    Config config = Config::defaults();
    for (auto [text, value] : std::vector<std::pair<const char*, double>>{{"0.01", 0.01},
                                                                          {"1", 1.0},
                                                                          {"0.5", 0.5},
                                                                          {"1e-1", 0.1},
                                                                          {"+0.25", 0.25},
                                                                          {".75", 0.75}}) {
        ASSERT_TRUE(config.set(key, text).ok()) << text;
        EXPECT_DOUBLE_EQ(config.get_double(key), value);
    }
    EXPECT_EQ(config.value_text(key), "0.75");

    EXPECT_EQ(set_message(config, key, "0.009"),
              "config key 'ballast.capacity.threshold': value '0.009' is out of range (expected a "
              "number in [0.01, 1])");
    EXPECT_EQ(set_message(config, key, "abc"),
              "config key 'ballast.capacity.threshold': value 'abc' is not a number (expected a "
              "number in [0.01, 1])");
    for (const char* bad : {"", "nan", "inf", "-inf", "0.5x", " 0.5", "0x1p-1", "1,5"}) {
        EXPECT_TRUE(contains(set_message(config, key, bad), "is not a number")) << bad;
    }
    EXPECT_TRUE(contains(set_message(config, key, "1e400"), "is out of range"));
    EXPECT_TRUE(contains(set_message(config, key, "1.0000001"), "is out of range"));

    const char* deviation = "autobalancer.controller.network.in.distribution.detect.avg.deviation";
    ASSERT_TRUE(config.set(deviation, "0").ok());
    EXPECT_EQ(config.get_double(deviation), 0.0);
    EXPECT_TRUE(contains(set_message(config, deviation, "-0.1"),
                "value '-0.1' is out of range (expected a number in [0, 1])"));
}

TEST(ConfigValues, StringsKeepTheirTextAndJournalPathMustNotBeEmpty) {
    Config config = Config::defaults();
    ASSERT_TRUE(config.set("ballast.journal.path", "/var/lib/ballast/my journal").ok());
    EXPECT_EQ(config.get_string("ballast.journal.path"), "/var/lib/ballast/my journal");
    EXPECT_EQ(set_message(config, "ballast.journal.path", ""),
              "config key 'ballast.journal.path': value '' is empty (expected a non-empty string)");
}

TEST(ConfigValues, ChoicesAreCaseInsensitiveAndStoredCanonically) {
    Config config = Config::defaults();
    ASSERT_TRUE(config.set("ballast.cluster.flavor", "AutoMQ").ok());
    EXPECT_EQ(config.get_string("ballast.cluster.flavor"), "automq");
    EXPECT_EQ(config.value_text("ballast.cluster.flavor"), "automq");
    EXPECT_EQ(set_message(config, "ballast.cluster.flavor", "kafka"),
              "config key 'ballast.cluster.flavor': value 'kafka' is not one of: apache, automq");
    for (const char* level : {"trace", "debug", "info", "warn", "error", "critical", "off"}) {
        ASSERT_TRUE(config.set("ballast.log.level", level).ok()) << level;
        EXPECT_EQ(config.get_string("ballast.log.level"), level);
    }
    EXPECT_TRUE(contains(set_message(config, "ballast.log.level", "warning"),
                "is not one of: trace, debug, info, warn, error, critical, off"));
}

TEST(ConfigValues, IntListsTrimElementsAndRejectBadOnes) {
    const char* key = "autobalancer.controller.exclude.broker.ids";
    Config config = Config::defaults();
    ASSERT_TRUE(config.set(key, " 1, 2 ,3").ok());
    EXPECT_EQ(config.get_int_list(key), (std::vector<int32_t>{1, 2, 3}));
    EXPECT_EQ(config.value_text(key), "1,2,3");
    ASSERT_TRUE(config.set(key, "0,2147483647").ok());
    EXPECT_EQ(config.get_int_list(key), (std::vector<int32_t>{0, 2147483647}));
    ASSERT_TRUE(config.set(key, "").ok());
    EXPECT_TRUE(config.get_int_list(key).empty());
    ASSERT_TRUE(config.set(key, "  ").ok());
    EXPECT_TRUE(config.get_int_list(key).empty());

    EXPECT_EQ(set_message(config, key, "1,x,3"),
              "config key 'autobalancer.controller.exclude.broker.ids': value '1,x,3' has a bad "
              "element 'x' (expected a comma-separated list of integers)");
    EXPECT_TRUE(contains(set_message(config, key, "1,,3"),
                "value '1,,3' has an empty element (expected a comma-separated list of integers)"));
    EXPECT_TRUE(contains(set_message(config, key, "1,"), "has an empty element"));
    EXPECT_TRUE(contains(set_message(config, key, "1,-1"),
                "has an element '-1' out of range (expected integers in [0, 2147483647])"));
    EXPECT_TRUE(contains(set_message(config, key, "2147483648"), "out of range"));
}

TEST(ConfigValues, StringListsTrimElementsAndRejectEmptyOnes) {
    const char* key = "autobalancer.controller.exclude.topics";
    Config config = Config::defaults();
    ASSERT_TRUE(config.set(key, "orders, payments ,__consumer_offsets").ok());
    EXPECT_EQ(config.get_string_list(key),
              (std::vector<std::string>{"orders", "payments", "__consumer_offsets"}));
    EXPECT_EQ(config.value_text(key), "orders,payments,__consumer_offsets");
    EXPECT_TRUE(contains(set_message(config, key, "a,,b"), "value 'a,,b' has an empty element"));
    ASSERT_TRUE(config.set(key, "").ok());
    EXPECT_TRUE(config.get_string_list(key).empty());
}

TEST(ConfigValues, MetricsSourcesAreKnownNamesAndMayBeCombined) {
    const char* key = "ballast.metrics.source";
    Config config = Config::defaults();
    ASSERT_TRUE(config.set(key, "sampler, cruise-control,automq").ok());
    EXPECT_EQ(config.get_string_list(key),
              (std::vector<std::string>{"sampler", "cruise-control", "automq"}));
    EXPECT_EQ(set_message(config, key, "sampler,jmx"),
              "config key 'ballast.metrics.source': value 'sampler,jmx' has a bad element 'jmx' "
              "(expected sampler, automq or cruise-control)");
    EXPECT_TRUE(contains(set_message(config, key, "cruise_control"), "bad element 'cruise_control'"));
    EXPECT_EQ(config.get_string_list(key).size(), 3u) << "a rejected value changes nothing";
    ASSERT_TRUE(config.set(key, "").ok()) << "no source: plan on counts only";
    EXPECT_TRUE(config.get_string_list(key).empty());
}

TEST(ConfigValues, AdapterIntervalsAreBounded) {
    Config config = Config::defaults();
    ASSERT_TRUE(config.set("ballast.metadata.poll.ms", "250").ok());
    EXPECT_EQ(config.get_int64("ballast.metadata.poll.ms"), 250);
    EXPECT_TRUE(contains(set_message(config, "ballast.metadata.poll.ms", "0"), "out of range"));
    ASSERT_TRUE(config.set("ballast.metadata.poll.sweep.ms", "0").ok());
    EXPECT_EQ(config.get_int64("ballast.metadata.poll.sweep.ms"), 0);
    EXPECT_TRUE(contains(set_message(config, "ballast.metadata.poll.sweep.ms", "-1"), "out of range"));
    EXPECT_TRUE(contains(set_message(config, "ballast.tick.interval.ms", "5"), "out of range"));
    EXPECT_TRUE(contains(set_message(config, "ballast.tick.interval.ms", "60001"), "out of range"));
    EXPECT_TRUE(contains(set_message(config, "ballast.metrics.sample.interval.ms", "99"), "out of range"));
    EXPECT_TRUE(contains(set_message(config, "ballast.metrics.automq.topic", ""), "is empty"));
}

TEST(ConfigValues, CapacityOverridesParseEachFieldAndNameABadElement) {
    const char* key = "ballast.broker.capacity.overrides";
    Config config = Config::defaults();
    ASSERT_TRUE(config.set(key, "4:in=104857600:out=2e8:disk=1e12:replicas=4000, 5:in=52428800").ok());
    EXPECT_EQ(config.get_string_list(key).size(), 2u);
    Result<CapacityOverride> o = parse_capacity_override("4:in=104857600:out=2e8:disk=1e12:replicas=4000");
    ASSERT_TRUE(o.ok());
    EXPECT_EQ(o->broker_id, 4);
    EXPECT_EQ(o->network_in_bytes_per_s, 104857600.0);
    EXPECT_EQ(o->network_out_bytes_per_s, 2e8);
    EXPECT_EQ(o->disk_bytes, 1e12);
    EXPECT_EQ(o->replicas_max, 4000);
    o = parse_capacity_override("5:out=10");
    ASSERT_TRUE(o.ok());
    EXPECT_EQ(o->network_in_bytes_per_s, -1) << "a field not given keeps the default";
    EXPECT_TRUE(contains(set_message(config, key, "4:in=1,x:in=2"),
                         "has a bad element 'x:in=2' (expected ID:in=BYTES_PER_S"));
    EXPECT_TRUE(contains(set_message(config, key, "x:in=2"), "'x' is not a broker id"));
    EXPECT_TRUE(contains(set_message(config, key, "4:in=-5"), "'in=-5' is not name=non-negative number"));
    EXPECT_TRUE(contains(set_message(config, key, "4:cpu=5"), "'cpu=5' is not in=, out=, disk= or replicas="));
    EXPECT_TRUE(contains(set_message(config, key, "4:replicas=1.5"), "is not in=, out=, disk= or replicas="));
    EXPECT_EQ(config.get_string_list(key).size(), 2u) << "a rejected value changes nothing";
}

TEST(ConfigValues, PlannerActionsAreMoveSwapOrLeader) {
    const char* key = "ballast.planner.actions";
    Config config = Config::defaults();
    EXPECT_EQ(config.get_string_list(key), (std::vector<std::string>{"move", "swap", "leader"}));
    ASSERT_TRUE(config.set(key, "move").ok());
    EXPECT_TRUE(contains(set_message(config, key, "move,teleport"),
                         "has a bad element 'teleport' (expected move, swap or leader)"));
}

// ------------------------------------------------------------ goals

TEST(ConfigGoals, AutomqClassNamesAreNormalizedToShortNames) {
    Config config = Config::defaults();
    ASSERT_TRUE(config
                    .set("autobalancer.controller.goals",
                         "kafka.autobalancer.goals.NetworkInUsageDistributionGoal, RackAwareGoal,"
                         "kafka.autobalancer.goals.TopicSpreadGoal")
                    .ok());
    EXPECT_EQ(config.get_goals(), (std::vector<std::string>{"NetworkInUsageDistributionGoal",
                                                            "RackAwareGoal", "TopicSpreadGoal"}));
    EXPECT_EQ(config.value_text("autobalancer.controller.goals"),
              "NetworkInUsageDistributionGoal,RackAwareGoal,TopicSpreadGoal");
}

TEST(ConfigGoals, UnknownGoalIsNamedWithTheKnownOnes) {
    Config config = Config::defaults();
    const std::string message =
        set_message(config, "autobalancer.controller.goals", "RackAwareGoal,FooGoal");
    EXPECT_TRUE(contains(message, "config key 'autobalancer.controller.goals': value "
                                   "'RackAwareGoal,FooGoal' has an unknown goal 'FooGoal'"));
    EXPECT_TRUE(contains(message, "(known goals: RackAwareGoal, ReplicaCapacityGoal, "));
    EXPECT_TRUE(contains(message, "LeaderCountDistributionGoal, TopicSpreadGoal)"));
    EXPECT_TRUE(contains(set_message(config, "autobalancer.controller.goals",
                                     "kafka.autobalancer.goals.FooGoal"),
                "has an unknown goal 'kafka.autobalancer.goals.FooGoal'"));
    EXPECT_TRUE(contains(set_message(config, "autobalancer.controller.goals", "rackawaregoal"),
                "has an unknown goal 'rackawaregoal'"));  // class names are case-sensitive
}

TEST(ConfigGoals, DuplicateAndEmptyListsAreErrors) {
    Config config = Config::defaults();
    EXPECT_TRUE(contains(set_message(config, "autobalancer.controller.goals",
                            "RackAwareGoal,kafka.autobalancer.goals.RackAwareGoal"),
                "lists goal 'RackAwareGoal' twice"));
    EXPECT_TRUE(contains(set_message(config, "autobalancer.controller.goals", ""),
                "value '' is empty (expected at least one goal)"));
    EXPECT_TRUE(contains(set_message(config, "autobalancer.controller.goals",
                                     "RackAwareGoal,,TopicSpreadGoal"),
                "has an empty element"));
    EXPECT_EQ(config.get_goals().size(), 10u);
}

// ------------------------------------------------------------ unknown keys

TEST(ConfigUnknownKeys, SuggestTheClosestKnownKey) {
    Config config = Config::defaults();
    EXPECT_EQ(set_message(config, "ballast.jornal.path", "x"),
              "unknown config key 'ballast.jornal.path' (did you mean 'ballast.journal.path'?)");
    EXPECT_EQ(set_message(config, "autobalancer.controller.goal", "RackAwareGoal"),
              "unknown config key 'autobalancer.controller.goal' (did you mean "
              "'autobalancer.controller.goals'?)");
    EXPECT_EQ(set_message(config, "Ballast.Log.Level", "info"),
              "unknown config key 'Ballast.Log.Level' (did you mean 'ballast.log.level'?)");
}

TEST(ConfigUnknownKeys, FarFromEveryKeyHasNoHint) {
    Config config = Config::defaults();
    EXPECT_EQ(set_message(config, "completely.unrelated.setting", "1"),
              "unknown config key 'completely.unrelated.setting'");
    EXPECT_EQ(set_message(config, "foo", "1"), "unknown config key 'foo'");
    EXPECT_EQ(set_message(config, "", "1"), "unknown config key ''");
}

TEST(ConfigUnknownKeys, AHintUpToAThirdOfTheTypedCharacters) {
    Config config = Config::defaults();
    // 23 characters, 6 inserted: within a third.
    EXPECT_EQ(set_message(config, "ballast.log.levelxxxxxx", "info"),
              "unknown config key 'ballast.log.levelxxxxxx' (did you mean 'ballast.log.level'?)");
    // 17 characters, 6 changed: past a third.
    EXPECT_EQ(set_message(config, "xxxxxxt.log.level", "info"), "unknown config key 'xxxxxxt.log.level'");
}

TEST(ConfigUnknownKeys, AHugeKeyIsRefusedWithoutComparingItToEveryKey) {
    // A megabyte against ~100 keys of ~40 characters would be billions of steps.
    Config config = Config::defaults();
    const std::string key(1 << 20, 'k');
    const std::string message = set_message(config, key, "1");
    EXPECT_EQ(message.size(), key.size() + std::string("unknown config key ''").size());
}

// ------------------------------------------------------------ --set

TEST(ConfigOverride, AppliesKeyEqualsValue) {
    Config config = Config::defaults();
    ASSERT_TRUE(config.apply_override("ballast.log.level=debug").ok());
    EXPECT_EQ(config.get_string("ballast.log.level"), "debug");
    EXPECT_EQ(config.origin("ballast.log.level"), "--set");
    ASSERT_TRUE(config.apply_override("  ballast.log.level =  warn ").ok());
    EXPECT_EQ(config.get_string("ballast.log.level"), "warn");
}

TEST(ConfigOverride, ValueMayContainEquals) {
    Config config = Config::defaults();
    ASSERT_TRUE(config.apply_override("ballast.journal.path=/data/a=b").ok());
    EXPECT_EQ(config.get_string("ballast.journal.path"), "/data/a=b");
}

TEST(ConfigOverride, MissingEqualsNamesTheText) {
    Config config = Config::defaults();
    Status status = config.apply_override("ballast.journal.sync");
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().code, ErrorCode::invalid_argument);
    EXPECT_EQ(status.error().message, "--set 'ballast.journal.sync': expected key=value");
    EXPECT_TRUE(contains(config.apply_override("ballast.jornal.sync=true").error().message,
                "(did you mean 'ballast.journal.sync'?)"));
    EXPECT_TRUE(contains(config.apply_override("ballast.journal.sync=maybe").error().message,
                "value 'maybe' is not a boolean"));
}

// ------------------------------------------------------------ listing

std::size_t written_index(std::string_view key) {
    return static_cast<std::size_t>(find_key(key) - config_keys().data());
}

TEST(ConfigListing, EntriesListEveryKeyInOrder) {
    Config config = Config::defaults();
    ASSERT_TRUE(config.set("ballast.log.level", "warn").ok());
    const auto entries = config.entries();
    ASSERT_EQ(entries.size(), config_keys().size());
    for (std::size_t i = 0; i < entries.size(); ++i) {
        EXPECT_EQ(entries[i].first, config_keys()[i].key);
        EXPECT_EQ(entries[i].second, config.value_text(entries[i].first));
    }
    EXPECT_EQ(entries[written_index("ballast.log.level")],
              (std::pair<std::string, std::string>{"ballast.log.level", "warn"}));
}

TEST(ConfigListing, OriginReportsWhereEachValueCameFrom) {
    Config config = Config::defaults();
    ASSERT_EQ(load_message(config, "\n\nballast.log.level=debug\n", "ballast.properties"), "ok");
    ASSERT_TRUE(config.apply_override("ballast.journal.sync=false").ok());
    ASSERT_TRUE(config.set("ballast.cluster.flavor", "automq", "env").ok());
    EXPECT_EQ(config.origin("ballast.capacity.threshold"), "default");
    EXPECT_EQ(config.origin("ballast.log.level"), "ballast.properties:3");
    EXPECT_EQ(config.origin("ballast.journal.sync"), "--set");
    EXPECT_EQ(config.origin("ballast.cluster.flavor"), "env");
}

}  // namespace
}  // namespace ballast::events
