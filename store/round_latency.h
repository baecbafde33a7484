#pragma once

/// How long a planning round takes to decide, as the journal sees it: from
/// the append that held the round's barrier (the Tick it plans at) to the
/// append of its ActionsPlanned. It spans routing the barrier, the round
/// and journaling the decision, the engine's barrier-to-plan latency,
/// measured on the wall clock inside the journal's own appends so that no
/// actor reads a clock. Only rounds that journal a decision are seen (a
/// round that changes nothing writes nothing), and only a barrier among
/// the last `appends_max` appends (older ones are not timed).
///
/// `appended` is the writer's (one thread, as appends are); `figures` from
/// any thread.

#include <array>
#include <chrono>
#include <cstdint>
#include <span>
#include <variant>

#include "events/event.h"
#include "store/latency_histogram.h"

namespace ballast::store {

class RoundLatency {
public:
    using Clock = std::chrono::steady_clock;
    static constexpr size_t appends_max = 4096;

    /// A batch of seqs [first_seq, last_seq] was written; its append began
    /// at `started`.
    void appended(std::span<const events::Event> batch, uint64_t first_seq, uint64_t last_seq, Clock::time_point started) {
        _appends[_next] = {first_seq, last_seq, started};
        _next = (_next + 1) % appends_max;
        if (_size < appends_max) ++_size;
        const Clock::time_point now = Clock::now();
        for (const events::Event& e : batch) {
            const auto* planned = std::get_if<events::ActionsPlanned>(&e.body);
            if (planned == nullptr) continue;
            if (const Append* barrier = find(planned->barrier_seq)) _histogram.observe(now - barrier->started);
        }
    }

    LatencyHistogram::Figures figures() const { return _histogram.figures(); }

private:
    struct Append {
        uint64_t first_seq = 0;
        uint64_t last_seq = 0;
        Clock::time_point started;
    };

    /// The append that wrote `seq`, newest first (a barrier is recent).
    const Append* find(uint64_t seq) const {
        for (size_t i = 1; i <= _size; ++i) {
            const Append& a = _appends[(_next + appends_max - i) % appends_max];
            if (a.first_seq <= seq && seq <= a.last_seq) return &a;
            if (a.last_seq < seq) return nullptr;
        }
        return nullptr;
    }

    std::array<Append, appends_max> _appends{};
    size_t _next = 0;
    size_t _size = 0;
    LatencyHistogram _histogram;
};

}  // namespace ballast::store
