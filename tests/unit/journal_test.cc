/// The journal's everyday contract against real RocksDB: dense sequence
/// numbers, reads of any range, reopen, snapshots plus tail, retention.

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "store/journal.h"
#include "tests/support/open_journal.h"
#include "tests/support/sample_events.h"
#include "tests/support/temp_dir.h"

namespace ballast::store {
namespace {

using events::Event;
using testing::open_journal;
using testing::sample_event_at;
using testing::sample_events;
using testing::TempDir;

/// Appends sample events numbered from last_seq + 1, in batches of `batch`.
void append_samples(Journal& journal, uint64_t count, uint64_t batch = 10) {
    while (count > 0) {
        const uint64_t n = std::min(batch, count);
        std::vector<Event> events = sample_events(journal.last_seq() + 1, n);
        Result<uint64_t> last = journal.append(events);
        ASSERT_TRUE(last.ok()) << last.error().to_string();
        count -= n;
    }
}

std::span<const uint8_t> as_bytes(const std::string& s) {
    return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST(Journal, FreshJournalIsEmpty) {
    TempDir dir;
    auto journal = open_journal(dir / "j");
    EXPECT_EQ(journal->first_seq(), 1u);
    EXPECT_EQ(journal->last_seq(), 0u);
    EXPECT_EQ(journal->event_count(), 0u);
    Result<std::vector<Event>> all = journal->read(0, UINT64_MAX);
    ASSERT_TRUE(all.ok());
    EXPECT_TRUE(all->empty());
}

TEST(Journal, AppendAssignsDenseSequenceNumbersAndWritesThemBack) {
    TempDir dir;
    auto journal = open_journal(dir / "j");
    std::vector<Event> first = sample_events(1, 3);
    Result<uint64_t> last = journal->append(first);
    ASSERT_TRUE(last.ok());
    EXPECT_EQ(*last, 3u);
    EXPECT_EQ(first[0].seq, 1u);
    EXPECT_EQ(first[2].seq, 3u);

    std::vector<Event> second = sample_events(4, 1000);
    last = journal->append(second);
    ASSERT_TRUE(last.ok());
    EXPECT_EQ(*last, 1003u);
    EXPECT_EQ(second.front().seq, 4u);
    EXPECT_EQ(journal->event_count(), 1003u);

    std::vector<Event> none;
    last = journal->append(none);
    ASSERT_TRUE(last.ok());
    EXPECT_EQ(*last, 1003u);
}

TEST(Journal, ReadsAnyRangeExactlyAsAppended) {
    TempDir dir;
    auto journal = open_journal(dir / "j");
    append_samples(*journal, 100, 7);

    Result<std::vector<Event>> middle = journal->read(40, 59);
    ASSERT_TRUE(middle.ok()) << middle.error().to_string();
    ASSERT_EQ(middle->size(), 20u);
    for (uint64_t i = 0; i < 20; i++) EXPECT_EQ((*middle)[i], sample_event_at(40 + i));

    // Ranges past either end are clamped to what exists.
    Result<std::vector<Event>> clamped = journal->read(95, 500);
    ASSERT_TRUE(clamped.ok());
    EXPECT_EQ(clamped->size(), 6u);
    EXPECT_EQ(clamped->back().seq, 100u);

    Result<Event> one = journal->read_one(77);
    ASSERT_TRUE(one.ok());
    EXPECT_EQ(*one, sample_event_at(77));

    Result<Event> missing = journal->read_one(101);
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, ErrorCode::not_found);
    EXPECT_NE(missing.error().message.find("no seq 101"), std::string::npos);
}

TEST(Journal, ScanStopsWhenTheVisitorSaysSo) {
    TempDir dir;
    auto journal = open_journal(dir / "j");
    append_samples(*journal, 50);
    std::vector<uint64_t> seen;
    Status status = journal->scan(10, 50, [&](uint64_t seq, std::span<const uint8_t>) {
        seen.push_back(seq);
        return seen.size() < 5;
    });
    ASSERT_TRUE(status.ok());
    EXPECT_EQ(seen, (std::vector<uint64_t>{10, 11, 12, 13, 14}));
}

TEST(Journal, ReopenKeepsEverythingAndContinuesNumbering) {
    TempDir dir;
    {
        auto journal = open_journal(dir / "j");
        append_samples(*journal, 250, 33);
    }
    auto journal = open_journal(dir / "j");
    EXPECT_EQ(journal->first_seq(), 1u);
    EXPECT_EQ(journal->last_seq(), 250u);
    append_samples(*journal, 5);
    EXPECT_EQ(journal->last_seq(), 255u);
    Result<std::vector<Event>> all = journal->read(1, 255);
    ASSERT_TRUE(all.ok());
    for (uint64_t seq = 1; seq <= 255; seq++) EXPECT_EQ((*all)[seq - 1], sample_event_at(seq));
}

TEST(Journal, SyncOffJournalsReopenTheSame) {
    TempDir dir;
    JournalOptions options;
    options.sync = false;
    {
        auto journal = open_journal(dir / "j", options);
        append_samples(*journal, 300, 100);
    }
    auto journal = open_journal(dir / "j", options);
    EXPECT_EQ(journal->last_seq(), 300u);
}

TEST(Journal, NewestSnapshotIsFoundOnOpenAndTheTailFollowsIt) {
    TempDir dir;
    {
        auto journal = open_journal(dir / "j");
        append_samples(*journal, 30);
        ASSERT_TRUE(journal->write_snapshot(10, as_bytes("state@10")).ok());
        ASSERT_TRUE(journal->write_snapshot(20, as_bytes("state@20")).ok());
        append_samples(*journal, 5);
    }
    auto journal = open_journal(dir / "j");
    Result<std::optional<Snapshot>> newest = journal->newest_snapshot();
    ASSERT_TRUE(newest.ok());
    ASSERT_TRUE(newest->has_value());
    EXPECT_EQ((*newest)->seq, 20u);
    EXPECT_EQ((*newest)->bytes, "state@20");

    // Recovery = snapshot + the events after it.
    Result<std::vector<Event>> tail = journal->read((*newest)->seq + 1, journal->last_seq());
    ASSERT_TRUE(tail.ok());
    ASSERT_EQ(tail->size(), 15u);
    EXPECT_EQ(tail->front(), sample_event_at(21));

    Result<std::vector<uint64_t>> seqs = journal->snapshot_seqs();
    ASSERT_TRUE(seqs.ok());
    EXPECT_EQ(*seqs, (std::vector<uint64_t>{10, 20}));
    Result<Snapshot> older = journal->read_snapshot(10);
    ASSERT_TRUE(older.ok());
    EXPECT_EQ(older->bytes, "state@10");
}

/// A large snapshot (an engine at 1M partitions writes ~160 MB) is ingested
/// as a table file of its own instead of a Put; it must read back the same,
/// survive a reopen, sit in order among small ones, and a file left behind
/// by a crash mid-write must not survive the next open.
TEST(Journal, LargeSnapshotsAreIngestedAndReadBackLikeSmallOnes) {
    TempDir dir;
    std::string large(6u << 20, '\0');
    for (size_t i = 0; i < large.size(); i++) large[i] = static_cast<char>((i * 2654435761u) >> 13);
    {
        auto journal = open_journal(dir / "j");
        append_samples(*journal, 40);
        ASSERT_TRUE(journal->write_snapshot(10, as_bytes("small@10")).ok());
        ASSERT_TRUE(journal->write_snapshot(20, as_bytes(large)).ok());
        ASSERT_TRUE(journal->write_snapshot(30, as_bytes("small@30")).ok());
        append_samples(*journal, 5);
    }
    // What a crash between writing the table file and ingesting it leaves.
    const std::string stale = dir / "j/snapshot-ingest-35.sst";
    { std::ofstream(stale) << "half a table file"; }
    {
        auto journal = open_journal(dir / "j");
        EXPECT_FALSE(std::filesystem::exists(stale)) << "a never-ingested snapshot file survived the open";
        Result<std::vector<uint64_t>> seqs = journal->snapshot_seqs();
        ASSERT_TRUE(seqs.ok());
        EXPECT_EQ(*seqs, (std::vector<uint64_t>{10, 20, 30}));
        Result<Snapshot> read = journal->read_snapshot(20);
        ASSERT_TRUE(read.ok()) << read.error().to_string();
        EXPECT_TRUE(read->bytes == large) << "the large snapshot read back different bytes";
        // Newest wins whatever the path each one took.
        ASSERT_TRUE(journal->write_snapshot(45, as_bytes(large)).ok());
    }
    auto journal = open_journal(dir / "j");
    Result<std::optional<Snapshot>> newest = journal->newest_snapshot();
    ASSERT_TRUE(newest.ok());
    ASSERT_TRUE(newest->has_value());
    EXPECT_EQ((*newest)->seq, 45u);
    EXPECT_TRUE((*newest)->bytes == large);
    for (const auto& entry : std::filesystem::directory_iterator(std::string(dir / "j"))) {
        EXPECT_NE(entry.path().filename().string().rfind("snapshot-ingest-", 0), 0u) << entry.path();
    }
}

TEST(Journal, SnapshotOutsideTheJournalIsRefused) {
    TempDir dir;
    auto journal = open_journal(dir / "j");
    append_samples(*journal, 5);
    Status status = journal->write_snapshot(6, as_bytes("future"));
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().code, ErrorCode::invalid_argument);
    EXPECT_NE(status.error().message.find("snapshot seq 6 is outside the journal (1..5)"),
              std::string::npos)
        << status.error().message;
    EXPECT_FALSE(journal->write_snapshot(0, as_bytes("before anything")).ok());
}

TEST(Journal, ReadOnlyOpenSeesTheWritersEventsAndRefusesWrites) {
    TempDir dir;
    auto writer = open_journal(dir / "j");
    append_samples(*writer, 40);
    JournalOptions read_only;
    read_only.read_only = true;
    auto reader = open_journal(dir / "j", read_only);
    EXPECT_EQ(reader->last_seq(), 40u);
    std::vector<Event> more = sample_events(41, 1);
    Result<uint64_t> refused = reader->append(more);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, ErrorCode::conflict);
}

