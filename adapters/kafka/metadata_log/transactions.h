#pragma once

/// Metadata transactions (KIP-868): the controller writes a change too large for one batch
/// (a topic of many partitions, a migration) between a BeginTransactionRecord and an
/// EndTransactionRecord, which may lie many batches and many Fetch answers apart; readers
/// apply the records between them together, at the End, and none of them after an
/// AbortTransactionRecord (the controller failed over halfway). `TransactionGate` holds the
/// committed records of an open transaction and lets them through, with their Begin and End,
/// only once the End is read. Pure.

#include <cstdint>
#include <optional>
#include <vector>

#include "adapters/kafka/metadata_log/log_decoder.h"

namespace ballast::kafka::metadata_log {

class TransactionGate {
public:
    /// Appends to `out` the entries of `committed` (in offset order) that apply now: those
    /// outside a transaction at once, a transaction's whole at its End; drops an aborted
    /// one. A Begin inside an open transaction (never written by Kafka) aborts the first.
    void pass(std::vector<MetadataEntry>&& committed, std::vector<MetadataEntry>& out);

    /// The offset of the open transaction's Begin: a reader that restarts must read again
    /// from there, since nothing of the transaction was handed out.
    std::optional<int64_t> open_since() const {
        if (_open.empty()) return std::nullopt;
        return _open.front().offset;
    }
    /// Forgets an open transaction (a snapshot replaces everything before it).
    void reset() { _open.clear(); }

private:
    std::vector<MetadataEntry> _open;  // from the Begin on, while a transaction is open
};

}  // namespace ballast::kafka::metadata_log
