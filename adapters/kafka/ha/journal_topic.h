#pragma once

/// High availability on Kafka: `actors::HaLog` (ha_ports.h) over two
/// one-partition topics and a consumer group.
///
/// - The journal topic (`ballast.ha.journal.topic`, default
///   "<group id>-journal") holds the leader's journal: one message per run,
///   written in transactions by the writer (writer.h), read
///   `read_committed` by every standby (reader.h).
/// - "<journal topic>-snapshots" holds the leader's snapshots, so that an
///   instance that joins late, or that the journal topic's retention left
///   behind, starts from one (snapshot_chunk.h has the format).
/// - The consumer group (`ballast.ha.group.id`, default "ballast") elects:
///   the member assigned the journal topic's partition leads
///   (election.h).
///
/// `open` creates the topics when they are missing (one partition;
/// replication factor min(3, brokers); min.insync.replicas 2 from three
/// replicas, else 1; messages up to 8 MiB; the snapshots kept 24 h, the
/// journal as its options say) and
/// waits until both have a leader, then joins the election.
///
/// Threads: `elected` and the writer's calls from any thread; the rest from
/// the node's one thread. `drop_writer`, `become_writer` and `close` only
/// while nothing is inside the writer (the engine that publishes stopped).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "actors/ha_ports.h"
#include "adapters/kafka/ha/election.h"
#include "adapters/kafka/ha/reader.h"
#include "adapters/kafka/ha/writer.h"
#include "events/result.h"

namespace ballast::kafka::ha {

struct KafkaHaOptions {
    /// "host:port,host:port", as librdkafka takes them.
    std::string bootstrap_servers;
    /// librdkafka settings every connection gets on top of its own: how to
    /// reach a secured cluster (adapters/kafka/rdkafka_security.h makes them).
    std::vector<std::pair<std::string, std::string>> client_settings;
    /// This instance's name: client.id of every connection, so the group
    /// and the brokers' logs name it (the election's is "ballast-ha/" + it,
    /// the mark other Ballast groups know it by: presence.h).
    std::string instance_id;
    /// `ballast.ha.group.id`: the consumer group that elects; the
    /// writer's transactional id is "ballast-ha-" + it.
    std::string group_id = "ballast";
    /// `ballast.ha.journal.topic`; empty: "<group id>-journal".
    std::string journal_topic;
    /// retention.ms and retention.bytes of the journal topic when it is
    /// created here (0 bytes: no size bound).
    int64_t journal_retention_ms = 604'800'000;
    int64_t journal_retention_bytes = int64_t{10} << 30;
    /// The broker forgets a member this long after its last heartbeat: how
    /// long a crashed leader keeps the partition. 6 s is the broker's minimum
    /// (group.min.session.timeout.ms).
    int64_t session_timeout_ms = 6'000;
    /// How often a member heartbeats and so learns of a rebalance.
    int64_t heartbeat_interval_ms = 1'000;
    /// The election's assignor: "range" (a member joining unseats the
    /// leader for a moment) or "cooperative-sticky" (it does not);
    /// KafkaElectionOptions says more.
    std::string assignment_strategy = "range";
    /// How long after its newest commit a leader may still make admin calls
    /// (may_act). 0: the session timeout less two heartbeats and a second
    /// (3 s with the defaults), so that the lease runs out before another
    /// instance can be elected after this one stopped heartbeating.
    int64_t lease_ms = 0;
    /// The longest one call to the brokers may take (a request, a commit, a
    /// probe of the journal, the topics getting a leader).
    int64_t call_timeout_ms = 10'000;
    /// The coordinator aborts a transaction left open this long.
    int64_t transaction_timeout_ms = 60'000;
    /// How long caught_up waits for the reader to see the end.
    int64_t caught_up_wait_ms = 500;
    /// Bounds on one read.
    size_t read_runs_max = 64;
    size_t read_bytes_max = size_t{16} << 20;
    /// KafkaJournalWriterOptions::snapshot_parts_per_transaction.
    uint32_t snapshot_parts_per_transaction = 16;
    /// False: do not join the election (a reader or a tool; elected() is
    /// always false).
    bool join_election = true;
    /// Tests only: KafkaJournalWriterOptions::before_commit.
    std::function<void()> before_commit;

    std::string journal_topic_name() const { return journal_topic.empty() ? group_id + "-journal" : journal_topic; }
    std::string snapshots_topic_name() const { return journal_topic_name() + "-snapshots"; }
    std::string transactional_id() const { return "ballast-ha-" + group_id; }
    int64_t effective_lease_ms() const {
        return lease_ms > 0 ? lease_ms : session_timeout_ms - 2 * heartbeat_interval_ms - 1'000;
    }
};

/// What the topics were found or made as.
struct HaTopics {
    int brokers = 0;
    int16_t replication_factor = 0;  // of the journal topic, as created or found
    bool journal_created = false;
    bool snapshots_created = false;
};

/// Creates the journal and snapshots topics if missing (TOPIC_ALREADY_EXISTS
/// is fine: another instance did) and waits, up to call_timeout_ms, until
/// metadata shows each with one partition and a leader. A topic found with
/// more than one partition is an error: the order of the journal is the
/// order of one partition.
events::Result<HaTopics> ensure_ha_topics(const KafkaHaOptions& options);

class KafkaHaLog final : public actors::HaLog {
public:
    /// Checks the options, ensures the topics, creates the reader and joins
    /// the election (unless join_election is false).
    static events::Result<std::unique_ptr<KafkaHaLog>> open(KafkaHaOptions options);
    ~KafkaHaLog() override;
    KafkaHaLog(const KafkaHaLog&) = delete;
    KafkaHaLog& operator=(const KafkaHaLog&) = delete;

    bool elected() override;
    events::Status become_writer() override;
    actors::JournalReplica* writer() override;
    void drop_writer() override;

    events::Status seek_after(uint64_t seq) override;
    events::Result<std::vector<store::ShippedRun>> read(int64_t timeout_ms) override;
    events::Result<bool> caught_up() override;
    events::Result<std::optional<store::Snapshot>> newest_snapshot() override;
    events::Result<uint64_t> first_seq() override;

    /// A standby's lag behind the log (KafkaJournalReader::lag), from the
    /// node's thread, between its steps.
    events::Result<JournalLag> lag(uint64_t applied_seq) { return _reader->lag(applied_seq); }

    /// A clean stop (SIGTERM): drops the writer and leaves the group, so that
    /// another member is elected about a heartbeat later instead of a
    /// session timeout later. elected() is false from here on.
    void close();

    const KafkaHaOptions& options() const { return _options; }
    const HaTopics& topics() const { return _topics; }
    /// The writer as this adapter built it (null when not the writer).
    KafkaJournalWriter* kafka_writer() { return _writer.get(); }

private:
    explicit KafkaHaLog(KafkaHaOptions options) : _options(std::move(options)) {}

    KafkaHaOptions _options;
    HaTopics _topics;
    std::unique_ptr<KafkaElection> _election;
    std::unique_ptr<KafkaJournalReader> _reader;
    std::unique_ptr<KafkaJournalWriter> _writer;
};

}  // namespace ballast::kafka::ha
