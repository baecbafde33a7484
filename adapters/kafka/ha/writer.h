#pragma once

/// The leader's side of the replicated journal on Kafka
/// (`actors::JournalReplica`): a transactional producer whose
/// `transactional.id` is the same for every instance of the group, so that
/// becoming the writer (InitProducerId) fences every earlier one and aborts
/// the transaction it left open.
///
/// `publish` is one transaction: one message per run to partition 0 of the
/// journal topic (key: the run's key, value: its records).
/// `publish_snapshot` writes the snapshot's parts to partition 0 of the
/// snapshots topic (snapshot_chunk.h) in transactions of up to 16 parts,
/// so that a large snapshot does not hold the journal's publications. Either
/// returns OK only once everything is committed; transactions are
/// serialised (one at a time; the journal actor and the snapshot writer's
/// thread both call).
///
/// Failures:
/// - fenced (another instance became the writer), or any other error
///   librdkafka calls fatal: "fenced: ..."; every later call fails the same
///   way and `may_act` is false for good. The instance must step down.
/// - anything else (a timeout, a broker down, a message refused): the
///   transaction is aborted and the call fails; nothing is retried inside
///   (the caller stops). If even the abort fails, the writer is spent: every
///   later call fails and the instance must become the writer again.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "actors/ha_ports.h"
#include "events/result.h"

struct rd_kafka_s;

namespace ballast::kafka::ha {

struct KafkaJournalWriterOptions {
    std::string bootstrap_servers;
    /// librdkafka settings every connection gets on top of its own: how to
    /// reach a secured cluster (adapters/kafka/rdkafka_security.h makes them).
    std::vector<std::pair<std::string, std::string>> client_settings;
    std::string instance_id;  // client.id
    /// Fixed for the group ("ballast-ha-" + group id): what fences.
    std::string transactional_id;
    std::string journal_topic;
    std::string snapshots_topic;
    /// The longest init, commit or abort may take before the call fails.
    int64_t call_timeout_ms = 10'000;
    /// may_act is true this long after the newest successful commit (from
    /// the moment it was asked: the coordinator accepted it after that, so
    /// this instance was the writer then), or after becoming the writer.
    /// Shorter than the time the election takes to name another leader.
    int64_t lease_ms = 3'000;
    /// The coordinator aborts a transaction left open this long (a writer
    /// paused mid-publication): what a transaction may take at most.
    int64_t transaction_timeout_ms = 60'000;
    /// A snapshot is published in transactions of at most this many 1 MiB
    /// parts, so that the journal's publications go on between them.
    uint32_t snapshot_parts_per_transaction = 16;
    /// librdkafka's linger: 0-5 ms (a publication is flushed at its commit).
    int64_t linger_ms = 1;
    /// Tests only: called inside each transaction once its messages are on
    /// the brokers (flushed), before the commit. Empty in production.
    std::function<void()> before_commit;
};

class KafkaJournalWriter : public actors::JournalReplica {
public:
    /// Creates the producer and initialises transactions: every earlier
    /// writer of the transactional id is fenced and its open transaction
    /// aborted. The lease starts here.
    static events::Result<std::unique_ptr<KafkaJournalWriter>> become(KafkaJournalWriterOptions options);
    ~KafkaJournalWriter() override;
    KafkaJournalWriter(const KafkaJournalWriter&) = delete;
    KafkaJournalWriter& operator=(const KafkaJournalWriter&) = delete;

    events::Status publish(const std::vector<store::ShippedRun>& runs) override;
    events::Status publish_snapshot(uint64_t seq, std::span<const uint8_t> bytes) override;
    bool may_act() const override;

    /// Whether the writer can write no more (fenced, fatal, or an abort
    /// that failed).
    bool spent() const { return _spent.load(std::memory_order_acquire); }
    /// Transactions committed (publications and snapshots).
    uint64_t commits() const { return _commits.load(std::memory_order_relaxed); }

private:
    explicit KafkaJournalWriter(KafkaJournalWriterOptions options) : _options(std::move(options)) {}
    /// One transaction: begin, `produce`, commit; the failures as the
    /// header says. `what` names the publication in errors.
    events::Status transaction(const std::string& what, const std::function<events::Status()>& produce);
    /// Produces one message to partition 0 of `topic`.
    events::Status produce(const std::string& topic, const std::string& key, std::string_view value);
    /// The error of a failed step of the transaction; aborts it when it can.
    events::Status failed(const std::string& what, const std::string& step, const std::string& cause,
                          bool fatal);
    events::Status spend(std::string message);

    KafkaJournalWriterOptions _options;
    rd_kafka_s* _handle = nullptr;
    std::mutex _mutex;  // one transaction at a time
    std::optional<events::Error> _spent_error;
    std::atomic<bool> _spent{false};
    /// steady_clock of the newest commit, in ns since its epoch.
    std::atomic<int64_t> _last_commit_ns{0};
    std::atomic<uint64_t> _commits{0};
};

}  // namespace ballast::kafka::ha