TEST(Journal, OpeningAMissingJournalReadOnlyNamesThePath) {
    TempDir dir;
    JournalOptions read_only;
    read_only.read_only = true;
    Result<std::unique_ptr<Journal>> journal = Journal::open(dir / "nothing-here", read_only);
    ASSERT_FALSE(journal.ok());
    EXPECT_EQ(journal.error().code, ErrorCode::not_found);
    EXPECT_NE(journal.error().message.find("nothing-here"), std::string::npos);
}

TEST(Journal, ASecondWriterIsRefusedWhileTheFirstHoldsTheJournal) {
    TempDir dir;
    auto writer = open_journal(dir / "j");
    Result<std::unique_ptr<Journal>> second = Journal::open(dir / "j", {});
    ASSERT_FALSE(second.ok());
    EXPECT_NE(second.error().message.find("lock"), std::string::npos) << second.error().message;
}

// ---------------------------------------------------------------- retention

/// 400 events one second apart, snapshots at 100, 200 and 300.
std::unique_ptr<Journal> journal_with_snapshots(const std::string& path) {
    auto journal = open_journal(path);
    append_samples(*journal, 400, 50);
    for (uint64_t seq : {100, 200, 300}) {
        EXPECT_TRUE(journal->write_snapshot(seq, as_bytes("state@" + std::to_string(seq))).ok());
    }
    return journal;
}

