/// BrokerOrder, the planner's ordered index of eligible brokers: after any
/// sequence of key changes it walks in exactly the order a
/// std::set<std::pair<Key, uint32_t>> of the same entries would, which is
/// what every goal iterating an index was written against.

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "goals/broker_order.h"

namespace ballast::goals {
namespace {

template <class Key>
std::vector<std::pair<Key, uint32_t>> walk(const BrokerOrder<Key>& order) {
    return {order.begin(), order.end()};
}

template <class Key>
std::vector<std::pair<Key, uint32_t>> walk(const std::set<std::pair<Key, uint32_t>>& order) {
    return {order.begin(), order.end()};
}

TEST(BrokerOrderTest, SortsByKeyThenBrokerIndex) {
    BrokerOrder<int32_t> order;
    order.reset(6);
    // Broker 1 and 5 share key 3: the lower index first.
    order.add(7, 0);
    order.add(3, 5);
    order.add(3, 1);
    order.add(-2, 4);
    order.sort();
    const std::vector<std::pair<int32_t, uint32_t>> expected{{-2, 4}, {3, 1}, {3, 5}, {7, 0}};
    EXPECT_EQ(walk(order), expected);
    EXPECT_EQ(order.begin()->second, 4u);
    EXPECT_EQ(order.rbegin()->second, 0u);
    EXPECT_EQ(order.size(), 4u);
}

TEST(BrokerOrderTest, RekeyMovesABrokerBothWaysAndAcrossTies) {
    BrokerOrder<int32_t> order;
    order.reset(4);
    for (uint32_t b = 0; b < 4; b++) order.add(static_cast<int32_t>(10 * b), b);
    order.sort();
    order.rekey(0, 25);  // from the front past two brokers
    EXPECT_EQ(walk(order), (std::vector<std::pair<int32_t, uint32_t>>{{10, 1}, {20, 2}, {25, 0}, {30, 3}}));
    order.rekey(3, 10);  // from the back to a tie with broker 1: after it by index
    EXPECT_EQ(walk(order), (std::vector<std::pair<int32_t, uint32_t>>{{10, 1}, {10, 3}, {20, 2}, {25, 0}}));
    order.rekey(3, 10);  // unchanged key: stays
    order.rekey(1, 10);
    EXPECT_EQ(walk(order), (std::vector<std::pair<int32_t, uint32_t>>{{10, 1}, {10, 3}, {20, 2}, {25, 0}}));
    order.rekey(2, -1);  // to the front
    EXPECT_EQ(walk(order), (std::vector<std::pair<int32_t, uint32_t>>{{-1, 2}, {10, 1}, {10, 3}, {25, 0}}));
}

/// Random keys, many equal, random brokers out of the order, thousands of
/// rekeys small and large: after each, the walk is the std::set's.
TEST(BrokerOrderTest, WalksAsAStdSetAfterEveryRekey) {
    std::mt19937 random(20261205);  // seeded: the same sequence every run
    constexpr uint32_t brokers = 60;
    for (int run = 0; run < 20; run++) {
        BrokerOrder<double> order;
        std::set<std::pair<double, uint32_t>> expected;
        std::vector<double> key(brokers, 0);
        std::vector<bool> in(brokers, false);
        order.reset(brokers);
        std::uniform_int_distribution<int> coarse(0, 9);  // few distinct keys: ties
        for (uint32_t b = 0; b < brokers; b++) {
            if (random() % 5 == 0) continue;  // not eligible: not in the order
            in[b] = true;
            key[b] = coarse(random);
            order.add(key[b], b);
            expected.emplace(key[b], b);
        }
        order.sort();
        ASSERT_EQ(walk(order), walk(expected));
        std::uniform_real_distribution<double> shift(-3, 3);
        for (int step = 0; step < 500; step++) {
            const uint32_t b = static_cast<uint32_t>(random() % brokers);
            if (!in[b]) continue;
            expected.erase({key[b], b});
            key[b] = step % 3 == 0 ? static_cast<double>(coarse(random)) : key[b] + shift(random);
            expected.emplace(key[b], b);
            order.rekey(b, key[b]);
            ASSERT_EQ(walk(order), walk(expected)) << "run " << run << ", step " << step << ", broker " << b;
        }
    }
}

}  // namespace
}  // namespace ballast::goals
