// What the metadata poller reports, from hand-made observations: brokers
// appearing, fenced (gone from metadata), unfenced and unregistered; topics
// created and deleted; partitions changed; and a partition mid-reassignment
// reported by its current replicas until the move completes.

#include <gtest/gtest.h>

#include "adapters/kafka/metadata/cluster_state.h"

namespace ballast::kafka::metadata {
namespace {

MetadataBroker broker(int32_t id) { return {id, "127.0.0.1", 9090 + id}; }

wire::messages::DescribeClusterBroker registered(int32_t id, bool fenced) {
    return {id, "127.0.0.1", 9090 + id, "rack-" + std::to_string(id), fenced};
}

MetadataPartition partition(int32_t id, std::vector<int32_t> replicas, int32_t leader, std::vector<int32_t> isr) {
    MetadataPartition p;
    p.id = id;
    p.replicas = std::move(replicas);
    p.leader = leader;
    p.isr = std::move(isr);
    return p;
}

/// Three brokers, topic "orders" with two partitions.
Observation healthy() {
    Observation o;
    o.metadata.brokers = {broker(1), broker(2), broker(3)};
    o.metadata.topics = {{"orders", 0, {partition(0, {1, 2}, 1, {1, 2}), partition(1, {2, 3}, 2, {2, 3})}}};
    o.registered = std::vector<wire::messages::DescribeClusterBroker>{registered(1, false), registered(2, false), registered(3, false)};
    o.reassignments = wire::messages::ListPartitionReassignmentsResponse{};
    return o;
}

template <class T>
std::vector<T> of_type(const std::vector<events::Body>& bodies) {
    std::vector<T> out;
    for (const events::Body& b : bodies) {
        if (const T* t = std::get_if<T>(&b)) out.push_back(*t);
    }
    return out;
}

TEST(ClusterState, TheFirstReportHasEveryBrokerTopicAndPartitionInOrder) {
    const ClusterState state = build_state(healthy(), {});
    const std::vector<events::Body> events = diff({}, state);
    ASSERT_EQ(events.size(), 6u);
    const auto first = std::get<events::BrokerRegistered>(events[0]);
    EXPECT_EQ(first.broker_id, 1);
    EXPECT_EQ(first.rack, "rack-1");
    ASSERT_EQ(first.endpoints.size(), 1u);
    EXPECT_EQ(first.endpoints[0].host, "127.0.0.1");
    EXPECT_EQ(first.endpoints[0].port, 9091);
    const auto created = std::get<events::TopicCreated>(events[3]);
    EXPECT_EQ(created.topic, "orders");
    EXPECT_EQ(created.partition_count, 2);
    EXPECT_EQ(created.replication_factor, 2);
    const auto p1 = std::get<events::PartitionChanged>(events[5]);
    EXPECT_EQ(p1.partition, 1);
    EXPECT_EQ(p1.replicas, (std::vector<int32_t>{2, 3}));
    EXPECT_EQ(p1.leader, 2);
    EXPECT_EQ(p1.isr, (std::vector<int32_t>{2, 3}));
    EXPECT_EQ(p1.leader_epoch, -1) << "librdkafka 2.0.2 does not expose it";
    EXPECT_TRUE(diff(state, build_state(healthy(), state)).empty()) << "a quiet cluster reports nothing";
}

TEST(ClusterState, ABrokerGoneFromMetadataIsFencedAndUnfencedWhenItReturns) {
    const ClusterState before = build_state(healthy(), {});
    Observation down = healthy();
    down.metadata.brokers = {broker(1), broker(2)};
    down.metadata.topics[0].partitions[1] = partition(1, {2, 3}, 2, {2});
    (*down.registered)[2].is_fenced = true;
    const ClusterState fenced = build_state(down, before);
    std::vector<events::Body> events = diff(before, fenced);
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(std::get<events::PartitionChanged>(events[0]).isr, std::vector<int32_t>{2});
    EXPECT_EQ(std::get<events::BrokerFenced>(events[1]).broker_id, 3) << "fencing comes after the partitions";
    EXPECT_TRUE(fenced.brokers.at(3).fenced);
    EXPECT_EQ(fenced.brokers.at(3).rack, "rack-3");

    const ClusterState back = build_state(healthy(), fenced);
    events = diff(fenced, back);
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(std::get<events::BrokerUnfenced>(events[0]).broker_id, 3);
    EXPECT_EQ(std::get<events::PartitionChanged>(events[1]).isr, (std::vector<int32_t>{2, 3}));
}

TEST(ClusterState, WithoutDescribeClusterAMissingBrokerStaysKnownAsFencedWithItsRack) {
    const ClusterState before = build_state(healthy(), {});
    Observation down = healthy();
    down.metadata.brokers = {broker(1), broker(2)};
    down.registered.reset();  // the call failed this poll
    const ClusterState fenced = build_state(down, before);
    ASSERT_TRUE(fenced.brokers.count(3));
    EXPECT_TRUE(fenced.brokers.at(3).fenced);
    EXPECT_EQ(fenced.brokers.at(3).rack, "rack-3");
    EXPECT_EQ(of_type<events::BrokerFenced>(diff(before, fenced)).size(), 1u);
}

TEST(ClusterState, AStartWhileABrokerIsFencedReportsItRegisteredThenFenced) {
    Observation o = healthy();
    o.metadata.brokers = {broker(1), broker(2)};
    (*o.registered)[2].is_fenced = true;
    const std::vector<events::Body> events = diff({}, build_state(o, {}));
    EXPECT_EQ(of_type<events::BrokerRegistered>(events).size(), 3u);
    const auto fenced = of_type<events::BrokerFenced>(events);
    ASSERT_EQ(fenced.size(), 1u);
    EXPECT_EQ(fenced[0].broker_id, 3);
    EXPECT_TRUE(std::holds_alternative<events::BrokerFenced>(events.back()));
}

TEST(ClusterState, ABrokerThatLeavesTheRegistrationIsUnregistered) {
    const ClusterState before = build_state(healthy(), {});
    Observation o = healthy();
    o.metadata.brokers = {broker(1), broker(2)};
    o.registered->pop_back();
    const auto events = diff(before, build_state(o, before));
    const auto gone = of_type<events::BrokerUnregistered>(events);
    ASSERT_EQ(gone.size(), 1u);
    EXPECT_EQ(gone[0].broker_id, 3);
    EXPECT_TRUE(of_type<events::BrokerFenced>(events).empty());
}

TEST(ClusterState, TopicsCreatedAndDeleted) {
    const ClusterState before = build_state(healthy(), {});
    Observation o = healthy();
    o.metadata.topics.push_back({"__consumer_offsets", 0, {partition(0, {1, 2, 3}, 1, {1, 2, 3})}});
    o.metadata.topics.erase(o.metadata.topics.begin());
    const auto events = diff(before, build_state(o, before));
    ASSERT_EQ(events.size(), 3u);
    EXPECT_EQ(std::get<events::TopicCreated>(events[0]).topic, "__consumer_offsets")
        << "internal topics are reported like any other";
    EXPECT_EQ(std::get<events::TopicCreated>(events[0]).replication_factor, 3);
    EXPECT_EQ(std::get<events::PartitionChanged>(events[1]).topic, "__consumer_offsets");
    EXPECT_EQ(std::get<events::TopicDeleted>(events[2]).topic, "orders");
}

TEST(ClusterState, ATopicWithAnErrorKeepsItsLastReport) {
    const ClusterState before = build_state(healthy(), {});
    Observation o = healthy();
    o.metadata.topics[0].error_code = 5;  // LEADER_NOT_AVAILABLE
    o.metadata.topics[0].partitions.clear();
    const ClusterState after = build_state(o, before);
    EXPECT_EQ(after.topics, before.topics);
    EXPECT_TRUE(diff(before, after).empty());
}

TEST(ClusterState, AReassignedPartitionIsReportedByItsCurrentReplicasUntilTheMoveCompletes) {
    const ClusterState before = build_state(healthy(), {});
    // orders-0 moves from [1,2] to [3,2]: Kafka lists the union [3,2,1], adding 3, removing 1.
    Observation moving = healthy();
    moving.metadata.topics[0].partitions[0] = partition(0, {3, 2, 1}, 1, {1, 2, 3});
    wire::messages::OngoingPartitionReassignment r{0, {3, 2, 1}, {3}, {1}};
    moving.reassignments->topics.push_back({"orders", {r}});
    const ClusterState during = build_state(moving, before);
    const PartitionState* p = during.partition("orders", 0);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->replicas, (std::vector<int32_t>{1, 2})) << "the order last reported, not the union's";
    EXPECT_EQ(p->isr, (std::vector<int32_t>{1, 2})) << "the replica being added is not reported in the ISR";
    EXPECT_TRUE(p->reassigning);
    EXPECT_EQ(p->adding, std::vector<int32_t>{3});
    EXPECT_TRUE(diff(before, during).empty())
        << "the move changes nothing the engine sees until it completes";

    // Done: metadata lists the target and nothing is running.
    Observation done = healthy();
    done.metadata.topics[0].partitions[0] = partition(0, {3, 2}, 2, {2, 3});
    const ClusterState after = build_state(done, during);
    const auto moved = of_type<events::PartitionChanged>(diff(during, after));
    ASSERT_EQ(moved.size(), 1u);
    EXPECT_EQ(moved[0].replicas, (std::vector<int32_t>{3, 2}));
    EXPECT_EQ(moved[0].leader, 2);
    EXPECT_EQ(moved[0].isr, (std::vector<int32_t>{2, 3}));
}

TEST(ClusterState, WhenReassignmentsAreUnknownAPartitionThatGrewKeepsItsLastReport) {
    const ClusterState before = build_state(healthy(), {});
    Observation o = healthy();
    o.reassignments.reset();
    o.metadata.topics[0].partitions[0] = partition(0, {3, 1, 2}, 1, {1, 2});
    const ClusterState after = build_state(o, before);
    EXPECT_EQ(after.partition("orders", 0)->replicas, (std::vector<int32_t>{1, 2}));
    EXPECT_TRUE(diff(before, after).empty()) << "no union reported as if it were the replica set";
}

}  // namespace
}  // namespace ballast::kafka::metadata
