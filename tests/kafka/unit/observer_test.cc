// The metadata log's observer against a scripted controller on a real loopback socket, for
// what the test cluster cannot be made to do on demand: the first fetch refused until the
// quorum's epoch is known, records above the high watermark held back until it passes, a
// diverging epoch dropping what was held, a snapshot needed, a refused authorization. The
// controller's answers are built here field by field (FetchResponse v18 with the records of
// Kafka's `batch.metadata` vector, offsets 100-103); what the observer asks is compared
// byte for byte with Fetch requests encoded for the expected position and epochs.

#include <gtest/gtest.h>

#include <functional>
#include <mutex>

#include "adapters/kafka/metadata_log/observer.h"
#include "adapters/kafka/wire/protocol_header.h"
#include "tests/kafka/support/kafka_vectors.h"
#include "tests/kafka/support/scripted_broker.h"

namespace ballast::kafka::metadata_log {
namespace {

using testing::kafka_vectors;
using testing::ScriptedBroker;
using Action = ScriptedBroker::Action;

constexpr int16_t fetch_version = 18;

/// ApiVersions v3+ answered with ApiVersions 0-4 and Fetch 4-18, as a 4.1 controller lists
/// them (response header v0, then the body).
Action api_versions(const ScriptedBroker::Request& request) {
    wire::Writer out;
    out.int32(request.correlation_id);
    out.int16(0);
    out.array_length(2, true);
    for (auto [key, min, max] : {std::tuple<int16_t, int16_t, int16_t>{1, 4, 18}, {18, 0, 4}}) {
        out.int16(key);
        out.int16(min);
        out.int16(max);
        out.tagged_fields(true);
    }
    out.int32(0);  // throttle
    out.tagged_fields(true);
    return Action{Action::respond, out.take()};
}

struct Answer {
    int16_t top_error = 0;
    int16_t error = 0;
    int64_t high_watermark = -1;
    wire::messages::FetchLeader leader{100, 5};
    std::optional<wire::messages::FetchEpochEndOffset> diverging;
    std::optional<wire::messages::FetchEpochEndOffset> snapshot;
    bool records = false;  // batch.metadata
};

Answer answer(const std::function<void(Answer&)>& fill) {
    Answer out;
    fill(out);
    return out;
}

/// FetchResponse v18 (response header v1) for the metadata topic's partition 0.
Action fetch_answer(const ScriptedBroker::Request& request, const Answer& answer) {
    wire::Writer out;
    out.int32(request.correlation_id);
    out.tagged_fields(true);
    out.int32(0);
    out.int16(answer.top_error);
    out.int32(0);
    out.array_length(1, true);
    out.uuid(wire::messages::metadata_topic_id);
    out.array_length(1, true);
    out.int32(0);
    out.int16(answer.error);
    out.int64(answer.high_watermark);
    out.int64(-1);
    out.int64(0);
    out.nullable_array_length(std::nullopt, true);  // aborted transactions
    out.int32(-1);
    if (answer.records) {
        out.bytes(kafka_vectors().at("batch.metadata"), true);
    } else {
        out.uvarint(0);  // null
    }
    wire::TaggedFields tagged;
    if (answer.diverging) {
        wire::Writer& field = tagged.add(0);
        field.int32(answer.diverging->epoch);
        field.int64(answer.diverging->end_offset);
        field.tagged_fields(true);
    }
    wire::Writer& leader = tagged.add(1);
    leader.int32(answer.leader.leader_id);
    leader.int32(answer.leader.leader_epoch);
    leader.tagged_fields(true);
    if (answer.snapshot) {
        wire::Writer& field = tagged.add(2);
        field.int64(answer.snapshot->end_offset);
        field.int32(answer.snapshot->epoch);
        field.tagged_fields(true);
    }
    tagged.write_to(out);
    out.tagged_fields(true);  // topic
    out.tagged_fields(true);  // response: no node endpoints
    return Action{Action::respond, out.take()};
}

/// The Fetch the observer should send for this position.
std::vector<uint8_t> expected_fetch(int32_t correlation_id, int32_t leader_epoch,
                                    int64_t offset, int32_t last_epoch) {
    wire::messages::FetchRequest request;
    request.max_wait_ms = 50;
    request.min_bytes = 1;
    request.max_bytes = 8 << 20;
    wire::messages::FetchRequestTopic& topic = request.topics.emplace_back();
    topic.topic_id = wire::messages::metadata_topic_id;
    wire::messages::FetchRequestPartition& partition = topic.partitions.emplace_back();
    partition.current_leader_epoch = leader_epoch;
    partition.fetch_offset = offset;
    partition.last_fetched_epoch = last_epoch;
    partition.partition_max_bytes = 8 << 20;
    wire::Writer out;
    wire::encode_request_header({wire::ApiKey::fetch, fetch_version, correlation_id, "ballast"}, out);
    EXPECT_TRUE(wire::messages::Fetch::encode(request, fetch_version, out).ok());
    return out.take();
}

/// A controller answering each Fetch with the next of `answers` (the last one again after).
class ScriptedController {
public:
    explicit ScriptedController(std::vector<Answer> answers)
        : _answers(std::move(answers)),
          _broker([this](const ScriptedBroker::Request& request) {
              if (request.api_key == 18) return api_versions(request);
              std::lock_guard lock(_mutex);
              const Answer& answer = _answers[std::min(_fetches++, _answers.size() - 1)];
              return fetch_answer(request, answer);
          }) {}

