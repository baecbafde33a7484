/// `ballast log repair`: the way out of a damaged journal.
///
/// Damage cannot be deleted in place: a bad block stays in its table file
/// until a compaction rewrites it, and the compaction fails on it (RocksDB
/// then stops taking writes); a damaged manifest or log stops RocksDB's own
/// open. So the repair reads what is readable, checks every record, writes
/// it into a new journal beside the old one, opens that like any journal,
/// and swaps the two directories in one rename. The old one is kept, as it
/// was, at `<path>.damaged-<time>`.
///
/// Two views of the damaged journal are read, the second only when the
/// first does not give everything:
///   - the journal as it opens, read-only (RocksDB changes no file): its
///     records up to the first one that does not read or check;
///   - RocksDB's own repair (`rocksdb::RepairDB`), run on a scratch
///     directory of links to the journal's files: it rebuilds the manifest
///     from the table files and logs, and leaves out a table file it cannot
///     open (a damaged index or footer), so what lies before that file's
///     range still reads.
/// The view that reads further is used. Within it, only the dense run of
/// events from the first is kept (the journal's invariant), and a snapshot
/// is kept only when it reads and checks whole.
///
/// Nothing is dropped that the caller did not name: when the first record
/// that cannot be read is at or before the seq to keep (or, without one,
/// before the journal's end, as far as its keys and logs show it), the
/// repair changes nothing and names the damage and the `--truncate-after`
/// that keeps everything before it.

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <filesystem>

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/write_batch.h>

#include "store/journal.h"
#include "store/journal_record.h"
#include "store/journal_rocks.h"
#include "store/journal_samples.h"
#include "store/journal_wal.h"

namespace ballast::store {

using events::make_error;

namespace {

/// Bytes of runs per WriteBatch while the new journal is written.
constexpr size_t repair_batch_bytes_max = 4u << 20;

/// `dir`'s files in `scratch` (new): linked, as RocksDB never changes a file
/// in place (its repair renames and adds, in the scratch directory only);
/// copied where a link is refused. Not the lock or RocksDB's info logs.
Status link_files(const std::string& dir, const std::string& scratch) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::remove_all(scratch, ec);
    fs::create_directories(scratch, ec);
    if (ec) return make_error(ErrorCode::io_error, "cannot create " + scratch + ": " + ec.message());
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (!entry.is_regular_file() || name == "LOCK" || name.rfind("LOG", 0) == 0) continue;
        const fs::path target = fs::path(scratch) / name;
        fs::create_hard_link(entry.path(), target, ec);
        if (ec) fs::copy_file(entry.path(), target, ec);
        if (ec) return make_error(ErrorCode::io_error, "cannot copy " + entry.path().string() + ": " + ec.message());
    }
    if (ec) return make_error(ErrorCode::io_error, "cannot list " + dir + ": " + ec.message());
    return {};
}

std::string utc_stamp() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y%m%dT%H%M%SZ", &tm);
    return text;
}

/// Holds RocksDB's lock on the journal directory, so no writer opens it
/// while it is rebuilt.
class DirectoryLock {
public:
    Status take(const std::string& dir) {
        const rocksdb::Status status = rocksdb::Env::Default()->LockFile(dir + "/LOCK", &_lock);
        if (!status.ok()) {
            _lock = nullptr;
            return make_error(ErrorCode::conflict, "journal " + dir + " is in use (" + status.ToString() +
                                                       "): stop the process that has it open, then repair");
        }
        return {};
    }
    ~DirectoryLock() {
        if (_lock) rocksdb::Env::Default()->UnlockFile(_lock);
    }

private:
    rocksdb::FileLock* _lock = nullptr;
};

}  // namespace

/// One view of a damaged journal and how far it reads.
struct Salvage {
    std::unique_ptr<Journal> view;
    std::string source;
    uint64_t first = 0;         // the first event's seq; 0: none
    uint64_t known_last = 0;    // the last event its keys or logs show
    bool last_known = true;     // false: the keys at the end do not read
    uint64_t readable_last = 0; // first..readable_last read and check
    uint64_t bad_seq = 0;       // 0: nothing unreadable up to the end wanted
    std::string bad_reason;

