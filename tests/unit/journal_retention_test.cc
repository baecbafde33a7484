/// Retention by size (`ballast.journal.retention.bytes`) on real RocksDB and
/// real files: the journal's files shrink to about the bound, it still
/// starts at a snapshot, the newest snapshot and its tail are never touched,
/// and the newer of the time and size cuts wins. (Retention by time alone:
/// journal_test.cc.)

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <random>
#include <set>
#include <thread>

#include "store/journal.h"
#include "tests/support/open_journal.h"
#include "tests/support/sample_events.h"
#include "tests/support/temp_dir.h"

// A namespace of its own: a unity build compiles the journal tests as one
// unit, and journal_test.cc has helpers of the same names.
namespace ballast::store::retention_test {
namespace {

using events::Event;
using testing::open_journal;
using testing::sample_event_at;
using testing::sample_events;
using testing::TempDir;

constexpr uint64_t kib = 1024;
constexpr uint64_t mib = 1024 * kib;

/// A window no event of these tests is older than (sample_event(n) is at
/// n s): the time bound never cuts.
constexpr int64_t no_time_cut_ms = int64_t{1} << 62;

JournalOptions no_fsync() {
    JournalOptions options;  // durability is not under test here; speed is welcome
    options.sync = false;
    return options;
}

/// Appends sample events from last_seq + 1, `batch` per append.
void append_samples(Journal& journal, uint64_t count, uint64_t batch = 100) {
    while (count > 0) {
        const uint64_t n = std::min(batch, count);
        std::vector<Event> events = sample_events(journal.last_seq() + 1, n);
        Result<uint64_t> last = journal.append(events);
        ASSERT_TRUE(last.ok()) << last.error().to_string();
        count -= n;
    }
}

/// `size` bytes that do not compress (an engine snapshot at scale barely
/// does either), the same for the same seq.
std::string snapshot_state(uint64_t seq, size_t size) {
    std::mt19937_64 random(seq);
    std::string bytes(size, '\0');
    for (char& c : bytes) c = static_cast<char>(random());
    return bytes;
}

void write_snapshot(Journal& journal, uint64_t seq, size_t size) {
    const std::string state = snapshot_state(seq, size);
    const Status written = journal.write_snapshot(seq, {reinterpret_cast<const uint8_t*>(state.data()), state.size()});
    ASSERT_TRUE(written.ok()) << written.error().to_string();
}

/// The journal starts at a snapshot, holds every event from there to
/// `last_seq` densely and as appended, and its newest snapshot is `newest`
/// with the bytes it was written with.
void expect_replayable(const Journal& journal, uint64_t newest, size_t snapshot_size, uint64_t last_seq) {
    Result<std::vector<uint64_t>> seqs = journal.snapshot_seqs();
    ASSERT_TRUE(seqs.ok()) << seqs.error().to_string();
    ASSERT_FALSE(seqs->empty());
    EXPECT_EQ(seqs->front(), journal.first_seq()) << "the journal does not start at a snapshot";
    EXPECT_EQ(seqs->back(), newest);
    Result<Snapshot> snapshot = journal.read_snapshot(newest);
    ASSERT_TRUE(snapshot.ok()) << snapshot.error().to_string();
    EXPECT_TRUE(snapshot->bytes == snapshot_state(newest, snapshot_size)) << "the newest snapshot changed";
    EXPECT_EQ(journal.last_seq(), last_seq);
    uint64_t expected = journal.first_seq();
    const Status walked = journal.scan(journal.first_seq(), journal.last_seq(), [&](uint64_t seq, std::span<const uint8_t>) {
        EXPECT_EQ(seq, expected);
        expected = seq + 1;
        return true;
    });
    ASSERT_TRUE(walked.ok()) << walked.error().to_string();
    EXPECT_EQ(expected, last_seq + 1) << "the replay from the first snapshot stopped short";
    Result<std::vector<Event>> tail = journal.read(newest, last_seq);
    ASSERT_TRUE(tail.ok()) << tail.error().to_string();
    ASSERT_EQ(tail->size(), last_seq - newest + 1);
    for (uint64_t seq = newest; seq <= last_seq; seq++) {
        ASSERT_EQ((*tail)[seq - newest], sample_event_at(seq)) << "seq " << seq;
    }
}

/// What an engine does: events, a snapshot every `interval` events, and
/// retention after each. Here 60,000 events of ~110 bytes (~6.7 MB as
/// written) with a 64 KiB snapshot every 5,000, under a bound of 1 MiB:
/// about four snapshot intervals stay. Halfway the journal is closed and
/// opened again, so the rest cuts table files RocksDB wrote at the open,
/// not only memtables.
///
/// The slack over the bound: the write-ahead log of what came after the
/// last flush (here nothing: under a bound this small retention flushes
/// the events first), the manifest, OPTIONS and RocksDB's info log (tens of KiB together in a journal this
/// young), and one table file: the estimate is made at table-file and block
/// granularity, and the file the cut falls inside may still hold a block
/// of what went until it is rewritten.
TEST(JournalRetentionBytes, KeepsTheFilesWithinTheBoundAndTheJournalReplayable) {
    TempDir dir;
    constexpr uint64_t events_total = 60'000;
    constexpr uint64_t interval = 5'000;
    constexpr size_t snapshot_size = 64 * kib;
    constexpr uint64_t bound_bytes = 1 * mib;
    constexpr uint64_t slack_bytes = 512 * kib;
    const RetentionPolicy policy{.retention_ms = no_time_cut_ms, .retention_bytes = bound_bytes};

    auto journal = open_journal(dir / "j", no_fsync());
    ASSERT_NE(journal, nullptr);
    uint64_t deleted = 0;
    uint64_t by_bytes = 0;
    while (journal->last_seq() < events_total) {
        if (journal->last_seq() == events_total / 2) {
            journal.reset();
            journal = open_journal(dir / "j", no_fsync());
            ASSERT_NE(journal, nullptr);
        }
        append_samples(*journal, interval);
        const uint64_t seq = journal->last_seq();
        write_snapshot(*journal, seq, snapshot_size);
        Result<RetentionReport> report = journal->apply_retention(static_cast<int64_t>(seq) * 1000, policy);
        ASSERT_TRUE(report.ok()) << report.error().to_string();
        deleted += report->events_deleted;
        if (report->events_deleted > 0) {
            EXPECT_EQ(report->cut_by, RetentionBound::bytes);
            EXPECT_GT(report->estimated_bytes_before, bound_bytes);
            EXPECT_LE(report->estimated_bytes_after, bound_bytes) << "cut at " << report->first_seq_after;
            by_bytes++;
        }
    }
    // About four intervals fit in table files, so from the fifth on each
    // snapshot cuts, after the reopen too, and at the end no more than the
    // second half's last intervals are kept.
    EXPECT_GE(by_bytes, 6u);
    EXPECT_GT(journal->first_seq(), events_total / 2 + interval);
    EXPECT_EQ(deleted, journal->first_seq() - 1);
    expect_replayable(*journal, events_total, snapshot_size, events_total);

    // RocksDB deletes the files that flushes (and a reopen) made obsolete
    // on a background thread of its own: wait for it, bounded.
    auto settled_disk_bytes = [&](const auto& j) {
        uint64_t bytes = j.disk_size_bytes();
        for (int i = 0; i < 50 && bytes > bound_bytes + slack_bytes; i++) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            bytes = j.disk_size_bytes();
        }
        return bytes;
    };
    const uint64_t disk_bytes = settled_disk_bytes(*journal);
    EXPECT_LE(disk_bytes, bound_bytes + slack_bytes)
        << "the journal's files take " << disk_bytes << " bytes; written: ~" << events_total * 112 << " bytes of events";

