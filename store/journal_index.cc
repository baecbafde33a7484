/// The partition index (layout: journal_index.h): kept by every append in
/// the append's own WriteBatch, checked and rebuilt when needed by the open,
/// read by `ballast replay --explain` so that it reads the events about one
/// partition instead of the whole journal.

#include "store/journal_index.h"

#include <algorithm>
#include <cassert>

#include <rocksdb/compaction_filter.h>
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include "store/crc32c.h"
#include "store/journal.h"
#include "store/journal_record.h"
#include "store/journal_rocks.h"

namespace ballast::store {

using events::make_error;

namespace {

/// Events indexed per WriteBatch of a rebuild: bounds its memory (a
/// posting is a key prefix and a seq) and the size of one write.
constexpr uint64_t rebuild_chunk_events = 200'000;

void put_be(std::string* out, uint64_t value, int bytes) {
    for (int shift = 8 * (bytes - 1); shift >= 0; shift -= 8) out->push_back(static_cast<char>((value >> shift) & 0xFF));
}

uint64_t get_be(std::string_view bytes) {
    uint64_t value = 0;
    for (const char c : bytes) value = (value << 8) | static_cast<uint8_t>(c);
    return value;
}

bool get_varint(std::string_view* in, uint64_t* value) {
    uint64_t result = 0;
    for (int shift = 0; shift < 64 && !in->empty(); shift += 7) {
        const auto byte = static_cast<uint8_t>(in->front());
        in->remove_prefix(1);
        result |= static_cast<uint64_t>(byte & 0x7F) << shift;
        if (!(byte & 0x80)) {
            *value = result;
            return true;
        }
    }
    return false;
}

uint32_t entry_crc(std::string_view key, std::string_view payload) {
    const uint32_t crc = crc32c(reinterpret_cast<const uint8_t*>(key.data()), key.size());
    return crc32c_extend(crc, reinterpret_cast<const uint8_t*>(payload.data()), payload.size());
}

bool is_posting_key(std::string_view key) { return !key.empty() && (key[0] == 'p' || key[0] == 'a'); }

class FloorFilter : public rocksdb::CompactionFilter {
public:
    explicit FloorFilter(const std::atomic<uint64_t>* first_seq) : _first_seq(first_seq) {}
    bool Filter(int, const rocksdb::Slice& key, const rocksdb::Slice& value, std::string*, bool*) const override {
        if (!is_posting_key(key.ToStringView())) return false;
        std::vector<uint64_t> seqs;
        // A damaged entry stays for the reader to find and report.
        if (!decode_index_entry(key.ToStringView(), value.ToStringView(), &seqs)) return false;
        return seqs.back() < _first_seq->load(std::memory_order_acquire);
    }
    const char* Name() const override { return "ballast.partition_index.floor"; }

private:
    const std::atomic<uint64_t>* _first_seq;
};

}  // namespace

std::string partition_index_prefix(std::string_view topic, int32_t partition) {
    std::string prefix;
    prefix.reserve(1 + 2 + topic.size() + 4 + 8);
    prefix.push_back('p');
    put_be(&prefix, topic.size(), 2);
    prefix.append(topic);
    put_be(&prefix, static_cast<uint32_t>(partition), 4);
    return prefix;
}

std::string action_index_prefix(uint64_t action_id) {
    std::string prefix(1, 'a');
    put_be(&prefix, action_id, 8);
    return prefix;
}

std::pair<std::string, std::string> encode_index_entry(std::string_view prefix, const std::vector<uint64_t>& seqs) {
    assert(!seqs.empty());
    std::string key(prefix);
    put_be(&key, seqs.front(), 8);
    std::string payload;
    put_varint(&payload, seqs.size());
    uint64_t before = 0;
    for (const uint64_t seq : seqs) {
        put_varint(&payload, seq - before);
        before = seq;
    }
    std::string value;
    put_u32_le(&value, entry_crc(key, payload));
    value += payload;
    return {std::move(key), std::move(value)};
}

bool decode_index_entry(std::string_view key, std::string_view value, std::vector<uint64_t>* seqs) {
    seqs->clear();
    if (key.size() < 9 || value.size() < 4) return false;
    std::string_view payload = value.substr(4);
    if (get_u32_le(value.data()) != entry_crc(key, payload)) return false;
    uint64_t count = 0;
    if (!get_varint(&payload, &count) || count == 0 || count > payload.size()) return false;
    uint64_t seq = 0;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t delta = 0;
        if (!get_varint(&payload, &delta) || (i > 0 && delta == 0)) return false;
        seq += delta;
        seqs->push_back(seq);
    }
    return payload.empty() && seqs->front() == get_be(key.substr(key.size() - 8));
}

