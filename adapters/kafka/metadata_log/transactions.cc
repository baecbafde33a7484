#include "adapters/kafka/metadata_log/transactions.h"

#include <utility>
#include <variant>

namespace ballast::kafka::metadata_log {

void TransactionGate::pass(std::vector<MetadataEntry>&& committed, std::vector<MetadataEntry>& out) {
    for (MetadataEntry& entry : committed) {
        const RecordBody& record = entry.record.body;
        if (std::holds_alternative<BeginTransactionRecord>(record)) {
            _open.clear();
            _open.push_back(std::move(entry));
        } else if (std::holds_alternative<AbortTransactionRecord>(record)) {
            _open.clear();
        } else if (std::holds_alternative<EndTransactionRecord>(record) && !_open.empty()) {
            for (MetadataEntry& held : _open) out.push_back(std::move(held));
            out.push_back(std::move(entry));
            _open.clear();
        } else if (!_open.empty()) {
            _open.push_back(std::move(entry));
        } else {
            out.push_back(std::move(entry));
        }
    }
}

}  // namespace ballast::kafka::metadata_log
