// Every response Ballast decodes, from frames Kafka's own message classes wrote
// (tests/kafka/vectors/), field by field; then the same frames cut short and
// damaged: a clear error naming the message, the field and the offset, never a
// crash (the sanitized build runs these too).

#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "adapters/kafka/wire/messages/alter_partition_reassignments.h"
#include "adapters/kafka/wire/messages/api_versions.h"
#include "adapters/kafka/wire/messages/describe_cluster.h"
#include "adapters/kafka/wire/messages/describe_topic_partitions.h"
#include "adapters/kafka/wire/messages/describe_log_dirs.h"
#include "adapters/kafka/wire/messages/elect_leaders.h"
#include "adapters/kafka/wire/messages/fetch.h"
#include "adapters/kafka/wire/messages/fetch_snapshot.h"
#include "adapters/kafka/wire/messages/find_coordinator.h"
#include "adapters/kafka/wire/messages/list_groups.h"
#include "adapters/kafka/wire/messages/list_offsets.h"
#include "adapters/kafka/wire/messages/list_partition_reassignments.h"
#include "adapters/kafka/wire/messages/metadata.h"
#include "adapters/kafka/wire/messages/offset_fetch.h"
#include "adapters/kafka/wire/protocol_header.h"
#include "adapters/kafka/wire/messages/sasl_authenticate.h"
#include "adapters/kafka/wire/messages/sasl_handshake.h"
#include "tests/kafka/support/kafka_vectors.h"