std::string encode_index_marker(uint64_t through_seq) {
    std::string value;
    put_be(&value, through_seq, 8);
    put_u32_le(&value, crc32c(reinterpret_cast<const uint8_t*>(value.data()), 8));
    return value;
}

bool decode_index_marker(std::string_view value, uint64_t* through_seq) {
    if (value.size() != 12) return false;
    if (get_u32_le(value.data() + 8) != crc32c(reinterpret_cast<const uint8_t*>(value.data()), 8)) return false;
    *through_seq = get_be(value.substr(0, 8));
    return true;
}

bool indexed_type(events::EventType type) {
    switch (type) {
        case events::EventType::partition_changed:
        case events::EventType::actions_planned:
        case events::EventType::action_submitted:
        case events::EventType::action_completed:
        case events::EventType::action_failed:
        case events::EventType::action_timed_out:
        case events::EventType::action_cancelled: return true;
        default: return false;
    }
}

void IndexBuilder::add(uint64_t seq, const events::Event& event) {
    switch (event.type()) {
        case events::EventType::partition_changed: {
            const auto& c = std::get<events::PartitionChanged>(event.body);
            post_partition(c.topic, c.partition, seq);
            return;
        }
        case events::EventType::actions_planned: {
            const auto& p = std::get<events::ActionsPlanned>(event.body);
            auto action = [&](const events::Action& a) {
                post_partition(a.topic, a.partition, seq);
                if (a.kind == events::ActionKind::swap) post_partition(a.swap_topic, a.swap_partition, seq);
            };
            for (const events::Action& a : p.actions) action(a);
            for (const events::HeldAction& h : p.held) action(h.action);
            for (const events::Unfixable& u : p.unfixable) {
                if (!u.topic.empty()) post_partition(u.topic, u.partition, seq);
            }
            return;
        }
        default:
            // An outcome: every event about one action carries its id.
            if (const std::optional<uint64_t> id = events::outcome_action_id(event)) {
                _postings.push_back({true, {}, *id, seq});
            }
            return;
    }
}

void IndexBuilder::write_to(rocksdb::WriteBatch& batch, rocksdb::ColumnFamilyHandle* cf) {
    std::sort(_postings.begin(), _postings.end());
    for (size_t i = 0; i < _postings.size();) {
        const Posting& first = _postings[i];
        size_t end = i;
        _seqs.clear();
        for (; end < _postings.size() && _postings[end].action == first.action && _postings[end].id == first.id &&
               _postings[end].topic == first.topic;
             end++) {
            if (_seqs.empty() || _seqs.back() != _postings[end].seq) _seqs.push_back(_postings[end].seq);
        }
        const std::string prefix = first.action ? action_index_prefix(first.id)
                                                : partition_index_prefix(first.topic, static_cast<int32_t>(first.id));
        auto [key, value] = encode_index_entry(prefix, _seqs);
        batch.Put(cf, key, value);
        i = end;
    }
}

std::unique_ptr<rocksdb::CompactionFilter> index_floor_filter(const std::atomic<uint64_t>* first_seq) {
    return std::make_unique<FloorFilter>(first_seq);
}

// ---------------------------------------------------------------- Journal

void Journal::put_index(rocksdb::WriteBatch& write_batch, uint64_t seq) {
    _index->write_to(write_batch, _index_cf);
    write_batch.Put(_index_cf, index_marker_key, encode_index_marker(seq));
}

Status Journal::index_status() const {
    if (_index_ok.load(std::memory_order_acquire)) return {};
    std::lock_guard<std::mutex> lock(_index_mutex);
    return make_error(ErrorCode::not_found, "journal " + _path + ": the partition index cannot answer: " + _index_problem);
}

void Journal::index_damaged(const std::string& why) const {
    {
        std::lock_guard<std::mutex> lock(_index_mutex);
        _index_problem = why;
    }
    _index_ok.store(false, std::memory_order_release);
    // Beside the appends (their WriteBatches never touch this key): the next
    // writable open finds it and rebuilds.
    if (!_options.read_only && _index_cf) {
        rocksdb::WriteOptions write_options;
        write_options.sync = _options.sync;
        (void)_db->Put(write_options, _index_cf, index_damaged_key, why);
    }
}