    journal.reset();
    auto reopened = open_journal(dir / "j", no_fsync());
    ASSERT_NE(reopened, nullptr);
    expect_replayable(*reopened, events_total, snapshot_size, events_total);
    EXPECT_LE(settled_disk_bytes(*reopened), bound_bytes + slack_bytes);
}

constexpr size_t large_snapshot_size = 512 * kib;

/// Events 1..4500 (~110 bytes each as written, less in a table file) and a
/// 512 KiB snapshot at 1000, 2000, 3000 and 4000; closed and opened again,
/// so the sizes are read from table files. What stays from a snapshot on is
/// then 0.5 MiB per snapshot from it on plus 0.04-0.11 MiB per 1000 events.
std::unique_ptr<Journal> journal_of_large_snapshots(const std::string& path) {
    constexpr size_t snapshot_size = large_snapshot_size;
    {
        auto journal = open_journal(path, no_fsync());
        for (uint64_t seq = 1000; seq <= 4000; seq += 1000) {
            append_samples(*journal, 1000);
            write_snapshot(*journal, seq, snapshot_size);
        }
        append_samples(*journal, 500);
    }
    return open_journal(path, no_fsync());
}

TEST(JournalRetentionBytes, ABoundBelowTheNewestSnapshotAndItsTailCutsAtTheNewestSnapshot) {
    TempDir dir;
    auto journal = journal_of_large_snapshots(dir / "j");
    // Smaller than the newest snapshot alone.
    const RetentionPolicy policy{.retention_ms = no_time_cut_ms, .retention_bytes = 64 * kib};
    Result<RetentionReport> report = journal->apply_retention(4'500'000, policy);
    ASSERT_TRUE(report.ok()) << report.error().to_string();
    EXPECT_EQ(report->cut_by, RetentionBound::bytes);
    EXPECT_EQ(report->first_seq_after, 4000u);
    EXPECT_EQ(report->events_deleted, 3999u);
    EXPECT_EQ(report->snapshots_deleted, 3u);
    EXPECT_GT(report->estimated_bytes_after, policy.retention_bytes) << "the newest snapshot alone is larger";
    expect_replayable(*journal, 4000, large_snapshot_size, 4500);

    // Nothing more goes: the cut never passes the newest snapshot.
    report = journal->apply_retention(4'500'000, policy);
    ASSERT_TRUE(report.ok()) << report.error().to_string();
    EXPECT_EQ(report->cut_by, RetentionBound::none);
    EXPECT_EQ(report->events_deleted, 0u);
    EXPECT_EQ(journal->first_seq(), 4000u);

    // Events after the newest snapshot stay however many come.
    append_samples(*journal, 2000);
    report = journal->apply_retention(6'500'000, policy);
    ASSERT_TRUE(report.ok()) << report.error().to_string();
    EXPECT_EQ(report->events_deleted, 0u);
    expect_replayable(*journal, 4000, large_snapshot_size, 6500);
}

TEST(JournalRetentionBytes, ZeroMeansNoSizeBound) {
    TempDir dir;
    auto journal = journal_of_large_snapshots(dir / "j");
    Result<RetentionReport> report =
        journal->apply_retention(4'500'000, {.retention_ms = no_time_cut_ms, .retention_bytes = 0});
    ASSERT_TRUE(report.ok()) << report.error().to_string();
    EXPECT_EQ(report->cut_by, RetentionBound::none);
    EXPECT_EQ(report->events_deleted, 0u);
    EXPECT_EQ(report->snapshots_deleted, 0u);
    EXPECT_GT(report->estimated_bytes_before, 4 * large_snapshot_size) << "four snapshots of 512 KiB";
    EXPECT_EQ(report->estimated_bytes_after, report->estimated_bytes_before);
    EXPECT_EQ(journal->first_seq(), 1u);
    Result<std::vector<uint64_t>> seqs = journal->snapshot_seqs();
    ASSERT_TRUE(seqs.ok()) << seqs.error().to_string();
    EXPECT_EQ(*seqs, (std::vector<uint64_t>{1000, 2000, 3000, 4000}));
}

TEST(JournalRetentionBytes, AJournalWithinTheBoundLosesNothingToIt) {
    TempDir dir;
    auto journal = journal_of_large_snapshots(dir / "j");
    Result<RetentionReport> report =
        journal->apply_retention(4'500'000, {.retention_ms = no_time_cut_ms, .retention_bytes = 64 * mib});
    ASSERT_TRUE(report.ok()) << report.error().to_string();
    EXPECT_EQ(report->cut_by, RetentionBound::none);
    EXPECT_EQ(journal->first_seq(), 1u);
}

/// Snapshots at 1000..4000, events at 1 s each. The time window alone
/// (cutoff 1.5 ks) cuts at 1000; a bound of 1.9 MiB cuts at 2000 (what
/// stays from 1000 on: 2.1-2.4 MiB; from 2000 on: 1.6-1.8 MiB); the newer
/// cut wins and the report says which bound made it.
TEST(JournalRetentionBytes, WithTimeAndSizeTheNewerCutWins) {
    const RetentionPolicy window_to_1000{.retention_ms = 3'000'000, .retention_bytes = 0};  // cutoff 1.5 ks
    const uint64_t fits_from_2000 = 1900 * kib;
    struct Case {
        const char* name;
        RetentionPolicy policy;
        uint64_t cut;
        RetentionBound cut_by;
    };
    const Case cases[] = {
        {"time only", window_to_1000, 1000, RetentionBound::time},
        {"size only", {no_time_cut_ms, fits_from_2000}, 2000, RetentionBound::bytes},
        {"size cuts further", {window_to_1000.retention_ms, fits_from_2000}, 2000, RetentionBound::bytes},
        // Cutoff 3.5 ks: the window reaches 3000, past the size bound's 2000.
        {"time cuts further", {1'000'000, fits_from_2000}, 3000, RetentionBound::time},
        // Cutoff 2.5 ks: both choose 2000.
        {"both at 2000", {2'000'000, fits_from_2000}, 2000, RetentionBound::both},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        TempDir dir;
        auto journal = journal_of_large_snapshots(dir / "j");
        Result<RetentionReport> report = journal->apply_retention(4'500'000, c.policy);
        ASSERT_TRUE(report.ok()) << report.error().to_string();
        EXPECT_EQ(report->first_seq_after, c.cut);
        EXPECT_EQ(journal->first_seq(), c.cut);
        EXPECT_EQ(report->cut_by, c.cut_by) << retention_bound_name(report->cut_by);
        EXPECT_EQ(report->events_deleted, c.cut - 1);
        expect_replayable(*journal, 4000, large_snapshot_size, 4500);
    }
}

/// Whatever the events, snapshots, window and bound (seeded draws; each
/// case compacts, so a few dozen rather than a property's hundred): the
/// newest snapshot and every event after it survive, a cut journal starts at
/// a snapshot, what stays is within the bound unless the cut is the newest
/// snapshot or the window's, and the journal reopens.
TEST(JournalRetentionBytes, NeverDropsWhatTheNewestSnapshotNeeds) {
    for (uint64_t seed = 1; seed <= 24; seed++) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        std::mt19937_64 random(seed);
        auto uniform = [&](uint64_t lo, uint64_t hi) { return std::uniform_int_distribution<uint64_t>(lo, hi)(random); };
        const uint64_t event_count = uniform(1, 2000);
        std::set<uint64_t> snapshot_set;
        for (uint64_t n = uniform(0, 12); n > 0; n--) snapshot_set.insert(uniform(1, event_count));
        const RetentionPolicy policy{.retention_ms = static_cast<int64_t>(uniform(0, 2'500'000)),
                                     .retention_bytes = uniform(0, 3) == 0 ? 0 : uniform(1, 256 * kib)};
        TempDir dir;
        auto journal = open_journal(dir / "j", no_fsync());
        append_samples(*journal, event_count, uniform(1, 300));
        for (const uint64_t seq : snapshot_set) write_snapshot(*journal, seq, uniform(1, 32) * kib);
        Result<RetentionReport> report = journal->apply_retention(static_cast<int64_t>(event_count) * 1000, policy);
        ASSERT_TRUE(report.ok()) << report.error().to_string();

        Result<std::vector<uint64_t>> kept = journal->snapshot_seqs();
        ASSERT_TRUE(kept.ok()) << kept.error().to_string();
        if (snapshot_set.empty()) {
            EXPECT_EQ(report->cut_by, RetentionBound::none);
            EXPECT_EQ(journal->first_seq(), 1u);
        } else {
            ASSERT_FALSE(kept->empty());
            EXPECT_EQ(kept->back(), *snapshot_set.rbegin());
        }
        if (report->cut_by != RetentionBound::none) {
            EXPECT_EQ(kept->front(), journal->first_seq());
            if (report->cut_by == RetentionBound::bytes && journal->first_seq() != kept->back()) {
                EXPECT_LE(report->estimated_bytes_after, policy.retention_bytes);
            }
        }
        if (policy.retention_bytes == 0) {
            EXPECT_NE(report->cut_by, RetentionBound::bytes);
        }
        EXPECT_EQ(journal->last_seq(), event_count);
        Result<std::vector<Event>> rest = journal->read(journal->first_seq(), event_count);
        ASSERT_TRUE(rest.ok()) << rest.error().to_string();
        EXPECT_EQ(rest->size(), event_count - journal->first_seq() + 1);

        journal.reset();
        Result<std::unique_ptr<Journal>> reopened = Journal::open(dir / "j", no_fsync());
        ASSERT_TRUE(reopened.ok()) << reopened.error().to_string();
        EXPECT_EQ((*reopened)->last_seq(), event_count);
    }
}

