#pragma once

/// Deterministic events for journal tests: the event for a given number is
/// always the same, so a test (or a crash-test parent process) can rebuild
/// what was written from the sequence number alone.

#include <cstdint>
#include <string>
#include <vector>

#include "events/event.h"
#include "store/journal.h"

namespace ballast::testing {

/// A ~100-byte event whose content is a function of `n`; it rotates
/// through a few kinds so journals hold a realistic mix.
inline events::Event sample_event(uint64_t n) {
    events::Event event;
    event.time_ms = static_cast<int64_t>(n) * 1000;
    event.source = events::Source::tool;
    const auto id = static_cast<int32_t>(n % 7);
    switch (n % 4) {
        case 0: event.body = events::Tick{event.time_ms}; break;
        case 1: event.body = events::BrokerFenced{id}; break;
        case 2:
            event.body = events::PartitionChanged{
                "orders-" + std::to_string(n % 13), static_cast<int32_t>(n % 1000),
                {id, (id + 1) % 7, (id + 2) % 7}, id, {id, (id + 1) % 7},
                static_cast<int32_t>(n % 100)};
            break;
        default: {
            events::PartitionMetrics metrics;
            metrics.broker_id = id;
            metrics.sample_time_ms = event.time_ms;
            metrics.topics = {"orders"};
            metrics.samples.push_back({0, static_cast<int32_t>(n % 16), 1024.0 * n, 2048.0 * n,
                                       10.0 * n, n * 4096});
            event.body = std::move(metrics);
        }
    }
    return event;
}

/// sample_event(first) .. sample_event(first + count - 1).
inline std::vector<events::Event> sample_events(uint64_t first, uint64_t count) {
    std::vector<events::Event> out;
    out.reserve(count);
    for (uint64_t n = first; n < first + count; n++) out.push_back(sample_event(n));
    return out;
}

/// The event as the journal returns it: with its sequence number, its
/// samples rounded as an append stores them.
inline events::Event sample_event_at(uint64_t seq) {
    events::Event event = store::as_journaled(sample_event(seq));
    event.seq = seq;
    return event;
}

}  // namespace ballast::testing
