#pragma once

/// Every decision about one partition, as `ballast replay --explain` prints
/// it (and the HTTP API's explain answers): the metadata changes of the
/// partition, each round's actions, held actions and unfixable findings
/// that name it, and the outcomes of its actions, merged in journal order.
///
/// Two ways to the same text. From the partition index (store/journal.h):
/// only the events about the partition and the decisions that name it are
/// read, the decisions as the journal recorded them. By full replay: the
/// whole journal through a fresh engine, its own decisions (the only way
/// with changed settings, `--set`). A deterministic engine decides what
/// the journal recorded, so both give the same bytes; tests hold them to
/// it. When the index cannot answer (a read-only journal whose index is
/// missing, behind or found wrong) the answer comes from a scan of the
/// journal's events and recorded decisions, never from a guess, and a log
/// line says why.

#include <cstdint>
#include <string>
#include <vector>

#include "events/result.h"
#include "store/journal.h"
#include "tools/driver/journal_replay.h"

namespace ballast::driver {

enum class ExplainPath : uint8_t {
    index,        ///< the partition index (a scan when it cannot answer)
    full_replay,  ///< the whole journal fed through a fresh engine
};

struct ExplainRequest {
    std::string topic;
    int32_t partition = -1;
    uint64_t to = UINT64_MAX;  ///< nothing after this seq
    /// Decide again with these settings changed ("key=value"): full replay only.
    std::vector<std::string> overrides;
    ExplainPath path = ExplainPath::index;
};

struct Explanation {
    std::string text;  ///< what `ballast replay --explain` prints
    /// How it was found: "partition index: N events read", "scan: <why the
    /// index could not answer>", or "full replay: N events".
    std::string how;
    uint64_t events_read = 0;  ///< events read from the journal (replayed, for a full replay)
};

/// Explains from an open journal (the running engine's, or one opened
/// read-only), by the index. `path` must be `ExplainPath::index`.
events::Result<Explanation> explain_partition(const store::Journal& journal, const ExplainRequest& request);

/// Opens the journal at `path` read-only and explains by `request.path`;
/// `progress(done, total)` follows a full replay.
events::Result<Explanation> explain_partition(const std::string& path, const ExplainRequest& request,
                                              const std::function<void(uint64_t, uint64_t)>& progress = {});

/// The text from decisions a replay made (`plans`, ActionsPlanned events in
/// order) and a walk of the source's events.
events::Result<Explanation> explain_from_replay(const ReplaySource& source, const std::vector<events::Event>& plans,
                                                const std::string& topic, int32_t partition);

}  // namespace ballast::driver
