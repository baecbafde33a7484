#include "tools/http/broker_history.h"

#include <algorithm>
#include <cassert>

namespace ballast::http {

namespace {

/// The first seq in [lo, hi] whose event is not older than `from_ms`
/// (hi + 1 when none is), by bisection: events are journaled in the
/// engine's time order, so a few single reads find where the window begins
/// instead of a scan from the journal's start.
events::Result<uint64_t> first_seq_at(const store::Journal& journal, uint64_t lo, uint64_t hi, int64_t from_ms) {
    uint64_t end = hi + 1;
    while (lo < end) {
        const uint64_t mid = lo + (end - lo) / 2;
        events::Result<events::Event> e = journal.read_one(mid);
        if (!e) return e.error();
        if (e->time_ms < from_ms) {
            lo = mid + 1;
        } else {
            end = mid;
        }
    }
    return lo;
}

struct Slice {
    double in_sum = 0;
    double out_sum = 0;
    uint32_t samples = 0;
    int64_t newest_ms = 0;
};

}  // namespace

events::Result<BrokerHistory> read_broker_history(const store::Journal& journal, int64_t now_ms, int64_t window_ms,
                                                  size_t points) {
    assert(window_ms >= history_window_ms_min && window_ms <= history_window_ms_max);
    assert(points >= 1 && points <= history_points_max);
    BrokerHistory h;
    h.to_ms = now_ms;
    h.from_ms = now_ms - window_ms;
    h.slice_ms = (window_ms + static_cast<int64_t>(points) - 1) / static_cast<int64_t>(points);
    const uint64_t first = journal.first_seq();
    const uint64_t last = journal.last_seq();
    if (last == 0 || last < first) return h;

    // At most scan_events_max of the newest events, from where the window begins.
    const uint64_t bounded = last + 1 > scan_events_max ? std::max(first, last + 1 - scan_events_max) : first;
    events::Result<uint64_t> start = first_seq_at(journal, bounded, last, h.from_ms);
    if (!start) return start.error();
    h.complete = *start > bounded || bounded == first;
    h.from_seq = *start;
    h.to_seq = last;
    if (h.from_seq > h.to_seq) return h;

    std::map<int32_t, std::vector<Slice>> slices;
    std::map<uint64_t, HistoryMove> moves;
    using T = events::EventType;
    events::Status scanned = journal.scan(h.from_seq, h.to_seq, [&](uint64_t, std::span<const uint8_t> bytes) {
        h.events_read++;
        const events::Header header = events::header(events::view(bytes));
        switch (header.type) {
            case T::broker_metrics:
            case T::actions_planned:
            case T::action_submitted:
            case T::action_completed:
            case T::action_failed:
            case T::action_timed_out:
            case T::action_cancelled:
                break;
            default:
                return true;  // a partition report, a tick, ...: its header is all that was read
        }
        const events::Event e = events::from_flatbuffer(events::view(bytes));
        if (const auto* report = std::get_if<events::BrokerMetrics>(&e.body)) {
            const int64_t t = report->sample_time_ms;
            if (t < h.from_ms || t > h.to_ms) return true;
            const size_t slice = std::min(points - 1, static_cast<size_t>((t - h.from_ms) / h.slice_ms));
            for (const events::BrokerSample& s : report->samples) {
                std::vector<Slice>& of_broker = slices[s.broker_id];
                if (of_broker.empty()) of_broker.resize(points);
                Slice& into = of_broker[slice];
                into.in_sum += s.bytes_in_per_s;
                into.out_sum += s.bytes_out_per_s;
                into.samples++;
                into.newest_ms = std::max(into.newest_ms, t);
            }
        } else if (const auto* plan = std::get_if<events::ActionsPlanned>(&e.body)) {
            for (const events::Action& a : plan->actions) moves[a.action_id] = HistoryMove{a, e.time_ms, e.seq, -1, "planned"};
        } else if (const std::optional<uint64_t> id = events::outcome_action_id(e)) {
            auto it = moves.find(*id);
            if (it == moves.end()) return true;  // planned before the window
            HistoryMove& m = it->second;
            if (std::holds_alternative<events::ActionSubmitted>(e.body)) {
                m.state = "submitted";
                m.ended_ms = -1;
            } else {
                m.ended_ms = e.time_ms;
                m.state = std::holds_alternative<events::ActionCompleted>(e.body) ? "completed"
                          : std::holds_alternative<events::ActionFailed>(e.body)  ? "failed"
                          : std::holds_alternative<events::ActionTimedOut>(e.body) ? "timed_out"
                                                                                  : "cancelled";
            }
        }
        return true;
    });
    if (!scanned) return scanned.error();

    for (const auto& [broker, of_broker] : slices) {
        std::vector<HistoryPoint>& out = h.brokers[broker];
        for (const Slice& s : of_broker) {
            if (s.samples == 0) continue;
            out.push_back({s.newest_ms, s.in_sum / s.samples, s.out_sum / s.samples});
        }
    }
    for (size_t i = 0; i < points; i++) {
        BandPoint band;
        uint32_t brokers = 0;
        for (const auto& [broker, of_broker] : slices) {
            const Slice& s = of_broker[i];
            if (s.samples == 0) continue;
            band.mean_bytes_in_per_s += s.in_sum / s.samples;
            band.mean_bytes_out_per_s += s.out_sum / s.samples;
            band.time_ms = std::max(band.time_ms, s.newest_ms);
            brokers++;
        }
        if (brokers == 0) continue;
        band.mean_bytes_in_per_s /= brokers;
        band.mean_bytes_out_per_s /= brokers;
        h.band.push_back(band);
    }
    for (auto& [id, move] : moves) h.moves.push_back(std::move(move));
    if (h.moves.size() > history_moves_max) {
        h.moves.erase(h.moves.begin(), h.moves.end() - static_cast<std::ptrdiff_t>(history_moves_max));
    }
    return h;
}

}  // namespace ballast::http
