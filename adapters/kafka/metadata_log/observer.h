#pragma once

/// A raft observer of KRaft's metadata log: Fetch of `__cluster_metadata` from the
/// controller quorum's leader, on the controller listener, as replica -1 (an observer that
/// is no voter; the leader keeps no state for it). Each `poll` is one Fetch: the leader
/// answers with what follows the position (or waits up to `max_wait_ms` for it), and the
/// observer hands out the records below the quorum's high watermark, the committed ones,
/// keeping those above it until the watermark passes them. A leader change is followed:
/// a refused epoch gives the current leader and its epoch, and v16+ answers say where it
/// listens. A diverging epoch (the log was truncated above the committed part) drops what
/// was held above it.
///
/// Not here yet: FetchSnapshot, for a position older than the log's start (after Kafka
/// deleted segments behind a snapshot); such a position is an `unsupported` error naming the
/// snapshot. Not thread-safe: one owner.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "adapters/kafka/metadata_log/log_decoder.h"
#include "adapters/kafka/wire/admin_client.h"
#include "adapters/kafka/wire/broker_connection.h"
#include "adapters/kafka/wire/messages/fetch.h"

namespace ballast::kafka::metadata_log {

struct ObserverOptions {
    /// The controllers' listeners (`--bootstrap-controller`): any of them; the leader is
    /// found from their answers.
    std::vector<wire::BrokerAddress> controllers;
    /// The security of the controller listener, timeouts, client id.
    wire::ConnectionOptions connection;
    /// Null: the leader does not check it.
    std::optional<std::string> cluster_id;
    /// How long the leader may hold a fetch when nothing is new.
    int32_t max_wait_ms = 500;
    /// The most bytes one answer carries (the leader sends at least one whole batch).
    int32_t max_bytes = 8 << 20;
    /// One Fetch, connecting included, takes at most this long (past `max_wait_ms`).
    int64_t call_timeout_ms = 10000;
};

struct PollResult {
    std::vector<MetadataEntry> entries;  // committed, in offset order
    int64_t high_watermark = -1;
    int32_t leader_id = -1;
    int32_t leader_epoch = -1;
};

class MetadataLogObserver {
public:
    /// Reads from `next_offset`; `last_fetched_epoch` is the epoch of the batch before it
    /// (-1 at the log's start, where the leader accepts any).
    MetadataLogObserver(ObserverOptions options, int64_t next_offset = 0,
                        int32_t last_fetched_epoch = 0);

    /// One Fetch. Errors name the controller asked and what failed: unreachable, not
    /// authorized (ClusterAction on the cluster), a snapshot needed, a record that does not
    /// decode (by offset).
    Result<PollResult> poll();

    /// The offset after the last committed record handed out.
    int64_t committed_offset() const { return _committed_offset; }
    /// One warning per record type this decoder does not know, the first time it is met.
    std::vector<std::string> take_warnings() { return _decoder.take_warnings(); }
    const DecodeCounts& counts() const { return _decoder.counts(); }

private:
    Result<PollResult> fetch_once();
    Result<wire::BrokerConnection*> connection();
    wire::messages::FetchRequest request() const;

    ObserverOptions _options;
    LogDecoder _decoder;
    int64_t _committed_offset;
    std::vector<MetadataEntry> _held;  // fetched, above the high watermark
    int32_t _leader_id = -1;
    int32_t _leader_epoch = -1;
    bool _refused_for_epoch = false;  // the last answer only taught the quorum's epoch
    std::optional<wire::BrokerAddress> _leader_address;
    size_t _next_controller = 0;  // the bootstrap entry to try when no leader is known
    std::unique_ptr<wire::BrokerConnection> _connection;
};

}  // namespace ballast::kafka::metadata_log
