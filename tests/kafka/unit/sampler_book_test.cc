// The agentless sampler's arithmetic: rates from size and offset deltas over
// the samples' own times, attribution to leaders, broker totals, the first
// sample as a baseline, shrinking logs, dead brokers.

#include <gtest/gtest.h>

#include "adapters/kafka/sampler_book.h"

namespace ballast::kafka {
namespace {

PartitionState part(std::vector<int32_t> replicas, int32_t leader, std::vector<int32_t> isr) {
    PartitionState p;
    p.replicas = std::move(replicas);
    p.leader = leader;
    p.isr = std::move(isr);
    return p;
}

wire::DescribeLogDirsResponse dirs(std::vector<std::tuple<std::string, int32_t, int64_t>> replicas) {
    wire::DescribeLogDirsResponse response;
    wire::DescribeLogDirsResult dir;
    dir.log_dir = "/data";
    for (const auto& [topic, partition, size] : replicas) {
        auto it = std::find_if(dir.topics.begin(), dir.topics.end(),
                               [&](const wire::DescribeLogDirsTopic& t) { return t.name == topic; });
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
ClusterState cluster() {
    ClusterState s;
    for (int32_t id : {1, 2, 3}) s.brokers[id] = BrokerState{id, "h", 1, "", false};
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
    EXPECT_EQ(one->samples[0].bytes_out_per_s, 0) << "consumers are invisible to the sampler";

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

TEST(SamplerBook, AShrinkingLogKeepsItsRateAndAnOffsetResetStartsOver) {
    SamplerBook book;
    book.add_sizes(2, 0, dirs({{"orders", 1, 100'000}}));
    book.add_end_offsets(0, {{"orders", 1, 1000, 0}});
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

TEST(SamplerBook, ANewLeaderWithoutARateUsesItsReplicasAndFencedBrokersAreNotReported) {
    SamplerBook book;
    for (int64_t t : {0, 1000}) {
        book.add_sizes(1, t, dirs({{"orders", 0, 1000 * t}}));
        book.add_sizes(2, t, dirs({{"orders", 0, 1000 * t}}));
        book.add_sizes(3, t, dirs({}));
    }
    (void)book.report(cluster());
    // Broker 1 is fenced; orders-0 moved to [3,2] and broker 3, whose replica
    // is new (no rate yet), leads it.
    ClusterState s = cluster();
    s.brokers[1].fenced = true;
    s.topics["orders"].partitions[0] = part({3, 2}, 3, {3, 2});
    book.add_sizes(1, 2000, dirs({{"orders", 0, 2'000'000}}));
    book.add_sizes(2, 2000, dirs({{"orders", 0, 2'000'000}}));
    book.add_sizes(3, 2000, dirs({{"orders", 0, 1'500'000}}));
    const auto report = book.report(s);
    EXPECT_EQ(report_of(report, 1), nullptr) << "fenced";
    const events::PartitionMetrics* three = report_of(report, 3);
    ASSERT_NE(three, nullptr);
    ASSERT_EQ(three->samples.size(), 1u);
    EXPECT_DOUBLE_EQ(three->samples[0].bytes_in_per_s, 1'000'000) << "broker 2's replica's rate";
    EXPECT_EQ(three->samples[0].size_bytes, 2'000'000u) << "the largest replica";
}

}  // namespace
}  // namespace ballast::kafka
