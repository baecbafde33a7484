/// The binary encoding of events: round trips, names, and the verifier that
/// stands between the journal's bytes and everything that reads them.

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "events/event.h"
#include "events/event_generated.h"
#include "tests/support/event_gen.h"

namespace ballast {
namespace {

using events::ErrorCode;
using events::Event;
using events::EventType;

std::vector<uint8_t> copy(std::span<const uint8_t> bytes) { return {bytes.begin(), bytes.end()}; }

/// The event's kind, for SCOPED_TRACE and test names.
std::string kind_of(const Event& event) { return events::type_name(event.type()); }

/// Every verifier rejection is corruption: the journal treats the record as damaged.
void expect_corruption(std::span<const uint8_t> bytes, const std::string& message_part = "") {
    const events::Status status = events::verify(bytes);
    ASSERT_FALSE(status.ok()) << "verify accepted " << bytes.size() << " bytes";
    EXPECT_EQ(status.error().code, ErrorCode::corruption) << status.error().to_string();
    EXPECT_NE(status.error().message.find(message_part), std::string::npos)
        << status.error().to_string();
}

/// An event built with the generated flatbuffers API, so that it can hold
/// what `events::Encoder` never writes: no body, an unknown body type or source.
std::vector<uint8_t> raw_event(events::fb::Body body_type, bool with_body,
                               events::fb::Source source = events::fb::Source::tool) {
    flatbuffers::FlatBufferBuilder b;
    const flatbuffers::Offset<void> body =
        with_body ? events::fb::CreateTick(b, 1'000).Union() : flatbuffers::Offset<void>(0);
    const auto root = events::fb::CreateEvent(b, 1, 1'000, source, body_type, body);
    events::fb::FinishSizePrefixedEventBuffer(b, root);
    return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

// ---------------------------------------------------------------- round trips

TEST(EventExamples, EveryKindHasAHandBuiltExample) {
    const std::vector<Event> examples = testing::event_examples();
    for (uint8_t i = 0; i < events::event_type_count; i++) {
        const auto type = static_cast<EventType>(i);
        int count = 0;
        for (const Event& e : examples) count += e.type() == type ? 1 : 0;
        EXPECT_EQ(count, 1) << "hand-built examples of " << events::type_name(type);
    }
    EXPECT_EQ(examples.size(), events::event_type_count);
}

class EventExampleTest : public ::testing::TestWithParam<Event> {};

TEST_P(EventExampleTest, EncodesVerifiesAndDecodesEqual) {
    const Event& event = GetParam();
    const std::vector<uint8_t> bytes = events::encode(event);
    ASSERT_TRUE(events::verify(bytes).ok()) << events::verify(bytes).error().to_string();

    const events::Result<Event> decoded = events::decode(bytes);
    ASSERT_TRUE(decoded.ok()) << decoded.error().to_string();
    EXPECT_EQ(*decoded, event);

    // The header is readable without decoding the body: the journal's index uses it.
    const events::Header header = events::header(events::view(bytes));
    EXPECT_EQ(header.seq, event.seq);
    EXPECT_EQ(header.time_ms, event.time_ms);
    EXPECT_EQ(header.source, event.source);
    EXPECT_EQ(header.type, event.type());
}

INSTANTIATE_TEST_SUITE_P(AllKinds, EventExampleTest, ::testing::ValuesIn(testing::event_examples()),
                         [](const ::testing::TestParamInfo<Event>& info) {
                             return kind_of(info.param);
                         });

TEST(EventRoundTrip, DefaultEventOfEveryKindDecodesEqual) {
    // Defaults matter: the encoder leaves empty strings and vectors out and
    // the decoder must read their absence back as empty.
    for (const Event& example : testing::event_examples()) {
        Event event;
        event.body = example.body;
        std::visit([](auto& body) { body = std::decay_t<decltype(body)>{}; }, event.body);
        SCOPED_TRACE(kind_of(event));
        const events::Result<Event> decoded = events::decode(events::encode(event));
        ASSERT_TRUE(decoded.ok()) << decoded.error().to_string();
        EXPECT_EQ(*decoded, event);
    }
}

RC_GTEST_PROP(EventRoundTrip, GeneratedEventsDecodeEqual, ()) {
    const Event event = *testing::gen_event();
    const std::vector<uint8_t> bytes = events::encode(event);
    const events::Result<Event> decoded = events::decode(bytes);
    if (!decoded.ok()) RC_FAIL(decoded.error().to_string());
    RC_ASSERT(*decoded == event);
}

RC_GTEST_PROP(EventRoundTrip, GeneratorMakesTheKindAskedFor, ()) {
    const EventType type = *testing::gen_event_type();
    RC_ASSERT((*testing::gen_event_of(type)).type() == type);
}

// ---------------------------------------------------------------- names

TEST(EventNames, TypeNamesRoundTrip) {
    for (uint8_t i = 0; i < events::event_type_count; i++) {
        const auto type = static_cast<EventType>(i);
        const std::optional<EventType> back = events::type_from_name(events::type_name(type));
        ASSERT_TRUE(back.has_value()) << events::type_name(type);
        EXPECT_EQ(*back, type) << events::type_name(type);
    }
}

TEST(EventNames, KnownNamesAreTheSchemaNamesInSnakeCase) {
    EXPECT_STREQ(events::type_name(EventType::broker_registered), "broker_registered");
    EXPECT_STREQ(events::type_name(EventType::action_timed_out), "action_timed_out");
    EXPECT_STREQ(events::source_name(events::Source::operator_), "operator");
}

TEST(EventNames, UnknownNamesAreRejected) {
    for (const char* name : {"", "broker", "BrokerFenced", "Broker_Fenced", "broker_fenced ",
                             " tick", "tick\n", "ticks"}) {
        EXPECT_FALSE(events::type_from_name(name).has_value()) << '"' << name << '"';
    }
}

TEST(EventNames, OnlyWhatTheEngineAndExecutorMadeIsADecision) {
    for (uint8_t i = 0; i < events::source_count; i++) {
        const auto source = static_cast<events::Source>(i);
        EXPECT_EQ(events::is_decision(source),
                  source == events::Source::engine || source == events::Source::executor)
            << events::source_name(source);
    }
}

// ---------------------------------------------------------------- the verifier

TEST(EventVerify, RejectsEveryTruncationOfEveryExample) {
    for (const Event& event : testing::event_examples()) {
        SCOPED_TRACE(kind_of(event));
        const std::vector<uint8_t> bytes = events::encode(event);
        for (size_t length = 0; length < bytes.size(); length++) {
            // An exact-size copy, so AddressSanitizer sees any read past the end.
            const std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + length);
            ASSERT_FALSE(events::verify(prefix).ok()) << "prefix of " << length << " bytes";
            ASSERT_EQ(events::verify(prefix).error().code, ErrorCode::corruption);
        }
    }
}

RC_GTEST_PROP(EventVerify, RejectsAnyTruncation, ()) {
    const std::vector<uint8_t> bytes = events::encode(*testing::gen_event());
    const auto length = *rc::gen::inRange<size_t>(0, bytes.size());
    const std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + length);
    const events::Status status = events::verify(prefix);
    RC_ASSERT(!status.ok());
    RC_ASSERT(status.error().code == ErrorCode::corruption);
}

RC_GTEST_PROP(EventVerify, RejectsAppendedBytes, ()) {
    std::vector<uint8_t> bytes = events::encode(*testing::gen_event());
    const auto extra = *rc::gen::nonEmpty(rc::gen::container<std::vector<uint8_t>>(
        rc::gen::arbitrary<uint8_t>()));
    bytes.insert(bytes.end(), extra.begin(), extra.end());
    const events::Status status = events::verify(bytes);
    RC_ASSERT(!status.ok());
    RC_ASSERT(status.error().code == ErrorCode::corruption);
}

TEST(EventVerify, RejectsOneAppendedZeroByte) {
    std::vector<uint8_t> bytes = events::encode(testing::event_examples()[1]);
    bytes.push_back(0);
    expect_corruption(bytes, "flatbuffers verifier rejected event of");
}

TEST(EventVerify, RejectsAWrongIdentifier) {
    std::vector<uint8_t> bytes = events::encode(testing::event_examples()[1]);
    ASSERT_EQ(std::memcmp(bytes.data() + 8, "BLEV", 4), 0) << "identifier follows size and root";
    std::memcpy(bytes.data() + 8, "BLEW", 4);
    expect_corruption(bytes, "lacks the BLEV identifier");
}

TEST(EventVerify, AcceptsAWellFormedRawEvent) {
    // The control for the raw_event rejections below: the helper itself builds valid events.
    EXPECT_TRUE(events::verify(raw_event(events::fb::Body::Tick, true)).ok());
}

TEST(EventVerify, RejectsBodyTypeNone) {
    expect_corruption(raw_event(events::fb::Body::NONE, false), "body type 0");
    expect_corruption(raw_event(events::fb::Body::NONE, true), "body type 0");
}

TEST(EventVerify, RejectsABodyTypeWithoutABody) {
    expect_corruption(raw_event(events::fb::Body::Tick, false), "no known body");
}

TEST(EventVerify, RejectsAnUnknownBodyType) {
    // What a newer writer with an appended event kind would produce.
    const auto next_kind = static_cast<events::fb::Body>(events::event_type_count + 1);
    expect_corruption(raw_event(next_kind, true), "no known body");
}

TEST(EventVerify, RejectsAnUnknownSource) {
    const auto next_source = static_cast<events::fb::Source>(events::source_count);
    expect_corruption(raw_event(events::fb::Body::Tick, true, next_source), "unknown source");
}

Event partition_metrics(std::vector<std::string> topics, uint32_t topic_index) {
    events::PartitionMetrics report{3, 1'000, std::move(topics), {}};
    report.samples.push_back(events::PartitionSample{0, 7, 1.5, 2.5, 3.0, 4'096});
    report.samples.push_back(events::PartitionSample{topic_index, 8, 1.5, 2.5, 3.0, 4'096});
    return Event{1, 1'000, events::Source::kafka_metrics, std::move(report)};
}

TEST(EventVerify, AcceptsPartitionSamplesInsideTheirTopics) {
    EXPECT_TRUE(events::verify(events::encode(partition_metrics({"orders", "payments"}, 1))).ok());
}

TEST(EventVerify, RejectsAPartitionSampleWhoseTopicIndexIsOutOfRange) {
    // Encoder does not check topic indexes; verify must, before anything indexes topics.
    expect_corruption(events::encode(partition_metrics({"orders", "payments"}, 2)),
                      "topic index 2 of 2");
    expect_corruption(events::encode(partition_metrics({"orders"}, 0xffff'ffff)),
                      "topic index 4294967295 of 1");
}

TEST(EventVerify, RejectsPartitionSamplesOfAReportWithoutTopics) {
    expect_corruption(events::encode(partition_metrics({}, 0)), "topic index 0 of 0");
}

TEST(EventVerify, RejectsAnUnknownCommandKind) {
    events::OperatorCommand command;
    command.command = static_cast<events::CommandKind>(events::command_kind_count);
    expect_corruption(events::encode(Event{1, 0, events::Source::operator_, command}),
                      "operator command has unknown kind");
}

TEST(EventVerify, RejectsAnUnknownActionKind) {
    events::Action action;
    action.kind = static_cast<events::ActionKind>(events::action_kind_count);
    events::ActionsPlanned planned;
    planned.actions.push_back(action);
    expect_corruption(events::encode(Event{1, 0, events::Source::engine, planned}),
                      "action has unknown kind");

    planned.actions.clear();
    planned.held.push_back(events::HeldAction{action, "gate"});
    expect_corruption(events::encode(Event{1, 0, events::Source::engine, planned}),
                      "held action has unknown kind");
}

// ---------------------------------------------------------------- bit flips

/// Bytes 0..3 hold the size prefix and 8..11 the "BLEV" identifier: a flip
/// there must always be caught, whatever the rest of the buffer says.
bool in_prefix_or_identifier(size_t bit) {
    const size_t byte = bit / 8;
    return byte < 4 || (byte >= 8 && byte < 12);
}

/// Flips one bit and checks the outcome. Returns a description of what went
/// wrong, or "" when the flip was rejected or decoded cleanly.
std::string check_bit_flip(const std::vector<uint8_t>& bytes, size_t bit) {
    std::vector<uint8_t> flipped = bytes;
    flipped[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    if (!events::verify(flipped).ok()) return "";
    if (in_prefix_or_identifier(bit)) return "accepted a flip of bit " + std::to_string(bit);
    // Verified bytes must decode, and every decoded field must be readable:
    // to_json touches them all (AddressSanitizer checks the reads).
    const events::Result<Event> decoded = events::decode(flipped);
    if (!decoded.ok()) return "verify passed but decode failed after flipping bit " + std::to_string(bit);
    if (events::to_json(*decoded).empty()) return "empty JSON after flipping bit " + std::to_string(bit);
    return "";
}

TEST(EventBitFlips, EveryBitOfEveryExampleIsRejectedOrDecodes) {
    for (const Event& event : testing::event_examples()) {
        SCOPED_TRACE(kind_of(event));
        const std::vector<uint8_t> bytes = events::encode(event);
        for (size_t bit = 0; bit < bytes.size() * 8; bit++) {
            const std::string problem = check_bit_flip(bytes, bit);
            ASSERT_EQ(problem, "");
        }
    }
}

/// Is every vector whose elements hold 8-byte values (ulong, or structs with
/// doubles) 8-byte aligned? Reading them otherwise is undefined behaviour,
/// and verify promises alignment.
bool eight_byte_vectors_aligned(std::span<const uint8_t> bytes) {
    namespace fb = events::fb;
    const auto aligned = [&](const auto* vector) {
        return !vector || (reinterpret_cast<const uint8_t*>(vector->Data()) - bytes.data()) % 8 == 0;
    };
    const auto action_aligned = [&](const fb::Action* a) { return !a || aligned(a->loads()); };
    const fb::Event& e = events::view(bytes);
    switch (e.body_type()) {
        case fb::Body::BrokerMetrics: return aligned(e.body_as_BrokerMetrics()->samples());
        case fb::Body::PartitionMetrics: return aligned(e.body_as_PartitionMetrics()->samples());
        case fb::Body::OperatorCommand: return aligned(e.body_as_OperatorCommand()->action_ids());
        case fb::Body::ActionsPlanned: {
            const auto* planned = e.body_as_ActionsPlanned();
            bool ok = true;
            if (planned->actions()) {
                for (const fb::Action* a : *planned->actions()) ok = ok && action_aligned(a);
            }
            if (planned->held()) {
                for (const fb::HeldAction* h : *planned->held()) ok = ok && action_aligned(h->action());
            }
            return ok;
        }
        default: return true;
    }
}

TEST(EventBitFlips, AcceptedFlipsLeaveEightByteVectorsAligned) {
    // The flatbuffers 2.0.8 verifier checks a vector's 4-byte length for
    // alignment but not its elements (google/flatbuffers#8397), so a flipped
    // offset can move a vector of ulongs 4 bytes off and still pass.
    for (const Event& event : testing::event_examples()) {
        SCOPED_TRACE(kind_of(event));
        const std::vector<uint8_t> bytes = events::encode(event);
        for (size_t bit = 0; bit < bytes.size() * 8; bit++) {
            std::vector<uint8_t> flipped = bytes;
            flipped[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
            if (!events::verify(flipped).ok()) continue;
            ASSERT_TRUE(eight_byte_vectors_aligned(flipped)) << "after flipping bit " << bit;
        }
    }
}

RC_GTEST_PROP(EventBitFlips, AnyBitIsRejectedOrDecodes, ()) {
    const std::vector<uint8_t> bytes = events::encode(*testing::gen_event());
    const auto bit = *rc::gen::inRange<size_t>(0, bytes.size() * 8);
    RC_ASSERT(check_bit_flip(bytes, bit) == "");
}

RC_GTEST_PROP(EventBitFlips, PrefixAndIdentifierFlipsAreAlwaysRejected, ()) {
    const std::vector<uint8_t> bytes = events::encode(*testing::gen_event());
    const auto byte = *rc::gen::element<size_t>(0, 1, 2, 3, 8, 9, 10, 11);
    const auto bit = byte * 8 + *rc::gen::inRange<size_t>(0, 8);
    std::vector<uint8_t> flipped = bytes;
    flipped[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    const events::Status status = events::verify(flipped);
    RC_ASSERT(!status.ok());
    RC_ASSERT(status.error().code == ErrorCode::corruption);
}

// ---------------------------------------------------------------- the encoder

TEST(EventEncoder, ReuseAfterABigEventGivesFreshBytes) {
    const std::vector<Event> examples = testing::event_examples();
    const Event& big = examples[static_cast<size_t>(EventType::actions_planned)];
    const Event& small = examples[static_cast<size_t>(EventType::tick)];
    events::Encoder encoder;
    const std::vector<uint8_t> big_bytes = copy(encoder.encode(big));
    const std::vector<uint8_t> small_bytes = copy(encoder.encode(small));
    EXPECT_GT(big_bytes.size(), small_bytes.size());
    EXPECT_EQ(small_bytes, events::encode(small));
    EXPECT_EQ(copy(encoder.encode(big)), big_bytes);
    EXPECT_TRUE(events::verify(small_bytes).ok());
}

RC_GTEST_PROP(EventEncoder, ReuseGivesTheSameBytesAsAFreshEncoder, ()) {
    const Event first = *testing::gen_event();
    const Event second = *testing::gen_event();
    events::Encoder encoder;
    (void)encoder.encode(first);
    RC_ASSERT(copy(encoder.encode(second)) == events::encode(second));
}

}  // namespace
}  // namespace ballast