namespace ballast::kafka::wire::messages {
namespace {

using testing::kafka_vectors;

template <class Api>
Result<typename Api::Response> decode_frame(std::span<const uint8_t> frame, int16_t version) {
    const std::string label =
        std::string(api_name(Api::key)) + "Response v" + std::to_string(version);
    Reader header_reader(frame, label + " header");
    decode_response_header(header_reader, Api::key, version);
    if (!header_reader.ok()) return header_reader.status().error();
    Reader reader(frame.subspan(header_reader.offset()), label);
    typename Api::Response response = Api::decode(reader, version);
    Status status = reader.finish();
    if (!status.ok()) return status.error();
    return response;
}

template <class Api>
typename Api::Response decode_vector(const std::string& name, int16_t version) {
    const std::vector<uint8_t>& frame = kafka_vectors().at(name);
    Reader header_reader(frame, "header");
    EXPECT_EQ(decode_response_header(header_reader, Api::key, version).correlation_id, 7);
    Result<typename Api::Response> response = decode_frame<Api>(frame, version);
    EXPECT_TRUE(response.ok()) << name << ": " << response.error().to_string();
    if (!response.ok()) return {};
    return std::move(*response);
}

TEST(ResponseDecoding, ApiVersionsEveryVersionSkippingFeatureTags) {
    for (int16_t v = 0; v <= 4; ++v) {
        SCOPED_TRACE("v" + std::to_string(v));
        const ApiVersionsResponse response =
            decode_vector<ApiVersions>("response.api_versions.v" + std::to_string(v), v);
        EXPECT_TRUE(response.error.ok());
        const std::vector<ApiVersionRange> expected{{18, 0, 4}, {60, 0, 2}};
        EXPECT_EQ(response.api_keys, expected);
        EXPECT_EQ(response.throttle_time_ms, v >= 1 ? 5 : 0);
        EXPECT_EQ(response.range(ApiKey::describe_cluster).max, 2);
        EXPECT_TRUE(response.range(ApiKey::elect_leaders).empty());
    }
}

TEST(ResponseDecoding, ApiVersionsUnsupportedVersionAnswer) {
    const ApiVersionsResponse response =
        decode_vector<ApiVersions>("response.api_versions.unsupported.v0", 0);
    EXPECT_EQ(response.error.code, error_codes::unsupported_version);
    EXPECT_EQ(response.range(ApiKey::api_versions).max, 2);
}

TEST(ResponseDecoding, DescribeTopicPartitionsPagesAndCursor) {
    const DescribeTopicPartitionsResponse next =
        decode_vector<DescribeTopicPartitions>("response.describe_topic_partitions.next.v0", 0);
    EXPECT_EQ(next.throttle_time_ms, 3);
    ASSERT_EQ(next.topics.size(), 2u);
    const DescribeTopicPartitionsTopic& orders = next.topics[0];
    EXPECT_EQ(orders.name, "orders");
    EXPECT_FALSE(orders.topic_id.is_zero());
    EXPECT_FALSE(orders.is_internal);
    ASSERT_EQ(orders.partitions.size(), 2u);
    EXPECT_EQ(orders.partitions[0].leader_id, 1);
    EXPECT_EQ(orders.partitions[0].leader_epoch, 4);
    EXPECT_EQ(orders.partitions[0].replica_nodes, (std::vector<int32_t>{1, 2, 3}));
    EXPECT_EQ(orders.partitions[0].isr_nodes, (std::vector<int32_t>{1, 2}));
    EXPECT_EQ(orders.partitions[0].eligible_leader_replicas, (std::vector<int32_t>{3}));
    EXPECT_EQ(orders.partitions[0].last_known_elr, std::nullopt);
    EXPECT_EQ(orders.partitions[1].error_code, 5);
    EXPECT_EQ(orders.partitions[1].partition_index, 1);
    EXPECT_EQ(orders.partitions[1].leader_id, -1);
    EXPECT_EQ(orders.partitions[1].eligible_leader_replicas, std::nullopt);
    EXPECT_EQ(orders.partitions[1].last_known_elr, (std::vector<int32_t>{2}));
    EXPECT_EQ(orders.partitions[1].offline_replicas, (std::vector<int32_t>{2, 3}));
    EXPECT_EQ(next.topics[1].name, "gone");
    EXPECT_EQ(next.topics[1].error_code, 3);
    EXPECT_TRUE(next.topics[1].partitions.empty());
    ASSERT_TRUE(next.next_cursor.has_value());
    EXPECT_EQ(*next.next_cursor, (DescribeTopicPartitionsCursor{"orders", 2}));

    const DescribeTopicPartitionsResponse last =
        decode_vector<DescribeTopicPartitions>("response.describe_topic_partitions.last.v0", 0);
    ASSERT_EQ(last.topics.size(), 1u);
    EXPECT_TRUE(last.topics[0].is_internal);
    EXPECT_EQ(last.topics[0].partitions.at(0).partition_index, 49);
    EXPECT_EQ(last.topics[0].topic_authorized_operations, 0);
    EXPECT_EQ(last.next_cursor, std::nullopt);
}

TEST(ResponseDecoding, DescribeClusterEveryVersion) {
    for (int16_t v = 0; v <= 2; ++v) {
        SCOPED_TRACE("v" + std::to_string(v));
        const DescribeClusterResponse response =
            decode_vector<DescribeCluster>("response.describe_cluster.v" + std::to_string(v), v);
        EXPECT_TRUE(response.error.ok());
        EXPECT_EQ(response.error.message, std::nullopt);
        EXPECT_EQ(response.endpoint_type, EndpointType::brokers);
        EXPECT_EQ(response.cluster_id, "cluster-abc");
        EXPECT_EQ(response.controller_id, 2);
        ASSERT_EQ(response.brokers.size(), 2u);
        // Broker 1 carries an unknown tagged field (tag 7), which is skipped.
        EXPECT_EQ(response.brokers[0],
                  (DescribeClusterBroker{1, "127.0.0.1", 9092, "rack-1", false}));
        EXPECT_EQ(response.brokers[1],
                  (DescribeClusterBroker{2, "broker-2.example", 9093, std::nullopt, v >= 2}));
        EXPECT_EQ(response.cluster_authorized_operations, std::numeric_limits<int32_t>::min());
        EXPECT_EQ(response.broker(2)->port, 9093);
        EXPECT_EQ(response.broker(3), nullptr);
    }
}

TEST(ResponseDecoding, DescribeClusterTopLevelError) {
    const DescribeClusterResponse response =
        decode_vector<DescribeCluster>("response.describe_cluster.error.v2", 2);
    EXPECT_EQ(response.throttle_time_ms, 12);
    EXPECT_EQ(response.error.code, 31);
    EXPECT_EQ(response.error.to_string(), "CLUSTER_AUTHORIZATION_FAILED (31): denied");
    EXPECT_EQ(response.endpoint_type, EndpointType::controllers);
    EXPECT_TRUE(response.brokers.empty());
}

TEST(ResponseDecoding, AlterPartitionReassignmentsPerPartitionErrors) {
    for (int16_t v = 0; v <= 1; ++v) {
        SCOPED_TRACE("v" + std::to_string(v));
        const AlterPartitionReassignmentsResponse response =
            decode_vector<AlterPartitionReassignments>(
                "response.alter_partition_reassignments.v" + std::to_string(v), v);
        EXPECT_TRUE(response.error.ok());
        // v1 echoes the request's false; v0 has no such field and keeps the default, true.
        EXPECT_EQ(response.allow_replication_factor_change, v == 0);
        ASSERT_EQ(response.responses.size(), 1u);
        EXPECT_EQ(response.responses[0].name, "orders");
        const std::vector<ReassignablePartitionResponse> expected{
            {0, {0, std::nullopt}},
            {1, {85, "No reassignment in progress for orders-1"}},
        };
        EXPECT_EQ(response.responses[0].partitions, expected);
        EXPECT_EQ(response.responses[0].partitions[1].error.to_string(),
                  "NO_REASSIGNMENT_IN_PROGRESS (85): No reassignment in progress for orders-1");
    }
}

TEST(ResponseDecoding, ListPartitionReassignmentsSkippingUnknownTags) {
    const ListPartitionReassignmentsResponse response =
        decode_vector<ListPartitionReassignments>("response.list_partition_reassignments.v0", 0);
    EXPECT_EQ(response.throttle_time_ms, 3);
    EXPECT_TRUE(response.error.ok());
    const OngoingPartitionReassignment* ongoing = response.find("orders", 0);
    ASSERT_NE(ongoing, nullptr);
    EXPECT_EQ(ongoing->replicas, (std::vector<int32_t>{2, 3, 1}));
    EXPECT_EQ(ongoing->adding_replicas, (std::vector<int32_t>{3}));
    EXPECT_EQ(ongoing->removing_replicas, (std::vector<int32_t>{1}));
    EXPECT_EQ(response.find("orders", 1), nullptr);
}

TEST(ResponseDecoding, ElectLeadersEveryVersion) {
    for (int16_t v = 0; v <= 2; ++v) {
        SCOPED_TRACE("v" + std::to_string(v));
        const ElectLeadersResponse response =
            decode_vector<ElectLeaders>("response.elect_leaders.v" + std::to_string(v), v);
        EXPECT_TRUE(response.error.ok());
        ASSERT_EQ(response.replica_election_results.size(), 1u);
        EXPECT_TRUE(response.find("orders", 0)->error.ok());
        EXPECT_EQ(response.find("orders", 2)->error.to_string(),
                  "ELECTION_NOT_NEEDED (84): Leader election not needed for topic partition.");
    }
}

TEST(ResponseDecoding, DescribeLogDirsEveryVersion) {
    for (int16_t v = 1; v <= 4; ++v) {
        SCOPED_TRACE("v" + std::to_string(v));
        const DescribeLogDirsResponse response =
            decode_vector<DescribeLogDirs>("response.describe_log_dirs.v" + std::to_string(v), v);
        ASSERT_EQ(response.results.size(), 2u);
        const DescribeLogDirsResult& a = response.results[0];
        EXPECT_TRUE(a.error.ok());
        EXPECT_EQ(a.log_dir, "/data/a");
        ASSERT_EQ(a.topics.size(), 1u);
        const std::vector<DescribeLogDirsPartition> expected{
            {0, 1048576, 0, false},
            {1, 5000000000, 3, true},
        };
        EXPECT_EQ(a.topics[0].partitions, expected);
        EXPECT_EQ(a.total_bytes, v >= 4 ? 1000000000000 : -1);
        EXPECT_EQ(a.usable_bytes, v >= 4 ? 500000000000 : -1);
        const DescribeLogDirsResult& b = response.results[1];
        EXPECT_EQ(b.error.code, 56);
        EXPECT_EQ(error_name(b.error.code), std::string("KAFKA_STORAGE_ERROR"));
        // find() skips the future replica of partition 1.
        EXPECT_EQ(response.find("orders", 0)->partition_size, 1048576);
        EXPECT_EQ(response.find("orders", 1), nullptr);
    }
}

TEST(ResponseDecoding, ApiVersionsOfASaslListener) {
    const ApiVersionsResponse response =
        decode_vector<ApiVersions>("response.api_versions.sasl.v4", 4);
    EXPECT_EQ(response.range(ApiKey::sasl_handshake).max, 1);
    EXPECT_EQ(response.range(ApiKey::sasl_authenticate).max, 2);
}

TEST(ResponseDecoding, SaslHandshakeEveryVersionAndAnUnsupportedMechanism) {
    for (int16_t v = 0; v <= 1; ++v) {
        SCOPED_TRACE("v" + std::to_string(v));
        const SaslHandshakeResponse response =
            decode_vector<SaslHandshake>("response.sasl_handshake.v" + std::to_string(v), v);
        EXPECT_TRUE(response.error.ok());
        EXPECT_EQ(response.mechanisms,
                  (std::vector<std::string>{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}));
    }
    const SaslHandshakeResponse refused =
        decode_vector<SaslHandshake>("response.sasl_handshake.unsupported.v1", 1);
    EXPECT_EQ(refused.error.code, error_codes::unsupported_sasl_mechanism);
    EXPECT_EQ(refused.mechanisms, (std::vector<std::string>{"PLAIN", "SCRAM-SHA-256"}));
}

TEST(ResponseDecoding, SaslAuthenticateEveryVersionSuccessAndFailure) {
    const std::string token =
        "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096";
    for (int16_t v = 0; v <= 2; ++v) {
        SCOPED_TRACE("v" + std::to_string(v));
        // v2 carries an unknown tagged field, which is skipped.
        const SaslAuthenticateResponse response = decode_vector<SaslAuthenticate>(
            "response.sasl_authenticate.v" + std::to_string(v), v);
        EXPECT_TRUE(response.error.ok());
        EXPECT_EQ(response.error.message, std::nullopt);
        EXPECT_EQ(std::string(response.auth_bytes.begin(), response.auth_bytes.end()), token);
        // v0 has no lifetime: the session never expires.
        EXPECT_EQ(response.session_lifetime_ms, v >= 1 ? 3600000 : 0);

        const SaslAuthenticateResponse failed = decode_vector<SaslAuthenticate>(
            "response.sasl_authenticate.failed.v" + std::to_string(v), v);
        EXPECT_EQ(failed.error.to_string(),
                  "SASL_AUTHENTICATION_FAILED (58): Authentication failed during authentication "
                  "due to invalid credentials with SASL mechanism SCRAM-SHA-512");
        EXPECT_TRUE(failed.auth_bytes.empty());
    }
}

TEST(ResponseDecoding, MetadataEveryVersion) {
    for (int16_t v = 0; v <= 13; ++v) {
        SCOPED_TRACE("v" + std::to_string(v));
        const MetadataResponse r = decode_vector<Metadata>("response.metadata.v" + std::to_string(v), v);
        EXPECT_EQ(r.throttle_time_ms, v >= 3 ? 4 : 0);
        ASSERT_EQ(r.brokers.size(), 2u);
        EXPECT_EQ(r.brokers[0], (MetadataResponseBroker{1, "127.0.0.1", 9092,
                                                        v >= 1 ? std::optional<std::string>("rack-1") : std::nullopt}));
        EXPECT_EQ(r.brokers[1], (MetadataResponseBroker{2, "broker-2.example", 9093, std::nullopt}));
        EXPECT_EQ(r.cluster_id, v >= 2 ? std::optional<std::string>("cluster-abc") : std::nullopt);
        EXPECT_EQ(r.controller_id, v >= 1 ? 2 : -1);
        ASSERT_EQ(r.topics.size(), 3u);
        const MetadataResponseTopic& orders = r.topics[0];
        EXPECT_EQ(orders.name, "orders");
        EXPECT_EQ(orders.error_code, 0);
        EXPECT_EQ(orders.topic_id, v >= 10 ? (Uuid{0x0102030405060708, 0x1112131415161718}) : Uuid{});
        EXPECT_EQ(orders.topic_authorized_operations, v >= 8 ? 0x5f8 : std::numeric_limits<int32_t>::min());
        ASSERT_EQ(orders.partitions.size(), 2u);
        // Partition 0 carries an unknown tagged field from v9, which is skipped.
        EXPECT_EQ(orders.partitions[0], (MetadataResponsePartition{0, 0, 1, v >= 7 ? 5 : -1, {1, 2}, {1, 2}, {}}));
        EXPECT_EQ(orders.partitions[1],
                  (MetadataResponsePartition{5, 1, -1, v >= 7 ? 3 : -1, {2, 3}, {}, v >= 5 ? std::vector<int32_t>{3}
                                                                                       : std::vector<int32_t>{}}));
        EXPECT_EQ(r.topics[1].name, "gone");
        EXPECT_EQ(r.topics[1].error_code, error_codes::unknown_topic_or_partition);
        EXPECT_EQ(r.topics[2].is_internal, v >= 1);
        EXPECT_EQ(r.error_code, 0);
    }
    const MetadataResponse failed = decode_vector<Metadata>("response.metadata.error.v13", 13);
    EXPECT_STREQ(error_name(failed.error_code), "REBOOTSTRAP_REQUIRED");
    EXPECT_TRUE(failed.topics.empty());
}

TEST(ResponseDecoding, ListOffsetsEveryVersion) {
    for (int16_t v = 1; v <= 10; ++v) {
        SCOPED_TRACE("v" + std::to_string(v));
        const ListOffsetsResponse r = decode_vector<ListOffsets>("response.list_offsets.v" + std::to_string(v), v);
        EXPECT_EQ(r.throttle_time_ms, v >= 2 ? 6 : 0);
        ASSERT_EQ(r.topics.size(), 1u);
        EXPECT_EQ(r.topics[0].name, "orders");
        const std::vector<ListOffsetsPartitionResponse> expected{
            {0, {0, std::nullopt}, -1, 1234, v >= 4 ? 5 : -1},
            {1, {6, std::nullopt}, -1, -1, -1},
        };
        EXPECT_EQ(r.topics[0].partitions, expected);
        EXPECT_STREQ(error_name(r.topics[0].partitions[1].error.code), "NOT_LEADER_OR_FOLLOWER");
    }
}

// ------------------------------------------------------------------ damaged input

TEST(ResponseDecoding, ListGroupsEveryVersion) {
    for (int16_t v = 3; v <= 5; ++v) {
        SCOPED_TRACE("v" + std::to_string(v));
        const ListGroupsResponse response =
            decode_vector<ListGroups>("response.list_groups.v" + std::to_string(v), v);
        EXPECT_EQ(response.throttle_time_ms, 3);
        EXPECT_TRUE(response.error.ok());
        const std::vector<ListedGroup> expected{
            {"billing", "consumer", v >= 4 ? "Stable" : "", v >= 5 ? "consumer" : ""},
            {"audit", "", v >= 4 ? "Empty" : "", v >= 5 ? "classic" : ""}};
        EXPECT_EQ(response.groups, expected);
    }
    const ListGroupsResponse refused = decode_vector<ListGroups>("response.list_groups.error.v5", 5);
    EXPECT_EQ(refused.error.code, error_codes::coordinator_not_available);
    EXPECT_TRUE(refused.groups.empty());
}

TEST(ResponseDecoding, FindCoordinatorEveryVersionWithAKeyRefused) {
    for (int16_t v = 4; v <= 6; ++v) {
        SCOPED_TRACE("v" + std::to_string(v));
        const FindCoordinatorResponse response =
            decode_vector<FindCoordinator>("response.find_coordinator.v" + std::to_string(v), v);
        ASSERT_EQ(response.coordinators.size(), 2u);
        EXPECT_EQ(response.coordinators[0], (Coordinator{"billing", 2, "broker-2", 9092, {}}));
        EXPECT_EQ(response.coordinators[1].key, "audit");
        EXPECT_EQ(response.coordinators[1].node_id, -1);
        EXPECT_EQ(response.coordinators[1].error.code, error_codes::coordinator_not_available);
        EXPECT_EQ(response.coordinators[1].error.message, "The coordinator is not available.");
    }
}

TEST(ResponseDecoding, OffsetFetchManyGroupsEveryVersion) {
    for (int16_t v = 8; v <= 9; ++v) {
        SCOPED_TRACE("v" + std::to_string(v));
        const OffsetFetchResponse response =
            decode_vector<OffsetFetch>("response.offset_fetch.v" + std::to_string(v), v);
        EXPECT_EQ(response.throttle_time_ms, 1);
        ASSERT_EQ(response.groups.size(), 2u);
        const OffsetFetchGroup& billing = response.groups[0];
        EXPECT_EQ(billing.group_id, "billing");
        EXPECT_TRUE(billing.error.ok());
        const std::vector<OffsetFetchTopic> expected{
            {"orders", {{0, 1234, 3, std::string(""), {}}, {1, -1, -1, std::nullopt, {}}}},
            {"payments", {{4, 99, 0, std::string("m"), {}}}}};
        EXPECT_EQ(billing.topics, expected);
        EXPECT_EQ(response.groups[1].group_id, "audit");
        EXPECT_EQ(response.groups[1].error.code, error_codes::not_coordinator);
        EXPECT_TRUE(response.groups[1].topics.empty());
    }
}

struct Case {
    std::string vector;
    ApiKey key;
    int16_t version;
};

std::vector<Case> response_cases() {
    std::vector<Case> cases;
    for (const auto& [name, bytes] : kafka_vectors().frames) {
        if (name.rfind("response.", 0) != 0) continue;
        const size_t v = name.rfind(".v");
        const int16_t version = static_cast<int16_t>(std::stoi(name.substr(v + 2)));
        ApiKey key = ApiKey::api_versions;
        if (name.find(".describe_cluster") != std::string::npos) key = ApiKey::describe_cluster;
        if (name.find(".alter_partition") != std::string::npos) key = ApiKey::alter_partition_reassignments;
        if (name.find(".list_partition") != std::string::npos) key = ApiKey::list_partition_reassignments;
        if (name.find(".elect_leaders") != std::string::npos) key = ApiKey::elect_leaders;
        if (name.find(".describe_log_dirs") != std::string::npos) key = ApiKey::describe_log_dirs;
        if (name.find(".sasl_handshake") != std::string::npos) key = ApiKey::sasl_handshake;
        if (name.find(".sasl_authenticate") != std::string::npos) key = ApiKey::sasl_authenticate;
        if (name.find(".metadata") != std::string::npos) key = ApiKey::metadata;
        if (name.find(".list_offsets") != std::string::npos) key = ApiKey::list_offsets;
        if (name.find(".fetch.") != std::string::npos) key = ApiKey::fetch;
        if (name.find(".fetch_snapshot.") != std::string::npos) key = ApiKey::fetch_snapshot;
        if (name.find(".describe_topic_partitions") != std::string::npos) key = ApiKey::describe_topic_partitions;
        if (name.find(".list_groups") != std::string::npos) key = ApiKey::list_groups;
        if (name.find(".find_coordinator") != std::string::npos) key = ApiKey::find_coordinator;
        if (name.find(".offset_fetch") != std::string::npos) key = ApiKey::offset_fetch;
        cases.push_back({name, key, version});
    }
    return cases;
}

Status decode_any(ApiKey key, std::span<const uint8_t> frame, int16_t version) {
    switch (key) {
        case ApiKey::api_versions: return decode_frame<ApiVersions>(frame, version).status();
        case ApiKey::describe_cluster: return decode_frame<DescribeCluster>(frame, version).status();
        case ApiKey::alter_partition_reassignments:
            return decode_frame<AlterPartitionReassignments>(frame, version).status();
        case ApiKey::list_partition_reassignments:
            return decode_frame<ListPartitionReassignments>(frame, version).status();
        case ApiKey::elect_leaders: return decode_frame<ElectLeaders>(frame, version).status();
        case ApiKey::describe_log_dirs: return decode_frame<DescribeLogDirs>(frame, version).status();
        case ApiKey::sasl_handshake: return decode_frame<SaslHandshake>(frame, version).status();
        case ApiKey::sasl_authenticate:
            return decode_frame<SaslAuthenticate>(frame, version).status();
        case ApiKey::metadata: return decode_frame<Metadata>(frame, version).status();
        case ApiKey::list_offsets: return decode_frame<ListOffsets>(frame, version).status();
        case ApiKey::fetch: return decode_frame<Fetch>(frame, version).status();
        case ApiKey::fetch_snapshot: return decode_frame<FetchSnapshot>(frame, version).status();
        case ApiKey::describe_topic_partitions:
            return decode_frame<DescribeTopicPartitions>(frame, version).status();
        case ApiKey::list_groups: return decode_frame<ListGroups>(frame, version).status();
        case ApiKey::find_coordinator: return decode_frame<FindCoordinator>(frame, version).status();
        case ApiKey::offset_fetch: return decode_frame<OffsetFetch>(frame, version).status();
    }
    return Status();
}

TEST(ResponseDecoding, EveryTruncationFailsNamingTheMessageFieldAndOffset) {
    const std::vector<Case> cases = response_cases();
    ASSERT_GE(cases.size(), 15u);
    for (const Case& c : cases) {
        const std::vector<uint8_t>& frame = kafka_vectors().at(c.vector);
        ASSERT_TRUE(decode_any(c.key, frame, c.version).ok()) << c.vector;
        const std::string label =
            std::string(api_name(c.key)) + "Response v" + std::to_string(c.version);
        for (size_t length = 0; length < frame.size(); ++length) {
            Status status =
                decode_any(c.key, std::span<const uint8_t>(frame).first(length), c.version);
            ASSERT_FALSE(status.ok()) << c.vector << " cut to " << length << " bytes decoded";
            const std::string& message = status.error().message;
            EXPECT_EQ(status.error().code, events::ErrorCode::corruption);
            EXPECT_EQ(message.rfind(label, 0), 0u) << message;
            EXPECT_NE(message.find(" at offset "), std::string::npos) << message;
            EXPECT_NE(message.find("truncated"), std::string::npos) << message;
        }
    }
}

TEST(ResponseDecoding, TruncationNamesTheNestedField) {
    const std::vector<uint8_t>& frame = kafka_vectors().at("response.describe_cluster.v2");
    // Header (4 + 1), throttle 4, error 2, message 1, endpoint type 1, cluster id 1 + 11,
    // controller 4, brokers count 1, broker id 4: the host of brokers[0] starts at body
    // offset 29; cut inside it.
    Status status = decode_any(ApiKey::describe_cluster,
                               std::span<const uint8_t>(frame).first(5 + 29 + 3), 2);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().message,
              "DescribeClusterResponse v2: brokers[0].host at offset 30: truncated: needs 9 "
              "bytes, 2 left");
}

TEST(ResponseDecoding, DamagedBytesNeverCrash) {
    std::mt19937 random(20240601);
    size_t failures = 0;
    size_t decodes = 0;
    for (const Case& c : response_cases()) {
        const std::vector<uint8_t>& original = kafka_vectors().at(c.vector);
        for (int round = 0; round < 300; ++round) {
            std::vector<uint8_t> frame = original;
            const int flips = 1 + static_cast<int>(random() % 3);
            for (int f = 0; f < flips; ++f) {
                frame[random() % frame.size()] = static_cast<uint8_t>(random());
            }
            Status status = decode_any(c.key, frame, c.version);
            ++decodes;
            if (!status.ok()) {
                ++failures;
                EXPECT_NE(status.error().message.find(" at offset "), std::string::npos)
                    << status.error().message;
            }
        }
    }
    // Damage to a length or a count must be caught; damage to a value decodes. Both happen.
    EXPECT_GT(failures, 0u);
    EXPECT_LT(failures, decodes);
}

TEST(ResponseDecoding, ExtraBytesAfterTheLastFieldFail) {
    std::vector<uint8_t> frame = kafka_vectors().at("response.elect_leaders.v2");
    frame.push_back(0);
    Status status = decode_any(ApiKey::elect_leaders, frame, 2);
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.error().message.find("1 bytes left over after the last field"),
              std::string::npos)
        << status.error().message;
}

