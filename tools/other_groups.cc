#include "tools/other_groups.h"

#include <spdlog/spdlog.h>

namespace ballast::tools {

void OtherGroupsWatch::poll(bool leading, int64_t epoch) {
    const auto now = std::chrono::steady_clock::now();
    if (_check.valid() && _check.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
        events::Result<kafka::ha::HaPresence> found = _check.get();
        // A check begun in an earlier leadership says nothing of this one.
        if (leading && _checked_epoch == epoch) report(found);
    }
    if (!leading) {
        _epoch.reset();
        return;
    }
    if (_epoch != epoch) {
        _epoch = epoch;
        _warned.clear();
        _next_check = now;
    }
    if (!_check.valid() && now >= _next_check) {
        _checked_epoch = epoch;
        _next_check = now + check_interval;
        _check = std::async(std::launch::async,
                            [options = _options] { return kafka::ha::other_ballast_groups(options); });
    }
}

void OtherGroupsWatch::report(const events::Result<kafka::ha::HaPresence>& found) {
    const std::string& me = _options.instance_id;
    if (!found) {
        if (_failures++ == 0) {
            spdlog::warn("{}: looking for other Ballast groups on this cluster failed: {}; looking again every "
                         "{} s while {}",
                         me, found.error().to_string(), check_interval.count(),
                         _options.group_id.empty() ? "running" : "leading");
        }
        return;
    }
    if (_failures > 0) {
        spdlog::info("{}: looking for other Ballast groups works again after {} failed check(s)", me, _failures);
        _failures = 0;
    }
    std::set<std::string> seen;
    for (const kafka::ha::OtherBallastGroup& other : found->others) {
        seen.insert(other.group_id);
        if (_warned.count(other.group_id) > 0) continue;
        const std::string group = "'" + other.group_id + "' (leader " + other.leader_instance_id + " on " +
                                  other.leader_host + ", client.id " + other.leader_client_id +
                                  ", journal topic " + other.journal_topic + ")";
        if (_options.group_id.empty()) {
            spdlog::warn("{}: a Ballast group, {}, acts on this cluster too, and this ballast run is not highly "
                         "available: both move partitions, each unaware of the other's moves. Stop this one, or "
                         "run it with --ha --set ballast.ha.group.id={} so that it joins that group as a standby",
                         me, group, other.group_id);
        } else {
            spdlog::warn("{}: another Ballast group, {}, acts on this cluster too: both groups' leaders move "
                         "partitions, each unaware of the other's moves. Stop one of the two groups, or give "
                         "both the same ballast.ha.group.id (this one's is '{}') so that they elect one leader "
                         "between them",
                         me, group, _options.group_id);
        }
    }
    // A group warned about that this check could not describe is still
    // there as far as anyone knows: no second warning when it is seen again.
    for (const kafka::ha::UndescribedGroup& group : found->undescribed) {
        if (_warned.count(group.group_id) > 0) seen.insert(group.group_id);
    }
    _warned = std::move(seen);
}

}  // namespace ballast::tools
