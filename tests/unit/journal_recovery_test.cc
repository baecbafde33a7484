/// Recovery: a damaged record stops the open with an error that names its
/// sequence number and what failed; `truncate_after` is the way out; nothing
/// after a bad record is used silently.

#include <gtest/gtest.h>

#include "events/event.h"
#include "store/crc32c.h"
#include "store/journal.h"
#include "store/journal_record.h"
#include "tests/support/open_journal.h"
#include "tests/support/raw_journal.h"
#include "tests/support/sample_events.h"
#include "tests/support/temp_dir.h"

namespace ballast::store {
namespace {

using testing::expect_open_fails;
using testing::RawJournal;
using testing::sample_event_at;
using testing::sample_events;
using testing::TempDir;

/// A closed journal of `count` events, with an optional snapshot.
void make_journal(const std::string& path, uint64_t count, uint64_t snapshot_seq = 0) {
    Result<std::unique_ptr<Journal>> journal = Journal::open(path, {});
    ASSERT_TRUE(journal.ok()) << journal.error().to_string();
    std::vector<events::Event> events = sample_events(1, count);
    ASSERT_TRUE((*journal)->append(events).ok());
    if (snapshot_seq) {
        const std::string state = "state";
        ASSERT_TRUE((*journal)
                        ->write_snapshot(snapshot_seq, {reinterpret_cast<const uint8_t*>(state.data()),
                                                        state.size()})
                        .ok());
    }
}

void flip_bit(std::string& value, size_t byte, int bit) {
    value[byte] = static_cast<char>(value[byte] ^ (1 << bit));
}

TEST(JournalRecovery, ABitFlipInTheMiddleNamesTheRecord) {
    TempDir dir;
    make_journal(dir / "j", 100);
    {
        RawJournal raw(dir / "j");
        ASSERT_TRUE(raw.ok()) << raw.status();
        raw.mutate(50, [](std::string& v) { flip_bit(v, v.size() / 2, 3); });
    }
    expect_open_fails(dir / "j", "journal record seq 50: CRC32C mismatch");
}

TEST(JournalRecovery, ADamagedLastRecordNamesIt) {
    TempDir dir;
    make_journal(dir / "j", 100);
    {
        RawJournal raw(dir / "j");
        raw.mutate(100, [](std::string& v) { v.resize(v.size() - 5); });  // torn
    }
    expect_open_fails(dir / "j", "journal record seq 100: CRC32C mismatch");
}

TEST(JournalRecovery, ARecordShorterThanItsHeaderIsNamed) {
    TempDir dir;
    make_journal(dir / "j", 10);
    {
        RawJournal raw(dir / "j");
        raw.put(10, "ab");
    }
    expect_open_fails(dir / "j", "journal record seq 10: record of 2 bytes is shorter");
}

/// Cuts the last 8 bytes of the record at `seq` and recomputes its CRC, as a
/// buggy writer would.
void cut_record_with_good_crc(const std::filesystem::path& path, uint64_t seq) {
    RawJournal raw(path);
    raw.mutate(seq, [](std::string& v) {
        std::string payload = v.substr(record_header_size);
        payload.resize(payload.size() - 8);
        encode_record({reinterpret_cast<const uint8_t*>(payload.data()), payload.size()}, &v);
    });
}

TEST(JournalRecovery, BytesWithAGoodChecksumStillFaceTheVerifier) {
    TempDir dir;
    make_journal(dir / "j", 20);
    cut_record_with_good_crc(dir / "j", 6);  // a PartitionChanged: a flatbuffer
    expect_open_fails(dir / "j", "journal record seq 6: flatbuffers verifier rejected");
}

TEST(JournalRecovery, ACompactSamplesRecordWithAGoodChecksumIsStillChecked) {
    TempDir dir;
    make_journal(dir / "j", 20);
    cut_record_with_good_crc(dir / "j", 7);  // a PartitionMetrics: stored compact
    expect_open_fails(dir / "j",
                      "journal record seq 7: compact samples record: topic run of 1 samples is empty or more than");
}

TEST(JournalRecovery, ARecordUnderTheWrongKeyIsCaught) {
    TempDir dir;
    make_journal(dir / "j", 20);
    {
        RawJournal raw(dir / "j");
        raw.put(12, raw.get(11));
    }
    expect_open_fails(dir / "j", "journal record seq 12: event carries seq 11");
}

TEST(JournalRecovery, AMissingRecordBreaksDensity) {
    TempDir dir;
    make_journal(dir / "j", 30);
    {
        RawJournal raw(dir / "j");
        raw.remove(17);
    }
    expect_open_fails(dir / "j", "journal record seq 17: missing");
}

TEST(JournalRecovery, EventsWithoutACoveringSnapshotAreRefused) {
    TempDir dir;
    make_journal(dir / "j", 30);
    {
        RawJournal raw(dir / "j");
        for (uint64_t seq = 1; seq <= 10; seq++) raw.remove(seq);
    }
    expect_open_fails(dir / "j", "events start at seq 11 but no snapshot covers seq 10");
}

TEST(JournalRecovery, ADamagedSnapshotIsNamed) {
    TempDir dir;
    make_journal(dir / "j", 30, /*snapshot_seq=*/20);
    {
        RawJournal raw(dir / "j");
        const std::string key = snapshot_part_key(20, 0);
        std::string value = raw.get_snapshot_key(key);
        ASSERT_FALSE(value.empty()) << "the snapshot is not where its layout says";
        flip_bit(value, value.size() - 1, 0);
        raw.put_snapshot_key(key, value);
    }
    expect_open_fails(dir / "j", "snapshot seq 20 part 0: CRC32C mismatch");
}

/// A snapshot of several parts (3.5 MiB: four parts, written in one batch).
void make_journal_with_parts(const std::string& path, std::string* state) {
    Result<std::unique_ptr<Journal>> journal = Journal::open(path, {});
    ASSERT_TRUE(journal.ok()) << journal.error().to_string();
    std::vector<events::Event> events = sample_events(1, 30);
    ASSERT_TRUE((*journal)->append(events).ok());
    state->assign(3 * SnapshotWriter::part_bytes + SnapshotWriter::part_bytes / 2, '\0');
    for (size_t i = 0; i < state->size(); i++) (*state)[i] = static_cast<char>(i * 31 + i / 4096);
    ASSERT_TRUE((*journal)->write_snapshot(20, {reinterpret_cast<const uint8_t*>(state->data()), state->size()}).ok());
}

TEST(JournalRecovery, AMissingPartOfASnapshotIsNamed) {
    TempDir dir;
    std::string state;
    make_journal_with_parts(dir / "j", &state);
    {
        Result<std::unique_ptr<Journal>> journal = Journal::open(dir / "j", {});
        ASSERT_TRUE(journal.ok()) << journal.error().to_string();
        Result<Snapshot> read = (*journal)->read_snapshot(20);
        ASSERT_TRUE(read.ok()) << read.error().to_string();
        EXPECT_TRUE(read->bytes == state) << "four parts read back different bytes";
    }
    {
        RawJournal raw(dir / "j");
        ASSERT_FALSE(raw.get_snapshot_key(snapshot_part_key(20, 3)).empty());
        EXPECT_TRUE(raw.get_snapshot_key(snapshot_part_key(20, 4)).empty()) << "more parts than 3.5 MiB needs";
        raw.remove_snapshot_key(snapshot_part_key(20, 1));
    }
    expect_open_fails(dir / "j", "snapshot seq 20: part 1 is missing");
}

TEST(JournalRecovery, ASnapshotWithoutItsLastPartIsNamed) {
    TempDir dir;
    std::string state;
    make_journal_with_parts(dir / "j", &state);
    {
        RawJournal raw(dir / "j");
        raw.remove_snapshot_key(snapshot_part_key(20, 3));
    }
    expect_open_fails(dir / "j", "snapshot seq 20: ends at part 2 without its last part");
}

/// Journals written before snapshots had parts keep them as one record
/// under the seq alone; they read as before.
TEST(JournalRecovery, ASnapshotInOneRecordStillReads) {
    TempDir dir;
    make_journal(dir / "j", 30);
    {
        RawJournal raw(dir / "j");
        const std::string state = "state written in one record";
        std::string value;
        encode_record({reinterpret_cast<const uint8_t*>(state.data()), state.size()}, &value);
        raw.put(20, value, /*snapshot=*/true);
    }
    Result<std::unique_ptr<Journal>> journal = Journal::open(dir / "j", {});
    ASSERT_TRUE(journal.ok()) << journal.error().to_string();
    Result<std::optional<Snapshot>> newest = (*journal)->newest_snapshot();
    ASSERT_TRUE(newest.ok()) << newest.error().to_string();
    ASSERT_TRUE(newest->has_value());
    EXPECT_EQ((*newest)->seq, 20u);
    EXPECT_EQ((*newest)->bytes, "state written in one record");
    // A newer one in parts sits beside it; both are listed once.
    const std::string later = "later";
    ASSERT_TRUE((*journal)->write_snapshot(25, {reinterpret_cast<const uint8_t*>(later.data()), later.size()}).ok());
    Result<std::vector<uint64_t>> seqs = (*journal)->snapshot_seqs();
    ASSERT_TRUE(seqs.ok());
    EXPECT_EQ(*seqs, (std::vector<uint64_t>{20, 25}));
}

TEST(JournalRecovery, DamageBeforeTheSnapshotSurfacesWhenRead) {
    TempDir dir;
    make_journal(dir / "j", 60, /*snapshot_seq=*/40);
    {
        RawJournal raw(dir / "j");
        raw.mutate(15, [](std::string& v) { flip_bit(v, 9, 1); });
    }
    // Recovery replays from the snapshot, so the open succeeds...
    Result<std::unique_ptr<Journal>> journal = Journal::open(dir / "j", {});
    ASSERT_TRUE(journal.ok()) << journal.error().to_string();
    // ...but a reader of the old range gets the named error, never the bytes.
    Result<std::vector<events::Event>> old = (*journal)->read(1, 40);
    ASSERT_FALSE(old.ok());
    EXPECT_NE(old.error().message.find("journal record seq 15: CRC32C mismatch"),
              std::string::npos);
    // And the tail is fine.
    EXPECT_TRUE((*journal)->read(41, 60).ok());
}

TEST(JournalRecovery, TruncateAfterIsTheWayOut) {
    TempDir dir;
    make_journal(dir / "j", 100, /*snapshot_seq=*/50);
    {
        RawJournal raw(dir / "j");
        const std::string state = "state";
        std::string value;
        encode_record({reinterpret_cast<const uint8_t*>(state.data()), state.size()}, &value);
        raw.put(80, value, /*snapshot=*/true);
        // And one in parts at 85 (a part as the writer makes it, last flag set).
        std::string part = std::string(1, '\x01') + state;
        encode_record({reinterpret_cast<const uint8_t*>(part.data()), part.size()}, &value);
        raw.put_snapshot_key(snapshot_part_key(85, 0), value);
        raw.mutate(90, [](std::string& v) { flip_bit(v, 20, 7); });
    }
    expect_open_fails(dir / "j", "journal record seq 90");

    // The operator chooses to go back before the snapshot at 80 too.
    Result<uint64_t> deleted = Journal::truncate_after(dir / "j", 75);
    ASSERT_TRUE(deleted.ok()) << deleted.error().to_string();
    EXPECT_EQ(*deleted, 25u);

    Result<std::unique_ptr<Journal>> journal = Journal::open(dir / "j", {});
    ASSERT_TRUE(journal.ok()) << journal.error().to_string();
    EXPECT_EQ((*journal)->last_seq(), 75u);
    // The snapshots at 80 and 85 described state that no longer exists: they went too.
    Result<std::vector<uint64_t>> snapshots = (*journal)->snapshot_seqs();
    ASSERT_TRUE(snapshots.ok());
    EXPECT_EQ(*snapshots, std::vector<uint64_t>{50});
    // Everything before the cut is intact, and numbering continues from it.
    Result<std::vector<events::Event>> kept = (*journal)->read(1, 75);
    ASSERT_TRUE(kept.ok());
    for (uint64_t seq = 1; seq <= 75; seq++) EXPECT_EQ((*kept)[seq - 1], sample_event_at(seq));
    std::vector<events::Event> more = sample_events(76, 1);
    Result<uint64_t> last = (*journal)->append(more);
    ASSERT_TRUE(last.ok());
    EXPECT_EQ(*last, 76u);
}

TEST(JournalRecovery, TruncatingEveryEventKeepsNumberingAfterTheSnapshot) {
    TempDir dir;
    make_journal(dir / "j", 10, /*snapshot_seq=*/4);
    {
        // As retention would leave it: the snapshot at 4, events 5..10.
        RawJournal raw(dir / "j");
        for (uint64_t seq = 1; seq <= 4; seq++) raw.remove(seq);
    }
    Result<uint64_t> deleted = Journal::truncate_after(dir / "j", 4);
    ASSERT_TRUE(deleted.ok());
    EXPECT_EQ(*deleted, 6u);
    Result<std::unique_ptr<Journal>> journal = Journal::open(dir / "j", {});
    ASSERT_TRUE(journal.ok()) << journal.error().to_string();
    EXPECT_EQ((*journal)->event_count(), 0u);
    // The snapshot still stands for seq 1..4, so no seq is reused.
    std::vector<events::Event> next = sample_events(5, 1);
    Result<uint64_t> last = (*journal)->append(next);
    ASSERT_TRUE(last.ok());
    EXPECT_EQ(*last, 5u);
}

TEST(JournalRecovery, TruncateAfterOnAMissingJournalNamesThePath) {
    TempDir dir;
    Result<uint64_t> deleted = Journal::truncate_after(dir / "absent", 5);
    ASSERT_FALSE(deleted.ok());
    EXPECT_EQ(deleted.error().code, ErrorCode::not_found);
    EXPECT_NE(deleted.error().message.find("absent"), std::string::npos);
}

TEST(JournalRecovery, TheOpenErrorSaysHowToRepair) {
    TempDir dir;
    make_journal(dir / "j", 5);
    {
        RawJournal raw(dir / "j");
        raw.mutate(3, [](std::string& v) { flip_bit(v, 5, 5); });
    }
    expect_open_fails(dir / "j", "ballast log repair --truncate-after");
}

}  // namespace
}  // namespace ballast::store