    /// Reads `dir` as the journal opens (`rebuilt`: after RocksDB's repair).
    static Result<Salvage> read(const std::string& dir, const std::string& source, uint64_t keep_to) {
        Salvage s;
        s.source = source;
        JournalOptions options;
        options.read_only = true;
        options.create_if_missing = false;
        s.view.reset(new Journal(dir, options));
        if (Status opened = s.view->open_db(/*read_only=*/true); !opened) return opened.error();
        std::unique_ptr<rocksdb::Iterator> it(s.view->_db->NewIterator(rocksdb::ReadOptions(), s.view->_events_cf));
        it->SeekToFirst();
        uint64_t unused = 0;
        if (!it->status().ok()) return rocks_error("journal " + dir + ": its first event", it->status());
        if (!it->Valid()) return s;  // no events
        if (!decode_run_key(it->key().ToStringView(), &s.first, &unused)) {
            return make_error(ErrorCode::corruption, "journal " + dir + ": its first key is not a run of sequence numbers");
        }
        it->SeekToLast();
        s.last_known = it->Valid() && it->status().ok() && decode_run_key(it->key().ToStringView(), &unused, &s.known_last);
        const uint64_t to = std::min(keep_to, s.last_known ? s.known_last : UINT64_MAX);
        s.readable_last = s.first - 1;
        if (to < s.first) return s;
        uint64_t stopped = s.first;
        if (Status walked = s.view->walk(s.first, to, nullptr, &stopped); !walked) {
            s.bad_seq = stopped;
            s.bad_reason = walked.error().message;
            s.readable_last = stopped - 1;
            s.known_last = std::max(s.known_last, stopped);
        } else {
            s.readable_last = to;
        }
        return s;
    }
};

