// Every request the wire client implements, at every version both it and a real Apache
// Kafka broker speak (wire_client_fixture.h): each answer decoded, what the client asked
// for being what Kafka's tools and librdkafka then see.

#include <gtest/gtest.h>

#include "adapters/kafka/wire/messages/sasl_authenticate.h"
#include "adapters/kafka/wire/messages/sasl_handshake.h"

#include "tests/kafka/integration/wire_client_fixture.h"

namespace ballast::kafka::wire {
namespace {

using namespace fixture;

// Each API at each version both sides implement, forced with version caps: header v1
// and response header v0 (classic versions) as well as v2/v1 (flexible ones).
TEST_F(KafkaCluster, EveryVersionOfEveryRequestRoundTrips) {
    const std::string topic = topic_name("versions");
    ASSERT_TRUE(_rdkafka->create_topic(topic, {{1, 2}, {2, 3}}).ok());
    ASSERT_TRUE(_rdkafka->produce(topic, 0, 3, 10).ok());  // ListOffsets' end: 3
    AdminClient probe = client();
    Result<BrokerConnection*> connection = probe.any_broker(call_timeout_ms);
    ASSERT_TRUE(connection.ok()) << connection.error().to_string();
    const ApiVersionsResponse theirs = (*connection)->broker_versions();

    for (const ApiSpec& spec : implemented_apis()) {
        const VersionRange range = theirs.range(spec.key);
        for (int16_t v = std::max(spec.versions.min, range.min);
             v <= std::min(spec.versions.max, range.max); ++v) {
            SCOPED_TRACE(api_label(spec.key, v));
            AdminClient admin = client({{spec.key, v}});
            Result<BrokerConnection*> opened = admin.any_broker(call_timeout_ms);
            ASSERT_TRUE(opened.ok()) << opened.error().to_string();
            ASSERT_EQ(*(*opened)->version_for(spec.key), v);
            switch (spec.key) {
                case ApiKey::api_versions:
                    // Negotiation itself ran at v: the broker answered with its APIs.
                    EXPECT_EQ((*opened)->broker_versions().range(ApiKey::describe_cluster).empty(),
                              false);
                    break;
                case ApiKey::describe_cluster: {
                    auto cluster = admin.describe_cluster({}, call_timeout_ms);
                    ASSERT_TRUE(cluster.ok()) << cluster.error().to_string();
                    EXPECT_EQ(cluster->brokers.size(), 3u);
                    break;
                }
                case ApiKey::alter_partition_reassignments: {
                    // Cancelling where nothing runs: Kafka answers per partition.
                    auto request = reassign(topic, 0, std::nullopt);
                    auto result = admin.alter_partition_reassignments(request, call_timeout_ms);
                    ASSERT_TRUE(result.ok()) << result.error().to_string();
                    ASSERT_EQ(result->responses.size(), 1u);
                    EXPECT_EQ(result->responses[0].partitions.at(0).error.code,
                              error_codes::no_reassignment_in_progress);
                    break;
                }
                case ApiKey::list_partition_reassignments: {
                    ListPartitionReassignmentsRequest request;
                    request.topics = std::vector<TopicPartitions>{{topic, {0, 1}}};
                    auto listed = admin.list_partition_reassignments(request, call_timeout_ms);
                    ASSERT_TRUE(listed.ok()) << listed.error().to_string();
                    EXPECT_TRUE(listed->error.ok()) << listed->error.to_string();
                    EXPECT_TRUE(listed->topics.empty());
                    break;
                }
                case ApiKey::elect_leaders: {
                    // The preferred replica already leads: nothing to elect.
                    ElectLeadersRequest request;
                    request.topic_partitions = std::vector<TopicPartitions>{{topic, {1}}};
                    auto elected = admin.elect_leaders(request, call_timeout_ms);
                    ASSERT_TRUE(elected.ok()) << elected.error().to_string();
                    ASSERT_NE(elected->find(topic, 1), nullptr);
                    EXPECT_EQ(elected->find(topic, 1)->error.code, error_codes::election_not_needed);
                    break;
                }
                case ApiKey::describe_log_dirs: {
                    DescribeLogDirsRequest request;
                    request.topics = std::vector<TopicPartitions>{{topic, {0, 1}}};
                    Result<DescribeLogDirsResponse> dirs = not_asked();
                    // Broker 2 holds both partitions once it has applied the new topic
                    // (shortly after metadata shows their leaders).
                    EXPECT_TRUE(eventually(
                        [&] {
                            dirs = admin.describe_log_dirs(2, request, call_timeout_ms);
                            return dirs.ok() && dirs->find(topic, 0) != nullptr &&
                                   dirs->find(topic, 1) != nullptr;
                        },
                        settle_timeout_ms));
                    ASSERT_TRUE(dirs.ok()) << dirs.error().to_string();
                    ASSERT_TRUE(response_errors(2, *dirs).ok());
                    if (v >= 4) {
                        ASSERT_FALSE(dirs->results.empty());
                        EXPECT_GT(dirs->results[0].total_bytes, 0);
                        EXPECT_GT(dirs->results[0].usable_bytes, 0);
                    }
                    break;
                }
                // A PLAINTEXT listener answers the SASL requests, at every version, with
                // ILLEGAL_SASL_STATE: the layouts are read from a real broker all the same.
                case ApiKey::sasl_handshake: {
                    auto handshake =
                        (*opened)->call<SaslHandshake>({"PLAIN"}, Deadline::after_ms(call_timeout_ms));
                    ASSERT_TRUE(handshake.ok()) << handshake.error().to_string();
                    EXPECT_EQ(handshake->error.code, error_codes::illegal_sasl_state);
                    break;
                }
                case ApiKey::sasl_authenticate: {
                    auto authenticated = (*opened)->call<SaslAuthenticate>(
                        {{'\0', 'u', '\0', 'p'}}, Deadline::after_ms(call_timeout_ms));
                    ASSERT_TRUE(authenticated.ok()) << authenticated.error().to_string();
                    EXPECT_EQ(authenticated->error.code, error_codes::illegal_sasl_state);
                    EXPECT_TRUE(authenticated->error.message.has_value());
                    break;
                }
                case ApiKey::metadata: {
                    // v0 can only ask for every topic; later versions for the one.
                    MetadataRequest request;
                    if (v >= 1) request.topics = std::vector<MetadataRequestTopic>{{Uuid{}, topic}};
                    request.allow_auto_topic_creation = v < 4;
                    auto metadata = admin.metadata(request, call_timeout_ms);
                    ASSERT_TRUE(metadata.ok()) << metadata.error().to_string();
                    EXPECT_EQ(metadata->brokers.size(), 3u);
                    const MetadataResponseTopic* found = nullptr;
                    for (const MetadataResponseTopic& t : metadata->topics) {
                        if (t.name == topic) found = &t;
                    }
                    ASSERT_NE(found, nullptr);
                    ASSERT_EQ(found->partitions.size(), 2u);
                    for (const MetadataResponsePartition& p : found->partitions) {
                        EXPECT_EQ(p.error_code, 0);
                        const std::vector<int32_t> replicas =
                            p.partition_index == 0 ? std::vector<int32_t>{1, 2} : std::vector<int32_t>{2, 3};
                        EXPECT_EQ(p.replica_nodes, replicas);
                        EXPECT_EQ(p.leader_id, replicas[0]);
                        if (v >= 7) {
                            EXPECT_GE(p.leader_epoch, 0);
                        }
                    }
                    if (v >= 10) {
                        EXPECT_FALSE(found->topic_id.is_zero());
                    }
                    break;
                }
                case ApiKey::describe_topic_partitions: {
                    // One partition a page: the cursor walks the topic's two partitions.
                    DescribeTopicPartitionsRequest request;
                    request.topics = {topic};
                    request.response_partition_limit = 1;
                    auto first = admin.describe_topic_partitions(request, call_timeout_ms);
                    ASSERT_TRUE(first.ok()) << first.error().to_string();
                    ASSERT_EQ(first->topics.size(), 1u);
                    EXPECT_EQ(first->topics[0].name, topic);
                    EXPECT_FALSE(first->topics[0].topic_id.is_zero());
                    ASSERT_EQ(first->topics[0].partitions.size(), 1u);
                    EXPECT_EQ(first->topics[0].partitions[0].partition_index, 0);
                    EXPECT_EQ(first->topics[0].partitions[0].replica_nodes, (std::vector<int32_t>{1, 2}));
                    EXPECT_GE(first->topics[0].partitions[0].leader_epoch, 0);
                    ASSERT_TRUE(first->next_cursor.has_value());
                    EXPECT_EQ(first->next_cursor->topic_name, topic);
                    EXPECT_EQ(first->next_cursor->partition_index, 1);
                    request.cursor = first->next_cursor;
                    auto second = admin.describe_topic_partitions(request, call_timeout_ms);
                    ASSERT_TRUE(second.ok()) << second.error().to_string();
                    ASSERT_EQ(second->topics.size(), 1u);
                    ASSERT_EQ(second->topics[0].partitions.size(), 1u);
                    EXPECT_EQ(second->topics[0].partitions[0].partition_index, 1);
                    EXPECT_EQ(second->topics[0].partitions[0].replica_nodes, (std::vector<int32_t>{2, 3}));
                    EXPECT_FALSE(second->next_cursor.has_value());
                    break;
                }
                case ApiKey::list_groups: {
                    // Each broker lists the groups it coordinates; none is made here.
                    ListGroupsRequest request;
                    if (v >= 4) request.states_filter = {"Stable"};
                    auto listed = admin.list_groups(1, request, call_timeout_ms);
                    ASSERT_TRUE(listed.ok()) << listed.error().to_string();
                    EXPECT_TRUE(listed->error.ok()) << listed->error.to_string();
                    break;
                }
                case ApiKey::find_coordinator: {
                    FindCoordinatorRequest request;
                    request.coordinator_keys = {"ballast-it-wire-a", "ballast-it-wire-b"};
                    auto found = find_coordinators(admin, request);
                    ASSERT_TRUE(found.ok()) << found.error().to_string();
                    ASSERT_EQ(found->coordinators.size(), 2u);
                    for (const Coordinator& coordinator : found->coordinators) {
                        EXPECT_TRUE(coordinator.error.ok()) << coordinator.error.to_string();
                        EXPECT_GE(coordinator.node_id, 1);
                        EXPECT_LE(coordinator.node_id, 3);
                    }
                    break;
                }
                case ApiKey::offset_fetch: {
                    // A group that never committed, asked of its coordinator: no offsets;
                    // asked of every broker, the others say NOT_COORDINATOR.
                    FindCoordinatorRequest find;
                    find.coordinator_keys = {"ballast-it-wire-a"};
                    OffsetFetchRequest request;
                    request.groups.push_back({"ballast-it-wire-a", std::nullopt, -1, std::nullopt});
                    // On a fresh cluster the coordinator named first may still be loading
                    // its partition of `__consumer_offsets`, and says NOT_COORDINATOR a moment.
                    int32_t coordinator = -1;
                    (void)eventually(
                        [&] {
                            auto found = find_coordinators(admin, find);
                            if (!found.ok() || found->coordinators.empty()) return false;
                            coordinator = found->coordinators.at(0).node_id;
                            auto asked = admin.offset_fetch(coordinator, request, call_timeout_ms);
                            return asked.ok() && asked->groups.size() == 1 &&
                                   asked->groups[0].error.code != error_codes::not_coordinator &&
                                   asked->groups[0].error.code != error_codes::coordinator_load_in_progress;
                        },
                        60'000);
                    ASSERT_GE(coordinator, 1);
                    for (int32_t broker_id = 1; broker_id <= 3; ++broker_id) {
                        auto fetched = admin.offset_fetch(broker_id, request, call_timeout_ms);
                        ASSERT_TRUE(fetched.ok()) << fetched.error().to_string();
                        ASSERT_EQ(fetched->groups.size(), 1u);
                        EXPECT_EQ(fetched->groups[0].group_id, "ballast-it-wire-a");
                        EXPECT_TRUE(fetched->groups[0].topics.empty());
                        if (broker_id == coordinator) {
                            EXPECT_NE(fetched->groups[0].error.code, error_codes::not_coordinator);
                        } else {
                            EXPECT_EQ(fetched->groups[0].error.code, error_codes::not_coordinator);
                        }
                    }
                    break;
                }
                case ApiKey::fetch_snapshot:  // not listed by brokers: the controller's alone
                case ApiKey::fetch:
                    // For KRaft's metadata log alone: kafka_metadata_log_it fetches it from
                    // the controller at every version.
                    break;
                case ApiKey::list_offsets: {
                    // Partition 0's leader is broker 1.
                    ListOffsetsRequest request;
                    request.topics = {{topic, {{0, -1, list_offsets_timestamp::latest}}}};
                    auto latest = admin.list_offsets(1, request, call_timeout_ms);
                    ASSERT_TRUE(latest.ok()) << latest.error().to_string();
                    ASSERT_EQ(latest->topics.size(), 1u);
                    ASSERT_EQ(latest->topics[0].partitions.size(), 1u);
                    EXPECT_TRUE(latest->topics[0].partitions[0].error.ok());
                    EXPECT_EQ(latest->topics[0].partitions[0].offset, 3);
                    // Broker 2 does not lead it.
                    auto elsewhere = admin.list_offsets(2, request, call_timeout_ms);
                    ASSERT_TRUE(elsewhere.ok()) << elsewhere.error().to_string();
                    EXPECT_STREQ(error_name(elsewhere->topics.at(0).partitions.at(0).error.code),
                                 "NOT_LEADER_OR_FOLLOWER");
                    break;
                }
            }
        }
    }
    EXPECT_TRUE(_rdkafka->delete_topic(topic).ok());
}

}  // namespace
}  // namespace ballast::kafka::wire
