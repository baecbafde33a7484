#pragma once

/// Other Ballast groups on the same cluster. Instances with one
/// `ballast.ha.group.id` elect one leader among themselves; two groups with
/// different ids elect two, and both move partitions. A leader asks, now and
/// then, which other Ballast groups have a leader, so that it can say so; so
/// does a single `ballast run`, which is in no group and acts all the same.
///
/// How a Ballast group is recognised: every member of a Ballast election
/// has the client.id "ballast-ha/<instance id>" (election_client_id in
/// election.h), which the group coordinator keeps and DescribeGroups
/// reports. A group whose member with such a client.id holds partition 0
/// of a topic is another Ballast group with a leader, that topic its
/// journal. The group id, the topic and the assignor are all the operator's
/// to choose, and nothing else is kept by the broker per member, so the
/// client.id is the mark. An instance older than the mark is not recognised;
/// a foreign client that takes the prefix is mistaken for one.
///
/// One check: ListGroups on every broker, then DescribeGroups of every
/// group listed with members (not Empty, not Dead), under one deadline of
/// `call_timeout_ms`, from an admin handle of its own (made and destroyed
/// per check: the check is rare, and a handle holds a thread per broker).

#include <cstddef>
#include <string>
#include <vector>

#include "adapters/kafka/ha/journal_topic.h"
#include "events/result.h"

namespace ballast::kafka::ha {

/// Another Ballast group whose election has a leader now.
struct OtherBallastGroup {
    std::string group_id;
    /// The leading member's client.id ("ballast-ha/<instance id>") and the
    /// instance id in it (`ballast.ha.instance.id`, or host-pid).
    std::string leader_client_id;
    std::string leader_instance_id;
    /// Where the leader connects from, as the group's coordinator sees it
    /// (an address: "127.0.0.1").
    std::string leader_host;
    /// The topic whose partition 0 the leader holds: that group's journal.
    std::string journal_topic;

    bool operator==(const OtherBallastGroup&) const = default;
};

/// A group listed with members whose description failed: a coordinator
/// moving, or a group of Kafka's newer consumer protocol, which classic
/// DescribeGroups does not describe and which a Ballast election (librdkafka
/// 2.0.2's classic protocol) never is. It is not judged either way.
struct UndescribedGroup {
    std::string group_id;
    std::string error;
};

/// What one check found.
struct HaPresence {
    /// Sorted by group id; never our own group.
    std::vector<OtherBallastGroup> others;
    std::vector<UndescribedGroup> undescribed;
    /// How many groups were listed, and of them described (for logs, tests).
    size_t groups_listed = 0;
    size_t groups_described = 0;
};

/// Lists and describes the cluster's consumer groups (see above), from the
/// point of view of an instance in group `options.group_id` (left out), or
/// in none when it is empty (a single `ballast run`: every Ballast group
/// with a leader is another). An error
/// when either request fails as a whole, when any broker's ListGroups
/// fails (a partial list could miss the group that matters), or when no
/// answer comes within `options.call_timeout_ms`; it names the request and
/// the bootstrap servers.
events::Result<HaPresence> other_ballast_groups(const KafkaHaOptions& options);

}  // namespace ballast::kafka::ha