    MetadataLogObserver observer(int64_t offset, int32_t last_epoch) {
        ObserverOptions options;
        options.controllers = {{"127.0.0.1", _broker.port()}};
        options.max_wait_ms = 50;
        options.call_timeout_ms = 5000;
        return MetadataLogObserver(options, offset, last_epoch);
    }

    /// The Fetch requests received, frames after the size prefix.
    std::vector<ScriptedBroker::Request> fetches() const {
        std::vector<ScriptedBroker::Request> out;
        for (const auto& request : _broker.requests()) {
            if (request.api_key == 1) out.push_back(request);
        }
        return out;
    }

private:
    std::vector<Answer> _answers;
    std::mutex _mutex;
    size_t _fetches = 0;
    ScriptedBroker _broker;
};

std::vector<int64_t> offsets(const std::vector<MetadataEntry>& entries) {
    std::vector<int64_t> out;
    for (const MetadataEntry& entry : entries) out.push_back(entry.offset);
    return out;
}

TEST(Observer, FirstFetchLearnsTheEpochThenCommittedRecordsOnlyAreHandedOut) {
    ScriptedController controller(std::vector<Answer>{
        // INVALID_REQUEST: the epoch named (-1) is below the last fetched one.
        answer([](Answer& a) { a.error = 42; }),
        // 100-103 sent, 100-101 committed.
        answer([](Answer& a) { a.high_watermark = 102; a.records = true; }),
        // Nothing new; 103 committed now.
        answer([](Answer& a) { a.high_watermark = 104; }),
    });
    MetadataLogObserver observer = controller.observer(100, 0);
    Result<PollResult> first = observer.poll();
    ASSERT_TRUE(first.ok()) << first.error().to_string();
    EXPECT_EQ(offsets(first->entries), (std::vector<int64_t>{100, 101}));  // 102 is a NoOp
    EXPECT_EQ(first->leader_epoch, 5);
    EXPECT_EQ(observer.committed_offset(), 102);
    Result<PollResult> second = observer.poll();
    ASSERT_TRUE(second.ok()) << second.error().to_string();
    EXPECT_EQ(offsets(second->entries), (std::vector<int64_t>{103}));
    EXPECT_EQ(observer.committed_offset(), 104);

    const std::vector<ScriptedBroker::Request> fetches = controller.fetches();
    ASSERT_EQ(fetches.size(), 3u);
    EXPECT_EQ(fetches[0].frame, expected_fetch(fetches[0].correlation_id, -1, 100, 0));
    EXPECT_EQ(fetches[1].frame, expected_fetch(fetches[1].correlation_id, 5, 100, 0));
    // After the batch: its epoch (5) and the offset after it.
    EXPECT_EQ(fetches[2].frame, expected_fetch(fetches[2].correlation_id, 5, 104, 5));
}

TEST(Observer, ADivergingEpochDropsWhatWasHeldAboveIt) {
    ScriptedController controller(std::vector<Answer>{
        // 100-103 sent, 100 committed; the leader's epoch is 6.
        answer([](Answer& a) { a.high_watermark = 101; a.leader = {100, 6}; a.records = true; }),
        answer([](Answer& a) { a.leader = {100, 6}; a.diverging = wire::messages::FetchEpochEndOffset{4, 101}; }),
        answer([](Answer& a) { a.high_watermark = 101; a.leader = {100, 6}; }),
    });
    MetadataLogObserver observer = controller.observer(100, 0);
    Result<PollResult> first = observer.poll();
    ASSERT_TRUE(first.ok()) << first.error().to_string();
    EXPECT_EQ(offsets(first->entries), (std::vector<int64_t>{100}));
    Result<PollResult> diverged = observer.poll();
    ASSERT_TRUE(diverged.ok()) << diverged.error().to_string();
    EXPECT_TRUE(diverged->entries.empty());
    Result<PollResult> again = observer.poll();
    ASSERT_TRUE(again.ok()) << again.error().to_string();
    EXPECT_TRUE(again->entries.empty());  // 101 and 103 were dropped, never handed out
    const std::vector<ScriptedBroker::Request> fetches = controller.fetches();
    ASSERT_EQ(fetches.size(), 3u);
    EXPECT_EQ(fetches[2].frame, expected_fetch(fetches[2].correlation_id, 6, 101, 4));
}

TEST(Observer, APositionBeforeTheLogStartNamesTheSnapshot) {
    ScriptedController controller(std::vector<Answer>{
        answer([](Answer& a) { a.snapshot = wire::messages::FetchEpochEndOffset{3, 80}; })});
    MetadataLogObserver observer = controller.observer(10, 1);
    Result<PollResult> polled = observer.poll();
    ASSERT_FALSE(polled.ok());
    EXPECT_EQ(polled.error().code, ErrorCode::unsupported);
    EXPECT_NE(polled.error().message.find("offset 10 is older than the log's start"),
              std::string::npos)
        << polled.error().message;
    EXPECT_NE(polled.error().message.find("snapshot 80-3"), std::string::npos);
}

TEST(Observer, ARefusedAuthorizationNamesTheAclNeeded) {
    ScriptedController controller(
        std::vector<Answer>{answer([](Answer& a) { a.top_error = 31; })});
    MetadataLogObserver observer = controller.observer(0, 0);
    Result<PollResult> polled = observer.poll();
    ASSERT_FALSE(polled.ok());
    EXPECT_NE(polled.error().message.find("ClusterAction on the cluster"), std::string::npos)
        << polled.error().message;
}

}  // namespace
}  // namespace ballast::kafka::metadata_log
