/// Events as JSON lines: what `ballast log` prints (to_json) and what
/// `ballast log append` reads back (event_from_json), including the errors a
/// person typing an event by hand will see.

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "events/event.h"
#include "events/event_from_json.h"
#include "tests/support/event_gen.h"

namespace ballast {
namespace {

using events::ErrorCode;
using events::Event;
using events::Source;
using events::event_from_json;

/// The error message event_from_json gives for `json`; fails the test if it parses.
std::string error_for(const std::string& json) {
    const events::Result<Event> result = event_from_json(json);
    if (result.ok()) {
        ADD_FAILURE() << "parsed without error: " << json;
        return "";
    }
    EXPECT_EQ(result.error().code, ErrorCode::invalid_argument) << result.error().to_string();
    return result.error().message;
}

Event parse_ok(const std::string& json) {
    events::Result<Event> result = event_from_json(json);
    EXPECT_TRUE(result.ok()) << json << "\n" << result.error().to_string();
    return result.ok() ? std::move(result).value() : Event{};
}

// ---------------------------------------------------------------- to_json golden lines

TEST(EventToJson, BrokerFenced) {
    EXPECT_EQ(events::to_json(Event{7, 1'000, Source::simulator, events::BrokerFenced{3}}),
              R"({"seq":7,"time_ms":1000,"source":"simulator","type":"broker_fenced","broker_id":3})");
}

TEST(EventToJson, Tick) {
    EXPECT_EQ(events::to_json(Event{0, 0, Source::clock, events::Tick{1'718'000'061'000}}),
              R"({"seq":0,"time_ms":0,"source":"clock","type":"tick","now_ms":1718000061000})");
}

TEST(EventToJson, PartitionChanged) {
    const Event online{7, 1'718'000'000'030, Source::kafka_metadata,
                       events::PartitionChanged{"orders", 7, {1, 2, 3}, 1, {1, 3}, 14}};
    EXPECT_EQ(events::to_json(online),
              R"({"seq":7,"time_ms":1718000000030,"source":"kafka_metadata","type":"partition_changed",)"
              R"("topic":"orders","partition":7,"replicas":[1,2,3],"leader":1,"isr":[1,3],"leader_epoch":14})");

    const Event offline{8, 5, Source::kafka_metadata, events::PartitionChanged{"orders", 2, {4}, -1, {}, 9}};
    EXPECT_EQ(events::to_json(offline),
              R"({"seq":8,"time_ms":5,"source":"kafka_metadata","type":"partition_changed",)"
              R"("topic":"orders","partition":2,"replicas":[4],"leader":-1,"isr":[],"leader_epoch":9})");
}

TEST(EventToJson, AMetadataLogEventCarriesItsOffsetEpochAndAReassignmentsReplicas) {
    Event moving{9, 40, Source::kafka_metadata_log,
                 events::PartitionChanged{"orders", 0, {2, 1}, 1, {1, 2}, 3, {3}, {1}}};
    moving.metadata_offset = 4812;
    moving.metadata_epoch = 2;
    const std::string line = events::to_json(moving);
    EXPECT_EQ(line, R"({"seq":9,"time_ms":40,"source":"kafka_metadata_log","metadata_offset":4812,"metadata_epoch":2,)"
                    R"("type":"partition_changed","topic":"orders","partition":0,"replicas":[2,1],"leader":1,)"
                    R"("isr":[1,2],"leader_epoch":3,"adding_replicas":[3],"removing_replicas":[1]})");
    const events::Result<Event> back = event_from_json(line);
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    EXPECT_EQ(*back, moving);
    const events::Result<Event> decoded = events::decode(events::encode(moving));
    ASSERT_TRUE(decoded.ok()) << decoded.error().to_string();
    EXPECT_EQ(*decoded, moving);
    EXPECT_EQ(decoded->metadata_offset, 4812);
}

TEST(EventToJson, StringsAreEscaped) {
    const Event deleted{1, 2, Source::operator_, events::TopicDeleted{"a\"b\\c\nd\te\x01" "f/é日本"}};
    EXPECT_EQ(events::to_json(deleted),
              R"({"seq":1,"time_ms":2,"source":"operator","type":"topic_deleted",)"
              R"("topic":"a\"b\\c\nd\te\u0001f/é日本"})");
}

TEST(EventToJson, IllFormedUtf8BecomesReplacementCharactersAndStaysValidJson) {
    // A lone continuation byte, a truncated 3-byte sequence, an overlong '/',
    // a surrogate; valid "é" between them survives.
    const Event deleted{1, 2, Source::tool,
                        events::TopicDeleted{"a\x80" "b\xe6\x97" "c\xc0\xaf" "d\xed\xa0\x80" "e\xc3\xa9"}};
    const std::string line = events::to_json(deleted);
    EXPECT_EQ(line, R"({"seq":1,"time_ms":2,"source":"tool","type":"topic_deleted",)"
                    R"("topic":"a\ufffdb\ufffd\ufffdc\ufffd\ufffdd\ufffd\ufffd\ufffdeé"})");
    // And a strict reader takes it.
    events::Result<Event> back = event_from_json(line);
    ASSERT_TRUE(back.ok()) << back.error().to_string();
}

TEST(EventToJson, SwapFieldsSetOnAMoveSurviveTheRoundTrip) {
    events::Action move;
    move.kind = events::ActionKind::move;
    move.topic = "orders";
    move.partition = 3;
    move.swap_topic = "set-by-hand";
    move.swap_partition = 9;
    const Event planned{5, 6, Source::engine, events::ActionsPlanned{1, 4, {move}, {}, {}, {}, {}}};
    events::Result<Event> back = event_from_json(events::to_json(planned));
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    EXPECT_EQ(*back, planned);
}

TEST(EventToJson, DoublesPrintInTheirShortestForm) {
    const events::BrokerMetrics metrics{
        1'000,
        {{1, 0.1, 2.5, 5.0, 1}, {2, 1e21, 5e-324, 1.0 / 3.0, 18'446'744'073'709'551'615u}}};
    EXPECT_EQ(events::to_json(Event{3, 4, Source::kafka_metrics, metrics}),
              R"({"seq":3,"time_ms":4,"source":"kafka_metrics","type":"broker_metrics","sample_time_ms":1000,)"
              R"("samples":[{"broker_id":1,"bytes_in_per_s":0.1,"bytes_out_per_s":2.5,"messages_in_per_s":5,"size_bytes":1},)"
              R"({"broker_id":2,"bytes_in_per_s":1e+21,"bytes_out_per_s":5e-324,)"
              R"("messages_in_per_s":0.3333333333333333,"size_bytes":18446744073709551615}]})");
}

TEST(EventToJson, NonFiniteDoublesPrintAsNull) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    const events::BrokerMetrics metrics{0, {{1, nan, inf, -inf, 0}}};
    EXPECT_EQ(events::to_json(Event{1, 0, Source::kafka_metrics, metrics}),
              R"({"seq":1,"time_ms":0,"source":"kafka_metrics","type":"broker_metrics","sample_time_ms":0,)"
              R"("samples":[{"broker_id":1,"bytes_in_per_s":null,"bytes_out_per_s":null,"messages_in_per_s":null,"size_bytes":0}]})");
}

TEST(EventToJson, TopicIdIsLowercaseHex) {
    const Event created{5, 0, Source::kafka_metadata,
                        events::TopicCreated{"orders",
                                             {0x3f, 0x2a, 0x91, 0x0c, 0x7e, 0x44, 0x4b, 0x1d, 0x9a,
                                              0x55, 0x0e, 0xc2, 0x61, 0x88, 0xf0, 0x17},
                                             12, 3}};
    EXPECT_EQ(events::to_json(created),
              R"({"seq":5,"time_ms":0,"source":"kafka_metadata","type":"topic_created","topic":"orders",)"
              R"("topic_id":"3f2a910c7e444b1d9a550ec26188f017","partition_count":12,"replication_factor":3})");
}

TEST(EventToJson, NonSwapActionsLeaveOutTheSwapFields) {
    events::Action leader{};
    leader.action_id = 9003;
    leader.kind = events::ActionKind::leader;
    leader.topic = "orders";
    leader.partition = 3;
    leader.source_broker = 3;
    leader.destination_broker = 1;
    leader.replicas_before = {3, 1, 2};
    leader.replicas_after = {1, 3, 2};
    leader.goal = "leader_distribution";
    const Event planned{14, 5, Source::engine, events::ActionsPlanned{42, 13, {leader}, {}, {}, {}, {}}};
    EXPECT_EQ(events::to_json(planned),
              R"({"seq":14,"time_ms":5,"source":"engine","type":"actions_planned","round":42,"barrier_seq":13,)"
              R"("actions":[{"action_id":9003,"kind":"leader","topic":"orders","partition":3,)"
              R"("source_broker":3,"destination_broker":1,"replicas_before":[3,1,2],"replicas_after":[1,3,2],)"
              R"("goal":"leader_distribution","loads":[]}],"rejections":[],"held":[],"unfixable":[]})");
}

TEST(EventToJson, OperatorCommand) {
    const Event command{12, 0, Source::operator_,
                        events::OperatorCommand{events::CommandKind::drain_brokers, {5, 6}, {}, {}, "rack c"}};
    EXPECT_EQ(events::to_json(command),
              R"({"seq":12,"time_ms":0,"source":"operator","type":"operator_command",)"
              R"("command":"drain_brokers","broker_ids":[5,6],"topics":[],"action_ids":[],"reason":"rack c"})");
}

// ---------------------------------------------------------------- reading back

TEST(EventFromJson, EveryExampleRoundTrips) {
    for (const Event& event : testing::event_examples()) {
        SCOPED_TRACE(events::type_name(event.type()));
        EXPECT_EQ(parse_ok(events::to_json(event)), event);
    }
}

RC_GTEST_PROP(EventFromJson, ReadsBackWhatToJsonWrites, ()) {
    const Event event = *testing::gen_event();
    const events::Result<Event> parsed = event_from_json(events::to_json(event));
    if (!parsed.ok()) RC_FAIL(parsed.error().to_string());
    RC_ASSERT(*parsed == event);
}

TEST(EventFromJson, OnlyTypeIsRequired) {
    const Event event = parse_ok(R"({"type":"partition_changed"})");
    EXPECT_EQ(event, (Event{0, 0, Source::tool, events::PartitionChanged{}}));
    // The struct defaults, not zeros: -1 means "no leader".
    EXPECT_EQ(std::get<events::PartitionChanged>(event.body).leader, -1);
}

TEST(EventFromJson, HeaderFieldsAreRead) {
    EXPECT_EQ(parse_ok(R"({"type":"tick","seq":5,"time_ms":-3,"source":"clock","now_ms":9})"),
              (Event{5, -3, Source::clock, events::Tick{9}}));
    EXPECT_EQ(parse_ok(R"({"source":"operator","type":"broker_fenced","broker_id":2})").source,
              Source::operator_);
}

TEST(EventFromJson, MissingNestedFieldsTakeTheirDefaults) {
    const Event event = parse_ok(R"({"type":"broker_metrics","samples":[{"broker_id":4}]})");
    const auto& metrics = std::get<events::BrokerMetrics>(event.body);
    ASSERT_EQ(metrics.samples.size(), 1u);
    EXPECT_EQ(metrics.samples[0], (events::BrokerSample{4, 0, 0, 0, 0}));
}

TEST(EventFromJson, IntegersAreAcceptedForDoubles) {
    const Event event =
        parse_ok(R"({"type":"broker_metrics","samples":[{"bytes_in_per_s":5,"bytes_out_per_s":-2}]})");
    const auto& sample = std::get<events::BrokerMetrics>(event.body).samples.at(0);
    EXPECT_EQ(sample.bytes_in_per_s, 5.0);
    EXPECT_EQ(sample.bytes_out_per_s, -2.0);
}

TEST(EventFromJson, IntegerLimitsAreAccepted) {
    const Event event = parse_ok(
        R"({"type":"action_timed_out","seq":18446744073709551615,"time_ms":-9223372036854775808,)"
        R"("action_id":18446744073709551615,"timeout_ms":9223372036854775807})");
    EXPECT_EQ(event.seq, std::numeric_limits<uint64_t>::max());
    EXPECT_EQ(event.time_ms, std::numeric_limits<int64_t>::min());
    EXPECT_EQ(std::get<events::ActionTimedOut>(event.body),
              (events::ActionTimedOut{std::numeric_limits<uint64_t>::max(),
                                      std::numeric_limits<int64_t>::max()}));
}

TEST(EventFromJson, UppercaseTopicIdIsAccepted) {
    const Event event = parse_ok(R"({"type":"topic_created","topic_id":"3F2A910C7E444B1D9A550EC26188F017"})");
    EXPECT_EQ(std::get<events::TopicCreated>(event.body).topic_id.at(15), 0x17);
}

// ---------------------------------------------------------------- errors

TEST(EventFromJsonErrors, MissingType) {
    EXPECT_EQ(error_for(R"({"seq":1,"broker_id":3})"), "missing field 'type'");
}

TEST(EventFromJsonErrors, UnknownType) {
    const std::string message = error_for(R"({"type":"broker_exploded"})");
    EXPECT_NE(message.find("field 'type'"), std::string::npos) << message;
    EXPECT_NE(message.find(R"(got "broker_exploded")"), std::string::npos) << message;
    EXPECT_NE(message.find("broker_fenced"), std::string::npos) << "lists the known types: " << message;
}

TEST(EventFromJsonErrors, TypeMustBeAString) {
    EXPECT_NE(error_for(R"({"type":3})").find("field 'type': expected one of broker_registered"),
              std::string::npos);
}

TEST(EventFromJsonErrors, UnknownFieldIsNamed) {
    // `rack` belongs to broker_registered, not to broker_fenced.
    EXPECT_EQ(error_for(R"({"type":"broker_fenced","broker_id":1,"rack":"a"})"),
              "unknown field 'rack' for event type broker_fenced");
}

TEST(EventFromJsonErrors, UnknownNestedFieldIsNamedWithItsPath) {
    EXPECT_EQ(error_for(R"({"type":"broker_metrics","samples":[{"broker_id":1},{"bytes_in":5}]})"),
              "unknown field 'samples[1].bytes_in' for event type broker_metrics");
    EXPECT_EQ(
        error_for(R"({"type":"actions_planned","held":[{"reason":"r","action":{"loads":[{"before":{"cpu":1}}]}}]})"),
        "unknown field 'held[0].action.loads[0].before.cpu' for event type actions_planned");
}

TEST(EventFromJsonErrors, WrongTypeNamesFieldAndValue) {
    EXPECT_EQ(error_for(R"({"type":"broker_fenced","broker_id":"x"})"),
              R"(field 'broker_id': expected an integer in [-2147483648, 2147483647], got "x")");
    EXPECT_EQ(error_for(R"({"type":"broker_fenced","broker_id":1.5})"),
              "field 'broker_id': expected an integer in [-2147483648, 2147483647], got 1.5");
    EXPECT_EQ(error_for(R"({"type":"topic_deleted","topic":7})"),
              "field 'topic': expected a string, got 7");
    EXPECT_EQ(error_for(R"({"type":"action_failed","retriable":"yes"})"),
              R"(field 'retriable': expected true or false, got "yes")");
    EXPECT_EQ(error_for(R"({"type":"partition_changed","replicas":"1,2,3"})"),
              R"(field 'replicas': expected an array, got "1,2,3")");
    EXPECT_EQ(error_for(R"({"type":"partition_changed","replicas":[1,"2"]})"),
              R"(field 'replicas[1]': expected an integer in [-2147483648, 2147483647], got "2")");
    EXPECT_EQ(error_for(R"({"type":"broker_fenced","broker_id":[1,2]})"),
              "field 'broker_id': expected an integer in [-2147483648, 2147483647], got an array");
    EXPECT_EQ(error_for(R"({"type":"broker_registered","endpoints":[9092]})"),
              "field 'endpoints[0]': expected an object, got 9092");
}

TEST(EventFromJsonErrors, WrongEnumNameListsTheChoices) {
    EXPECT_EQ(error_for(R"({"type":"tick","source":"kafka"})"),
              "field 'source': expected one of unknown, kafka_metadata, kafka_metrics, kafka_admin, "
              R"(simulator, storm, operator, engine, executor, clock, tool, kafka_metadata_log, got "kafka")");
    EXPECT_EQ(error_for(R"({"type":"actions_planned","actions":[{"kind":"teleport"}]})"),
              R"(field 'actions[0].kind': expected one of move, swap, leader, got "teleport")");
    EXPECT_NE(error_for(R"({"type":"operator_command","command":"drain"})")
                  .find("field 'command': expected one of drain_brokers, pause, resume"),
              std::string::npos);
}

TEST(EventFromJsonErrors, OutOfRangeIntegers) {
    EXPECT_EQ(error_for(R"({"type":"broker_fenced","broker_id":2147483648})"),
              "field 'broker_id': expected an integer in [-2147483648, 2147483647], got 2147483648");
    EXPECT_EQ(error_for(R"({"type":"topic_created","replication_factor":40000})"),
              "field 'replication_factor': expected an integer in [-32768, 32767], got 40000");
    EXPECT_EQ(error_for(R"({"type":"action_submitted","attempt":-1})"),
              "field 'attempt': expected an integer in [0, 4294967295], got -1");
    EXPECT_EQ(error_for(R"({"type":"tick","now_ms":9223372036854775808})"),
              "field 'now_ms': expected an integer in [-9223372036854775808, 9223372036854775807], "
              "got 9223372036854775808");
    // Past uint64 the JSON parser already has a float; the message still names the field.
    EXPECT_NE(error_for(R"({"type":"action_completed","action_id":18446744073709551616})")
                  .find("field 'action_id': expected an integer in [0, 18446744073709551615]"),
              std::string::npos);
    EXPECT_NE(error_for(R"({"type":"tick","seq":-1})").find("field 'seq'"), std::string::npos);
}

TEST(EventFromJsonErrors, InvalidJson) {
    const std::string message = error_for(R"({"type":"tick",)");
    EXPECT_EQ(message.rfind("invalid JSON: ", 0), 0u) << message;
    EXPECT_NE(message.find("parse error"), std::string::npos) << message;
    EXPECT_EQ(error_for("").rfind("invalid JSON: ", 0), 0u);
    EXPECT_EQ(error_for(R"({"type":"tick"} {"type":"tick"})").rfind("invalid JSON: ", 0), 0u)
        << "one event per call";
}

TEST(EventFromJsonErrors, NotAnObject) {
    EXPECT_EQ(error_for("[1,2]"), "expected a JSON object, got an array");
    EXPECT_EQ(error_for(R"("tick")"), R"(expected a JSON object, got "tick")");
}

TEST(EventFromJsonErrors, NullDoubleIsNotAFiniteNumber) {
    // What to_json writes for NaN or infinity does not read back.
    EXPECT_EQ(error_for(R"({"type":"broker_metrics","samples":[{"bytes_in_per_s":null}]})"),
              "field 'samples[0].bytes_in_per_s': expected a finite number, got null");
    const events::BrokerMetrics metrics{0, {{1, std::nan(""), 0, 0, 0}}};
    EXPECT_NE(error_for(events::to_json(Event{1, 0, Source::kafka_metrics, metrics}))
                  .find("expected a finite number"),
              std::string::npos);
}

TEST(EventFromJsonErrors, BadTopicId) {
    const std::string expected =
        R"(field 'topic_id': expected 32 hex digits (a 16-byte topic id) or "", got )";
    EXPECT_EQ(error_for(R"({"type":"topic_created","topic_id":"3f2a"})"), expected + R"("3f2a")");
    EXPECT_EQ(error_for(R"({"type":"topic_created","topic_id":"zz2a910c7e444b1d9a550ec26188f017"})"),
              expected + R"("zz2a910c7e444b1d9a550ec26188f017")");
}

TEST(EventFromJsonErrors, LongValuesAreShortenedInMessages) {
    const std::string message =
        error_for(R"({"type":"broker_fenced","broker_id":")" + std::string(500, 'x') + R"("})");
    EXPECT_LT(message.size(), 200u) << message;
    EXPECT_NE(message.find("xxx..."), std::string::npos) << message;
}

RC_GTEST_PROP(EventFromJsonErrors, DamagedLinesGiveAnErrorOrAnEvent, ()) {
    // A line damaged in transit or by a hand edit: no exception, no crash,
    // and a failure is always invalid_argument with a message.
    std::string json = events::to_json(*testing::gen_event());
    const auto position = *rc::gen::inRange<size_t>(0, json.size());
    const auto replacement = *rc::gen::element<std::string>("", "\"", "}", "[", "1", "-", "null", "\\");
    json.replace(position, 1, replacement);
    const events::Result<Event> result = event_from_json(json);
    if (!result.ok()) {
        RC_ASSERT(result.error().code == ErrorCode::invalid_argument);
        RC_ASSERT(!result.error().message.empty());
    }
}

}  // namespace
}  // namespace ballast
