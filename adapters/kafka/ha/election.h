#pragma once

/// The election of high availability: a member of a Kafka consumer group
/// subscribed to the journal topic (one partition). The group's range
/// assignor gives that partition to exactly one member at a time: the
/// member holding it is the leader.
///
/// Membership is all it takes: this consumer never fetches the journal (the
/// reader does that on its own terms) and never commits an offset. Under the
/// range assignor (eager rebalancing) the assignment is accepted with an
/// empty local one; under cooperative-sticky the partition is assigned from
/// the end and paused at once. A thread polls librdkafka every
/// `poll_interval_ms` to keep the membership alive (the heartbeats
/// themselves run on librdkafka's threads; the poll serves the rebalance
/// callback and `max.poll.interval.ms`).
///
/// Which assignor decides what a member joining the group does to the
/// leader. Range (eager) revokes every member's partitions at each
/// rebalance and assigns again: the leader is unelected for a moment (~20
/// ms here) whenever any member joins or leaves, and partition 0 goes to the
/// member whose id sorts first, which may be the newcomer. Cooperative-
/// sticky revokes only what moves: a member joining leaves the leader
/// elected throughout.
///
/// Timing (librdkafka 2.0.2, Kafka 4.1.1, session timeout 6 s, heartbeat
/// 1 s): a first member is assigned the partition a few seconds after it
/// subscribes; when the leader closes (leaves the group), another member
/// has it about a heartbeat later; a leader that dies without leaving is
/// replaced once its session times out.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "events/result.h"

struct rd_kafka_s;
struct rd_kafka_topic_partition_list_s;

namespace ballast::kafka::ha {

/// The client.id of an election's member: "ballast-ha/<instance id>". The
/// group's coordinator keeps a member's client.id and DescribeGroups reports
/// it, so a leader can tell another Ballast group from any other consumer
/// group (presence.h); the instance id stays readable in the brokers'
/// logs.
inline constexpr std::string_view election_client_id_prefix = "ballast-ha/";
inline std::string election_client_id(const std::string& instance_id) {
    return std::string(election_client_id_prefix) + instance_id;
}

struct KafkaElectionOptions {
    std::string bootstrap_servers;
    /// librdkafka settings every connection gets on top of its own: how to
    /// reach a secured cluster (adapters/kafka/rdkafka_security.h makes them).
    std::vector<std::pair<std::string, std::string>> client_settings;
    /// This instance's name; the member's client.id is
    /// election_client_id(instance_id).
    std::string instance_id;
    /// The consumer group (`ballast.ha.group.id`).
    std::string group_id = "ballast";
    /// The topic whose partition 0 makes its holder the leader.
    std::string topic;
    /// The broker forgets a member that has not heartbeated for this long
    /// (the broker's minimum, group.min.session.timeout.ms, is 6 s by
    /// default): how long a crashed leader keeps the partition.
    int64_t session_timeout_ms = 6'000;
    /// How often the member tells the broker it lives, and learns of a
    /// rebalance: how soon a member follows a change.
    int64_t heartbeat_interval_ms = 1'000;
    /// How often the thread polls librdkafka; a revocation is seen within it.
    int64_t poll_interval_ms = 100;
    /// partition.assignment.strategy: "range" or "cooperative-sticky" (see
    /// above).
    std::string assignment_strategy = "range";
};

class KafkaElection {
public:
    /// Joins the group (subscribes) and starts the polling thread; the
    /// assignment comes later.
    static events::Result<std::unique_ptr<KafkaElection>> join(KafkaElectionOptions options);
    ~KafkaElection();
    KafkaElection(const KafkaElection&) = delete;
    KafkaElection& operator=(const KafkaElection&) = delete;

    /// Whether the group assigns this member partition 0 now. False from the
    /// moment a revocation reaches the polling thread (or close begins).
    bool elected() const { return _elected.load(std::memory_order_acquire); }

    /// How many times this member was elected (for status and tests).
    uint64_t times_elected() const { return _times_elected.load(std::memory_order_relaxed); }

    /// Leaves the group (LeaveGroup: the broker rebalances at once instead
    /// of waiting for the session to time out). Idempotent.
    void close();

private:
    friend struct ElectionCallbacks;  // librdkafka's rebalance callback
    explicit KafkaElection(KafkaElectionOptions options) : _options(std::move(options)) {}
    void rebalance(int error, rd_kafka_topic_partition_list_s* partitions);
    void rebalance_cooperative(int error, rd_kafka_topic_partition_list_s* partitions);
    void run();

    KafkaElectionOptions _options;
    rd_kafka_s* _handle = nullptr;
    std::thread _thread;
    std::atomic<bool> _stopping{false};
    std::atomic<bool> _elected{false};
    std::atomic<uint64_t> _times_elected{0};
    bool _closed = false;
};

}  // namespace ballast::kafka::ha