TEST(JournalRetention, DeletesOldEventsUpToTheNewestCoveringSnapshot) {
    TempDir dir;
    auto journal = journal_with_snapshots(dir / "j");
    // sample_event(n) happens at n seconds; cutoff = 400 s - 150 s = 250 s.
    Result<RetentionReport> report = journal->apply_retention(400'000, {.retention_ms = 150'000});
    ASSERT_TRUE(report.ok()) << report.error().to_string();
    EXPECT_EQ(report->events_deleted, 199u);  // seq 1..199
    EXPECT_EQ(report->snapshots_deleted, 1u);  // the one at 100
    EXPECT_EQ(journal->first_seq(), 200u);

    Result<std::vector<uint64_t>> seqs = journal->snapshot_seqs();
    ASSERT_TRUE(seqs.ok());
    EXPECT_EQ(*seqs, (std::vector<uint64_t>{200, 300}));
    EXPECT_FALSE(journal->read_one(199).ok());
    EXPECT_EQ(*journal->read_one(200), sample_event_at(200));

    journal.reset();
    auto reopened = open_journal(dir / "j");
    EXPECT_EQ(reopened->first_seq(), 200u);
    EXPECT_EQ(reopened->last_seq(), 400u);
}

TEST(JournalRetention, KeepsEverythingWhenNoSnapshotIsOldEnough) {
    TempDir dir;
    auto journal = journal_with_snapshots(dir / "j");
    Result<RetentionReport> report = journal->apply_retention(400'000, {.retention_ms = 350'000});  // cutoff 50 s
    ASSERT_TRUE(report.ok());
    EXPECT_EQ(report->events_deleted, 0u);
    EXPECT_EQ(journal->first_seq(), 1u);
}