/// Snapshots between the first and the newest are thinned to the first of
/// each spacing after the one kept before it; the first (where a replay
/// starts) and the newest (where a recovery starts) stay, with their bytes,
/// and nothing else changes: every event is kept. A snapshot every 100 s of
/// event time, spaced at 350 s: 100, 500, 900 and the newest, 1000. Large
/// snapshots too (a table file each, dropped whole): the journal's files
/// shrink by what went.
TEST(JournalSnapshotSpacing, SnapshotsBetweenTheFirstAndTheNewestAreThinnedToTheSpacing) {
    for (const size_t snapshot_size : {size_t{16 * kib}, size_t{5 * mib}}) {
        SCOPED_TRACE(snapshot_size);
        TempDir dir;
        auto journal = open_journal(dir / "j", no_fsync());
        ASSERT_NE(journal, nullptr);
        const RetentionPolicy policy{.retention_ms = no_time_cut_ms, .retention_bytes = 0, .snapshot_spacing_ms = 350'000};
        uint64_t thinned = 0;
        for (uint64_t seq = 100; seq <= 1000; seq += 100) {
            append_samples(*journal, 100);
            write_snapshot(*journal, seq, snapshot_size);
            Result<RetentionReport> report = journal->apply_retention(static_cast<int64_t>(seq) * 1000, policy);
            ASSERT_TRUE(report.ok()) << report.error().to_string();
            EXPECT_EQ(report->events_deleted, 0u);
            EXPECT_EQ(report->snapshots_deleted, 0u);
            thinned += report->snapshots_thinned;
        }
        EXPECT_EQ(thinned, 6u);
        Result<std::vector<uint64_t>> seqs = journal->snapshot_seqs();
        ASSERT_TRUE(seqs.ok()) << seqs.error().to_string();
        EXPECT_EQ(*seqs, (std::vector<uint64_t>{100, 500, 900, 1000}));
        if (snapshot_size >= 4 * mib) {
            // Six of ten 5 MiB table files gone: well under seven left.
            EXPECT_LT(journal->disk_size_bytes(), 7 * 5 * mib) << journal->disk_size_bytes();
        }
        journal.reset();
        journal = open_journal(dir / "j", no_fsync());
        ASSERT_NE(journal, nullptr);
        for (const uint64_t seq : {100, 500, 900, 1000}) {
            Result<Snapshot> snapshot = journal->read_snapshot(seq);
            ASSERT_TRUE(snapshot.ok()) << snapshot.error().to_string();
            EXPECT_TRUE(snapshot->bytes == snapshot_state(seq, snapshot_size)) << "snapshot " << seq;
        }
        EXPECT_EQ(journal->first_seq(), 1u);
        EXPECT_EQ(journal->last_seq(), 1000u);
    }
}

TEST(JournalSnapshotSpacing, ZeroKeepsEverySnapshot) {
    TempDir dir;
    auto journal = open_journal(dir / "j", no_fsync());
    ASSERT_NE(journal, nullptr);
    const RetentionPolicy policy{.retention_ms = no_time_cut_ms, .retention_bytes = 0, .snapshot_spacing_ms = 0};
    for (uint64_t seq = 100; seq <= 500; seq += 100) {
        append_samples(*journal, 100);
        write_snapshot(*journal, seq, 1024);
        ASSERT_TRUE(journal->apply_retention(static_cast<int64_t>(seq) * 1000, policy).ok());
    }
    EXPECT_EQ(journal->snapshot_seqs().value(), (std::vector<uint64_t>{100, 200, 300, 400, 500}));
}

/// What a cut and giving the space back cost, on a journal of several
/// memtables and table files (not run by default, it takes a core for tens
/// of seconds: `journal_test --gtest_also_run_disabled_tests
/// --gtest_filter='JournalRetentionCost.*'`). 8M events (~1 GB as written)
/// with a 1 MiB snapshot every 100,000 and retention after each, as an
/// engine would, under a bound of 192 MiB (~5M events in table files);
/// prints each retention's time and the journal's files before and after it
/// (those "after" include files RocksDB has not yet deleted). Which files
/// each cut rewrote is in the journal's RocksDB LOG ("Compaction start
/// summary").
TEST(JournalRetentionCost, DISABLED_RetentionOnAJournalOfSeveralMemtables) {
    TempDir dir;
    auto journal = open_journal(dir / "j", no_fsync());
    constexpr uint64_t events_total = 8'000'000;
    const RetentionPolicy policy{.retention_ms = no_time_cut_ms, .retention_bytes = 192 * mib};
    using clock = std::chrono::steady_clock;
    double slowest_ms = 0;
    double total_ms = 0;
    int cuts = 0;
    while (journal->last_seq() < events_total) {
        append_samples(*journal, 100'000, 1000);
        const uint64_t seq = journal->last_seq();
        write_snapshot(*journal, seq, 1 * mib);
        const uint64_t disk_before = journal->disk_size_bytes();
        const auto started = clock::now();
        Result<RetentionReport> report = journal->apply_retention(static_cast<int64_t>(seq) * 1000, policy);
        const double took_ms = std::chrono::duration<double, std::milli>(clock::now() - started).count();
        ASSERT_TRUE(report.ok()) << report.error().to_string();
        if (report->events_deleted > 0) {
            cuts++;
            total_ms += took_ms;
            slowest_ms = std::max(slowest_ms, took_ms);
        }
        std::printf("seq %8lu: %7.1f ms, cut by %-5s, %6lu events deleted, estimate %6.1f -> %6.1f MiB, files %6.1f -> %6.1f MiB\n",
                    static_cast<unsigned long>(seq), took_ms, retention_bound_name(report->cut_by),
                    static_cast<unsigned long>(report->events_deleted),
                    static_cast<double>(report->estimated_bytes_before) / mib,
                    static_cast<double>(report->estimated_bytes_after) / mib, static_cast<double>(disk_before) / mib,
                    static_cast<double>(journal->disk_size_bytes()) / mib);
    }
    std::printf("%d cuts: %.1f ms on average, the slowest %.1f ms\n", cuts, cuts ? total_ms / cuts : 0.0, slowest_ms);
}

}  // namespace
}  // namespace ballast::store::retention_test
