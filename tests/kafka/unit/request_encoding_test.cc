// Every request Ballast encodes, byte for byte against the frames Kafka's own
// message classes produce for the same values (tests/kafka/vectors/).

#include <gtest/gtest.h>

#include "adapters/kafka/wire/messages/alter_partition_reassignments.h"
#include "adapters/kafka/wire/messages/api_versions.h"
#include "adapters/kafka/wire/messages/describe_cluster.h"
#include "adapters/kafka/wire/messages/describe_topic_partitions.h"
#include "adapters/kafka/wire/messages/describe_log_dirs.h"
#include "adapters/kafka/wire/messages/elect_leaders.h"
#include "adapters/kafka/wire/messages/list_offsets.h"
#include "adapters/kafka/wire/messages/find_coordinator.h"
#include "adapters/kafka/wire/messages/list_groups.h"
#include "adapters/kafka/wire/messages/list_partition_reassignments.h"
#include "adapters/kafka/wire/messages/offset_fetch.h"
#include "adapters/kafka/wire/messages/metadata.h"
#include "adapters/kafka/wire/protocol_header.h"
#include "adapters/kafka/wire/messages/sasl_authenticate.h"
#include "adapters/kafka/wire/messages/sasl_handshake.h"
#include "tests/kafka/support/kafka_vectors.h"

namespace ballast::kafka::wire::messages {
namespace {

using testing::hex;
using testing::kafka_vectors;

/// Header (correlation id 7, client id "ballast") then body, as the vectors hold them.
template <class Api>
std::vector<uint8_t> encode_frame(const typename Api::Request& request, int16_t version) {
    Writer writer;
    encode_request_header({Api::key, version, 7, std::string("ballast")}, writer);
    Status encoded = Api::encode(request, version, writer);
    EXPECT_TRUE(encoded.ok()) << encoded.error().to_string();
    return writer.take();
}

#define EXPECT_FRAME(name, bytes)                                                    \
    do {                                                                             \
        const std::vector<uint8_t>& expected = kafka_vectors().at(name);             \
        const std::vector<uint8_t> actual = (bytes);                                 \
        EXPECT_EQ(actual, expected) << name << "\n  ours:  " << hex(actual)          \
                                    << "\n  Kafka: " << hex(expected);               \
    } while (0)

TEST(RequestEncoding, ApiVersionsEveryVersion) {
    ApiVersionsRequest request;
    request.client_software_name = "ballast";
    request.client_software_version = "0.1.0";
    for (int16_t v = 0; v <= 4; ++v) {
        EXPECT_FRAME("request.api_versions.v" + std::to_string(v),
                     encode_frame<ApiVersions>(request, v));
    }
}

TEST(RequestEncoding, DescribeTopicPartitionsFirstPageAndFromCursor) {
    DescribeTopicPartitionsRequest all;
    all.response_partition_limit = 500;
    EXPECT_FRAME("request.describe_topic_partitions.all.v0", encode_frame<DescribeTopicPartitions>(all, 0));
    DescribeTopicPartitionsRequest from_cursor;
    from_cursor.topics = {"orders", "payments"};
    from_cursor.cursor = DescribeTopicPartitionsCursor{"orders", 7};
    EXPECT_FRAME("request.describe_topic_partitions.cursor.v0",
                 encode_frame<DescribeTopicPartitions>(from_cursor, 0));
}

TEST(RequestEncoding, DescribeClusterEveryVersion) {
    DescribeClusterRequest v0;
    v0.include_cluster_authorized_operations = true;
    EXPECT_FRAME("request.describe_cluster.v0", encode_frame<DescribeCluster>(v0, 0));
    DescribeClusterRequest v1;
    v1.endpoint_type = EndpointType::controllers;
    EXPECT_FRAME("request.describe_cluster.v1", encode_frame<DescribeCluster>(v1, 1));
    DescribeClusterRequest v2;
    v2.include_fenced_brokers = true;
    EXPECT_FRAME("request.describe_cluster.v2", encode_frame<DescribeCluster>(v2, 2));
}

AlterPartitionReassignmentsRequest reassignments(bool allow_replication_factor_change) {
    AlterPartitionReassignmentsRequest request;
    request.timeout_ms = 30000;
    request.allow_replication_factor_change = allow_replication_factor_change;
    request.topics = {
        {"orders", {{0, std::vector<int32_t>{2, 3, 1}}, {1, std::nullopt}}},
        {"payments", {{4, std::vector<int32_t>{1}}}},
    };
    return request;
}

TEST(RequestEncoding, AlterPartitionReassignmentsWithTargetsAndACancel) {
    EXPECT_FRAME("request.alter_partition_reassignments.v0",
                 encode_frame<AlterPartitionReassignments>(reassignments(true), 0));
    EXPECT_FRAME("request.alter_partition_reassignments.v1",
                 encode_frame<AlterPartitionReassignments>(reassignments(false), 1));
}

TEST(RequestEncoding, ListPartitionReassignmentsAllAndSome) {
    ListPartitionReassignmentsRequest all;
    all.timeout_ms = 10000;
    EXPECT_FRAME("request.list_partition_reassignments.all.v0",
                 encode_frame<ListPartitionReassignments>(all, 0));
    ListPartitionReassignmentsRequest some;
    some.timeout_ms = 10000;
    some.topics = std::vector<TopicPartitions>{{"orders", {0, 1}}};
    EXPECT_FRAME("request.list_partition_reassignments.some.v0",
                 encode_frame<ListPartitionReassignments>(some, 0));
}

TEST(RequestEncoding, ListGroupsEveryVersionAndFiltersItCannotCarry) {
    ListGroupsRequest request;
    EXPECT_FRAME("request.list_groups.v3", encode_frame<ListGroups>(request, 3));
    request.states_filter = {"Stable", "Empty"};
    EXPECT_FRAME("request.list_groups.v4", encode_frame<ListGroups>(request, 4));
    request.types_filter = {"classic", "consumer"};
    EXPECT_FRAME("request.list_groups.v5", encode_frame<ListGroups>(request, 5));
    Writer writer;
    Status refused = ListGroups::encode(request, 4, writer);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("filter by type"), std::string::npos);
}

TEST(RequestEncoding, FindCoordinatorEveryVersion) {
    FindCoordinatorRequest request;
    request.coordinator_keys = {"billing", "audit"};
    for (int16_t v = 4; v <= 6; ++v) {
        EXPECT_FRAME("request.find_coordinator.v" + std::to_string(v),
                     encode_frame<FindCoordinator>(request, v));
    }
}

TEST(RequestEncoding, OffsetFetchManyGroupsEveryVersion) {
    OffsetFetchRequest request;
    request.groups.push_back({"billing", std::nullopt, -1, std::nullopt});
    request.groups.push_back({"audit", std::nullopt, -1, std::vector<TopicPartitions>{{"orders", {0, 1}}}});
    for (int16_t v = 8; v <= 9; ++v) {
        EXPECT_FRAME("request.offset_fetch.v" + std::to_string(v), encode_frame<OffsetFetch>(request, v));
    }
    request.groups[0].member_epoch = 5;
    Writer writer;
    Status refused = OffsetFetch::encode(request, 8, writer);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("'billing'"), std::string::npos);
}