/// Run by recover(), once the journal's bounds are known: decides whether
/// the index answers for [first, last] and, on a writable journal, brings
/// it there (catching up a tail, or rebuilding it whole), saying so in
/// warnings().
Status Journal::recover_index(uint64_t first, uint64_t last) {
    const std::string name = "journal " + _path;
    _index_ok.store(false, std::memory_order_release);
    std::string problem;
    uint64_t catch_up_from = first;  // where indexing must start when there is a problem
    if (!_index_cf) {
        problem = "it has no partition index (written by a build before the index)";
    } else {
        std::string value;
        rocksdb::Status got = _db->Get(rocksdb::ReadOptions(), _index_cf, index_damaged_key, &value);
        uint64_t through = 0;
        if (got.ok()) {
            problem = "a reader found it wrong (" + value + ")";
        } else if (!got.IsNotFound()) {
            problem = "its state does not read (" + got.ToString() + ")";
        } else if (got = _db->Get(rocksdb::ReadOptions(), _index_cf, index_marker_key, &value); got.IsNotFound()) {
            problem = "its partition index has no marker (never built, or a build interrupted)";
        } else if (!got.ok()) {
            problem = "its partition index marker does not read (" + got.ToString() + ")";
        } else if (!decode_index_marker(value, &through)) {
            problem = "its partition index marker is damaged";
        } else if (through > last) {
            problem = "its partition index runs to seq " + std::to_string(through) + ", past the journal's last seq " +
                      std::to_string(last) + " (the journal was cut after it)";
        } else if (through < last && std::max(through + 1, first) <= last) {
            problem = "its partition index ends at seq " + std::to_string(through) + ", behind the journal's last seq " +
                      std::to_string(last);
            catch_up_from = std::max(through + 1, first);
        }
    }
    const bool catch_up = catch_up_from != first;
    if (!problem.empty() && !_options.read_only && last < first) {
        // No events to index (a new journal, or one holding only a
        // snapshot): nothing to say.
        if (Status built = build_index(first, last, true); !built) return built;
        problem.clear();
    }
    if (problem.empty()) {
        _index_ok.store(true, std::memory_order_release);
        return {};
    }
    if (_options.read_only) {
        std::lock_guard<std::mutex> lock(_index_mutex);
        _index_problem = problem;
        return {};
    }
    if (Status built = build_index(catch_up ? catch_up_from : first, last, !catch_up); !built) {
        return make_error(built.error().code, name + ": " + problem + "; building it failed: " + built.error().message);
    }
    const uint64_t from = catch_up ? catch_up_from : first;
    _warnings.push_back(name + ": " + problem + "; " + (catch_up ? "indexed" : "rebuilt the partition index from") +
                        " seq " + std::to_string(from) + ".." + std::to_string(last) + " (" +
                        std::to_string(last >= from ? last - from + 1 : 0) + " events)");
    _index_ok.store(true, std::memory_order_release);
    return {};
}

/// Indexes the events in [from, to] (whole: everything before is dropped
/// first), then writes the marker. Interrupted, it leaves the marker as it
/// was (or none), so the next open does it again.
Status Journal::build_index(uint64_t from, uint64_t to, bool whole) {
    rocksdb::WriteOptions write_options;
    write_options.sync = false;  // synced once, with the marker
    if (whole) {
        // Everything the index holds sorts before this key ('a', 'm', 'n', 'p').
        const std::string end(1, '\xff');
        const rocksdb::Status cleared = _db->DeleteRange(write_options, _index_cf, std::string(), end);
        if (!cleared.ok()) return rocks_error("clearing the partition index", cleared);
    }
    IndexBuilder builder;
    std::vector<events::Event> indexed;  // what the builder's postings refer to
    for (uint64_t chunk = from; chunk <= to; chunk += rebuild_chunk_events) {
        const uint64_t chunk_to = std::min(to, chunk + rebuild_chunk_events - 1);
        builder.clear();
        indexed.clear();
        const Status scanned = scan(chunk, chunk_to, [&](uint64_t, std::span<const uint8_t> bytes) {
            const auto& event = events::view(bytes);
            if (indexed_type(events::header(event).type)) indexed.push_back(events::from_flatbuffer(event));
            return true;
        });
        if (!scanned) return scanned;
        for (const events::Event& event : indexed) builder.add(event.seq, event);
        rocksdb::WriteBatch batch;
        builder.write_to(batch, _index_cf);
        if (const rocksdb::Status written = _db->Write(write_options, &batch); !written.ok()) {
            return rocks_error("writing the partition index", written);
        }
        if (chunk_to == UINT64_MAX) break;
    }
    rocksdb::WriteBatch batch;
    batch.Put(_index_cf, index_marker_key, encode_index_marker(to));
    batch.Delete(_index_cf, index_damaged_key);
    write_options.sync = _options.sync;
    if (const rocksdb::Status written = _db->Write(write_options, &batch); !written.ok()) {
        return rocks_error("writing the partition index", written);
    }
    return {};
}

