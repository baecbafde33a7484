#pragma once

/// `ballast run`'s look for other Ballast groups on its cluster (live_run.h).

#include <chrono>
#include <cstdint>
#include <future>
#include <optional>
#include <set>
#include <string>

#include "adapters/kafka/ha/presence.h"

namespace ballast::tools {

/// While this instance leads, whether another Ballast group (another
/// `ballast.ha.group.id`; for a single `ballast run`, any) leads on the same
/// cluster too: its leader moves partitions as well, unaware of this one's
/// moves. Asked when a leadership begins and then every `check_interval`,
/// on a thread of its own
/// (kafka::ha::other_ballast_groups may take up to the call timeout; the step
/// loop only looks whether it is done). One warning per other group per
/// leadership, and again when it comes back after a check found it gone; a
/// failing check is logged once per spell of failures, and its end.
class OtherGroupsWatch {
public:
    static constexpr auto check_interval = std::chrono::seconds(30);

    /// `options.group_id` is this instance's group; empty for a single
    /// `ballast run`, which is in none (and leads from its start).
    explicit OtherGroupsWatch(kafka::ha::KafkaHaOptions options) : _options(std::move(options)) {}
    // The destructor waits for a check in flight: at most the call timeout,
    // and only after the group was left (run_ha closes the log first).

    /// After each step: whether this instance leads, and its leadership's epoch.
    void poll(bool leading, int64_t epoch);

private:
    void report(const events::Result<kafka::ha::HaPresence>& found);

    kafka::ha::KafkaHaOptions _options;
    std::future<events::Result<kafka::ha::HaPresence>> _check;
    int64_t _checked_epoch = 0;
    std::optional<int64_t> _epoch;  // the leadership `_warned` belongs to; none while following
    std::set<std::string> _warned;  // other groups warned about, seen by the latest check
    std::chrono::steady_clock::time_point _next_check{};
    uint32_t _failures = 0;  // checks failed in a row
};

}  // namespace ballast::tools