TEST(RequestEncoding, ElectLeadersEveryVersion) {
    ElectLeadersRequest request;
    request.election_type = ElectionType::preferred;
    request.topic_partitions = std::vector<TopicPartitions>{{"orders", {0, 2}}};
    request.timeout_ms = 15000;
    for (int16_t v = 0; v <= 2; ++v) {
        EXPECT_FRAME("request.elect_leaders.v" + std::to_string(v),
                     encode_frame<ElectLeaders>(request, v));
    }
    ElectLeadersRequest all;
    all.election_type = ElectionType::unclean;
    all.timeout_ms = 15000;
    EXPECT_FRAME("request.elect_leaders.all_unclean.v2", encode_frame<ElectLeaders>(all, 2));
}

TEST(RequestEncoding, DescribeLogDirsEveryVersion) {
    DescribeLogDirsRequest request;
    request.topics = std::vector<TopicPartitions>{{"orders", {0, 1}}};
    for (int16_t v = 1; v <= 4; ++v) {
        EXPECT_FRAME("request.describe_log_dirs.v" + std::to_string(v),
                     encode_frame<DescribeLogDirs>(request, v));
    }
    EXPECT_FRAME("request.describe_log_dirs.all.v2", encode_frame<DescribeLogDirs>({}, 2));
}

TEST(RequestEncoding, SaslHandshakeEveryVersion) {
    for (int16_t v = 0; v <= 1; ++v) {
        EXPECT_FRAME("request.sasl_handshake.v" + std::to_string(v),
                     encode_frame<SaslHandshake>({"SCRAM-SHA-512"}, v));
    }
}

