#include "tools/journal_replay.h"

namespace ballast::tools {

namespace {
/// Events per batch handed to the engine.
constexpr uint64_t replay_batch_events = 10'000;
}  // namespace

events::Result<ReplaySource> open_replay_source(const std::string& path, ReplayStart start,
                                                uint64_t to) {
    store::JournalOptions options;
    options.read_only = true;
    options.verify_tail = false;  // every record fed is checked as it is read
    events::Result<std::unique_ptr<store::Journal>> journal = store::Journal::open(path, options);
    if (!journal) return journal.error();
    ReplaySource source;
    source.journal = std::move(*journal);
    const store::Journal& j = *source.journal;

    std::optional<uint64_t> snapshot_seq;
    if (start == ReplayStart::newest) {
        events::Result<std::optional<store::Snapshot>> newest = j.newest_snapshot();
        if (!newest) return newest.error();
        if (newest->has_value()) snapshot_seq = (*newest)->seq;
    } else if (j.first_seq() > 1) {
        // Retention removed the beginning: start at the oldest snapshot that
        // the remaining events follow.
        events::Result<std::vector<uint64_t>> seqs = j.snapshot_seqs();
        if (!seqs) return seqs.error();
        for (const uint64_t seq : *seqs) {
            if (seq + 1 >= j.first_seq()) {
                snapshot_seq = seq;
                break;
            }
        }
        if (!snapshot_seq) {
            return events::make_error(events::ErrorCode::corruption,
                                      "journal " + path + " starts at seq " +
                                          std::to_string(j.first_seq()) +
                                          " but holds no snapshot to start a replay from");
        }
    }
    if (snapshot_seq) {
        events::Result<store::Snapshot> stored = j.read_snapshot(*snapshot_seq);
        if (!stored) return stored.error();
        events::Result<actors::EngineSnapshot> decoded = actors::decode_snapshot(stored->bytes);
        if (!decoded) {
            return events::make_error(decoded.error().code,
                                      "snapshot at seq " + std::to_string(*snapshot_seq) + ": " +
                                          decoded.error().message);
        }
        source.start = std::move(*decoded);
        source.from = *snapshot_seq + 1;
    } else {
        source.from = j.first_seq();
    }
    source.to = std::min(to, j.last_seq());
    return source;
}

events::Status feed_journal(actors::Engine& engine, const ReplaySource& source,
                            const std::function<void(uint64_t, uint64_t)>& progress) {
    const uint64_t total = source.to >= source.from ? source.to - source.from + 1 : 0;
    for (uint64_t from = source.from; from <= source.to; from += replay_batch_events) {
        const uint64_t to = std::min(source.to, from + replay_batch_events - 1);
        events::Result<std::vector<events::Event>> batch = source.journal->read(from, to);
        if (!batch) return batch.error();
        if (events::Status status = engine.replay(std::move(*batch)); !status) return status;
        if (progress) progress(to - source.from + 1, total);
    }
    return engine.wait_idle();
}

}  // namespace ballast::tools
