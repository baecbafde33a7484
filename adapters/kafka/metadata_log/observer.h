#pragma once

/// A raft observer of KRaft's metadata log: Fetch of `__cluster_metadata` from the
/// controller quorum's leader, on the controller listener, as replica -1 (an observer that
/// is no voter; the leader keeps no state for it). Each `poll` is one request: the leader
/// answers with what follows the position (or waits up to `max_wait_ms` for it), and the
/// observer hands out the records below the quorum's high watermark, the committed ones,
/// keeping those above it until the watermark passes them. A leader change is followed:
/// a refused epoch gives the current leader and its epoch, and v16+ answers say where it
/// listens; an unreachable leader sends the next poll to the next bootstrap controller. A
/// diverging epoch (the log was truncated above the committed part) drops what was held
/// above it.
///
/// A position older than the log's start (Kafka deleted the segments behind a snapshot)
/// is answered with the snapshot to read instead: the next polls fetch it in chunks
/// (FetchSnapshot), and the one that completes it hands out the whole cluster as of the
/// snapshot's end (`PollResult::image`); fetching then goes on from the snapshot's end
/// offset. Records of a metadata transaction are handed out together when its End is
/// committed, none of an aborted one (`transactions.h`). Not thread-safe: one owner.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "adapters/kafka/metadata_log/log_decoder.h"
#include "adapters/kafka/metadata_log/snapshot_reader.h"
#include "adapters/kafka/metadata_log/transactions.h"
#include "adapters/kafka/wire/admin_client.h"
#include "adapters/kafka/wire/broker_connection.h"
#include "adapters/kafka/wire/messages/fetch.h"
#include "adapters/kafka/wire/messages/fetch_snapshot.h"

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
    /// The most bytes one answer carries (a Fetch answer at least one whole batch; a
    /// FetchSnapshot chunk is cut at this size).
    int32_t max_bytes = 8 << 20;
    /// One Fetch, connecting included, takes at most this long (past `max_wait_ms`).
    int64_t call_timeout_ms = 10000;
};

struct PollResult {
    std::vector<MetadataEntry> entries;  // committed, in offset order
    int64_t high_watermark = -1;
    int32_t leader_id = -1;
    int32_t leader_epoch = -1;
    bool image = false;  ///< entries are the whole cluster as of the snapshot's end: what is not in them is gone
};

class MetadataLogObserver {
public:
    /// Reads from `next_offset`; `last_fetched_epoch` is the epoch of the batch before it
    /// (-1 at the log's start, where the leader accepts any).
    MetadataLogObserver(ObserverOptions options, int64_t next_offset = 0,
                        int32_t last_fetched_epoch = 0);

    /// One Fetch, or one FetchSnapshot chunk while a snapshot is read. Errors name the
    /// controller asked and what failed: unreachable, not authorized (ClusterAction on the
    /// cluster), a record that does not decode (by offset), a snapshot that does not (by
    /// snapshot and byte). An image's entries all carry the snapshot's end offset - 1.
    Result<PollResult> poll();

    /// The offset after the last committed record handed out (or the Begin of a
    /// transaction not yet handed out: reading again from here loses nothing).
    int64_t committed_offset() const { return _committed_offset; }
    /// One warning per record type this decoder does not know, the first time it is met.
    std::vector<std::string> take_warnings();
    const DecodeCounts& counts() const { return _decoder.counts(); }

private:
    Result<PollResult> fetch_once();
    Result<PollResult> fetch_snapshot_chunk();
    Result<wire::BrokerConnection*> connection();
    wire::messages::FetchRequest request() const;
    /// Takes the leader an answer names, and its endpoint if listed: the next poll asks it.
    void follow(const std::optional<wire::messages::FetchLeader>& leader,
                const std::vector<std::pair<int32_t, wire::BrokerAddress>>& endpoints,
                const wire::BrokerConnection& asked);
    PollResult result_header(int64_t high_watermark) const;

    ObserverOptions _options;
    LogDecoder _decoder;
    int64_t _committed_offset;
    std::vector<MetadataEntry> _held;  // fetched, above the high watermark
    TransactionGate _transactions;     // committed, in a transaction not yet ended
    std::optional<SnapshotReader> _snapshot;  // being read, instead of the log
    std::vector<std::string> _snapshot_warnings;
    int32_t _leader_id = -1;
    int32_t _leader_epoch = -1;
    bool _refused_for_epoch = false;  // the last answer only taught the quorum's epoch
    std::optional<wire::BrokerAddress> _leader_address;
    size_t _next_controller = 0;  // the bootstrap entry to try when no leader is known
    std::unique_ptr<wire::BrokerConnection> _connection;
};

}  // namespace ballast::kafka::metadata_log
