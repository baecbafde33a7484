#pragma once

/// The journal's own reading of RocksDB's write-ahead logs, private to
/// store/ (journal_wal.cc has the format). RocksDB, told to recover to a
/// point in time, stops replaying at the first bad record and says nothing:
/// every write after it is dropped, and new appends take their numbers. This
/// scan runs before RocksDB opens, so the journal can tell a torn last write
/// (what a crash leaves; cut, and reported) from damage with intact writes
/// after it (refused, named, with the range it would cost).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "events/result.h"

namespace ballast::store {

/// The journal seqs a set of writes held: events by their runs' keys, and
/// snapshots by seq.
struct WalSeqs {
    uint64_t events_first = 0;  // 0: no events
    uint64_t events_last = 0;
    std::vector<uint64_t> snapshots;

    bool empty() const { return events_first == 0 && snapshots.empty(); }
    void add_events(uint64_t first, uint64_t last);
    void add_snapshot(uint64_t seq);
    /// "seq 101..400", "the snapshot at seq 90", both, or "no journal seq".
    std::string describe() const;
};

/// The first damaged record found in the logs, oldest log first.
struct WalDamage {
    std::string file;           // the log's path
    uint64_t offset_bytes = 0;  // where the damaged record starts
    std::string reason;         // what is wrong there
    /// Whether any intact write follows the damage (in this log or a newer
    /// one). false: a torn last write.
    bool writes_after = false;
    uint64_t writes_after_count = 0;
    /// The highest RocksDB sequence number among the intact writes after the
    /// damage: if RocksDB already holds it (the log was flushed to a table
    /// file and is no longer replayed), nothing after the damage is lost.
    uint64_t rocks_seq_after_max = 0;
    WalSeqs seqs_after;  // what the intact writes after the damage hold
    /// The damaged write's own seqs as its header claims (unverified: its
    /// checksum failed); empty when the header is not readable.
    WalSeqs damaged_claims;
    uint64_t damaged_rocks_seq = 0;  // unverified, 0 when unknown
    /// The last journal seq the intact writes before the damage reach (0 if
    /// none): where the journal ends once the damage is cut.
    uint64_t events_last_before = 0;
};

/// Scans every `*.log` file of the journal directory `dir`, oldest first.
/// nullopt when every record is intact; an error only when a log cannot be
/// read.
events::Result<std::optional<WalDamage>> scan_wal(const std::string& dir);

/// The open's error for damage with intact writes after it: the file, the
/// offset, what would be lost (after `last_before`, where the journal ends
/// at the damage) and the repair that accepts the loss.
std::string wal_damage_message(const std::string& path, const WalDamage& damage, uint64_t last_before);

}  // namespace ballast::store
