#pragma once

/// What `GET /v1/brokers/history` answers: each broker's bytes in and out
/// over a window of the engine's time, read from the journal's BrokerMetrics
/// events (its readers are safe beside the writer), the band the network
/// distribution goals hold them within, and the actions planned in the
/// window to mark on a chart. The dashboard draws the last hour from it when
/// it opens.
///
/// Bounded like the other journal reads (journal_query.h): at most
/// `scan_events_max` events are read, the newest ones; a window reaching
/// further back than those is answered from where they begin
/// (`complete` false). Each broker's samples are averaged into at most
/// `points` equal slices of the window, so the answer's size depends on the
/// brokers and `points`, not on how often brokers report.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "events/event.h"
#include "events/result.h"
#include "store/journal.h"
#include "tools/http/journal_query.h"

namespace ballast::http {

/// The window a request may ask for (`window_ms`), and its default: an hour.
inline constexpr int64_t history_window_ms_min = 1'000;
inline constexpr int64_t history_window_ms_max = 7 * 24 * 3'600'000LL;
inline constexpr int64_t history_window_ms_default = 3'600'000;
/// Points per broker (`points`): a chart a few hundred pixels wide needs no more.
inline constexpr size_t history_points_max = 1'000;
inline constexpr size_t history_points_default = 240;
/// Actions answered at most (the newest), so a busy hour stays a small answer.
inline constexpr size_t history_moves_max = 500;

struct HistoryPoint {
    int64_t time_ms = 0;  // the newest sample averaged into the point
    double bytes_in_per_s = 0;
    double bytes_out_per_s = 0;
};

/// The mean of the brokers that reported in one slice: the band's centre
/// (the distribution goals' mean when capacities are unknown).
struct BandPoint {
    int64_t time_ms = 0;
    double mean_bytes_in_per_s = 0;
    double mean_bytes_out_per_s = 0;
};

struct HistoryMove {
    events::Action action;
    int64_t planned_ms = 0;
    uint64_t planned_seq = 0;
    int64_t ended_ms = -1;         // -1: not ended inside the window
    std::string state = "planned";  // planned, submitted, completed, failed, timed_out, cancelled
};

struct BrokerHistory {
    int64_t from_ms = 0;  // now_ms - window_ms
    int64_t to_ms = 0;    // now_ms
    int64_t slice_ms = 0;  // each point averages the samples of one slice this long
    uint64_t from_seq = 0;  // the events read
    uint64_t to_seq = 0;
    uint64_t events_read = 0;
    /// The events read reach back to from_ms (or to the journal's first).
    bool complete = true;
    std::map<int32_t, std::vector<HistoryPoint>> brokers;  // by broker id, oldest first
    std::vector<BandPoint> band;                           // oldest first
    std::vector<HistoryMove> moves;                        // by planned seq, the newest history_moves_max
};

/// The history of the window [now_ms - window_ms, now_ms], in at most
/// `points` slices. Preconditions: window_ms and points within the bounds above.
events::Result<BrokerHistory> read_broker_history(const store::Journal& journal, int64_t now_ms, int64_t window_ms,
                                                  size_t points);

}  // namespace ballast::http