// Hand-written from the schemas: what no broker sends, but corruption can.
TEST(ResponseDecoding, MalformedLengthsAndValues) {
    // DescribeCluster v0 body: throttle, error, null message, then a null cluster id.
    const std::vector<uint8_t> null_id{0, 0, 0, 0, 0, 0, 0x00, 0x00};
    Reader reader(null_id, "DescribeClusterResponse v0");
    DescribeCluster::decode(reader, 0);
    EXPECT_EQ(reader.status().error().message,
              "DescribeClusterResponse v0: cluster_id at offset 7: null, but the field is not "
              "nullable");

    // An array count far beyond the bytes left is refused before any allocation.
    const std::vector<uint8_t> huge{0, 0, 0, 0, 0, 0, 0x00, 0x02, 'c', 0, 0, 0, 1,
                                    0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0};
    Reader huge_reader(huge, "DescribeClusterResponse v0");
    DescribeCluster::decode(huge_reader, 0);
    EXPECT_EQ(huge_reader.status().error().message,
              "DescribeClusterResponse v0: brokers at offset 13: truncated or corrupt: array "
              "length 268435454 exceeds the 4 bytes left");

    // A varint whose fifth byte overflows 32 bits.
    const std::vector<uint8_t> long_varint{0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x7f};
    Reader varint_reader(long_varint, "DescribeClusterResponse v0");
    DescribeCluster::decode(varint_reader, 0);
    EXPECT_EQ(varint_reader.status().error().message,
              "DescribeClusterResponse v0: error_message at offset 6: unsigned varint does not "
              "fit in 32 bits");

    // An endpoint type the schema does not define.
    const std::vector<uint8_t> bad_type{0, 0, 0, 0, 0, 0, 0x00, 9};
    Reader type_reader(bad_type, "DescribeClusterResponse v1");
    DescribeCluster::decode(type_reader, 1);
    EXPECT_EQ(type_reader.status().error().message,
              "DescribeClusterResponse v1: endpoint_type at offset 7: unknown endpoint type 9");

    // A classic (v1) string with a negative length other than -1.
    const std::vector<uint8_t> negative{0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0xff, 0xfe};
    Reader negative_reader(negative, "DescribeLogDirsResponse v1");
    DescribeLogDirs::decode(negative_reader, 1);
    EXPECT_EQ(negative_reader.status().error().message,
              "DescribeLogDirsResponse v1: results[0].log_dir at offset 10: negative string "
              "length -2");
}

}  // namespace
}  // namespace ballast::kafka::wire::messages
