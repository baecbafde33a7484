// Fetch as a KRaft observer speaks it to the controller quorum's leader: requests byte for
// byte against Kafka's FetchRequestData at every version implemented (13-18), and the
// leader's answers decoded field by field from FetchResponseData's bytes: records, the high
// watermark, the current leader, a diverging epoch, a snapshot id, node endpoints.

#include <gtest/gtest.h>

#include "adapters/kafka/wire/messages/fetch.h"
#include "adapters/kafka/wire/protocol_header.h"
#include "tests/kafka/support/kafka_vectors.h"

namespace ballast::kafka::wire::messages {
namespace {

using testing::hex;
using testing::kafka_vectors;

FetchRequest observer_fetch() {
    FetchRequest request;
    request.cluster_id = "test-cluster-id";
    request.max_wait_ms = 500;
    request.min_bytes = 1;
    request.max_bytes = 8388608;
    FetchRequestTopic& topic = request.topics.emplace_back();
    topic.topic_id = metadata_topic_id;
    FetchRequestPartition& partition = topic.partitions.emplace_back();
    partition.current_leader_epoch = 4;
    partition.fetch_offset = 100;
    partition.last_fetched_epoch = 3;
    partition.partition_max_bytes = 1048576;
    return request;
}

std::vector<uint8_t> fetch_request_frame(const FetchRequest& request, int16_t version) {
    Writer writer;
    encode_request_header({ApiKey::fetch, version, 7, std::string("ballast")}, writer);
    Status encoded = Fetch::encode(request, version, writer);
    EXPECT_TRUE(encoded.ok()) << encoded.error().to_string();
    return writer.take();
}

FetchResponse fetch_response(const std::string& name, int16_t version) {
    const std::vector<uint8_t>& frame = kafka_vectors().at(name);
    Reader header(frame, "header");
    EXPECT_EQ(decode_response_header(header, ApiKey::fetch, version).correlation_id, 7);
    Reader reader(std::span<const uint8_t>(frame).subspan(header.offset()), "FetchResponse");
    FetchResponse response = Fetch::decode(reader, version);
    Status status = reader.finish();
    EXPECT_TRUE(status.ok()) << name << ": " << status.error().to_string();
    return response;
}

TEST(FetchCodec, ObserverRequestEveryVersionAsKafkaWritesIt) {
    for (int16_t v = 13; v <= 18; ++v) {
        const std::string name = "request.fetch.v" + std::to_string(v);
        EXPECT_EQ(hex(fetch_request_frame(observer_fetch(), v)), hex(kafka_vectors().at(name))) << name;
    }
    FetchRequest voter = observer_fetch();
    voter.replica_id = 3;
    voter.replica_epoch = 7;
    voter.topics[0].partitions[0].replica_directory_id = Uuid{0x4142434445464748, 0x5152535455565758};
    voter.topics[0].partitions[0].high_watermark = 99;
    EXPECT_EQ(hex(fetch_request_frame(voter, 18)), hex(kafka_vectors().at("request.fetch.voter.v18")));
}

TEST(FetchCodec, FieldsOlderVersionsCannotCarryAreRefused) {
    FetchRequest voter = observer_fetch();
    voter.replica_epoch = 7;
    Writer writer;
    Status refused = Fetch::encode(voter, 14, writer);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("v15"), std::string::npos) << refused.error().message;
    FetchRequest high_watermark = observer_fetch();
    high_watermark.topics[0].partitions[0].high_watermark = 5;
    Writer other;
    Status refused_hw = Fetch::encode(high_watermark, 17, other);
    ASSERT_FALSE(refused_hw.ok());
    EXPECT_NE(refused_hw.error().message.find("v18"), std::string::npos);
}

TEST(FetchCodec, LeadersAnswerEveryVersionWithRecordsAndLeader) {
    const std::vector<uint8_t>& batch = kafka_vectors().at("batch.metadata");
    for (int16_t v = 13; v <= 18; ++v) {
        SCOPED_TRACE("v" + std::to_string(v));
        const FetchResponse response = fetch_response("response.fetch.v" + std::to_string(v), v);
        EXPECT_TRUE(response.error.ok());
        ASSERT_EQ(response.responses.size(), 1u);
        const FetchResponseTopic& topic = response.responses[0];
        EXPECT_EQ(topic.topic_id, metadata_topic_id);
        ASSERT_EQ(topic.partitions.size(), 1u);
        const FetchResponsePartition& partition = topic.partitions[0];
        EXPECT_EQ(partition.partition_index, 0);
        EXPECT_TRUE(partition.error.ok());
        EXPECT_EQ(partition.high_watermark, 104);
        EXPECT_EQ(partition.log_start_offset, 0);
        ASSERT_TRUE(partition.current_leader.has_value());
        EXPECT_EQ(*partition.current_leader, (FetchLeader{100, 5}));
        EXPECT_FALSE(partition.diverging_epoch.has_value());
        EXPECT_FALSE(partition.snapshot_id.has_value());
        EXPECT_FALSE(partition.aborted_transactions.has_value());
        ASSERT_TRUE(partition.records.has_value());
        EXPECT_EQ(hex(*partition.records), hex(batch));
        if (v >= 16) {
            ASSERT_EQ(response.node_endpoints.size(), 1u);
            EXPECT_EQ(response.node_endpoints[0],
                      (FetchNodeEndpoint{100, "127.0.0.1", 9093, std::nullopt}));
        } else {
            EXPECT_TRUE(response.node_endpoints.empty());
        }
    }
}

TEST(FetchCodec, FencedAnswerWithDivergingEpochAndSnapshot) {
    const FetchResponse response = fetch_response("response.fetch.fenced.v17", 17);
    ASSERT_EQ(response.responses.size(), 1u);
    ASSERT_EQ(response.responses[0].partitions.size(), 1u);
    const FetchResponsePartition& partition = response.responses[0].partitions[0];
    EXPECT_STREQ(error_name(partition.error.code), "FENCED_LEADER_EPOCH");
    EXPECT_EQ(partition.diverging_epoch, (FetchEpochEndOffset{4, 90}));
    EXPECT_EQ(partition.current_leader, (FetchLeader{100, 6}));
    EXPECT_EQ(partition.snapshot_id, (FetchEpochEndOffset{3, 80}));
    ASSERT_TRUE(partition.aborted_transactions.has_value());
    EXPECT_EQ(*partition.aborted_transactions,
              (std::vector<FetchAbortedTransaction>{{1000, 50}}));
    EXPECT_FALSE(partition.records.has_value());
}

}  // namespace
}  // namespace ballast::kafka::wire::messages
