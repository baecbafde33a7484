// The agentless sampler's arithmetic: rates from size and offset deltas over
// the samples' own times, attribution to leaders, broker totals, the first
// sample as a baseline, shrinking logs, dead brokers; and which growth is the
// producers': never a follower's, never a new leader's first interval (end
// offsets times bytes per message stand in).

#include <gtest/gtest.h>

#include "adapters/kafka/sampler_book.h"

namespace ballast::kafka {
namespace {

metadata::PartitionState part(std::vector<int32_t> replicas, int32_t leader, std::vector<int32_t> isr) {
    metadata::PartitionState p;
    p.replicas = std::move(replicas);
    p.leader = leader;
    p.isr = std::move(isr);
    return p;
}

wire::messages::DescribeLogDirsResponse dirs(std::vector<std::tuple<std::string, int32_t, int64_t>> replicas) {
    wire::messages::DescribeLogDirsResponse response;
    wire::messages::DescribeLogDirsResult dir;
    dir.log_dir = "/data";
    for (const auto& [topic, partition, size] : replicas) {
        auto it = std::find_if(dir.topics.begin(), dir.topics.end(),
                               [&](const wire::messages::DescribeLogDirsTopic& t) { return t.name == topic; });
        if (it == dir.topics.end()) {
            dir.topics.push_back({topic, {}});
            it = std::prev(dir.topics.end());
        }
        it->partitions.push_back({partition, size, 0, false});
    }
    response.results.push_back(dir);
    return response;
}

/// orders-0 on [1,2] led by 1, orders-1 on [2] led by 2; broker 3 alive, empty.
metadata::ClusterState cluster() {
    metadata::ClusterState s;
    for (int32_t id : {1, 2, 3}) s.brokers[id] = metadata::BrokerState{id, "h", 1, "", false};
    s.topics["orders"].partitions[0] = part({1, 2}, 1, {1, 2});
    s.topics["orders"].partitions[1] = part({2}, 2, {2});
    return s;
}

const events::PartitionMetrics* report_of(const std::vector<events::Body>& bodies, int32_t broker) {
    for (const events::Body& b : bodies) {
        const auto* m = std::get_if<events::PartitionMetrics>(&b);
        if (m && m->broker_id == broker) return m;
    }
    return nullptr;
}

const events::BrokerSample* totals_of(const std::vector<events::Body>& bodies, int32_t broker) {
    for (const events::Body& b : bodies) {
        const auto* m = std::get_if<events::BrokerMetrics>(&b);
        if (m && !m->samples.empty() && m->samples[0].broker_id == broker) return &m->samples[0];
    }
    return nullptr;
}

TEST(SamplerBook, TheFirstSampleIsABaselineAndTheSecondGivesRates) {
    SamplerBook book;
    book.add_sizes(1, 10'000, dirs({{"orders", 0, 1'000'000}}));
    book.add_sizes(2, 10'050, dirs({{"orders", 0, 999'000}, {"orders", 1, 0}}));
    book.add_end_offsets(10'100, {{"orders", 0, 100, 0}, {"orders", 1, 0, 0}});
    EXPECT_TRUE(book.report(cluster()).empty()) << "one sample tells no rate";

    // 4 s later on broker 1's own clock (the interval was nominally 5 s).
    book.add_sizes(1, 14'000, dirs({{"orders", 0, 3'000'000}}));
    book.add_sizes(2, 15'050, dirs({{"orders", 0, 2'999'000}, {"orders", 1, 50'000}}));
    book.add_end_offsets(20'100, {{"orders", 0, 2100, 0}, {"orders", 1, 500, 0}});
    const std::vector<events::Body> report = book.report(cluster());
    const events::PartitionMetrics* one = report_of(report, 1);
    ASSERT_NE(one, nullptr);
    EXPECT_EQ(one->sample_time_ms, 14'000);
    ASSERT_EQ(one->samples.size(), 1u) << "broker 1 leads orders-0 only";
    EXPECT_EQ(one->topics[one->samples[0].topic_index], "orders");
    EXPECT_EQ(one->samples[0].partition, 0);
    EXPECT_DOUBLE_EQ(one->samples[0].bytes_in_per_s, 500'000) << "2 MB over 4000 ms of broker 1's samples";
    EXPECT_DOUBLE_EQ(one->samples[0].messages_in_per_s, 200) << "2000 offsets over 10 s";
    EXPECT_EQ(one->samples[0].size_bytes, 3'000'000u);
    EXPECT_EQ(one->samples[0].bytes_out_per_s, 0) << "no consumer group's rate is known";

    const events::PartitionMetrics* two = report_of(report, 2);
    ASSERT_NE(two, nullptr);
    ASSERT_EQ(two->samples.size(), 1u);
    EXPECT_EQ(two->samples[0].partition, 1);
    EXPECT_DOUBLE_EQ(two->samples[0].bytes_in_per_s, 10'000);

    const events::BrokerSample* t1 = totals_of(report, 1);
    const events::BrokerSample* t2 = totals_of(report, 2);
    ASSERT_TRUE(t1 && t2);
    EXPECT_DOUBLE_EQ(t1->bytes_in_per_s, 500'000);
    EXPECT_DOUBLE_EQ(t1->bytes_out_per_s, 500'000) << "one follower's copy";
    EXPECT_DOUBLE_EQ(t2->bytes_in_per_s, 500'000 + 10'000) << "the follower takes the leader's rate in";
    EXPECT_DOUBLE_EQ(t2->bytes_out_per_s, 0);
    EXPECT_EQ(t2->size_bytes, 2'999'000u + 50'000u);
    EXPECT_EQ(report_of(report, 3), nullptr) << "broker 3 was never sampled";

    EXPECT_TRUE(book.report(cluster()).empty()) << "nothing new since the last report";
}

TEST(SamplerBook, ConsumersBytesOutAreTheirMessagesTimesThePartitionsBytesPerMessage) {
    SamplerBook book;
    book.add_sizes(1, 0, dirs({{"orders", 0, 0}}));
    book.add_sizes(2, 0, dirs({{"orders", 0, 0}, {"orders", 1, 0}}));
    book.add_end_offsets(0, {{"orders", 0, 0, 0}, {"orders", 1, 0, 0}});
    (void)book.report(cluster());
    // 2500 bytes a message on orders-0 (1 MB for 400 offsets over 10 s); orders-1 grows
    // without offsets known, so its bytes per message are not.
    book.add_sizes(1, 10'000, dirs({{"orders", 0, 1'000'000}}));
    book.add_sizes(2, 10'000, dirs({{"orders", 0, 1'000'000}, {"orders", 1, 10'000}}));
    book.add_end_offsets(10'000, {{"orders", 0, 400, 0}});
    book.set_messages_out({{{"orders", 0}, 60.0}, {{"orders", 1}, 5.0}});
    const std::vector<events::Body> report = book.report(cluster());
    const events::PartitionMetrics* one = report_of(report, 1);
    ASSERT_NE(one, nullptr);
    ASSERT_EQ(one->samples.size(), 1u);
    EXPECT_DOUBLE_EQ(one->samples[0].bytes_in_per_s, 100'000);
    EXPECT_DOUBLE_EQ(one->samples[0].bytes_out_per_s, 60 * 2'500) << "60 messages/s of 2500 bytes";
    const events::PartitionMetrics* two = report_of(report, 2);
    ASSERT_NE(two, nullptr);
    ASSERT_EQ(two->samples.size(), 1u);
    EXPECT_EQ(two->samples[0].bytes_out_per_s, 0) << "no bytes per message known for orders-1";
    const events::BrokerSample* t1 = totals_of(report, 1);
    ASSERT_NE(t1, nullptr);
    EXPECT_DOUBLE_EQ(t1->bytes_out_per_s, 100'000 + 150'000) << "the follower's copy and the consumers";
}

TEST(SamplerBook, AShrinkingLogKeepsItsRateAndAnOffsetResetStartsOver) {
    SamplerBook book;
    // A report after every round, as the sampler makes them: the growth of a
    // leader is trusted only once a report saw it lead.
    book.add_sizes(2, 0, dirs({{"orders", 1, 100'000}}));
    book.add_end_offsets(0, {{"orders", 1, 1000, 0}});
    (void)book.report(cluster());
    book.add_sizes(2, 1000, dirs({{"orders", 1, 200'000}}));
    book.add_end_offsets(1000, {{"orders", 1, 1100, 0}});
    (void)book.report(cluster());
    book.add_sizes(2, 2000, dirs({{"orders", 1, 50'000}}));  // retention deleted a segment
    book.add_end_offsets(2000, {{"orders", 1, 10, 0}});       // recreated topic
    const auto report = book.report(cluster());
    const events::PartitionMetrics* two = report_of(report, 2);
    ASSERT_NE(two, nullptr);
    ASSERT_EQ(two->samples.size(), 1u);
    EXPECT_DOUBLE_EQ(two->samples[0].bytes_in_per_s, 100'000) << "the rate before the deletion";
    EXPECT_EQ(two->samples[0].size_bytes, 50'000u);
    EXPECT_EQ(two->samples[0].messages_in_per_s, 0) << "unknown after the offsets went back";
}

// Neither the follower's growth (broker 2's) nor the new leader's first
// growth is the producers': with no end offsets and no trusted rate before,
// the partition has nothing to report.
TEST(SamplerBook, ANewLeaderWithNoTrustedRateAndNoOffsetsReportsNothingAndFencedBrokersNothingAtAll) {
    SamplerBook book;
    for (int64_t t : {0, 1000}) {
        book.add_sizes(1, t, dirs({{"orders", 0, 1000 * t}}));
        book.add_sizes(2, t, dirs({{"orders", 0, 1000 * t}}));
        book.add_sizes(3, t, dirs({}));
    }
    (void)book.report(cluster());
    // Broker 1 is fenced; orders-0 moved to [3,2] and broker 3, whose replica
    // is new (no growth yet), leads it. No end offsets are known.
    metadata::ClusterState s = cluster();
    s.brokers[1].fenced = true;
    s.topics["orders"].partitions[0] = part({3, 2}, 3, {3, 2});
    book.add_sizes(1, 2000, dirs({{"orders", 0, 2'000'000}}));
    book.add_sizes(2, 2000, dirs({{"orders", 0, 2'000'000}}));
    book.add_sizes(3, 2000, dirs({{"orders", 0, 1'500'000}}));
    const auto report = book.report(s);
    EXPECT_EQ(report_of(report, 1), nullptr) << "fenced";
    const events::PartitionMetrics* three = report_of(report, 3);
    ASSERT_NE(three, nullptr) << "broker 3 is reported, without orders-0";
    EXPECT_TRUE(three->samples.empty()) << "nothing known of orders-0: the engine keeps what it had";
    const events::BrokerSample* t2 = totals_of(report, 2);
    ASSERT_NE(t2, nullptr);
    EXPECT_EQ(t2->bytes_in_per_s, 0) << "nor does orders-0 count in its replicas' totals";
}

const events::PartitionSample* sample_of(const std::vector<events::Body>& bodies, int32_t broker, int32_t partition) {
    const events::PartitionMetrics* m = report_of(bodies, broker);
    if (m == nullptr) return nullptr;
    for (const events::PartitionSample& s : m->samples) {
        if (m->topics[s.topic_index] == "orders" && s.partition == partition) return &s;
    }
    return nullptr;
}

/// orders-0 on [1,2] led by 1, with broker 2 out of the ISR (back from a
/// stop, catching up), and broker 3 being added.
metadata::ClusterState catching_up() {
    metadata::ClusterState s = cluster();
    metadata::PartitionState p = part({1, 2}, 1, {1});
    p.reassigning = true;
    p.adding = {3};
    s.topics["orders"].partitions[0] = p;
    return s;
}

// Producers write 1000 bytes/s (10 messages of 100 bytes) to orders-0; two
// followers copy it at 50 times that.
TEST(SamplerBook, AFollowerCatchingUpDoesNotChangeThePartitionsRate) {
    SamplerBook book;
    const metadata::ClusterState s = catching_up();
    auto leader_size = [](int64_t t) { return 5'000'000 + t; };
    auto follower_size = [](int64_t t) { return 50 * t; };
    // Broker 1's log directory is offline in the first round (56,
    // KAFKA_STORAGE_ERROR): its replica is new to the second, while the
    // followers have grown by the copy.
    wire::messages::DescribeLogDirsResponse offline = dirs({{"orders", 0, leader_size(0)}});
    offline.results[0].error.code = 56;
    book.add_sizes(1, 0, offline);
    book.add_sizes(2, 0, dirs({{"orders", 0, follower_size(0)}}));
    book.add_sizes(3, 0, dirs({{"orders", 0, follower_size(0)}}));
    book.add_end_offsets(0, {{"orders", 0, 50'000, 0}});
    EXPECT_TRUE(book.report(s).empty());
    for (int64_t t : {1000, 2000, 3000}) {
        SCOPED_TRACE("t " + std::to_string(t));
        book.add_sizes(1, t, dirs({{"orders", 0, leader_size(t)}}));
        book.add_sizes(2, t, dirs({{"orders", 0, follower_size(t)}}));
        book.add_sizes(3, t, dirs({{"orders", 0, follower_size(t)}}));
        book.add_end_offsets(t, {{"orders", 0, 50'000 + t / 100, 0}});
        const std::vector<events::Body> report = book.report(s);
        const events::PartitionSample* sample = sample_of(report, 1, 0);
        if (t == 1000) {
            EXPECT_EQ(sample, nullptr) << "the leader's replica has no growth yet and nothing else is the producers'";
        } else {
            ASSERT_NE(sample, nullptr);
            EXPECT_DOUBLE_EQ(sample->bytes_in_per_s, 1000) << "the leader's growth, not the copies'";
            EXPECT_EQ(sample->size_bytes, static_cast<uint64_t>(leader_size(t))) << "the leader's size";
        }
        EXPECT_EQ(sample_of(report, 2, 0), nullptr) << "a follower reports nothing";
        EXPECT_EQ(sample_of(report, 3, 0), nullptr);
        const events::BrokerSample* t2 = totals_of(report, 2);
        const events::BrokerSample* t3 = totals_of(report, 3);
        ASSERT_TRUE(t2 && t3);
        EXPECT_DOUBLE_EQ(t2->bytes_in_per_s, t == 1000 ? 0 : 1000) << "a follower counts the produce rate, not its copy";
        EXPECT_DOUBLE_EQ(t3->bytes_in_per_s, 0) << "a replica being added is not the partition's yet";
        EXPECT_EQ(t3->size_bytes, static_cast<uint64_t>(follower_size(t))) << "what its disk holds";
    }
}

TEST(SamplerBook, ALeaderThatJustCaughtUpIsRatedByEndOffsetsForItsFirstInterval) {
    SamplerBook book;
    metadata::ClusterState s = cluster();
    s.topics["orders"].partitions.erase(1);
    s.topics["orders"].partitions[0] = part({1}, 1, {1});
    // orders-0 holds 1 MB on broker 1 and takes 10 messages of 100 bytes a
    // second; it moves to broker 3, which copies at 50000 bytes/s from 1000.
    for (int64_t t : {0, 1000, 2000}) {
        book.add_sizes(1, t, dirs({{"orders", 0, 1'000'000 + t}}));
        book.add_sizes(3, t, dirs(t == 0 ? std::vector<std::tuple<std::string, int32_t, int64_t>>{}
                                         : std::vector<std::tuple<std::string, int32_t, int64_t>>{
                                               {"orders", 0, 50 * (t - 1000)}}));
        book.add_end_offsets(t, {{"orders", 0, t / 100, 0}});
        const std::vector<events::Body> report = book.report(s);
        if (t > 0) {
            ASSERT_NE(sample_of(report, 1, 0), nullptr);
            EXPECT_DOUBLE_EQ(sample_of(report, 1, 0)->bytes_in_per_s, 1000);
        }
        metadata::PartitionState p = part({1}, 1, {1});
        p.reassigning = true;
        p.adding = {3};
        s.topics["orders"].partitions[0] = p;
    }
    // By 3000 broker 3 copied the rest (unthrottled), caught up and leads;
    // producers wrote 20 messages a second meanwhile.
    s.topics["orders"].partitions[0] = part({3}, 3, {3});
    book.add_sizes(1, 3000, dirs({}));
    book.add_sizes(3, 3000, dirs({{"orders", 0, 1'004'000}}));
    book.add_end_offsets(3000, {{"orders", 0, 40, 0}});
    std::vector<events::Body> report = book.report(s);
    const events::PartitionSample* sample = sample_of(report, 3, 0);
    ASSERT_NE(sample, nullptr);
    EXPECT_DOUBLE_EQ(sample->bytes_in_per_s, 2000) << "20 messages/s x 100 bytes, not the copy's 954000";
    EXPECT_DOUBLE_EQ(sample->messages_in_per_s, 20);
    EXPECT_EQ(sample->size_bytes, 1'004'000u);
    EXPECT_EQ(sample_of(report, 1, 0), nullptr) << "broker 1 no longer holds it";

    // From its second interval as leader, its growth is the producers' (now
    // 20 messages of 150 bytes a second).
    book.add_sizes(1, 4000, dirs({}));
    book.add_sizes(3, 4000, dirs({{"orders", 0, 1'007'000}}));
    book.add_end_offsets(4000, {{"orders", 0, 60, 0}});
    report = book.report(s);
    sample = sample_of(report, 3, 0);
    ASSERT_NE(sample, nullptr);
    EXPECT_DOUBLE_EQ(sample->bytes_in_per_s, 3000) << "the leader's own growth";
}

TEST(SamplerBook, WithoutEndOffsetsANewLeaderKeepsThePartitionsLastTrustedRate) {
    SamplerBook book;
    metadata::ClusterState s = cluster();
    s.topics["orders"].partitions[0] = part({1, 2}, 1, {1});  // broker 2 catching up
    for (int64_t t : {0, 1000}) {
        book.add_sizes(1, t, dirs({{"orders", 0, 1000 + t}}));
        book.add_sizes(2, t, dirs({{"orders", 0, 30 * t}}));
        (void)book.report(s);
    }
    // Broker 2 caught up and was elected; ListOffsets failed all along.
    s.topics["orders"].partitions[0] = part({1, 2}, 2, {1, 2});
    book.add_sizes(1, 2000, dirs({{"orders", 0, 3000}}));
    book.add_sizes(2, 2000, dirs({{"orders", 0, 3000}}));
    const std::vector<events::Body> report = book.report(s);
    const events::PartitionSample* sample = sample_of(report, 2, 0);
    ASSERT_NE(sample, nullptr);
    EXPECT_DOUBLE_EQ(sample->bytes_in_per_s, 1000) << "broker 1's last trusted growth, not broker 2's 27000";
    EXPECT_EQ(sample->messages_in_per_s, 0) << "unknown";
}

// The sampler sees a leader change in a round in which the new leader's
// broker did not answer: its next growth spans the change, so it is not
// trusted either.
TEST(SamplerBook, ALeaderChangeSeenWhileItsBrokerWasSilentIsTrustedOnlyFromItsNextSample) {
    SamplerBook book;
    metadata::ClusterState s = cluster();
    s.topics["orders"].partitions[0] = part({1, 2}, 1, {1});  // broker 2 catching up at 20000 bytes/s
    for (int64_t t : {0, 1000}) {
        book.add_sizes(1, t, dirs({{"orders", 0, 100'000 + t}}));
        book.add_sizes(2, t, dirs({{"orders", 0, 20 * t}}));
        book.add_end_offsets(t, {{"orders", 0, t / 100, 0}});
        (void)book.report(s);
    }
    s.topics["orders"].partitions[0] = part({1, 2}, 2, {1, 2});
    book.add_sizes(1, 2000, dirs({{"orders", 0, 102'000}}));
    book.add_end_offsets(2000, {{"orders", 0, 20, 0}});
    (void)book.report(s);  // broker 2 did not answer
    book.add_sizes(1, 3000, dirs({{"orders", 0, 103'000}}));
    book.add_sizes(2, 3000, dirs({{"orders", 0, 103'000}}));  // 83000 bytes since 1000, most of it the copy
    book.add_end_offsets(3000, {{"orders", 0, 30, 0}});
    std::vector<events::Body> report = book.report(s);
    const events::PartitionSample* sample = sample_of(report, 2, 0);
    ASSERT_NE(sample, nullptr);
    EXPECT_DOUBLE_EQ(sample->bytes_in_per_s, 1000) << "10 messages/s x 100 bytes";

    book.add_sizes(1, 4000, dirs({{"orders", 0, 104'000}}));
    book.add_sizes(2, 4000, dirs({{"orders", 0, 104'500}}));
    book.add_end_offsets(4000, {{"orders", 0, 40, 0}});
    report = book.report(s);
    sample = sample_of(report, 2, 0);
    ASSERT_NE(sample, nullptr);
    EXPECT_DOUBLE_EQ(sample->bytes_in_per_s, 1500) << "its growth since a sample taken while it led";
}

}  // namespace
}  // namespace ballast::kafka
