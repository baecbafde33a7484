#pragma once

/// The partition index checked against the events a crash test knows
/// survived (tests/support/sample_events.h).

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "store/journal.h"

namespace ballast::testing {

/// The partition index survived with the events, no more and no less: the
/// open found nothing to catch up or rebuild (an index ahead of the journal
/// would be rebuilt, and said), and each partition's entries are exactly the
/// seqs of its events that survived.
inline void expect_index_matches(const store::Journal& journal, const std::vector<events::Event>& all) {
    for (const std::string& warning : journal.warnings()) {
        EXPECT_EQ(warning.find("partition index"), std::string::npos) << warning;
    }
    EXPECT_TRUE(journal.index_status().ok());
    std::map<std::pair<std::string, int32_t>, std::vector<uint64_t>> expected;
    for (const events::Event& e : all) {
        if (const auto* c = std::get_if<events::PartitionChanged>(&e.body)) expected[{c->topic, c->partition}].push_back(e.seq);
    }
    for (const auto& [partition, seqs] : expected) {
        events::Result<std::vector<uint64_t>> indexed = journal.partition_seqs(partition.first, partition.second, 1, UINT64_MAX);
        ASSERT_TRUE(indexed.ok()) << indexed.error().to_string();
        EXPECT_EQ(*indexed, seqs) << partition.first << "-" << partition.second;
    }
}

}  // namespace ballast::testing
