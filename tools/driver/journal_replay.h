#pragma once

/// Feeding a journal back through a fresh engine: shared by `ballast replay`
/// (from the beginning, or the oldest snapshot a retained journal starts
/// at) and `ballast plan` (from the newest snapshot).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actors/engine.h"
#include "actors/engine_snapshot.h"
#include "store/journal.h"

namespace ballast::driver {

struct ReplaySource {
    std::unique_ptr<store::Journal> journal;     // opened read-only
    std::optional<actors::EngineSnapshot> start;  // the snapshot to start from, if any
    uint64_t from = 1;                            // first event to feed
    uint64_t to = 0;                              // last event to feed
};

enum class ReplayStart { oldest, newest };

/// Opens the journal read-only and picks where to start: the first event
/// (when the journal starts at seq 1), else the oldest snapshot (`oldest`),
/// or always the newest snapshot (`newest`). `to` is clamped to the last seq.
events::Result<ReplaySource> open_replay_source(const std::string& path, ReplayStart start,
                                                uint64_t to);

/// The snapshot a replay of the whole journal starts from: none when the
/// journal starts at seq 1, else the oldest that the events follow (an
/// error when there is none).
events::Result<std::optional<uint64_t>> oldest_replay_snapshot(const store::Journal& journal);

/// Feeds the source through a fresh engine (with `overrides`, "key=value",
/// changing its settings) and returns the ActionsPlanned it decided, in
/// order; `progress` as for feed_journal.
events::Result<std::vector<events::Event>> replay_decisions(const ReplaySource& source,
                                                            const std::vector<std::string>& overrides,
                                                            const std::function<void(uint64_t, uint64_t)>& progress);

/// Feeds source.from..source.to into `engine` in batches; `progress(done,
/// total)` is called after each batch.
events::Status feed_journal(actors::Engine& engine, const ReplaySource& source,
                            const std::function<void(uint64_t, uint64_t)>& progress);

/// The ActionsPlanned events journaled for barriers in source.from..source.to.
events::Result<std::vector<events::Event>> journaled_plans(const ReplaySource& source);

/// Replays the journal at `path` from its start (or oldest snapshot) through
/// a fresh engine and compares each ActionsPlanned with the journaled one.
struct ReplayComparison {
    size_t journaled = 0;
    size_t replayed = 0;
    size_t identical = 0;
    std::optional<size_t> first_difference;  // index of the first that differs
    bool ok() const { return !first_difference && journaled == replayed; }
};
events::Result<ReplayComparison> replay_and_compare(const std::string& path);

}  // namespace ballast::driver
