#pragma once

/// Consumer traffic for the agentless sampler, from consumer groups'
/// committed offsets (ListGroups, FindCoordinator, OffsetFetch). Pure: the
/// sampler feeds each group's committed offsets with the time it read them,
/// the unit tests feed numbers.
///
/// A group's rate on a partition is its committed offset's growth between its
/// last two readings over their time apart, on the readings' own clock. A
/// partition's messages out/s is the sum of its groups' rates; the sampler
/// turns it into bytes with the partition's bytes per message (sampler_book.h).
/// - a group read once (new, or a partition it just started committing) has
///   no rate yet and adds nothing;
/// - a group whose offset did not move (stopped, or idle) adds 0;
/// - a group whose offset went back (reset by an operator) adds 0 for that
///   interval, and its rate counts again from the reset offset on;
/// - a group no longer listed is forgotten, and so is a partition it no
///   longer answers for.
/// Committing is what is measured, not fetching: a consumer that reads and
/// never commits is invisible, and one that commits every N seconds is seen
/// in steps of N seconds (the rate over a longer reading interval smooths it).

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ballast::kafka {

struct CommittedOffset {
    std::string topic;
    int32_t partition = -1;
    int64_t offset = -1;  // -1: nothing committed (ignored)
};

class ConsumerTrafficBook {
public:
    using PartitionKey = std::pair<std::string, int32_t>;

    /// Every offset group `group` has committed, read at `time_ms`.
    void add_group(const std::string& group, int64_t time_ms, const std::vector<CommittedOffset>& offsets);
    /// Forgets the groups not in `listed` (deleted, or expired by Kafka).
    void retain_groups(const std::set<std::string>& listed);

    /// Messages consumed per second per partition, summed over the groups
    /// whose rate is known; a partition no group has a rate for is absent.
    std::map<PartitionKey, double> messages_out_per_s() const;

    size_t group_count() const { return _groups.size(); }

private:
    struct Reading {
        int64_t offset = -1;
        int64_t time_ms = -1;
        double messages_per_s = -1;  // -1: read once, no rate yet
    };
    std::map<std::string, std::map<PartitionKey, Reading>> _groups;
};

}  // namespace ballast::kafka
