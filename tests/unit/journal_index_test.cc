/// The partition index's entries (store/journal_index.h): they decode to
/// what was encoded, a byte changed anywhere is refused, and the filter
/// that drops what retention orphaned drops only entries wholly below the
/// journal's first seq.

#include <gtest/gtest.h>

#include <atomic>

#include <rocksdb/compaction_filter.h>

#include "store/journal_index.h"

namespace ballast::store {
namespace {

TEST(JournalIndex, AnEntryReadsBackAndAnyChangedByteIsRefused) {
    const std::vector<uint64_t> seqs = {7, 8, 300, 70'000, 1ull << 40};
    const auto [key, value] = encode_index_entry(partition_index_prefix("orders", 3), seqs);
    std::vector<uint64_t> decoded;
    ASSERT_TRUE(decode_index_entry(key, value, &decoded));
    EXPECT_EQ(decoded, seqs);
    for (size_t i = 0; i < value.size(); i++) {
        std::string changed = value;
        changed[i] ^= 0x10;
        EXPECT_FALSE(decode_index_entry(key, changed, &decoded)) << "byte " << i << " of the value";
    }
    // The same value under another partition's key (a copy in the wrong place).
    const auto [other_key, other_value] = encode_index_entry(partition_index_prefix("orders", 4), seqs);
    EXPECT_FALSE(decode_index_entry(other_key, value, &decoded));
    EXPECT_FALSE(decode_index_entry(key, value.substr(0, value.size() - 1), &decoded));
}

TEST(JournalIndex, PrefixesOfDifferentTopicsNeverPrefixEachOther) {
    // "ab" partition 0x63000000 and "abc" would collide without the length.
    const std::string ab = partition_index_prefix("ab", 0x63000000);
    const std::string abc = partition_index_prefix("abc", 0);
    EXPECT_NE(abc.rfind(ab, 0), 0u);
    EXPECT_NE(ab.rfind(abc, 0), 0u);
}

TEST(JournalIndex, TheFloorFilterDropsOnlyWhatRetentionOrphanedWhole) {
    std::atomic<uint64_t> first_seq{100};
    const std::unique_ptr<rocksdb::CompactionFilter> filter = index_floor_filter(&first_seq);
    auto dropped = [&](const std::vector<uint64_t>& seqs) {
        const auto [key, value] = encode_index_entry(action_index_prefix(9), seqs);
        std::string unused;
        bool changed = false;
        return filter->Filter(0, key, value, &unused, &changed);
    };
    EXPECT_TRUE(dropped({10, 99}));
    EXPECT_FALSE(dropped({10, 100})) << "seq 100 is still in the journal";
    EXPECT_FALSE(dropped({150}));
    first_seq = 151;
    EXPECT_TRUE(dropped({150}));
    std::string unused;
    bool changed = false;
    EXPECT_FALSE(filter->Filter(0, index_marker_key, encode_index_marker(5), &unused, &changed)) << "the marker stays";
}

}  // namespace
}  // namespace ballast::store
