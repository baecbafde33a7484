/// `ballast log export` / `import`: a portable file of checked frames;
/// export -> import -> export is byte-identical, and a damaged file is
/// refused before anything is written.

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "store/journal.h"
#include "tests/support/open_journal.h"
#include "tests/support/sample_events.h"
#include "tests/support/temp_dir.h"

namespace ballast::store {
namespace {

using testing::open_journal;
using testing::sample_event_at;
using testing::sample_events;
using testing::TempDir;

/// length, crc, kind, seq; no payload.
constexpr size_t end_frame_size = 4 + 4 + 1 + 8;

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_file(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// 500 events, snapshots at 100 and 300.
void make_journal(const std::string& path) {
    auto journal = open_journal(path);
    std::vector<events::Event> events = sample_events(1, 500);
    ASSERT_TRUE(journal->append(events).ok());
    for (uint64_t seq : {100, 300}) {
        const std::string state = "engine state as of " + std::to_string(seq);
        ASSERT_TRUE(journal
                        ->write_snapshot(seq, {reinterpret_cast<const uint8_t*>(state.data()),
                                               state.size()})
                        .ok());
    }
}

TEST(JournalExport, ExportImportExportIsByteIdentical) {
    TempDir dir;
    make_journal(dir / "a");
    {
        auto a = open_journal(dir / "a");
        Result<TransferReport> exported = a->export_to(dir / "a.export");
        ASSERT_TRUE(exported.ok()) << exported.error().to_string();
        EXPECT_EQ(exported->events, 500u);
        EXPECT_EQ(exported->snapshots, 2u);
        EXPECT_EQ(exported->first_seq, 1u);
        EXPECT_EQ(exported->last_seq, 500u);
    }
    Result<TransferReport> imported = Journal::import_from(dir / "a.export", dir / "b", {});
    ASSERT_TRUE(imported.ok()) << imported.error().to_string();
    EXPECT_EQ(imported->events, 500u);
    EXPECT_EQ(imported->snapshots, 2u);

    auto b = open_journal(dir / "b");
    ASSERT_TRUE(b->export_to(dir / "b.export").ok());
    const std::string first = read_file(dir / "a.export");
    EXPECT_FALSE(first.empty());
    EXPECT_EQ(first, read_file(dir / "b.export"));

    // And the imported journal is the same journal, not just the same file.
    Result<std::vector<events::Event>> all = b->read(1, 500);
    ASSERT_TRUE(all.ok());
    ASSERT_EQ(all->size(), 500u);
    for (uint64_t seq = 1; seq <= 500; seq++) EXPECT_EQ((*all)[seq - 1], sample_event_at(seq));
    Result<Snapshot> snapshot = b->read_snapshot(300);
    ASSERT_TRUE(snapshot.ok());
    EXPECT_EQ(snapshot->bytes, "engine state as of 300");
}

TEST(JournalExport, AJournalAfterRetentionKeepsItsNumbering) {
    TempDir dir;
    make_journal(dir / "a");
    {
        auto a = open_journal(dir / "a");
        ASSERT_TRUE(a->apply_retention(1'000'000, {.retention_ms = 0}).ok());
        ASSERT_EQ(a->first_seq(), 300u);
        ASSERT_TRUE(a->export_to(dir / "a.export").ok());
    }
    ASSERT_TRUE(Journal::import_from(dir / "a.export", dir / "b", {}).ok());
    auto b = open_journal(dir / "b");
    EXPECT_EQ(b->first_seq(), 300u);
    EXPECT_EQ(b->last_seq(), 500u);
    std::vector<events::Event> next = sample_events(501, 1);
    Result<uint64_t> last = b->append(next);
    ASSERT_TRUE(last.ok());
    EXPECT_EQ(*last, 501u);
}

TEST(JournalExport, ImportRefusesAJournalThatHoldsEvents) {
    TempDir dir;
    make_journal(dir / "a");
    ASSERT_TRUE(open_journal(dir / "a")->export_to(dir / "a.export").ok());
    Result<TransferReport> imported = Journal::import_from(dir / "a.export", dir / "a", {});
    ASSERT_FALSE(imported.ok());
    EXPECT_EQ(imported.error().code, ErrorCode::conflict);
    EXPECT_NE(imported.error().message.find("holds events 1..500"), std::string::npos)
        << imported.error().message;
    EXPECT_EQ(open_journal(dir / "a")->last_seq(), 500u);
}

/// Damage at `offset` must be refused, named, and write nothing.
void expect_import_refused(const TempDir& dir, const std::string& bytes, const std::string& what) {
    write_file(dir / "bad.export", bytes);
    Result<TransferReport> imported = Journal::import_from(dir / "bad.export", dir / "target", {});
    ASSERT_FALSE(imported.ok()) << "imported a damaged file";
    EXPECT_NE(imported.error().message.find(what), std::string::npos)
        << "expected '" << what << "' in: " << imported.error().message;
    // Checked before written: the target journal holds nothing.
    Result<std::unique_ptr<Journal>> target = Journal::open(dir / "target", {});
    if (target.ok()) {
        EXPECT_EQ((*target)->event_count(), 0u);
    }
}

TEST(JournalExport, ADamagedFrameIsNamedByOffsetAndNothingIsWritten) {
    TempDir dir;
    make_journal(dir / "a");
    ASSERT_TRUE(open_journal(dir / "a")->export_to(dir / "a.export").ok());
    std::string bytes = read_file(dir / "a.export");
    // Flip a bit inside the last event's payload (the 17-byte end frame follows it).
    const size_t inside_last_event = bytes.size() - end_frame_size - 10;
    bytes[inside_last_event] = static_cast<char>(bytes[inside_last_event] ^ 0x10);
    expect_import_refused(dir, bytes, "CRC32C mismatch");
    expect_import_refused(dir, bytes, "frame at offset ");
    expect_import_refused(dir, bytes, "(seq 500)");
}

TEST(JournalExport, ATruncatedFileIsRefused) {
    TempDir dir;
    make_journal(dir / "a");
    ASSERT_TRUE(open_journal(dir / "a")->export_to(dir / "a.export").ok());
    std::string bytes = read_file(dir / "a.export");
    expect_import_refused(dir, bytes.substr(0, bytes.size() - 3), "truncated frame header");
    expect_import_refused(dir, bytes.substr(0, bytes.size() - end_frame_size - 3),
                          "truncated payload");
    // Cut exactly between frames: only the missing end frame tells.
    expect_import_refused(dir, bytes.substr(0, bytes.size() - end_frame_size),
                          "without its end frame (the file is truncated)");
}

TEST(JournalExport, NotAnExportFileIsRefused) {
    TempDir dir;
    expect_import_refused(dir, "this is a text file, not a journal", "not a Ballast journal export");
}

TEST(JournalExport, ImportOfAMissingFileNamesIt) {
    TempDir dir;
    Result<TransferReport> imported = Journal::import_from(dir / "nope.export", dir / "t", {});
    ASSERT_FALSE(imported.ok());
    EXPECT_NE(imported.error().message.find("nope.export"), std::string::npos);
}

}  // namespace
}  // namespace ballast::store
