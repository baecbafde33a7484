// The wire client against a real Apache Kafka cluster (KRaft, brokers 1-3 on racks
// rack-1..3, started by tools/kafka-cluster): every request round-trips at every
// version both sides speak, and what the client asks for is what Kafka's own
// tools and librdkafka then see. Run by `tools/run test` with the cluster up.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "adapters/kafka/wire/admin_client.h"
#include "adapters/kafka/wire/response_errors.h"
#include "adapters/kafka/wire/messages/sasl_authenticate.h"
#include "adapters/kafka/wire/messages/sasl_handshake.h"
#include "tests/kafka/integration/kafka_cluster.h"

namespace ballast::kafka::wire {
namespace {

using namespace ballast::kafka::wire::messages;

using testing::eventually;

using testing::kafka_cluster;
using testing::PartitionState;
using testing::RdKafka;

constexpr int64_t call_timeout_ms = 15000;

/// FindCoordinator's answer once every key has a coordinator: on a fresh cluster the first
/// asks create `__consumer_offsets`, and until its partitions have leaders every key is
/// COORDINATOR_NOT_AVAILABLE (retriable), as Kafka's own clients see it.
Result<FindCoordinatorResponse> find_coordinators(AdminClient& admin, const FindCoordinatorRequest& request) {
    Result<FindCoordinatorResponse> found = admin.find_coordinator(request, call_timeout_ms);
    (void)eventually(
        [&] {
            found = admin.find_coordinator(request, call_timeout_ms);
            if (!found.ok()) return false;
            for (const Coordinator& c : found->coordinators) {
                if (c.error.code == error_codes::coordinator_not_available) return false;
            }
            return true;
        },
        60'000);
    return found;
}

constexpr int64_t settle_timeout_ms = 60000;

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

/// A topic name unique to this run, so that a rerun against the same cluster starts clean.
std::string topic_name(const std::string& base) {
    return "ballast-it-" + base + "-" + std::to_string(::getpid());
}

class KafkaCluster : public ::testing::Test {
protected:
    void SetUp() override {
        _bootstrap = testing::bootstrap_servers_from_env();
        ASSERT_FALSE(_bootstrap.empty()) << testing::no_cluster_message();
        Result<std::vector<BrokerAddress>> servers = parse_bootstrap_servers(_bootstrap);
        ASSERT_TRUE(servers.ok()) << servers.error().to_string();
        _servers = *servers;
        _rdkafka = std::make_unique<RdKafka>(_bootstrap);
    }

    AdminClient client(std::vector<std::pair<ApiKey, int16_t>> caps = {}) {
        ClientOptions options;
        options.bootstrap_servers = _servers;
        options.connection.version_caps = std::move(caps);
        return AdminClient(std::move(options));
    }

    PartitionState partition(const std::string& topic, int32_t index) {
        auto state = _rdkafka->partition(topic, index);
        EXPECT_TRUE(state.ok()) << state.error().to_string();
        return state.ok() ? *state : PartitionState{};
    }

    /// Kafka's ReassignPartitionsCommand, as an operator runs it.
    testing::CommandOutput reassign_tool(const std::vector<std::string>& args) {
        std::vector<std::string> command{"cli", "reassign", "--bootstrap-server", _bootstrap};
        command.insert(command.end(), args.begin(), args.end());
        return kafka_cluster(command);
    }

    std::string write_reassignment_json(const std::string& topic, int32_t partition,
                                        const std::vector<int32_t>& replicas) {
        const std::string path = ::testing::TempDir() + topic + ".json";
        std::ofstream out(path);
        out << R"({"version":1,"partitions":[{"topic":")" << topic << R"(","partition":)"
            << partition << R"(,"replicas":[)";
        for (size_t i = 0; i < replicas.size(); ++i) out << (i ? "," : "") << replicas[i];
        out << "]}]}";
        return path;
    }

    std::string _bootstrap;
    std::vector<BrokerAddress> _servers;
    std::unique_ptr<RdKafka> _rdkafka;
};

Result<DescribeLogDirsResponse> not_asked() {
    return events::make_error(events::ErrorCode::not_found, "not asked yet");
}

AlterPartitionReassignmentsRequest reassign(const std::string& topic, int32_t partition,
                                            std::optional<std::vector<int32_t>> replicas) {
    AlterPartitionReassignmentsRequest request;
    request.topics = {{topic, {{partition, std::move(replicas)}}}};
    return request;
}

TEST_F(KafkaCluster, ApiVersionsNegotiatesTheHighestCommonVersion) {
    AdminClient admin = client();
    Result<BrokerConnection*> connection = admin.any_broker(call_timeout_ms);
    ASSERT_TRUE(connection.ok()) << connection.error().to_string();
    const ApiVersionsResponse& theirs = (*connection)->broker_versions();
    EXPECT_GT(theirs.api_keys.size(), 40u);  // a 4.1 broker lists ~60 APIs
    for (const ApiSpec& spec : implemented_apis()) {
        SCOPED_TRACE(spec.name);
        // The controller listener's alone: kafka_metadata_log_it speaks it to the controller.
        if (spec.key == ApiKey::fetch_snapshot) continue;
        const VersionRange range = theirs.range(spec.key);
        ASSERT_FALSE(range.empty()) << "the broker does not list " << spec.name;
        Result<int16_t> version = (*connection)->version_for(spec.key);
        ASSERT_TRUE(version.ok()) << version.error().to_string();
        EXPECT_EQ(*version, std::min(spec.versions.max, range.max));
        std::printf("  %-28s ours v%d-%d, broker v%d-%d: using v%d\n", spec.name,
                    spec.versions.min, spec.versions.max, range.min, range.max, *version);
    }
}

TEST_F(KafkaCluster, DescribeClusterListsTheThreeBrokersWithRacksAndEndpoints) {
    AdminClient admin = client();
    DescribeClusterRequest request;
    request.include_fenced_brokers = true;
    Result<DescribeClusterResponse> cluster = admin.describe_cluster(request, call_timeout_ms);
    ASSERT_TRUE(cluster.ok()) << cluster.error().to_string();
    ASSERT_TRUE(response_errors(*cluster).ok()) << response_errors(*cluster).error().to_string();
    EXPECT_EQ(cluster->cluster_id, _rdkafka->cluster_id());
    ASSERT_EQ(cluster->brokers.size(), 3u);
    std::vector<DescribeClusterBroker> brokers = cluster->brokers;
    std::sort(brokers.begin(), brokers.end(),
              [](const auto& a, const auto& b) { return a.broker_id < b.broker_id; });
    for (int32_t id = 1; id <= 3; ++id) {
        const DescribeClusterBroker& broker = brokers[id - 1];
        EXPECT_EQ(broker.broker_id, id);
        EXPECT_EQ(broker.rack, "rack-" + std::to_string(id));
        EXPECT_FALSE(broker.is_fenced);
        // tools/kafka-cluster lists brokers 1, 2, 3 in that order.
        ASSERT_EQ(_servers.size(), 3u);
        EXPECT_EQ(broker.host, _servers[id - 1].host);
        EXPECT_EQ(broker.port, _servers[id - 1].port);
    }
    // KRaft brokers name a live broker as "controller" (clients cannot reach the
    // controller quorum directly).
    EXPECT_GE(cluster->controller_id, 1);
    EXPECT_LE(cluster->controller_id, 3);
}

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

// A client configured for SASL against a PLAINTEXT listener: the broker's refusal,
// named, and no request sent past it.
TEST_F(KafkaCluster, SaslAgainstAPlaintextListenerSaysSo) {
    ClientOptions options;
    options.bootstrap_servers = {_servers[0]};
    options.connection.security.protocol = SecurityProtocol::sasl_plaintext;
    options.connection.security.sasl.mechanism = SaslMechanism::scram_sha_512;
    options.connection.security.sasl.username = "ballast";
    options.connection.security.sasl.password = Secret("not-shown");
    AdminClient admin(std::move(options));
    Result<DescribeClusterResponse> cluster = admin.describe_cluster({}, call_timeout_ms);
    ASSERT_FALSE(cluster.ok());
    EXPECT_TRUE(contains(cluster.error().message,
                         "SASL authentication failed for user 'ballast' with SCRAM-SHA-512: "
                         "SaslHandshake refused: ILLEGAL_SASL_STATE (34)"))
        << cluster.error().message;
    EXPECT_FALSE(contains(cluster.error().message, "not-shown"));
}

// A reassignment that stays in progress (the new replica copies 3 MB through a
// 10 KB/s replication throttle, ~1 MiB per ~105 s with tools/kafka-cluster's quota
// windows): ours to submit, Kafka's tools to see, ours to cancel.
TEST_F(KafkaCluster, ThrottledReassignmentIsListedVerifiedAndCancelled) {
    const std::string topic = topic_name("throttled");
    ASSERT_TRUE(_rdkafka
                    ->create_topic(topic, {{1}},
                                   {{"leader.replication.throttled.replicas", "*"},
                                    {"follower.replication.throttled.replicas", "*"}})
                    .ok());
    ASSERT_TRUE(_rdkafka->produce(topic, 0, 3000, 1000).ok());
    ASSERT_TRUE(_rdkafka->set_broker_configs(1, {{"leader.replication.throttled.rate", "10000"}}).ok());
    ASSERT_TRUE(_rdkafka->set_broker_configs(2, {{"follower.replication.throttled.rate", "10000"}}).ok());
    // Brokers apply dynamic configs from the metadata log: wait until both use the throttle.
    ASSERT_TRUE(eventually(
        [&] {
            auto leader = _rdkafka->broker_config(1, "leader.replication.throttled.rate");
            auto follower = _rdkafka->broker_config(2, "follower.replication.throttled.rate");
            return leader.ok() && *leader == "10000" && follower.ok() && *follower == "10000";
        },
        settle_timeout_ms));

    AdminClient admin = client();
    const auto request = reassign(topic, 0, std::vector<int32_t>{2});
    auto submitted = admin.alter_partition_reassignments(request, call_timeout_ms);
    ASSERT_TRUE(submitted.ok()) << submitted.error().to_string();
    ASSERT_TRUE(response_errors(request, *submitted).ok())
        << response_errors(request, *submitted).error().to_string();

    // Ours: ListPartitionReassignments, for this partition and for all.
    ListPartitionReassignmentsRequest mine;
    mine.topics = std::vector<TopicPartitions>{{topic, {0}}};
    auto listed = admin.list_partition_reassignments(mine, call_timeout_ms);
    ASSERT_TRUE(listed.ok()) << listed.error().to_string();
    const OngoingPartitionReassignment* ongoing = listed->find(topic, 0);
    ASSERT_NE(ongoing, nullptr);
    EXPECT_EQ(ongoing->replicas, (std::vector<int32_t>{2, 1}));
    EXPECT_EQ(ongoing->adding_replicas, (std::vector<int32_t>{2}));
    EXPECT_EQ(ongoing->removing_replicas, (std::vector<int32_t>{1}));
    auto all = admin.list_partition_reassignments({}, call_timeout_ms);
    ASSERT_TRUE(all.ok()) << all.error().to_string();
    EXPECT_NE(all->find(topic, 0), nullptr);

    // Kafka's: ReassignPartitionsCommand --list and --verify see the same move.
    testing::CommandOutput list = reassign_tool({"--list"});
    ASSERT_EQ(list.exit_code, 0) << list.output;
    EXPECT_TRUE(contains(list.output, topic + "-0: replicas: 2,1. adding: 2. removing: 1."))
        << list.output;
    const std::string target = write_reassignment_json(topic, 0, {2});
    testing::CommandOutput verify =
        reassign_tool({"--verify", "--reassignment-json-file", target, "--preserve-throttles"});
    EXPECT_TRUE(contains(verify.output,
                         "Reassignment of partition " + topic + "-0 is still in progress."))
        << verify.output;

    // Cancel with null replicas: the partition goes back to broker 1 alone.
    const auto cancel = reassign(topic, 0, std::nullopt);
    auto cancelled = admin.alter_partition_reassignments(cancel, call_timeout_ms);
    ASSERT_TRUE(cancelled.ok()) << cancelled.error().to_string();
    ASSERT_TRUE(response_errors(cancel, *cancelled).ok())
        << response_errors(cancel, *cancelled).error().to_string();
    listed = admin.list_partition_reassignments(mine, call_timeout_ms);
    ASSERT_TRUE(listed.ok()) << listed.error().to_string();
    EXPECT_EQ(listed->find(topic, 0), nullptr);
    EXPECT_TRUE(eventually([&] { return partition(topic, 0).replicas == std::vector<int32_t>{1}; },
                           settle_timeout_ms));
    list = reassign_tool({"--list"});
    EXPECT_FALSE(contains(list.output, topic + "-0")) << list.output;

    // Cancelling again: Kafka's error, named, with what was asked.
    auto again = admin.alter_partition_reassignments(cancel, call_timeout_ms);
    ASSERT_TRUE(again.ok()) << again.error().to_string();
    Status refused = response_errors(cancel, *again);
    ASSERT_FALSE(refused.ok());
    EXPECT_TRUE(contains(refused.error().message,
                         "AlterPartitionReassignments " + topic +
                             "-0 (cancel): NO_REASSIGNMENT_IN_PROGRESS (85)"))
        << refused.error().message;

    EXPECT_TRUE(_rdkafka->set_broker_configs(1, {}).ok());
    EXPECT_TRUE(_rdkafka->set_broker_configs(2, {}).ok());
    EXPECT_TRUE(_rdkafka->delete_topic(topic).ok());
}

// A reassignment that completes and changes the first (preferred) replica: the leader
// stays where it was (auto.leader.rebalance.enable=false) until ElectLeaders moves it.
TEST_F(KafkaCluster, CompletedReassignmentThenPreferredElectionMovesTheLeader) {
    const std::string topic = topic_name("elect");
    ASSERT_TRUE(_rdkafka->create_topic(topic, {{1, 2}}).ok());
    ASSERT_TRUE(_rdkafka->produce(topic, 0, 100, 100).ok());
    ASSERT_EQ(partition(topic, 0).leader, 1);

    AdminClient admin = client();
    const auto request = reassign(topic, 0, std::vector<int32_t>{3, 1});
    auto submitted = admin.alter_partition_reassignments(request, call_timeout_ms);
    ASSERT_TRUE(submitted.ok()) << submitted.error().to_string();
    ASSERT_TRUE(response_errors(request, *submitted).ok())
        << response_errors(request, *submitted).error().to_string();

    ListPartitionReassignmentsRequest mine;
    mine.topics = std::vector<TopicPartitions>{{topic, {0}}};
    ASSERT_TRUE(eventually(
        [&] {
            auto listed = admin.list_partition_reassignments(mine, call_timeout_ms);
            return listed.ok() && listed->find(topic, 0) == nullptr &&
                   partition(topic, 0).replicas == std::vector<int32_t>{3, 1};
        },
        settle_timeout_ms))
        << "the reassignment to [3,1] did not complete";
    const std::string target = write_reassignment_json(topic, 0, {3, 1});
    testing::CommandOutput verify =
        reassign_tool({"--verify", "--reassignment-json-file", target, "--preserve-throttles"});
    EXPECT_TRUE(contains(verify.output, "Reassignment of partition " + topic + "-0 is completed."))
        << verify.output;
    EXPECT_EQ(partition(topic, 0).leader, 1);
    ASSERT_TRUE(eventually([&] { return partition(topic, 0).isr.size() == 2; }, settle_timeout_ms));

    ElectLeadersRequest elect;
    elect.topic_partitions = std::vector<TopicPartitions>{{topic, {0}}};
    auto elected = admin.elect_leaders(elect, call_timeout_ms);
    ASSERT_TRUE(elected.ok()) << elected.error().to_string();
    ASSERT_TRUE(response_errors(elect, *elected).ok())
        << response_errors(elect, *elected).error().to_string();
    EXPECT_TRUE(eventually([&] { return partition(topic, 0).leader == 3; }, settle_timeout_ms));

    auto again = admin.elect_leaders(elect, call_timeout_ms);
    ASSERT_TRUE(again.ok()) << again.error().to_string();
    Status not_needed = response_errors(elect, *again);
    ASSERT_FALSE(not_needed.ok());
    EXPECT_TRUE(contains(not_needed.error().message,
                         "ElectLeaders (preferred) " + topic + "-0: ELECTION_NOT_NEEDED (84)"))
        << not_needed.error().message;
    EXPECT_TRUE(_rdkafka->delete_topic(topic).ok());
}

TEST_F(KafkaCluster, DescribeLogDirsPerBrokerShowsItsPartitionsWithSizes) {
    const std::string topic = topic_name("sizes");
    const std::vector<std::vector<int32_t>> assignment{{1, 2}, {2, 3}, {3, 1}};
    ASSERT_TRUE(_rdkafka->create_topic(topic, assignment).ok());
    constexpr int records = 200;
    constexpr int record_bytes = 1000;
    ASSERT_TRUE(_rdkafka->produce(topic, 0, records, record_bytes).ok());

    AdminClient admin = client();
    DescribeLogDirsRequest request;
    request.topics = std::vector<TopicPartitions>{{topic, {0, 1, 2}}};
    for (int32_t broker = 1; broker <= 3; ++broker) {
        SCOPED_TRACE("broker " + std::to_string(broker));
        Result<DescribeLogDirsResponse> dirs = not_asked();
        // A broker creates its replicas once it applies the new topic, and the follower
        // of partition 0 (broker 2) catches up with the leader shortly after.
        const bool settled = eventually(
            [&] {
                dirs = admin.describe_log_dirs(broker, request, call_timeout_ms);
                if (!dirs.ok()) return false;
                for (int32_t p = 0; p < 3; ++p) {
                    const bool hosts = std::find(assignment[p].begin(), assignment[p].end(),
                                                 broker) != assignment[p].end();
                    const DescribeLogDirsPartition* found = dirs->find(topic, p);
                    if (hosts && found == nullptr) return false;
                    if (p == 0 && found != nullptr &&
                        found->partition_size < records * record_bytes) {
                        return false;
                    }
                }
                return true;
            },
            settle_timeout_ms);
        ASSERT_TRUE(dirs.ok()) << dirs.error().to_string();
        EXPECT_TRUE(settled) << "broker " << broker << " never showed its replicas in full";
        ASSERT_TRUE(response_errors(broker, *dirs).ok())
            << response_errors(broker, *dirs).error().to_string();
        ASSERT_EQ(dirs->results.size(), 1u);
        EXPECT_TRUE(contains(dirs->results[0].log_dir, "broker-" + std::to_string(broker)))
            << dirs->results[0].log_dir;
        for (int32_t p = 0; p < 3; ++p) {
            const bool hosts = std::find(assignment[p].begin(), assignment[p].end(), broker) !=
                               assignment[p].end();
            const DescribeLogDirsPartition* found = dirs->find(topic, p);
            EXPECT_EQ(found != nullptr, hosts) << "partition " << p;
            if (found == nullptr) continue;
            if (p == 0) {
                EXPECT_GE(found->partition_size, records * record_bytes);
            } else {
                EXPECT_EQ(found->partition_size, 0) << "partition " << p << " got no data";
            }
        }
    }
    // Null topics: every partition the broker holds, this topic's among them.
    auto everything = admin.describe_log_dirs(3, {}, call_timeout_ms);
    ASSERT_TRUE(everything.ok()) << everything.error().to_string();
    EXPECT_NE(everything->find(topic, 1), nullptr);
    EXPECT_NE(everything->find(topic, 2), nullptr);
    EXPECT_TRUE(_rdkafka->delete_topic(topic).ok());
}

// Last: it restarts a broker. A stopped broker's error names it; once it is back, the
// same client reconnects on its own.
TEST_F(KafkaCluster, ZzReconnectsToABrokerThatRestarted) {
    AdminClient admin = client();
    ASSERT_TRUE(admin.describe_log_dirs(3, {}, call_timeout_ms).ok());
    Result<BrokerConnection*> before = admin.broker(3, call_timeout_ms);
    ASSERT_TRUE(before.ok());
    const uint64_t opens = (*before)->open_count();

    testing::CommandOutput stopped = kafka_cluster({"stop-broker", "3"});
    ASSERT_EQ(stopped.exit_code, 0) << stopped.output;
    auto down = admin.describe_log_dirs(3, {}, 5000);
    ASSERT_FALSE(down.ok());
    EXPECT_TRUE(contains(down.error().message, "broker 3: connect to PLAINTEXT 127.0.0.1:"))
        << down.error().message;

    testing::CommandOutput started = kafka_cluster({"start-broker", "3"});
    ASSERT_EQ(started.exit_code, 0) << started.output;
    auto up = admin.describe_log_dirs(3, {}, call_timeout_ms);
    ASSERT_TRUE(up.ok()) << up.error().to_string();
    EXPECT_GT((*admin.broker(3, call_timeout_ms))->open_count(), opens);
}

}  // namespace
}  // namespace ballast::kafka::wire
