/// `events::check`: the rules an event meets before it is journaled, each
/// broken one named by its event, field and value.

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "events/event_check.h"
#include "tests/support/event_gen.h"

namespace ballast::events {
namespace {

TEST(EventCheck, EveryRealisticExamplePasses) {
    for (const Event& event : testing::event_examples()) {
        Status status = check(event);
        EXPECT_TRUE(status.ok()) << status.error().to_string();
    }
}

struct Broken {
    std::string name;
    size_t example;                    // index into event_examples()
    std::function<void(Event&)> break_it;
    std::string message;               // expected in the error, whole
};

void PrintTo(const Broken& b, std::ostream* os) { *os << b.name; }

class EventCheckRefuses : public ::testing::TestWithParam<Broken> {};

TEST_P(EventCheckRefuses, NamingTheFieldAndTheValue) {
    Event event = testing::event_examples().at(GetParam().example);
    GetParam().break_it(event);
    Status status = check(event);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().code, ErrorCode::invalid_argument);
    EXPECT_EQ(status.error().message, GetParam().message);
}

const double nan = std::numeric_limits<double>::quiet_NaN();
const double inf = std::numeric_limits<double>::infinity();

INSTANTIATE_TEST_SUITE_P(
    EveryRule, EventCheckRefuses,
    ::testing::Values(
        Broken{"SampleTopicIndexPastTopics", 8, [](Event& e) { std::get<PartitionMetrics>(e.body).samples[1].topic_index = 2; },
               "partition_metrics from kafka_metrics: samples[1].topic_index is 2, past its 2 topics"},
        Broken{"SampleRateNotANumber", 8, [](Event& e) { std::get<PartitionMetrics>(e.body).samples[0].bytes_in_per_s = nan; },
               "partition_metrics from kafka_metrics: samples[0].bytes_in_per_s is nan, not a finite number"},
        Broken{"SampleRateNegative", 8, [](Event& e) { std::get<PartitionMetrics>(e.body).samples[1].messages_in_per_s = -2.5; },
               "partition_metrics from kafka_metrics: samples[1].messages_in_per_s is -2.5, below 0"},
        Broken{"SamplePartitionNegative", 8, [](Event& e) { std::get<PartitionMetrics>(e.body).samples[0].partition = -1; },
               "partition_metrics from kafka_metrics: samples[0].partition is -1, not a partition (0 or more)"},
        Broken{"ReportTopicEmpty", 8, [](Event& e) { std::get<PartitionMetrics>(e.body).topics[1] = ""; },
               "partition_metrics from kafka_metrics: topics[1] is empty"},
        Broken{"BrokerRateInfinite", 7, [](Event& e) { std::get<BrokerMetrics>(e.body).samples[1].bytes_out_per_s = inf; },
               "broker_metrics from kafka_metrics: samples[1].bytes_out_per_s is inf, not a finite number"},
        Broken{"BrokerIdNegative", 1, [](Event& e) { std::get<BrokerFenced>(e.body).broker_id = -3; },
               "broker_fenced from kafka_metadata: broker_id is -3, not a broker id (0 or more)"},
        Broken{"EndpointPort", 0, [](Event& e) { std::get<BrokerRegistered>(e.body).endpoints[1].port = 70000; },
               "broker_registered from kafka_metadata: endpoints[1].port is 70000, not a port"},
        Broken{"TopicNameTooLong", 4, [](Event& e) { std::get<TopicCreated>(e.body).topic = std::string(250, 'a'); },
               "topic_created from kafka_metadata: topic is 250 bytes long, past Kafka's 249"},
        Broken{"TopicIdNot16Bytes", 4, [](Event& e) { std::get<TopicCreated>(e.body).topic_id.resize(3); },
               "topic_created from kafka_metadata: topic_id is 3 bytes, not 16 (or none)"},
        Broken{"ReplicaListedTwice", 6, [](Event& e) { std::get<PartitionChanged>(e.body).replicas = {1, 2, 1}; },
               "partition_changed from kafka_metadata: replicas[2] is 1, listed twice"},
        Broken{"LeaderBelowMinusOne", 6, [](Event& e) { std::get<PartitionChanged>(e.body).leader = -2; },
               "partition_changed from kafka_metadata: leader is -2, below -1"},
        Broken{"TickBeforeZero", 9, [](Event& e) { std::get<Tick>(e.body).now_ms = -1; },
               "tick from clock: now_ms is -1, below 0"},
        Broken{"ConfigKeyEmpty", 10, [](Event& e) { std::get<ConfigChanged>(e.body).entries[0].key = ""; },
               "config_changed from operator: entries[0].key is empty"},
        Broken{"UnknownCommand", 11, [](Event& e) { std::get<OperatorCommand>(e.body).command = static_cast<CommandKind>(42); },
               "operator_command from operator: command is 42, not a known command"},
        Broken{"UnknownActionKind", 13, [](Event& e) { std::get<ActionsPlanned>(e.body).actions[2].kind = static_cast<ActionKind>(9); },
               "actions_planned from engine: actions[2].kind is 9, not a known action kind"},
        Broken{"PlannedLoadNotANumber", 13,
               [](Event& e) { std::get<ActionsPlanned>(e.body).actions[0].loads[1].after.bytes_out_per_s = -inf; },
               "actions_planned from engine: actions[0].loads[1].after.bytes_out_per_s is -inf, not a finite number"},
        Broken{"UnknownSource", 2, [](Event& e) { e.source = static_cast<Source>(77); },
               "broker_unfenced from unknown: source is 77, not a known source"},
        Broken{"TimeBeforeZero", 3, [](Event& e) { e.time_ms = -5; },
               "broker_unregistered from kafka_metadata: time_ms is -5, below 0"}),
    [](const ::testing::TestParamInfo<Broken>& info) { return info.param.name; });

TEST(EventCheck, ABatchNamesTheEventsPlace) {
    std::vector<Event> batch = testing::event_examples();
    std::get<Tick>(batch[9].body).now_ms = -7;
    Status status = check_batch(batch);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().message, "event 9 of 19: tick from clock: now_ms is -7, below 0");
}

/// A planner's load just below zero (a rounding error after taking a load
/// off a broker) is a computed figure, not an input: it passes.
TEST(EventCheck, APlannedLoadMayRoundBelowZero) {
    Event event = testing::event_examples().at(13);
    std::get<ActionsPlanned>(event.body).actions[0].loads[0].after.bytes_in_per_s = -1e-9;
    EXPECT_TRUE(check(event).ok());
}

/// Whatever the generator makes: passes, or is refused naming its kind.
RC_GTEST_PROP(EventCheck, PassesOrNamesTheEventsKind, ()) {
    const Event event = *testing::gen_event();
    Status status = check(event);
    if (!status.ok()) {
        RC_ASSERT(status.error().code == ErrorCode::invalid_argument);
        RC_ASSERT(status.error().message.rfind(std::string(type_name(event.type())) + " from ", 0) == 0);
    }
}

}  // namespace
}  // namespace ballast::events
