// Consumer traffic from committed offsets: each group's rate over its own two
// readings, summed over groups; a new group has no rate until its second
// reading, a stopped one adds 0, a reset adds 0 for its interval, a group no
// longer listed is forgotten.

#include <gtest/gtest.h>

#include "adapters/kafka/consumer_traffic.h"

namespace ballast::kafka {
namespace {

using Key = ConsumerTrafficBook::PartitionKey;

TEST(ConsumerTraffic, TwoGroupsAddUpOverTheirOwnReadingTimes) {
    ConsumerTrafficBook book;
    book.add_group("billing", 1'000, {{"orders", 0, 100}, {"orders", 1, 50}});
    book.add_group("audit", 1'500, {{"orders", 0, 10}});
    book.add_group("billing", 11'000, {{"orders", 0, 1'100}, {"orders", 1, 550}});  // 100/s, 50/s
    book.add_group("audit", 6'500, {{"orders", 0, 260}});                            // 50/s over 5 s
    const auto rates = book.messages_out_per_s();
    ASSERT_EQ(rates.size(), 2u);
    EXPECT_DOUBLE_EQ(rates.at(Key{"orders", 0}), 150.0);
    EXPECT_DOUBLE_EQ(rates.at(Key{"orders", 1}), 50.0);
}

TEST(ConsumerTraffic, ANewGroupHasNoRateUntilItsSecondReading) {
    ConsumerTrafficBook book;
    book.add_group("billing", 0, {{"orders", 0, 100}, {"orders", 1, -1}});
    EXPECT_TRUE(book.messages_out_per_s().empty());
    book.add_group("billing", 10'000, {{"orders", 0, 600}, {"orders", 1, 40}});
    const auto rates = book.messages_out_per_s();
    EXPECT_DOUBLE_EQ(rates.at(Key{"orders", 0}), 50.0);
    // Nothing was committed on orders-1 at the first reading: its first commit is a baseline.
    EXPECT_FALSE(rates.contains(Key{"orders", 1}));
}

TEST(ConsumerTraffic, AStoppedGroupAddsNothing) {
    ConsumerTrafficBook book;
    book.add_group("billing", 0, {{"orders", 0, 100}});
    book.add_group("audit", 0, {{"orders", 0, 100}});
    book.add_group("billing", 10'000, {{"orders", 0, 1'100}});
    book.add_group("audit", 10'000, {{"orders", 0, 1'100}});
    EXPECT_DOUBLE_EQ(book.messages_out_per_s().at(Key{"orders", 0}), 200.0);
    book.add_group("billing", 20'000, {{"orders", 0, 2'100}});
    book.add_group("audit", 20'000, {{"orders", 0, 1'100}});  // stopped committing
    EXPECT_DOUBLE_EQ(book.messages_out_per_s().at(Key{"orders", 0}), 100.0);
}

TEST(ConsumerTraffic, AResetCountsZeroForItsIntervalThenFromTheResetOffset) {
    ConsumerTrafficBook book;
    book.add_group("billing", 0, {{"orders", 0, 5'000}});
    book.add_group("billing", 10'000, {{"orders", 0, 6'000}});
    EXPECT_DOUBLE_EQ(book.messages_out_per_s().at(Key{"orders", 0}), 100.0);
    book.add_group("billing", 20'000, {{"orders", 0, 200}});  // reset to the start
    EXPECT_DOUBLE_EQ(book.messages_out_per_s().at(Key{"orders", 0}), 0.0);
    book.add_group("billing", 30'000, {{"orders", 0, 2'200}});
    EXPECT_DOUBLE_EQ(book.messages_out_per_s().at(Key{"orders", 0}), 200.0);
}

TEST(ConsumerTraffic, GroupsAndPartitionsNoLongerAnsweredAreForgotten) {
    ConsumerTrafficBook book;
    book.add_group("billing", 0, {{"orders", 0, 0}, {"orders", 1, 0}});
    book.add_group("audit", 0, {{"orders", 0, 0}});
    book.add_group("billing", 1'000, {{"orders", 0, 10}, {"orders", 1, 10}});
    book.add_group("audit", 1'000, {{"orders", 0, 10}});
    book.retain_groups({"billing"});
    EXPECT_EQ(book.group_count(), 1u);
    EXPECT_DOUBLE_EQ(book.messages_out_per_s().at(Key{"orders", 0}), 10.0);
    book.add_group("billing", 2'000, {{"orders", 0, 20}});  // orders-1's offsets deleted
    EXPECT_FALSE(book.messages_out_per_s().contains(Key{"orders", 1}));
}

TEST(ConsumerTraffic, AReadingWithoutTimePassingChangesNothing) {
    ConsumerTrafficBook book;
    book.add_group("billing", 0, {{"orders", 0, 0}});
    book.add_group("billing", 1'000, {{"orders", 0, 100}});
    book.add_group("billing", 1'000, {{"orders", 0, 300}});
    EXPECT_DOUBLE_EQ(book.messages_out_per_s().at(Key{"orders", 0}), 100.0);
}

}  // namespace
}  // namespace ballast::kafka