Result<RepairReport> Journal::repair(const std::string& given_path, std::optional<uint64_t> truncate_after_seq) {
    namespace fs = std::filesystem;
    std::error_code ec;
    // Without a trailing separator: the new journal, the scratch directory
    // and the damaged one go beside it, not in it.
    std::string path = given_path;
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    if (!fs::exists(fs::path(path) / "CURRENT", ec)) return make_error(ErrorCode::not_found, "no journal at " + path);
    DirectoryLock lock;
    if (Status locked = lock.take(path); !locked) return locked.error();
    const uint64_t keep_to = truncate_after_seq.value_or(UINT64_MAX);
    const std::string scratch = path + ".repair-scratch";
    const std::string rebuilt = path + ".repair";

    // Damage in a log with intact writes after it: RocksDB's open drops
    // them without a word, so the views below cannot see them; the scan
    // can.
    Result<std::optional<WalDamage>> wal = scan_wal(path);
    if (!wal) return wal.error();

    // View 1: the journal as it opens.
    std::string first_error;
    std::optional<Salvage> chosen;
    Result<Salvage> as_it_opens = Salvage::read(path, "the journal as it opens", keep_to);
    if (as_it_opens) {
        Salvage& s = *as_it_opens;
        const WalDamage* damage = *wal ? &**wal : nullptr;
        if (damage && damage->writes_after &&
            s.view->_db->GetLatestSequenceNumber() < damage->rocks_seq_after_max) {
            const uint64_t lost_from = s.last_known ? s.known_last + 1 : s.readable_last + 1;
            if (!s.bad_seq || lost_from < s.bad_seq) {
                s.bad_seq = lost_from;
                s.bad_reason = "write-ahead log " + damage->file + " is damaged at byte offset " +
                               std::to_string(damage->offset_bytes) + " (" + damage->reason + ")";
            }
            s.known_last = std::max(s.known_last, damage->seqs_after.events_last);
        }
        chosen = std::move(s);
    } else {
        first_error = as_it_opens.error().to_string();
    }

    // View 2: RocksDB's repair, when view 1 does not give everything.
    std::string second_error;
    if (!chosen || chosen->bad_seq || !chosen->last_known) {
        Status linked = link_files(path, scratch);
        rocksdb::Status repaired;
        if (linked) {
            const rocksdb::Options o = db_options(JournalOptions{});
            repaired = rocksdb::RepairDB(scratch, rocksdb::DBOptions(o),
                                         {{rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions(o)},
                                          {snapshots_cf_name, rocksdb::ColumnFamilyOptions(o)}});
        }
        if (!linked) {
            second_error = linked.error().to_string();
        } else if (!repaired.ok()) {
            second_error = "RocksDB's repair: " + repaired.ToString();
        } else {
            Result<Salvage> rebuilt_view =
                Salvage::read(scratch, "rebuilt by RocksDB's repair from the table files and logs", keep_to);
            if (!rebuilt_view) {
                second_error = rebuilt_view.error().to_string();
            } else if (!chosen) {
                chosen = std::move(*rebuilt_view);
            } else {
                // What either view knows of the end counts. The rebuilt view
                // is used when it reads further from the same first event:
                // one that starts later has lost a table file the journal
                // as it opens still reads from.
                const uint64_t known_last = std::max(rebuilt_view->known_last, chosen->known_last);
                const bool better = rebuilt_view->first &&
                                    (!chosen->first || (rebuilt_view->first <= chosen->first &&
                                                        rebuilt_view->readable_last > chosen->readable_last));
                if (better) {
                    rebuilt_view->last_known = rebuilt_view->last_known && chosen->last_known;
                    chosen = std::move(*rebuilt_view);
                }
                chosen->known_last = known_last;
            }
        }
    }
    auto clean_up = [&] {
        if (chosen) chosen->view.reset();
        fs::remove_all(scratch, ec);
        fs::remove_all(rebuilt, ec);
    };
    if (!chosen) {
        clean_up();
        return make_error(ErrorCode::corruption, "journal " + path + " cannot be read at all: " + first_error +
                                                     (second_error.empty() ? "" : "; " + second_error));
    }
    Salvage& s = *chosen;
    const std::string who = "repair journal " + path;

    // Nothing dropped that was not named.
    const uint64_t wanted_last = truncate_after_seq ? keep_to : s.known_last;
    if (s.bad_seq && s.bad_seq <= wanted_last) {
        const uint64_t can_keep = s.bad_seq - 1;
        std::string message = who + ": seq " + std::to_string(s.bad_seq) + " cannot be read (" + s.bad_reason + ")";
        message += truncate_after_seq ? ", so the journal cannot be kept up to seq " + std::to_string(keep_to)
                                      : ", and the journal goes on to seq " + std::to_string(s.known_last) +
                                            (s.last_known ? "" : " at least");
        message += "; nothing was changed. `ballast log repair --truncate-after " + std::to_string(can_keep) +
                   "` keeps " +
                   (can_keep >= s.first && s.first ? "seq " + std::to_string(s.first) + ".." + std::to_string(can_keep)
                                                   : std::string("no event")) +
                   " and drops the rest";
        clean_up();
        return make_error(ErrorCode::corruption, message);
    }
    if (!truncate_after_seq && !s.last_known) {
        clean_up();
        return make_error(ErrorCode::corruption,
                          who + ": the keys at the journal's end cannot be read, so what it held after seq " +
                              std::to_string(s.readable_last) + " is unknown; nothing was changed. `ballast log repair --truncate-after " +
                              std::to_string(s.readable_last) + "` keeps what reads up to there");
    }
    RepairReport report;
    report.source = s.source;
    if (!s.first) {
        report.first_seq = 1;
        report.last_seq = 0;
    } else if (keep_to < s.first) {  // no event kept
        report.first_seq = keep_to + 1;
        report.last_seq = keep_to;
    } else {
        report.first_seq = s.first;
        report.last_seq = std::min(keep_to, s.readable_last);
    }
    report.events_dropped = s.known_last > report.last_seq ? s.known_last - report.last_seq : 0;

    // Snapshots: each kept only when it reads whole.
    std::vector<Snapshot> snapshots;
    {
        std::unique_ptr<rocksdb::Iterator> it(s.view->_db->NewIterator(rocksdb::ReadOptions(), s.view->_snapshots_cf));
        it->SeekToFirst();
        while (it->Valid()) {
            uint64_t seq = 0;
            std::optional<uint32_t> part;
            if (!decode_snapshot_key(it->key().ToStringView(), &seq, &part)) {
                report.snapshots_dropped.push_back("a snapshot key of " + std::to_string(it->key().size()) + " bytes");
                it->Next();
                continue;
            }
            if (seq > report.last_seq && (s.first || seq > keep_to)) {
                report.snapshots_dropped.push_back("seq " + std::to_string(seq) + " (taken after seq " +
                                                   std::to_string(report.last_seq) + ")");
            } else if (Result<Snapshot> snapshot = s.view->read_snapshot_records(seq); snapshot) {
                snapshots.push_back(std::move(*snapshot));
            } else {
                report.snapshots_dropped.push_back("seq " + std::to_string(seq) + " (" + snapshot.error().message + ")");
            }
            if (seq == UINT64_MAX) break;
            it->Seek(key_string(seq + 1));
        }
        if (!it->status().ok()) {
            report.snapshots_dropped.push_back("every snapshot after the last listed (" + it->status().ToString() + ")");
        }
    }
    for (const Snapshot& snapshot : snapshots) report.snapshots_kept.push_back(snapshot.seq);
    // The kept events must be rebuildable: from seq 1 or a snapshot.
    const uint64_t covered_from = report.snapshots_kept.empty() ? 0 : report.snapshots_kept.back();
    if (report.first_seq > 1 && covered_from + 1 < report.first_seq) {
        clean_up();
        std::string message = who + ": the events that read start at seq " + std::to_string(report.first_seq) +
                              " (" + s.source + ") and no snapshot that reads covers seq " +
                              std::to_string(report.first_seq - 1) + ", so they cannot rebuild the engine's state";
        if (!report.snapshots_kept.empty()) {
            // The newest snapshot before them still can, alone.
            const uint64_t alone = report.snapshots_kept.back();
            message += "; `ballast log repair --truncate-after " + std::to_string(alone) +
                       "` keeps the snapshot at seq " + std::to_string(alone) + " and no event after it";
        }
        return make_error(ErrorCode::corruption, message + "; nothing was changed");
    }

    // Write the new journal; every record is checked again as it is read.
    fs::remove_all(rebuilt, ec);
    if (Status written = write_salvage(s, path, rebuilt, report, snapshots); !written) {
        clean_up();
        return written.error();
    }
    // Proof: the new journal opens like any other, its tail checked.
    {
        JournalOptions check;
        check.create_if_missing = false;
        Result<std::unique_ptr<Journal>> reopened = open(rebuilt, check);
        if (!reopened) {
            clean_up();
            return make_error(reopened.error().code,
                              who + ": the rebuilt journal does not open (nothing was changed): " + reopened.error().message);
        }
    }
    chosen->view.reset();
    fs::remove_all(scratch, ec);

    // Swap in one step where the filesystem can: the path holds the old
    // journal or the new one, never neither.
    std::string damaged = path + ".damaged-" + utc_stamp();
    for (int n = 2; fs::exists(damaged, ec); n++) damaged = path + ".damaged-" + utc_stamp() + "-" + std::to_string(n);
    if (renameat2(AT_FDCWD, rebuilt.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) == 0) {
        if (std::rename(rebuilt.c_str(), damaged.c_str()) != 0) {
            return make_error(ErrorCode::io_error, who + ": the repaired journal is in place, but the damaged one, at " +
                                                       rebuilt + ", could not be renamed to " + damaged + ": " +
                                                       std::strerror(errno));
        }
    } else {
        if (std::rename(path.c_str(), damaged.c_str()) != 0) {
            const std::string why = std::strerror(errno);
            fs::remove_all(rebuilt, ec);
            return make_error(ErrorCode::io_error, who + ": cannot move it aside to " + damaged + " (nothing was changed): " + why);
        }
        if (std::rename(rebuilt.c_str(), path.c_str()) != 0) {
            return make_error(ErrorCode::io_error, who + ": the damaged journal is at " + damaged + " and the repaired one at " +
                                                       rebuilt + ", which could not be renamed to " + path + ": " +
                                                       std::strerror(errno));
        }
    }
    report.damaged_path = damaged;
    return report;
}