TEST(RequestEncoding, SaslAuthenticateEveryVersion) {
    const std::string token = "n,,n=ballast,r=fyko+d2lbbFgONRv9qkxdawL";
    SaslAuthenticateRequest request{std::vector<uint8_t>(token.begin(), token.end())};
    for (int16_t v = 0; v <= 2; ++v) {
        EXPECT_FRAME("request.sasl_authenticate.v" + std::to_string(v),
                     encode_frame<SaslAuthenticate>(request, v));
    }
}

// What an old version cannot say is refused with a message naming the field and the
// version it needs, rather than silently dropped.
TEST(RequestEncoding, MetadataEveryVersion) {
    for (int16_t v = 0; v <= 13; ++v) {
        MetadataRequest request;
        request.topics = std::vector<MetadataRequestTopic>{{Uuid{}, "orders"}, {Uuid{}, "payments"}};
        request.allow_auto_topic_creation = v < 4;
        request.include_cluster_authorized_operations = v >= 8 && v <= 10;
        request.include_topic_authorized_operations = v >= 8;
        EXPECT_FRAME("request.metadata.v" + std::to_string(v), encode_frame<Metadata>(request, v));
    }
    // Every topic: v0's empty list, null from v1.
    MetadataRequest all;
    EXPECT_FRAME("request.metadata.all.v0", encode_frame<Metadata>(all, 0));
    EXPECT_FRAME("request.metadata.all.v1", encode_frame<Metadata>(all, 1));
    all.allow_auto_topic_creation = false;
    EXPECT_FRAME("request.metadata.all.v12", encode_frame<Metadata>(all, 12));
}

TEST(RequestEncoding, ListOffsetsEveryVersion) {
    for (int16_t v = 1; v <= 10; ++v) {
        ListOffsetsRequest request;
        request.isolation_level = v >= 2 ? 1 : 0;
        request.topics = {{"orders", {{0, v >= 4 ? 5 : -1, list_offsets_timestamp::latest},
                                      {1, -1, list_offsets_timestamp::earliest}}},
                          {"payments", {{3, -1, 1700000000000}}}};
        request.timeout_ms = v >= 10 ? 3000 : 0;
        EXPECT_FRAME("request.list_offsets.v" + std::to_string(v), encode_frame<ListOffsets>(request, v));
    }
}

TEST(RequestEncoding, FieldsAnOldVersionCannotCarryAreRefused) {
    Writer writer;
    Status status = AlterPartitionReassignments::encode(reassignments(false), 0, writer);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().code, events::ErrorCode::unsupported);
    EXPECT_NE(status.error().message.find("allow_replication_factor_change=false needs v1"),
              std::string::npos)
        << status.error().message;

    ElectLeadersRequest unclean;
    unclean.election_type = ElectionType::unclean;
    status = ElectLeaders::encode(unclean, 0, writer);
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.error().message.find("unclean elections need v1"), std::string::npos)
        << status.error().message;

    DescribeClusterRequest fenced;
    fenced.include_fenced_brokers = true;
    status = DescribeCluster::encode(fenced, 1, writer);
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.error().message.find("fenced brokers: that needs v2"), std::string::npos)
        << status.error().message;

    DescribeClusterRequest controllers;
    controllers.endpoint_type = EndpointType::controllers;
    status = DescribeCluster::encode(controllers, 0, writer);
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.error().message.find("controllers needs v1"), std::string::npos)
        << status.error().message;

    MetadataRequest none;
    none.topics = std::vector<MetadataRequestTopic>{};
    status = Metadata::encode(none, 0, writer);
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.error().message.find("Metadata v0 cannot ask for no topic"), std::string::npos)
        << status.error().message;
    MetadataRequest created;
    created.allow_auto_topic_creation = false;
    EXPECT_FALSE(Metadata::encode(created, 3, writer).ok());
    MetadataRequest by_id;
    by_id.topics = std::vector<MetadataRequestTopic>{{Uuid{1, 2}, std::nullopt}};
    status = Metadata::encode(by_id, 9, writer);
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.error().message.find("a topic id needs v10"), std::string::npos) << status.error().message;
    MetadataRequest cluster_operations;
    cluster_operations.include_cluster_authorized_operations = true;
    EXPECT_FALSE(Metadata::encode(cluster_operations, 11, writer).ok());
    EXPECT_FALSE(Metadata::encode(cluster_operations, 7, writer).ok());

    ListOffsetsRequest committed;
    committed.isolation_level = 1;
    status = ListOffsets::encode(committed, 1, writer);
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.error().message.find("read_committed needs v2"), std::string::npos) << status.error().message;
}

}  // namespace
}  // namespace ballast::kafka::wire::messages
