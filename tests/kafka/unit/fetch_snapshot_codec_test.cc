// FetchSnapshot as a KRaft observer speaks it to the controller quorum's leader: requests byte
// for byte against Kafka's FetchSnapshotRequestData at every version (0-1), and the leader's
// answers decoded field by field from FetchSnapshotResponseData's bytes: a chunk cut inside a
// batch, the snapshot's size and the chunk's position, the current leader, node endpoints,
// SNAPSHOT_NOT_FOUND.

#include <gtest/gtest.h>

#include "adapters/kafka/wire/messages/fetch_snapshot.h"
#include "adapters/kafka/wire/protocol_header.h"
#include "tests/kafka/support/kafka_vectors.h"

namespace ballast::kafka::wire::messages {
namespace {

using testing::hex;
using testing::kafka_vectors;

FetchSnapshotRequest observer_fetch_snapshot() {
    FetchSnapshotRequest request;
    request.cluster_id = "test-cluster-id";
    request.max_bytes = 1048576;
    FetchSnapshotRequestTopic& topic = request.topics.emplace_back();
    topic.name = metadata_topic_name;
    FetchSnapshotRequestPartition& partition = topic.partitions.emplace_back();
    partition.current_leader_epoch = 5;
    partition.snapshot_id = {3, 80};
    partition.position = 4096;
    return request;
}

std::vector<uint8_t> request_frame(const FetchSnapshotRequest& request, int16_t version) {
    Writer writer;
    encode_request_header({ApiKey::fetch_snapshot, version, 7, std::string("ballast")}, writer);
    Status encoded = FetchSnapshot::encode(request, version, writer);
    EXPECT_TRUE(encoded.ok()) << encoded.error().to_string();
    return writer.take();
}

FetchSnapshotResponse response(const std::string& name, int16_t version) {
    const std::vector<uint8_t>& frame = kafka_vectors().at(name);
    Reader header(frame, "header");
    EXPECT_EQ(decode_response_header(header, ApiKey::fetch_snapshot, version).correlation_id, 7);
    Reader reader(std::span<const uint8_t>(frame).subspan(header.offset()), "FetchSnapshotResponse");
    FetchSnapshotResponse decoded = FetchSnapshot::decode(reader, version);
    Status status = reader.finish();
    EXPECT_TRUE(status.ok()) << name << ": " << status.error().to_string();
    return decoded;
}

TEST(FetchSnapshotCodec, ObserverRequestEveryVersionAsKafkaWritesIt) {
    for (int16_t v = 0; v <= 1; ++v) {
        const std::string name = "request.fetch_snapshot.v" + std::to_string(v);
        EXPECT_EQ(hex(request_frame(observer_fetch_snapshot(), v)), hex(kafka_vectors().at(name)))
            << name;
    }
    FetchSnapshotRequest voter = observer_fetch_snapshot();
    voter.replica_id = 3;
    voter.cluster_id.reset();
    voter.topics[0].partitions[0].replica_directory_id = Uuid{0x4142434445464748, 0x5152535455565758};
    EXPECT_EQ(hex(request_frame(voter, 1)), hex(kafka_vectors().at("request.fetch_snapshot.voter.v1")));
    Writer writer;
    Status refused = FetchSnapshot::encode(voter, 0, writer);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("v1"), std::string::npos) << refused.error().message;
}

TEST(FetchSnapshotCodec, LeadersAnswerEveryVersionWithAChunkCutInsideABatch) {
    const std::vector<uint8_t>& batch = kafka_vectors().at("batch.metadata");
    const std::vector<uint8_t> chunk(batch.begin() + 10, batch.begin() + 60);
    for (int16_t v = 0; v <= 1; ++v) {
        SCOPED_TRACE("v" + std::to_string(v));
        const FetchSnapshotResponse answer = response("response.fetch_snapshot.v" + std::to_string(v), v);
        EXPECT_TRUE(answer.error.ok());
        ASSERT_EQ(answer.topics.size(), 1u);
        EXPECT_EQ(answer.topics[0].name, metadata_topic_name);
        ASSERT_EQ(answer.topics[0].partitions.size(), 1u);
        const FetchSnapshotResponsePartition& partition = answer.topics[0].partitions[0];
        EXPECT_EQ(partition.index, 0);
        EXPECT_TRUE(partition.error.ok());
        EXPECT_EQ(partition.snapshot_id, (FetchEpochEndOffset{3, 80}));
        EXPECT_EQ(partition.current_leader, (FetchLeader{100, 5}));
        EXPECT_EQ(partition.size, static_cast<int64_t>(batch.size()));
        EXPECT_EQ(partition.position, 10);
        EXPECT_EQ(hex(partition.bytes), hex(chunk));
        if (v >= 1) {
            EXPECT_EQ(answer.node_endpoints,
                      (std::vector<FetchSnapshotNodeEndpoint>{{100, "127.0.0.1", 9093}}));
        } else {
            EXPECT_TRUE(answer.node_endpoints.empty());
        }
    }
}

TEST(FetchSnapshotCodec, SnapshotNotFoundNamesTheLeader) {
    const FetchSnapshotResponse answer = response("response.fetch_snapshot.not_found.v1", 1);
    ASSERT_EQ(answer.topics.size(), 1u);
    ASSERT_EQ(answer.topics[0].partitions.size(), 1u);
    const FetchSnapshotResponsePartition& partition = answer.topics[0].partitions[0];
    EXPECT_STREQ(error_name(partition.error.code), "SNAPSHOT_NOT_FOUND");
    EXPECT_EQ(partition.current_leader, (FetchLeader{101, 6}));
    EXPECT_EQ(partition.size, -1);
    EXPECT_TRUE(partition.bytes.empty());
}

}  // namespace
}  // namespace ballast::kafka::wire::messages