TEST(JournalRetention, KeepsEverythingWithoutSnapshots) {
    TempDir dir;
    auto journal = open_journal(dir / "j");
    append_samples(*journal, 100);
    Result<RetentionReport> report = journal->apply_retention(1'000'000'000, {.retention_ms = 0});
    ASSERT_TRUE(report.ok());
    EXPECT_EQ(report->events_deleted, 0u);
    EXPECT_EQ(journal->event_count(), 100u);
}

/// Whatever the events, snapshots and window: the newest snapshot and every
/// event after it survive, every surviving snapshot can still be replayed
/// from (its events follow it unbroken), and the journal reopens cleanly.
RC_GTEST_PROP(JournalRetention, NeverDropsEventsASnapshotNeeds, ()) {
    TempDir dir;
    const auto event_count = *rc::gen::inRange<uint64_t>(1, 300);
    const auto snapshot_set =
        *rc::gen::container<std::set<uint64_t>>(rc::gen::inRange<uint64_t>(1, event_count + 1));
    const auto retention_ms = *rc::gen::inRange<int64_t>(0, 400'000);
    const auto now_ms = *rc::gen::inRange<int64_t>(0, 400'000);

    JournalOptions no_fsync;  // durability is not under test here; speed is welcome
    no_fsync.sync = false;
    auto journal = open_journal(dir / "j", no_fsync);
    append_samples(*journal, event_count, 64);
    for (uint64_t seq : snapshot_set) {
        RC_ASSERT(journal->write_snapshot(seq, as_bytes(std::to_string(seq))).ok());
    }
    Result<RetentionReport> report = journal->apply_retention(now_ms, {.retention_ms = retention_ms});
    RC_ASSERT(report.ok());

    Result<std::vector<uint64_t>> kept = journal->snapshot_seqs();
    RC_ASSERT(kept.ok());
    if (!snapshot_set.empty()) {
        RC_ASSERT(!kept->empty());
        RC_ASSERT(kept->back() == *snapshot_set.rbegin());
    } else {
        RC_ASSERT(report->events_deleted == 0u);
    }
    for (uint64_t seq : *kept) RC_ASSERT(seq + 1 >= journal->first_seq());
    // Deleted events are older than the window (sample_event(n) is at n s).
    if (report->events_deleted > 0) {
        RC_ASSERT(static_cast<int64_t>(journal->first_seq() - 1) * 1000 < now_ms - retention_ms);
    }
    RC_ASSERT(journal->last_seq() == event_count);
    Result<std::vector<Event>> rest = journal->read(journal->first_seq(), event_count);
    RC_ASSERT(rest.ok());
    RC_ASSERT(rest->size() == event_count - journal->first_seq() + 1);

    journal.reset();
    Result<std::unique_ptr<Journal>> reopened = Journal::open(dir / "j", {});
    RC_ASSERT(reopened.ok());
    RC_ASSERT((*reopened)->last_seq() == event_count);
}

}  // namespace
}  // namespace ballast::store
