// The wire client's admin requests against a real Apache Kafka cluster
// (wire_client_fixture.h), checked with Kafka's own tools and librdkafka: a throttled
// reassignment listed, verified and cancelled, a completed one and a preferred election,
// DescribeLogDirs on each broker.

#include <gtest/gtest.h>

#include "tests/kafka/integration/wire_client_fixture.h"

namespace ballast::kafka::wire {
namespace {

using namespace fixture;

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
    // All 3 MB are in the log: what keeps the move in progress below.
    auto end = _rdkafka->end_offset(topic, 0);
    ASSERT_TRUE(end.ok()) << end.error().to_string();
    ASSERT_EQ(*end, 3000);
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

}  // namespace
}  // namespace ballast::kafka::wire
