#pragma once

/// The partition index's byte layout, private to store/ (tests read it to
/// damage it on purpose). It lives in the journal's own database, column
/// family "partition_index", so an append writes its entries in the same
/// WriteBatch as its events: the index is never ahead of or behind the
/// journal, whatever a crash keeps.
///
///   posting key = 'p', topic length (2 bytes BE), topic, partition (4 BE),
///                 first seq of the entry (8 BE)    -- a partition's events
///               | 'a', action id (8 BE), first seq (8 BE)  -- an action's outcomes
///   value       = crc32c(key + payload) (4 LE), payload
///   payload     = count (varint), first seq (varint), then each next seq as
///                 the difference from the one before (varint)
///   'm'         = marker: every event up to this seq (8 BE) is indexed, crc32c (4 LE)
///   'n'         = a reader found the index wrong (the value says how): the
///                 next writable open rebuilds it
///
/// One entry per key prefix per append (or per chunk of a rebuild), never
/// one per event: an append of 1,000 events adds one key per partition and
/// per action it names, and a metrics report names none.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "events/event.h"

namespace rocksdb {
class ColumnFamilyHandle;
class CompactionFilter;
class WriteBatch;
}  // namespace rocksdb

namespace ballast::store {

inline constexpr const char* index_cf_name = "partition_index";
inline constexpr char index_marker_key[] = "m";
inline constexpr char index_damaged_key[] = "n";

/// The key prefix of a partition's postings.
std::string partition_index_prefix(std::string_view topic, int32_t partition);
/// The key prefix of an action's outcome postings.
std::string action_index_prefix(uint64_t action_id);

/// A posting entry: its key (prefix + first seq) and value for `seqs`
/// (ascending, unique, not empty).
std::pair<std::string, std::string> encode_index_entry(std::string_view prefix, const std::vector<uint64_t>& seqs);
/// The seqs of an entry; false when its checksum or layout fails.
bool decode_index_entry(std::string_view key, std::string_view value, std::vector<uint64_t>* seqs);

std::string encode_index_marker(uint64_t through_seq);
/// false when the marker's checksum or size fails.
bool decode_index_marker(std::string_view value, uint64_t* through_seq);

/// Whether an event of this type is indexed (read before decoding).
bool indexed_type(events::EventType type);

/// Collects the postings of the events of one append (or a rebuild's chunk)
/// and writes them as entries. A posting refers to its event's topic: the
/// events must stay where they are until write_to. No string is made per
/// event, only one key per entry (an append of 1,000 partition changes
/// would otherwise allocate and sort 1,000 keys).
class IndexBuilder {
public:
    /// Notes what `event` (numbered `seq`) concerns: the partition a
    /// PartitionChanged describes; every partition an ActionsPlanned names
    /// (its actions, both sides of a swap, held actions, unfixable
    /// partitions); the action an outcome is about.
    void add(uint64_t seq, const events::Event& event);
    bool empty() const { return _postings.empty(); }
    /// One entry per prefix noted since the last clear.
    void write_to(rocksdb::WriteBatch& batch, rocksdb::ColumnFamilyHandle* cf);
    void clear() { _postings.clear(); }

private:
    struct Posting {
        bool action = false;     // an action's outcome, else a partition's event
        std::string_view topic;  // a partition's
        uint64_t id = 0;         // the partition, or the action id
        uint64_t seq = 0;
        auto operator<=>(const Posting&) const = default;
    };
    void post_partition(std::string_view topic, int32_t partition, uint64_t seq) {
        _postings.push_back({false, topic, static_cast<uint32_t>(partition), seq});
    }
    std::vector<Posting> _postings;
    std::vector<uint64_t> _seqs;  // reused by write_to
};

/// Drops posting entries whose every seq is below `*first_seq` (what
/// retention orphaned) when RocksDB compacts the index. The journal owns it
/// and closes its database before `first_seq` goes.
std::unique_ptr<rocksdb::CompactionFilter> index_floor_filter(const std::atomic<uint64_t>* first_seq);

}  // namespace ballast::store