Status Journal::write_salvage(const Salvage& s, const std::string& path, const std::string& rebuilt,
                              const RepairReport& report, const std::vector<Snapshot>& snapshots) {
    const std::string who = "repair journal " + path + ": writing " + rebuilt;
    JournalOptions options;
    options.sync = false;  // synced once, at the end
    Result<std::unique_ptr<Journal>> opened = open(rebuilt, options);
    if (!opened) return opened.error();
    Journal& fresh = **opened;
    rocksdb::WriteBatch batch;
    RunBuilder run;
    std::string compact;
    Status written;
    auto write = [&]() -> Status {
        const rocksdb::Status status = fresh._db->Write(rocksdb::WriteOptions(), &batch);
        batch.Clear();
        if (!status.ok()) return rocks_error(who, status);
        return {};
    };
    if (s.first && report.last_seq >= report.first_seq) {
        const RecordVisitor visit = [&](uint64_t seq, std::span<const uint8_t> bytes) {
            if (run.full()) {
                batch.Put(fresh._events_cf, run.key(), run.value());
                run.clear();
                if (batch.GetDataSize() >= repair_batch_bytes_max) {
                    written = write();
                    if (!written) return false;
                }
            }
            run.add(seq, stored_payload(bytes, &compact));
            return true;
        };
        if (Status walked = s.view->walk(report.first_seq, report.last_seq, &visit); !walked) return walked;
        if (!written) return written;
        batch.Put(fresh._events_cf, run.key(), run.value());
        if (Status last = write(); !last) return last;
        fresh._first_seq.store(report.first_seq, std::memory_order_release);
        fresh._last_seq.store(report.last_seq, std::memory_order_release);
    } else {
        // No event kept: numbering goes on after the newest snapshot kept.
        const uint64_t after = snapshots.empty() ? 0 : snapshots.back().seq;
        fresh._first_seq.store(after + 1, std::memory_order_release);
        fresh._last_seq.store(after, std::memory_order_release);
    }
    for (const Snapshot& snapshot : snapshots) {
        const auto* bytes = reinterpret_cast<const uint8_t*>(snapshot.bytes.data());
        std::unique_ptr<SnapshotWriter> writer(new SnapshotWriter(fresh, snapshot.seq));
        if (Status appended = writer->append({bytes, snapshot.bytes.size()}); !appended) return appended;
        if (Status finished = writer->finish(); !finished) return finished;
    }
    if (const rocksdb::Status synced = fresh._db->SyncWAL(); !synced.ok()) return rocks_error(who, synced);
    return {};
}

Result<uint64_t> Journal::truncate_after(const std::string& path, uint64_t seq) {
    Result<RepairReport> report = repair(path, seq);
    if (!report) return report.error();
    return report->events_dropped;
}

}  // namespace ballast::store
