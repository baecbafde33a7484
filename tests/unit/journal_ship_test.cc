/// The journal's part in high availability, on real RocksDB: a leader's
/// append ships its runs before it writes them (and writes nothing the
/// replica refused), a standby appends the shipped runs as they are after
/// checking every record, and a standby that joins empty starts from a
/// leader's snapshot.

#include <gtest/gtest.h>

#include "store/journal.h"
#include "tests/support/open_journal.h"
#include "tests/support/sample_events.h"
#include "tests/support/temp_dir.h"

namespace ballast::store::ship_test {
namespace {

using testing::open_journal;
using testing::sample_event_at;
using testing::sample_events;
using testing::TempDir;

/// Appends `count` sample events to `journal`, shipping into `shipped`.
void append_shipping(Journal& journal, uint64_t first_n, uint64_t count, std::vector<ShippedRun>* shipped) {
    std::vector<events::Event> batch = sample_events(first_n, count);
    Result<uint64_t> last = journal.append(batch, [&](const std::vector<ShippedRun>& runs) {
        shipped->insert(shipped->end(), runs.begin(), runs.end());
        return Status();
    });
    ASSERT_TRUE(last.ok()) << last.error().to_string();
}

TEST(JournalShip, ALeadersAppendShipsExactlyTheRunsItWrites) {
    TempDir dir;
    auto leader = open_journal(dir.path() + "/leader");
    std::vector<ShippedRun> shipped;
    append_shipping(*leader, 1, 10, &shipped);
    append_shipping(*leader, 11, 5000, &shipped);  // longer than one run
    ASSERT_GE(shipped.size(), 3u);
    uint64_t expected_first = 1;
    for (const ShippedRun& run : shipped) {
        Result<std::pair<uint64_t, uint64_t>> bounds = shipped_run_bounds(run);
        ASSERT_TRUE(bounds.ok()) << bounds.error().to_string();
        EXPECT_EQ(bounds->first, expected_first);
        expected_first = bounds->second + 1;
    }
    EXPECT_EQ(expected_first, 5011u);

    auto standby = open_journal(dir.path() + "/standby");
    Result<std::vector<events::Event>> appended = standby->append_shipped(shipped);
    ASSERT_TRUE(appended.ok()) << appended.error().to_string();
    ASSERT_EQ(appended->size(), 5010u);
    for (uint64_t seq = 1; seq <= 5010; seq++) EXPECT_EQ((*appended)[seq - 1], sample_event_at(seq)) << seq;
    EXPECT_EQ(standby->last_seq(), 5010u);
    Result<std::vector<events::Event>> read = standby->read(1, 5010);
    ASSERT_TRUE(read.ok());
    EXPECT_EQ(*read, *appended);
}

TEST(JournalShip, ARefusedShipmentAppendsNothingAndHandsOutNoNumber) {
    TempDir dir;
    auto journal = open_journal(dir.path() + "/j");
    std::vector<ShippedRun> shipped;
    append_shipping(*journal, 1, 3, &shipped);
    std::vector<events::Event> batch = sample_events(4, 2);
    Result<uint64_t> refused = journal->append(batch, [](const std::vector<ShippedRun>&) {
        return Status(events::make_error(events::ErrorCode::conflict, "fenced: a newer writer holds the log"));
    });
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("seq 4..5 not appended"), std::string::npos) << refused.error().message;
    EXPECT_NE(refused.error().message.find("fenced"), std::string::npos) << refused.error().message;
    EXPECT_EQ(journal->last_seq(), 3u);
    EXPECT_EQ(batch[0].seq, 0u);
    // The numbers come again, and a reopen finds only what was shipped.
    append_shipping(*journal, 4, 2, &shipped);
    EXPECT_EQ(journal->last_seq(), 5u);
    journal.reset();
    journal = open_journal(dir.path() + "/j");
    EXPECT_EQ(journal->last_seq(), 5u);
}

TEST(JournalShip, AStandbySkipsWhatItHoldsAndRefusesAGap) {
    TempDir dir;
    auto leader = open_journal(dir.path() + "/leader");
    std::vector<ShippedRun> shipped;
    append_shipping(*leader, 1, 4, &shipped);   // run 1..4
    append_shipping(*leader, 5, 4, &shipped);   // run 5..8
    append_shipping(*leader, 9, 4, &shipped);   // run 9..12
    ASSERT_EQ(shipped.size(), 3u);

    auto standby = open_journal(dir.path() + "/standby");
    ASSERT_TRUE(standby->append_shipped(std::span(shipped).first(2)).ok());
    // Read again from the start: the old runs are skipped, the new one kept.
    Result<std::vector<events::Event>> again = standby->append_shipped(shipped);
    ASSERT_TRUE(again.ok()) << again.error().to_string();
    ASSERT_EQ(again->size(), 4u);
    EXPECT_EQ(again->front().seq, 9u);

    auto gap = open_journal(dir.path() + "/gap");
    ASSERT_TRUE(gap->append_shipped(std::span(shipped).first(1)).ok());
    Result<std::vector<events::Event>> refused = gap->append_shipped(std::span(shipped).last(1));
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("seq 5..8 missing"), std::string::npos) << refused.error().message;
    EXPECT_EQ(gap->last_seq(), 4u);
}

