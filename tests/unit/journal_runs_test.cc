/// The journal's layout in runs (store/journal_record.h): an append is one
/// RocksDB key, not one per event; reads, repair and retention find events
/// inside runs; damage to a run's framing is named by the seq it hides;
/// journals written with a key per event still read.

#include <gtest/gtest.h>

#include "store/journal.h"
#include "store/journal_record.h"
#include "tests/support/open_journal.h"
#include "tests/support/raw_journal.h"
#include "tests/support/sample_events.h"
#include "tests/support/temp_dir.h"

namespace ballast::store {
namespace {

using events::Event;
using testing::open_journal;
using testing::expect_open_fails;
using testing::RawJournal;
using testing::sample_event_at;
using testing::sample_events;
using testing::TempDir;

using Runs = std::vector<std::pair<uint64_t, uint64_t>>;

void append(Journal& journal, uint64_t count) {
    std::vector<Event> events = sample_events(journal.last_seq() + 1, count);
    Result<uint64_t> last = journal.append(events);
    ASSERT_TRUE(last.ok()) << last.error().to_string();
}

void expect_reads(const Journal& journal, uint64_t from, uint64_t to) {
    Result<std::vector<Event>> events = journal.read(from, to);
    ASSERT_TRUE(events.ok()) << events.error().to_string();
    ASSERT_EQ(events->size(), to - from + 1) << from << ".." << to;
    for (uint64_t seq = from; seq <= to; seq++) EXPECT_EQ((*events)[seq - from], sample_event_at(seq));
}

/// The byte offset in a run's value where the framing of its `index`-th
/// record (0-based) starts.
size_t offset_of_record(const std::string& run, size_t index) {
    size_t offset = 0;
    for (size_t i = 0; i < index; i++) offset += run_length_size + get_u32_le(run.data() + offset);
    return offset;
}

TEST(JournalRuns, ACursorStopsAtARunEndingAtTheLargestSeq) {
    // A damaged key can claim the largest seq; next past it must not wrap to 0.
    const uint64_t largest = UINT64_MAX;
    RunCursor legacy = RunCursor::of(key_string(largest), "record");
    uint64_t seq = 0;
    std::string_view record;
    ASSERT_TRUE(legacy.next(&seq, &record).ok());
    EXPECT_EQ(seq, largest);
    EXPECT_TRUE(legacy.done());
    EXPECT_TRUE(legacy.finish().ok());

    RunBuilder builder;
    builder.add_record(largest - 1, "a");
    builder.add_record(largest, "b");
    RunCursor run = RunCursor::of(run_key(largest - 1, largest), builder.value());
    int records = 0;
    while (!run.done() && records < 3) {
        ASSERT_TRUE(run.next(&seq, &record).ok());
        records++;
    }
    EXPECT_EQ(records, 2);
    EXPECT_EQ(record, "b");
    EXPECT_TRUE(run.finish().ok());
}

TEST(JournalRuns, EachAppendIsOneRunSplitAtTheBound) {
    TempDir dir;
    {
        auto journal = open_journal(dir / "j");
        append(*journal, 3);
        append(*journal, 1);
        append(*journal, 2 * run_events_max + 100);
    }
    RawJournal raw(dir / "j");
    const uint64_t big_first = 5;
    EXPECT_EQ(raw.runs(), (Runs{{1, 3},
                                {4, 4},
                                {big_first, big_first + run_events_max - 1},
                                {big_first + run_events_max, big_first + 2 * run_events_max - 1},
                                {big_first + 2 * run_events_max, 4 + 2 * run_events_max + 100}}));
}

TEST(JournalRuns, AnyRangeReadsAcrossAndInsideRuns) {
    TempDir dir;
    auto journal = open_journal(dir / "j");
    for (int i = 0; i < 20; i++) append(*journal, 7);  // runs 1..7, 8..14, ...
    const uint64_t last = journal->last_seq();
    ASSERT_EQ(last, 140u);
    for (const auto& [from, to] : Runs{{1, 140}, {3, 5}, {7, 8}, {6, 16}, {140, 140}, {50, 140}, {1, 1}}) {
        expect_reads(*journal, from, to);
    }
    Result<Event> one = journal->read_one(66);
    ASSERT_TRUE(one.ok());
    EXPECT_EQ(*one, sample_event_at(66));
    // A reopen finds the bounds from the run keys alone.
    journal.reset();
    journal = open_journal(dir / "j");
    EXPECT_EQ(journal->first_seq(), 1u);
    EXPECT_EQ(journal->last_seq(), 140u);
}

TEST(JournalRuns, RepairCutsTheRunThatHoldsTheSeq) {
    TempDir dir;
    {
        auto journal = open_journal(dir / "j");
        append(*journal, 50);
        append(*journal, 50);
    }
    Result<uint64_t> deleted = Journal::truncate_after(dir / "j", 70);
    ASSERT_TRUE(deleted.ok()) << deleted.error().to_string();
    EXPECT_EQ(*deleted, 30u);
    {
        // The repair writes the journal anew, its runs as appends make them.
        RawJournal raw(dir / "j");
        EXPECT_EQ(raw.runs(), (Runs{{1, 70}}));
    }
    auto journal = open_journal(dir / "j");
    EXPECT_EQ(journal->last_seq(), 70u);
    expect_reads(*journal, 1, 70);
    append(*journal, 5);
    expect_reads(*journal, 60, 75);
}

TEST(JournalRuns, RepairKeepsTheRecordsBeforeABrokenLength) {
    TempDir dir;
    {
        auto journal = open_journal(dir / "j");
        append(*journal, 10);
        append(*journal, 100);
    }
    {
        RawJournal raw(dir / "j");
        // Record 30's length (the run 11..110's 20th) now runs past the end.
        raw.mutate_run(30, [](std::string& run) {
            const size_t at = offset_of_record(run, 19);
            for (size_t i = 0; i < run_length_size; i++) run[at + i] = '\xff';
        });
    }
    Result<uint64_t> deleted = Journal::truncate_after(dir / "j", 50);
    ASSERT_FALSE(deleted.ok());
    EXPECT_NE(deleted.error().message.find("journal record seq 30: length 4294967295 runs past the end"),
              std::string::npos)
        << deleted.error().message;
    // The records of the run before the broken length still read: they are kept.
    EXPECT_NE(deleted.error().message.find("`ballast log repair --truncate-after 29` keeps seq 1..29"),
              std::string::npos)
        << deleted.error().message;
    // The way it names works.
    Result<uint64_t> before = Journal::truncate_after(dir / "j", 29);
    ASSERT_TRUE(before.ok()) << before.error().to_string();
    EXPECT_EQ(*before, 81u);
    auto journal = open_journal(dir / "j");
    expect_reads(*journal, 1, 29);
}

TEST(JournalRuns, ARunEndingEarlyNamesTheFirstMissingRecord) {
    TempDir dir;
    {
        auto journal = open_journal(dir / "j");
        append(*journal, 100);
    }
    {
        RawJournal raw(dir / "j");
        raw.mutate_run(1, [](std::string& run) { run.resize(offset_of_record(run, 50)); });
    }
    expect_open_fails(dir / "j", "journal record seq 51: missing (its run ends 50 record(s) early)");
}

TEST(JournalRuns, BytesAfterARunsLastRecordAreNamed) {
    TempDir dir;
    {
        auto journal = open_journal(dir / "j");
        append(*journal, 20);
        append(*journal, 20);
    }
    {
        RawJournal raw(dir / "j");
        raw.mutate_run(5, [](std::string& run) { run += "xyz"; });
    }
    expect_open_fails(dir / "j", "journal run ending at seq 20: 3 bytes after its last record");
}

TEST(JournalRuns, RetentionKeepsTheRunFromTheSnapshotOn) {
    TempDir dir;
    auto journal = open_journal(dir / "j");
    append(*journal, 100);  // one run; sample_event(n) happens at n seconds
    const std::string state = "state";
    ASSERT_TRUE(journal->write_snapshot(60, {reinterpret_cast<const uint8_t*>(state.data()), state.size()}).ok());
    Result<RetentionReport> report = journal->apply_retention(200'000, {.retention_ms = 100'000});  // cutoff 100 s
    ASSERT_TRUE(report.ok()) << report.error().to_string();
    EXPECT_EQ(report->events_deleted, 59u);
    EXPECT_EQ(journal->first_seq(), 60u);
    expect_reads(*journal, 60, 100);
    EXPECT_FALSE(journal->read_one(59).ok());
    journal.reset();
    {
        RawJournal raw(dir / "j");
        EXPECT_EQ(raw.runs(), (Runs{{60, 100}}));
    }
    journal = open_journal(dir / "j");
    EXPECT_EQ(journal->first_seq(), 60u);
    expect_reads(*journal, 60, 100);
}

TEST(JournalRuns, AJournalWithAKeyPerEventStillReadsAndGrows) {
    TempDir dir;
    {
        auto journal = open_journal(dir / "j");
        append(*journal, 30);
    }
    {
        RawJournal raw(dir / "j");
        raw.to_key_per_event();
        EXPECT_EQ(raw.runs().size(), 30u);
    }
    {
        auto journal = open_journal(dir / "j");
        EXPECT_EQ(journal->first_seq(), 1u);
        EXPECT_EQ(journal->last_seq(), 30u);
        expect_reads(*journal, 1, 30);
        expect_reads(*journal, 12, 12);
        append(*journal, 10);  // a run after the old keys
    }
    auto journal = open_journal(dir / "j");
    expect_reads(*journal, 1, 40);
    expect_reads(*journal, 29, 32);
    journal.reset();
    Result<uint64_t> deleted = Journal::truncate_after(dir / "j", 20);
    ASSERT_TRUE(deleted.ok()) << deleted.error().to_string();
    EXPECT_EQ(*deleted, 20u);
    journal = open_journal(dir / "j");
    EXPECT_EQ(journal->last_seq(), 20u);
    expect_reads(*journal, 1, 20);
}

}  // namespace
}  // namespace ballast::store
