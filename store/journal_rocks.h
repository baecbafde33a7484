#pragma once

/// What the journal's source files share about RocksDB; private to store/.

#include <string>

#include <rocksdb/options.h>
#include <rocksdb/status.h>

#include "store/journal.h"

namespace ballast::store {

inline constexpr const char* snapshots_cf_name = "snapshots";
/// A snapshot that reaches this size while it is written goes in as a table
/// file of its own, ingested (see journal_snapshots.cc).
inline constexpr size_t snapshot_ingest_min_bytes = 4 << 20;
/// The name of such a file while it is written, in the journal directory.
inline constexpr const char* snapshot_file_prefix = "snapshot-ingest-";
/// Retention's delete, written as table files to ingest
/// (journal_retention.cc); under the snapshot files' prefix, so that an
/// open deletes one a crash left behind the same way.
inline constexpr const char* retention_file_prefix = "snapshot-ingest-retention-";

/// A RocksDB status as the journal's error, `what` naming what failed.
Error rocks_error(const std::string& what, const rocksdb::Status& status);

/// The way past a record that does not read, at seq `bad` of a journal
/// holding first..last: "`ballast log repair --truncate-after bad-1` keeps ...".
std::string truncate_remedy(uint64_t first, uint64_t bad, uint64_t last);

/// The database and column family options every open uses.
rocksdb::Options db_options(const JournalOptions& options);

}  // namespace ballast::store