TEST(JournalShip, AStandbyJoiningMidRunKeepsOnlyTheSeqsAfterItsOwn) {
    TempDir dir;
    auto leader = open_journal(dir.path() + "/leader");
    std::vector<ShippedRun> shipped;
    append_shipping(*leader, 1, 10, &shipped);  // one run 1..10
    auto standby = open_journal(dir.path() + "/standby");
    ASSERT_TRUE(standby->seed_snapshot(6, std::vector<uint8_t>{1, 2, 3}).ok());
    Result<std::vector<events::Event>> appended = standby->append_shipped(shipped);
    ASSERT_TRUE(appended.ok()) << appended.error().to_string();
    ASSERT_EQ(appended->size(), 4u);
    EXPECT_EQ(appended->front(), sample_event_at(7));
    standby.reset();
    standby = open_journal(dir.path() + "/standby");
    EXPECT_EQ(standby->first_seq(), 7u);
    EXPECT_EQ(standby->last_seq(), 10u);
    Result<std::optional<Snapshot>> snapshot = standby->newest_snapshot();
    ASSERT_TRUE(snapshot.ok() && snapshot->has_value());
    EXPECT_EQ((*snapshot)->seq, 6u);
}

TEST(JournalShip, ADamagedShippedRecordIsRefusedWithItsSeq) {
    TempDir dir;
    auto leader = open_journal(dir.path() + "/leader");
    std::vector<ShippedRun> shipped;
    append_shipping(*leader, 1, 5, &shipped);
    shipped[0].value[shipped[0].value.size() - 3] ^= 0x40;
    auto standby = open_journal(dir.path() + "/standby");
    Result<std::vector<events::Event>> refused = standby->append_shipped(shipped);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("seq 1..5"), std::string::npos) << refused.error().message;
    EXPECT_EQ(standby->last_seq(), 0u);

    ShippedRun bad_key{"short", shipped[0].value};
    Result<std::vector<events::Event>> no_key = standby->append_shipped(std::vector<ShippedRun>{bad_key});
    ASSERT_FALSE(no_key.ok());
    EXPECT_NE(no_key.error().message.find("not a run of sequence numbers"), std::string::npos);
}

TEST(JournalShip, ASnapshotSeedsOnlyAnEmptyJournal) {
    TempDir dir;
    auto journal = open_journal(dir.path() + "/j");
    std::vector<ShippedRun> shipped;
    append_shipping(*journal, 1, 3, &shipped);
    Status refused = journal->seed_snapshot(10, std::vector<uint8_t>{1});
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("seeds only an empty one"), std::string::npos);
}

}  // namespace
}  // namespace ballast::store::ship_test
