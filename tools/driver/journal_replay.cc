#include "tools/driver/journal_replay.h"

#include <algorithm>
#include <memory>
#include <mutex>

namespace ballast::driver {

namespace {
/// Events per batch handed to the engine.
constexpr uint64_t replay_batch_events = 10'000;
}  // namespace

events::Result<std::optional<uint64_t>> oldest_replay_snapshot(const store::Journal& j) {
    if (j.first_seq() <= 1) return std::optional<uint64_t>();
    // Retention removed the beginning: start at the oldest snapshot that
    // the remaining events follow.
    events::Result<std::vector<uint64_t>> seqs = j.snapshot_seqs();
    if (!seqs) return seqs.error();
    for (const uint64_t seq : *seqs) {
        if (seq + 1 >= j.first_seq()) return std::optional<uint64_t>(seq);
    }
    return events::make_error(events::ErrorCode::corruption,
                              "journal " + j.path() + " starts at seq " + std::to_string(j.first_seq()) +
                                  " but holds no snapshot to start a replay from");
}

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
    } else {
        events::Result<std::optional<uint64_t>> oldest = oldest_replay_snapshot(j);
        if (!oldest) return oldest.error();
        snapshot_seq = *oldest;
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

events::Result<std::vector<events::Event>> replay_decisions(const ReplaySource& source,
                                                            const std::vector<std::string>& overrides,
                                                            const std::function<void(uint64_t, uint64_t)>& progress) {
    struct Decisions {
        std::mutex mutex;
        std::vector<events::Event> plans;  // ActionsPlanned, in order
    };
    auto decisions = std::make_shared<Decisions>();
    actors::EngineOptions engine_options;
    engine_options.overrides = overrides;
    engine_options.replay_from = source.start ? &*source.start : nullptr;
    engine_options.on_decision = [decisions](const events::Event& e) {
        if (!std::holds_alternative<events::ActionsPlanned>(e.body)) return;
        std::lock_guard<std::mutex> lock(decisions->mutex);
        decisions->plans.push_back(e);
    };
    events::Result<std::unique_ptr<actors::Engine>> engine = actors::Engine::start(engine_options);
    if (!engine) return engine.error();
    if (events::Status fed = feed_journal(**engine, source, progress); !fed) return fed.error();
    (*engine)->stop();
    std::lock_guard<std::mutex> lock(decisions->mutex);
    return std::move(decisions->plans);
}

events::Result<std::vector<events::Event>> journaled_plans(const ReplaySource& source) {
    std::vector<events::Event> out;
    const store::Journal& j = *source.journal;
    events::Status status =
        j.scan(source.from, j.last_seq(), [&](uint64_t, std::span<const uint8_t> bytes) {
            if (events::header(events::view(bytes)).type != events::EventType::actions_planned) {
                return true;
            }
            events::Event e = events::from_flatbuffer(events::view(bytes));
            const uint64_t barrier = std::get<events::ActionsPlanned>(e.body).barrier_seq;
            if (barrier >= source.from && barrier <= source.to) out.push_back(std::move(e));
            return true;
        });
    if (!status) return status.error();
    return out;
}

events::Result<ReplayComparison> replay_and_compare(const std::string& path) {
    events::Result<ReplaySource> source = open_replay_source(path, ReplayStart::oldest, UINT64_MAX);
    if (!source) return source.error();
    auto replayed = std::make_shared<std::vector<events::Event>>();
    actors::EngineOptions options;
    options.threads = 0;  // fed and waited for batch by batch; decisions arrive on this thread
    options.replay_from = source->start ? &*source->start : nullptr;
    options.on_decision = [replayed](const events::Event& e) {
        if (!std::holds_alternative<events::ActionsPlanned>(e.body)) return;
        replayed->push_back(e);
    };
    events::Result<std::unique_ptr<actors::Engine>> engine = actors::Engine::start(std::move(options));
    if (!engine) return engine.error();
    if (events::Status fed = feed_journal(**engine, *source, nullptr); !fed) return fed.error();
    (*engine)->stop();
    events::Result<std::vector<events::Event>> journaled = journaled_plans(*source);
    if (!journaled) return journaled.error();
    ReplayComparison out;
    out.journaled = journaled->size();
    out.replayed = replayed->size();
    for (size_t i = 0; i < std::max(out.journaled, out.replayed); i++) {
        const bool same = i < out.journaled && i < out.replayed &&
                          (*journaled)[i].body == (*replayed)[i].body &&
                          (*journaled)[i].time_ms == (*replayed)[i].time_ms;
        if (same) {
            out.identical++;
        } else if (!out.first_difference) {
            out.first_difference = i;
        }
    }
    return out;
}

}  // namespace ballast::driver
