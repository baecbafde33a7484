/// A journal run as RocksDB hands it back: its key and value, both possibly
/// damaged. The first byte chooses the key's size (8: a journal written before
/// runs; 16: a run), the key follows, the rest is the value. Every record the
/// cursor finds is checked as the journal checks it (framing, CRC32C, a
/// compact samples record's decoder, the flatbuffers verifier, the seq
/// inside), and the run is cut as retention and repair cut it. A damaged run
/// must be an error, never a crash or a loop.

#include "events/event.h"
#include "store/journal_record.h"
#include "store/journal_samples.h"
#include "tests/fuzz/fuzz_support.h"

using namespace ballast;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    const size_t key_size = (data[0] & 1) ? store::run_key_size : store::key_size;
    if (size < 1 + key_size) return 0;
    const std::string_view input = fuzz::as_text(data + 1, size - 1);
    const std::string_view key = input.substr(0, key_size);
    const std::string_view value = input.substr(key_size);

    // A compact samples record's decoder, without the CRC in front that a
    // mutation rarely gets past: what decodes has a compact record of its
    // own, which decodes to the same event.
    {
        events::Event event;
        const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(value.data()), value.size());
        if (store::is_compact_samples(bytes) && store::decode_compact_samples(bytes, "fuzz", &event).ok()) {
            std::string again;
            fuzz::expect(store::encode_compact_samples(event, &again),
                         "a decoded compact record's event has no compact record");
            events::Event twice;
            fuzz::expect(store::decode_compact_samples({reinterpret_cast<const uint8_t*>(again.data()), again.size()},
                                                       "fuzz", &twice)
                             .ok(),
                         "a re-encoded compact record does not decode");
            fuzz::expect(twice == event, "a compact record does not round-trip");
        }
    }

    // Snapshot records share the framing.
    std::span<const uint8_t> payload;
    (void)store::check_record("fuzz snapshot record", value, &payload);

    uint64_t first = 0;
    uint64_t last = 0;
    if (!store::decode_run_key(key, &first, &last)) return 0;
    store::RunCursor cursor = store::RunCursor::of(key, value);
    std::vector<uint64_t> aligned;
    // Each record of a run takes at least its 4-byte length; a legacy value is
    // one record. A cursor asked for more (the last ask fails) is looping.
    const uint64_t records_max =
        (key.size() == store::key_size ? 1 : value.size() / store::run_length_size) + 1;
    uint64_t records = 0;
    bool framed = true;
    while (!cursor.done()) {
        fuzz::expect(++records <= records_max, "the run cursor does not stop");
        uint64_t seq = 0;
        std::string_view record;
        if (!cursor.next(&seq, &record).ok()) {
            framed = false;
            break;
        }
        std::span<const uint8_t> event_bytes;
        if (store::check_event_record(seq, record, &aligned, &event_bytes).ok()) {
            fuzz::expect(events::decode(event_bytes).ok(), "a checked record does not decode");
        }
    }
    if (framed) (void)cursor.finish();

    // Retention and repair keep the second half of a run (from its middle).
    const uint64_t from = first + (last - first) / 2;
    events::Result<std::string> sliced = store::slice_run(key, value, from, last);
    if (framed && sliced.ok() && key.size() == store::run_key_size) {
        store::RunCursor cut = store::RunCursor::of(store::run_key(from, last), *sliced);
        while (!cut.done()) {
            uint64_t seq = 0;
            std::string_view record;
            fuzz::expect(cut.next(&seq, &record).ok(), "a cut run does not frame its records");
        }
        fuzz::expect(cut.finish().ok(), "a cut run has bytes after its last record");
    }
    return 0;
}
