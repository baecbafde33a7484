/// Damage in the journal's files, byte for byte as a bad disk leaves it: a
/// flipped byte in the write-ahead log, a table file, the manifest or a
/// snapshot's table file. Every time, either the journal opens with
/// everything acknowledged intact (a torn last write may be cut, and is
/// reported), or the open fails with an error that names the damage and a
/// repair that works and keeps everything before the damage.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <regex>

#include "store/journal.h"
#include "store/journal_wal.h"
#include "tests/support/sample_events.h"
#include "tests/support/temp_dir.h"

namespace ballast::store {
namespace {

namespace fs = std::filesystem;
using testing::sample_event_at;
using testing::sample_events;
using testing::TempDir;

std::string read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void flip_byte(const std::string& path, size_t offset, uint8_t mask) {
    std::string bytes = read_bytes(path);
    ASSERT_LT(offset, bytes.size()) << path;
    bytes[offset] = static_cast<char>(bytes[offset] ^ mask);
    write_bytes(path, bytes);
}

std::vector<std::string> files_ending(const std::string& dir, const std::string& suffix) {
    std::vector<std::string> out;
    for (const auto& entry : fs::directory_iterator(dir)) {
        const std::string name = entry.path().filename().string();
        if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
            out.push_back(entry.path().string());
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string newest_log(const std::string& dir) {
    std::vector<std::string> logs = files_ending(dir, ".log");
    logs.erase(std::remove_if(logs.begin(), logs.end(),
                              [](const std::string& p) { return fs::path(p).filename().string().rfind("LOG", 0) == 0; }),
               logs.end());
    return logs.empty() ? "" : logs.back();
}

/// Appends seq first..last in batches of `batch` (one WriteBatch each).
void append_batches(Journal& journal, uint64_t first, uint64_t last, uint64_t batch) {
    for (uint64_t seq = first; seq <= last; seq += batch) {
        std::vector<events::Event> events = sample_events(seq, std::min(batch, last - seq + 1));
        Result<uint64_t> appended = journal.append(events);
        ASSERT_TRUE(appended.ok()) << appended.error().to_string();
    }
}

/// Closing and opening again moves the log's writes into a table file
/// (RocksDB flushes what it replays).
void reopen(const std::string& path) {
    Result<std::unique_ptr<Journal>> journal = Journal::open(path, {});
    ASSERT_TRUE(journal.ok()) << journal.error().to_string();
}

/// Every event first..last is the one appended.
void expect_events_intact(Journal& journal, uint64_t first, uint64_t last) {
    Result<std::vector<events::Event>> read = journal.read(first, last);
    ASSERT_TRUE(read.ok()) << read.error().to_string();
    ASSERT_EQ(read->size(), last - first + 1);
    for (uint64_t seq = first; seq <= last; seq++) {
        ASSERT_EQ((*read)[seq - first], sample_event_at(seq)) << "seq " << seq;
    }
}

/// The seq in "`ballast log repair --truncate-after N`", if the text has one.
std::optional<uint64_t> suggested_seq(const std::string& message) {
    std::smatch match;
    if (!std::regex_search(message, match, std::regex("ballast log repair --truncate-after ([0-9]+)"))) return std::nullopt;
    return std::stoull(match[1].str());
}

// ---------------------------------------------------------------- write-ahead log

/// 100 events in the tables, then five writes of 100 in the log.
void make_journal_with_log(const std::string& path) {
    {
        Result<std::unique_ptr<Journal>> journal = Journal::open(path, {});
        ASSERT_TRUE(journal.ok()) << journal.error().to_string();
        append_batches(**journal, 1, 100, 100);
    }
    reopen(path);
    Result<std::unique_ptr<Journal>> journal = Journal::open(path, {});
    ASSERT_TRUE(journal.ok()) << journal.error().to_string();
    append_batches(**journal, 101, 600, 100);
}

/// The offset of the n-th write (0-based) in a log of FULL records each
/// within a block, as short writes are.
size_t write_offset(const std::string& log, int n) {
    size_t offset = 0;
    for (int i = 0; i < n; i++) {
        const size_t length = static_cast<uint8_t>(log[offset + 4]) | (static_cast<uint8_t>(log[offset + 5]) << 8);
        EXPECT_EQ(log[offset + 6], 1) << "expected FULL records";
        offset += 7 + length;
        if (32768 - offset % 32768 < 7) offset += 32768 - offset % 32768;
    }
    return offset;
}

TEST(JournalDamage, DamageInTheLogBeforeItsTailStopsTheOpenAndNamesTheLoss) {
    TempDir dir;
    make_journal_with_log(dir / "j");
    const std::string log = newest_log(dir / "j");
    ASSERT_FALSE(log.empty());
    // Inside the second write of the log (seq 201..300): three intact ones follow.
    flip_byte(log, write_offset(read_bytes(log), 1) + 200, 0x20);

    for (const bool read_only : {false, true}) {
        JournalOptions options;
        options.read_only = read_only;
        Result<std::unique_ptr<Journal>> journal = Journal::open(dir / "j", options);
        ASSERT_FALSE(journal.ok()) << "opened a journal whose log loses seq 201..600 (read_only " << read_only << ")";
        const std::string& message = journal.error().message;
        EXPECT_EQ(journal.error().code, ErrorCode::corruption);
        EXPECT_NE(message.find("write-ahead log " + log + " is damaged at byte offset "), std::string::npos) << message;
        EXPECT_NE(message.find("3 intact write(s) after it hold seq 301..600"), std::string::npos) << message;
        EXPECT_NE(message.find("drops seq 201..600"), std::string::npos) << message;
        EXPECT_EQ(suggested_seq(message), 200u) << message;
    }
    // Nothing was appended over the range, and the log is as it was.
    EXPECT_TRUE(fs::exists(log));

    // Repair without naming the loss refuses, and says the way.
    Result<RepairReport> refused = Journal::repair(dir / "j", std::nullopt);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("seq 201 cannot be read"), std::string::npos) << refused.error().message;
    EXPECT_EQ(suggested_seq(refused.error().message), 200u) << refused.error().message;

    Result<RepairReport> repaired = Journal::repair(dir / "j", 200);
    ASSERT_TRUE(repaired.ok()) << repaired.error().to_string();
    EXPECT_EQ(repaired->last_seq, 200u);
    EXPECT_EQ(repaired->events_dropped, 400u);
    EXPECT_TRUE(fs::exists(fs::path(repaired->damaged_path) / fs::path(log).filename()));
    Result<std::unique_ptr<Journal>> journal = Journal::open(dir / "j", {});
    ASSERT_TRUE(journal.ok()) << journal.error().to_string();
    EXPECT_TRUE((*journal)->warnings().empty());
    EXPECT_EQ((*journal)->last_seq(), 200u);
    expect_events_intact(**journal, 1, 200);
    append_batches(**journal, 201, 210, 10);
}

TEST(JournalDamage, ATornLastWriteIsCutAndReported) {
    TempDir dir;
    make_journal_with_log(dir / "j");
    const std::string log = newest_log(dir / "j");
    std::string bytes = read_bytes(log);
    bytes.resize(bytes.size() - 300);  // a crash in the middle of the last write
    write_bytes(log, bytes);

    Result<std::unique_ptr<Journal>> journal = Journal::open(dir / "j", {});
    ASSERT_TRUE(journal.ok()) << journal.error().to_string();
    EXPECT_EQ((*journal)->last_seq(), 500u);
    ASSERT_EQ((*journal)->warnings().size(), 1u);
    const std::string& warning = (*journal)->warnings().front();
    EXPECT_NE(warning.find("the last write in write-ahead log " + log), std::string::npos) << warning;
    EXPECT_NE(warning.find("was torn"), std::string::npos) << warning;
    EXPECT_NE(warning.find("it held seq 501..600"), std::string::npos) << warning;
    EXPECT_NE(warning.find("the journal ends at seq 500"), std::string::npos) << warning;
    expect_events_intact(**journal, 1, 500);
}

/// A log whose writes all reached a table file is no longer replayed; one
/// left behind (RocksDB deletes it in the background) may be damaged
/// without anything being lost, and the journal opens.
TEST(JournalDamage, DamageInALogAlreadyInTheTablesLosesNothing) {
    TempDir dir;
    {
        Result<std::unique_ptr<Journal>> journal = Journal::open(dir / "j", {});
        ASSERT_TRUE(journal.ok());
        append_batches(**journal, 1, 300, 100);
    }
    const std::string log = newest_log(dir / "j");
    const std::string kept = read_bytes(log);
    reopen(dir / "j");  // its writes go to a table file and the log is deleted
    ASSERT_FALSE(fs::exists(log));
    write_bytes(log, kept);
    flip_byte(log, write_offset(kept, 0) + 100, 0x01);  // two intact writes follow
    Result<std::optional<WalDamage>> damage = scan_wal(dir / "j");
    ASSERT_TRUE(damage.ok() && damage->has_value());
    EXPECT_EQ((*damage)->writes_after_count, 2u);
    EXPECT_EQ((*damage)->seqs_after.describe(), "seq 101..300");

    Result<std::unique_ptr<Journal>> journal = Journal::open(dir / "j", {});
    ASSERT_TRUE(journal.ok()) << journal.error().to_string();
    EXPECT_TRUE((*journal)->warnings().empty());
    EXPECT_EQ((*journal)->last_seq(), 300u);
    expect_events_intact(**journal, 1, 300);
}

// ---------------------------------------------------------------- table files

/// Events 1..1000 in two table files (1..500, 501..1000), a snapshot at
/// seq 1 in two parts in a table file of its own, and 1001..1300 in the log
/// (three writes).
struct Layout {
    std::string events_table_1;
    std::string events_table_2;
    std::string snapshot_table;
    std::string snapshot_bytes;
};

std::string new_file(const std::vector<std::string>& before, const std::vector<std::string>& after) {
    for (const std::string& file : after) {
        if (std::find(before.begin(), before.end(), file) == before.end()) return file;
    }
    return "";
}

Layout make_layered_journal(const std::string& path) {
    Layout layout;
    std::mt19937_64 random(7);
    layout.snapshot_bytes.resize(SnapshotWriter::part_bytes + 64 * 1024);
    for (char& c : layout.snapshot_bytes) c = static_cast<char>(random() % 64);
    {
        Result<std::unique_ptr<Journal>> journal = Journal::open(path, {});
        EXPECT_TRUE(journal.ok());
        append_batches(**journal, 1, 500, 100);
    }
    std::vector<std::string> tables = files_ending(path, ".sst");
    reopen(path);
    layout.events_table_1 = new_file(tables, files_ending(path, ".sst"));
    {
        Result<std::unique_ptr<Journal>> journal = Journal::open(path, {});
        EXPECT_TRUE(journal.ok());
        EXPECT_TRUE((*journal)
                        ->write_snapshot(1, {reinterpret_cast<const uint8_t*>(layout.snapshot_bytes.data()),
                                             layout.snapshot_bytes.size()})
                        .ok());
    }
    tables = files_ending(path, ".sst");
    reopen(path);
    layout.snapshot_table = new_file(tables, files_ending(path, ".sst"));
    {
        Result<std::unique_ptr<Journal>> journal = Journal::open(path, {});
        EXPECT_TRUE(journal.ok());
        append_batches(**journal, 501, 1000, 100);
    }
    tables = files_ending(path, ".sst");
    reopen(path);
    layout.events_table_2 = new_file(tables, files_ending(path, ".sst"));
    Result<std::unique_ptr<Journal>> journal = Journal::open(path, {});
    EXPECT_TRUE(journal.ok());
    append_batches(**journal, 1001, 1300, 100);
    return layout;
}

TEST(JournalDamage, DamageInATableFileIsRepairedKeepingEverythingBeforeIt) {
    TempDir dir;
    const Layout layout = make_layered_journal(dir / "j");
    ASSERT_FALSE(layout.events_table_2.empty());
    // The middle of the second table's data (a block after its first, which
    // every open reads): events well after 500.
    flip_byte(layout.events_table_2, fs::file_size(layout.events_table_2) / 2, 0x04);

    Result<std::unique_ptr<Journal>> opened = Journal::open(dir / "j", {});
    ASSERT_FALSE(opened.ok()) << "opened a journal with a damaged table file";
    const std::optional<uint64_t> keep = suggested_seq(opened.error().message);
    ASSERT_TRUE(keep.has_value()) << opened.error().message;
    EXPECT_GT(*keep, 500u) << "the damage is in the second table: " << opened.error().message;
    EXPECT_LT(*keep, 1000u) << opened.error().message;

    // The export skips the damaged block, names it, and keeps the rest.
    {
        JournalOptions read_only;
        read_only.read_only = true;
        read_only.verify_tail = false;
        Result<std::unique_ptr<Journal>> journal = Journal::open(dir / "j", read_only);
        ASSERT_TRUE(journal.ok()) << journal.error().to_string();
        Result<TransferReport> exported = (*journal)->export_to(dir / "j.export");
        ASSERT_TRUE(exported.ok()) << exported.error().to_string();
        ASSERT_FALSE(exported->skipped.empty()) << "an export of a damaged journal claims to be whole";
        EXPECT_EQ(exported->skipped.front().rfind("seq " + std::to_string(*keep + 1) + "..", 0), 0u)
            << exported->skipped.front();
        EXPECT_EQ(exported->last_seq, 1300u);
        EXPECT_LT(exported->events, 1300u);
        EXPECT_EQ(exported->snapshots, 1u);
    }

    Result<RepairReport> repaired = Journal::repair(dir / "j", *keep);
    ASSERT_TRUE(repaired.ok()) << repaired.error().to_string();
    EXPECT_EQ(repaired->last_seq, *keep);
    EXPECT_EQ(repaired->events_dropped, 1300 - *keep);
    EXPECT_EQ(repaired->snapshots_kept, std::vector<uint64_t>{1});
    Result<std::unique_ptr<Journal>> journal = Journal::open(dir / "j", {});
    ASSERT_TRUE(journal.ok()) << journal.error().to_string();
    expect_events_intact(**journal, 1, *keep);
    Result<Snapshot> snapshot = (*journal)->read_snapshot(1);
    ASSERT_TRUE(snapshot.ok()) << snapshot.error().to_string();
    EXPECT_TRUE(snapshot->bytes == layout.snapshot_bytes);
    append_batches(**journal, *keep + 1, *keep + 10, 10);
}

/// The journal `base` as another directory to damage: files linked, the
/// one to damage copied.
void copy_journal(const std::string& base, const std::string& to, const std::string& damaged_name) {
    fs::create_directories(to);
    for (const auto& entry : fs::directory_iterator(base)) {
        const std::string name = entry.path().filename().string();
        if (name == "LOCK" || name.rfind("LOG", 0) == 0) continue;
        if (name == damaged_name || name.rfind(".sst") == std::string::npos) {
            fs::copy_file(entry.path(), fs::path(to) / name);
        } else {
            fs::create_hard_link(entry.path(), fs::path(to) / name);
        }
    }
}

TEST(JournalDamage, AFlippedByteAnywhereOpensCleanlyOrHasARepairThatWorks) {
    TempDir dir;
    const Layout layout = make_layered_journal(dir / "base");
    std::string manifest;
    for (const auto& entry : fs::directory_iterator(dir / "base")) {
        if (entry.path().filename().string().rfind("MANIFEST-", 0) == 0) manifest = entry.path().string();
    }
    struct Kind {
        const char* name;
        std::string file;
        uint64_t kept_at_least;  // what lies before the damage: in other files
    };
    const std::vector<Kind> kinds = {
        {"write-ahead log", newest_log(dir / "base"), 1000},
        {"table file 1..500", layout.events_table_1, 0},
        {"table file 501..1000", layout.events_table_2, 500},
        {"manifest", manifest, 1300},
        {"snapshot part", layout.snapshot_table, 1300},
    };
    constexpr int seeds_per_kind = 10;
    int clean = 0;
    int cut = 0;
    int repaired = 0;
    for (const Kind& kind : kinds) {
        ASSERT_FALSE(kind.file.empty()) << kind.name;
        const std::string name = fs::path(kind.file).filename().string();
        for (int seed = 1; seed <= seeds_per_kind; seed++) {
            std::mt19937_64 random(static_cast<uint64_t>(seed) * 1000 + name.size());
            const std::string trial = dir / (std::string("t-") + std::to_string(seed) + "-" + name);
            copy_journal(dir / "base", trial, name);
            const size_t offset = random() % fs::file_size(kind.file);
            const auto mask = static_cast<uint8_t>(1 + random() % 255);
            flip_byte(fs::path(trial) / name, offset, mask);
            SCOPED_TRACE(std::string(kind.name) + " " + name + " seed " + std::to_string(seed) + ": byte " +
                         std::to_string(offset) + " ^ " + std::to_string(mask));

            Result<std::unique_ptr<Journal>> opened = Journal::open(trial, {});
            if (opened.ok()) {
                Journal& journal = **opened;
                if (!journal.warnings().empty()) {
                    // Only the last write, 1201..1300, may be cut.
                    EXPECT_EQ(kind.file, kinds[0].file) << journal.warnings().front();
                    EXPECT_GE(journal.last_seq(), 1200u);
                    cut++;
                } else {
                    EXPECT_EQ(journal.last_seq(), 1300u);
                    clean++;
                }
                expect_events_intact(journal, 1, journal.last_seq());
                Result<Snapshot> snapshot = journal.read_snapshot(1);
                ASSERT_TRUE(snapshot.ok()) << snapshot.error().to_string();
                EXPECT_TRUE(snapshot->bytes == layout.snapshot_bytes);
                opened->reset();  // closed before its directory goes
                fs::remove_all(trial);
                continue;
            }
            const std::string& message = opened.error().message;
            EXPECT_EQ(opened.error().code, ErrorCode::corruption) << message;
            ASSERT_NE(message.find("ballast log repair"), std::string::npos) << message;
            std::optional<uint64_t> keep = suggested_seq(message);
            Result<RepairReport> report = Journal::repair(trial, keep);
            if (!report.ok() && !keep) {
                // A repair that would drop events names the seq to keep to.
                keep = suggested_seq(report.error().message);
                ASSERT_TRUE(keep.has_value()) << report.error().message;
                report = Journal::repair(trial, keep);
            }
            ASSERT_TRUE(report.ok()) << report.error().to_string() << "\nafter: " << message;
            EXPECT_GE(report->last_seq, kind.kept_at_least) << message;
            Result<std::unique_ptr<Journal>> journal = Journal::open(trial, {});
            ASSERT_TRUE(journal.ok()) << journal.error().to_string();
            EXPECT_EQ((*journal)->last_seq(), report->last_seq);
            if (report->last_seq >= report->first_seq) {
                EXPECT_EQ(report->first_seq, 1u);
                expect_events_intact(**journal, 1, report->last_seq);
            } else {  // no event kept: the snapshot at seq 1 alone
                EXPECT_EQ(report->snapshots_kept, std::vector<uint64_t>{1});
            }
            for (const uint64_t seq : report->snapshots_kept) {
                Result<Snapshot> snapshot = (*journal)->read_snapshot(seq);
                ASSERT_TRUE(snapshot.ok()) << snapshot.error().to_string();
                EXPECT_TRUE(snapshot->bytes == layout.snapshot_bytes);
            }
            repaired++;
            journal->reset();
            fs::remove_all(trial);
            fs::remove_all(report->damaged_path);
        }
    }
    std::printf("%d clean opens, %d torn tails cut, %d repaired\n", clean, cut, repaired);
}

}  // namespace
}  // namespace ballast::store
