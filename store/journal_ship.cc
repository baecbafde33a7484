/// The journal's side of high availability: a standby's append of the runs
/// its leader shipped (every record checked, a gap refused, what was read
/// before skipped), and an empty journal seeded from a leader's snapshot.
/// The leader's side is `append` with a `ShipRuns` (journal.cc).

#include <rocksdb/write_batch.h>

#include "store/journal.h"
#include "store/journal_index.h"
#include "store/journal_record.h"

namespace ballast::store {

using events::make_error;

Result<std::pair<uint64_t, uint64_t>> shipped_run_bounds(const ShippedRun& run) {
    uint64_t first = 0;
    uint64_t last = 0;
    if (run.key.size() != run_key_size || !decode_run_key(run.key, &first, &last) || first == 0 || last < first) {
        return make_error(ErrorCode::corruption, "shipped journal run: key of " + std::to_string(run.key.size()) +
                                                     " bytes is not a run of sequence numbers");
    }
    return std::pair<uint64_t, uint64_t>{first, last};
}

Result<std::vector<events::Event>> decode_shipped_run(const ShippedRun& run) {
    Result<std::pair<uint64_t, uint64_t>> bounds = shipped_run_bounds(run);
    if (!bounds) return bounds.error();
    const std::string what = "shipped journal run seq " + std::to_string(bounds->first) + ".." +
                             std::to_string(bounds->second);
    std::vector<events::Event> out;
    std::vector<uint64_t> aligned;
    RunCursor cursor = RunCursor::of(run.key, run.value);
    while (!cursor.done()) {
        uint64_t record_seq = 0;
        std::string_view record;
        if (Status framed = cursor.next(&record_seq, &record); !framed) {
            return make_error(framed.error().code, what + ": " + framed.error().message);
        }
        std::span<const uint8_t> event_bytes;
        if (Status checked = check_event_record(record_seq, record, &aligned, &event_bytes); !checked) {
            return make_error(checked.error().code, what + ": " + checked.error().message);
        }
        out.push_back(events::from_flatbuffer(events::view(event_bytes)));
    }
    if (Status ended = cursor.finish(); !ended) return make_error(ended.error().code, what + ": " + ended.error().message);
    return out;
}

Result<std::vector<events::Event>> Journal::append_shipped(std::span<const ShippedRun> runs) {
    if (_options.read_only) {
        return make_error(ErrorCode::conflict, "journal " + _path + " is open read-only");
    }
    const LatencyHistogram::Timer timer(_append_latency);
    const uint64_t last = last_seq();
    uint64_t seq = last;
    rocksdb::WriteBatch write_batch;
    std::vector<events::Event> out;
    _index->clear();
    for (const ShippedRun& run : runs) {
        Result<std::pair<uint64_t, uint64_t>> bounds = shipped_run_bounds(run);
        if (!bounds) return bounds.error();
        auto [first, run_last] = *bounds;
        if (run_last <= seq) continue;  // read before
        if (first > seq + 1) {
            return make_error(ErrorCode::conflict, "journal " + _path + ": shipped run seq " + std::to_string(first) +
                                                       ".." + std::to_string(run_last) + " does not continue seq " +
                                                       std::to_string(seq) + " (seq " + std::to_string(seq + 1) +
                                                       ".." + std::to_string(first - 1) + " missing)");
        }
        std::string value = run.value;
        std::string key = run.key;
        if (first <= seq) {
            Result<std::string> sliced = slice_run(run.key, run.value, seq + 1, run_last);
            if (!sliced) return sliced.error();
            value = std::move(*sliced);
            key = run_key(seq + 1, run_last);
        }
        Result<std::vector<events::Event>> decoded = decode_shipped_run({key, value});
        if (!decoded) return decoded.error();
        out.insert(out.end(), std::make_move_iterator(decoded->begin()), std::make_move_iterator(decoded->end()));
        write_batch.Put(_events_cf, key, value);
        seq = run_last;
    }
    if (seq == last) return out;
    for (const events::Event& event : out) _index->add(event.seq, event);  // refers to `out`, now in place
    if (Result<uint64_t> written = write(write_batch, last, seq, {}); !written) return written.error();
    return out;
}

Status Journal::seed_snapshot(uint64_t seq, std::span<const uint8_t> bytes) {
    if (last_seq() >= first_seq()) {
        return make_error(ErrorCode::conflict, "journal " + _path + " holds seq " + std::to_string(first_seq()) + ".." +
                                                   std::to_string(last_seq()) + ": a snapshot seeds only an empty one");
    }
    if (seq < last_seq()) {
        return make_error(ErrorCode::conflict, "journal " + _path + ": a snapshot at seq " + std::to_string(seq) +
                                                   " is older than its numbering (seq " + std::to_string(last_seq()) +
                                                   ")");
    }
    // Numbered as if seq were the last event while the snapshot is written
    // (begin_snapshot holds a snapshot to the journal's range), then as a
    // journal with no events after the snapshot, which is how it reopens.
    const uint64_t first_before = first_seq();
    const uint64_t last_before = last_seq();
    _first_seq.store(seq, std::memory_order_release);
    _last_seq.store(seq, std::memory_order_release);
    if (Status written = write_snapshot(seq, bytes); !written) {
        _first_seq.store(first_before, std::memory_order_release);
        _last_seq.store(last_before, std::memory_order_release);
        return written;
    }
    _first_seq.store(seq + 1, std::memory_order_release);
    return {};
}

}  // namespace ballast::store