Result<std::vector<uint64_t>> Journal::index_seqs(const std::string& prefix, uint64_t from, uint64_t to) const {
    if (Status ready = index_status(); !ready) return ready.error();
    from = std::max(from, first_seq());  // entries before it are retention's orphans
    to = std::min(to, last_seq());
    std::vector<uint64_t> out;
    if (from > to) return out;
    std::unique_ptr<rocksdb::Iterator> it(_db->NewIterator(rocksdb::ReadOptions(), _index_cf));
    std::vector<uint64_t> seqs;
    for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
        const std::string_view key = it->key().ToStringView();
        if (key.size() != prefix.size() + 8 || !decode_index_entry(key, it->value().ToStringView(), &seqs)) {
            const std::string why = "a partition index entry does not read (its checksum or layout fails)";
            index_damaged(why);
            return make_error(ErrorCode::corruption, "journal " + _path + ": " + why);
        }
        if (seqs.front() > to) break;  // entries sort by their first seq
        for (const uint64_t seq : seqs) {
            if (seq >= from && seq <= to) out.push_back(seq);
        }
    }
    if (!it->status().ok()) {
        index_damaged("the partition index does not read: " + it->status().ToString());
        return rocks_error("journal " + _path + ": reading the partition index", it->status());
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

Result<std::vector<uint64_t>> Journal::partition_seqs(const std::string& topic, int32_t partition, uint64_t from,
                                                      uint64_t to) const {
    return index_seqs(partition_index_prefix(topic, partition), from, to);
}

Result<std::vector<uint64_t>> Journal::action_seqs(uint64_t action_id, uint64_t from, uint64_t to) const {
    return index_seqs(action_index_prefix(action_id), from, to);
}

Result<std::vector<events::Event>> Journal::read_seqs(std::span<const uint64_t> seqs) const {
    std::vector<events::Event> out;
    out.reserve(seqs.size());
    // Not a scan's read options: a few events here and there, each in a
    // block that a reader of the same partition is likely to want again.
    std::unique_ptr<rocksdb::Iterator> it(_db->NewIterator(rocksdb::ReadOptions(), _events_cf));
    std::vector<uint64_t> aligned;
    size_t i = 0;
    while (i < seqs.size()) {
        const uint64_t want = seqs[i];
        const std::string what = "journal " + _path + " seq " + std::to_string(want);
        if (want < first_seq() || want > last_seq() || (i > 0 && want <= seqs[i - 1])) {
            return make_error(ErrorCode::not_found, what + ": not in the journal's seq " + std::to_string(first_seq()) +
                                                        ".." + std::to_string(last_seq()) + " (or not ascending)");
        }
        it->SeekForPrev(run_key(want, UINT64_MAX));
        uint64_t first = 0;
        uint64_t last = 0;
        if (!it->Valid()) {
            if (!it->status().ok()) return rocks_error(what, it->status());
            return make_error(ErrorCode::corruption, what + ": missing");
        }
        if (!decode_run_key(it->key().ToStringView(), &first, &last)) {
            return make_error(ErrorCode::corruption, what + ": its run's key is not a run of sequence numbers");
        }
        if (last < want) return make_error(ErrorCode::corruption, what + ": missing");
        RunCursor cursor(first, last, it->key().size() == key_size, it->value().ToStringView());
        while (i < seqs.size() && seqs[i] <= last) {
            if (cursor.done()) return make_error(ErrorCode::corruption, what + ": missing from its run");
            uint64_t seq = 0;
            std::string_view record;
            if (Status framed = cursor.next(&seq, &record); !framed) return framed.error();
            if (seq != seqs[i]) continue;
            std::span<const uint8_t> bytes;
            if (Status checked = check_event_record(seq, record, &aligned, &bytes); !checked) return checked.error();
            out.push_back(events::from_flatbuffer(events::view(bytes)));
            i++;
        }
    }
    return out;
}

}  // namespace ballast::store
