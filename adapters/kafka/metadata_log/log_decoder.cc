#include "adapters/kafka/metadata_log/log_decoder.h"

#include <algorithm>
#include <utility>

namespace ballast::kafka::metadata_log {

Result<size_t> LogDecoder::decode(Bytes bytes, std::vector<MetadataEntry>& out) {
    size_t used_bytes = 0;
    while (used_bytes < bytes.size()) {
        Result<size_t> taken = decode_batch(bytes.subspan(used_bytes), _batch);
        if (!taken.ok()) return taken.error();
        if (*taken == 0) break;  // a partial batch: the next fetch brings it whole
        used_bytes += *taken;
        const BatchHeader& header = _batch.header;
        if (header.last_offset() < _next_offset) continue;  // before the position
        ++_counts.batches;
        _last_epoch = header.partition_leader_epoch;
        if (header.control()) {
            ++_counts.control_batches;
            _next_offset = header.last_offset() + 1;
            continue;
        }
        for (const Record& record : _batch.records) {
            if (record.offset < _next_offset) continue;
            if (!record.value) {
                return events::make_error(ErrorCode::corruption,
                                          "metadata record at offset " +
                                              std::to_string(record.offset) + " has a null value");
            }
            Result<DecodedRecord> decoded = decode_record(*record.value);
            if (!decoded.ok()) {
                return events::make_error(decoded.error().code,
                                          "metadata record at offset " +
                                              std::to_string(record.offset) + ": " +
                                              decoded.error().message);
            }
            if (auto* skipped = std::get_if<SkippedRecord>(&*decoded)) {
                if (skipped->reason == SkipReason::not_needed) {
                    ++_counts.not_needed;
                } else {
                    ++_counts.unknown_skipped;
                    if (_warned_api_keys.insert(skipped->api_key).second) {
                        _warnings.push_back(
                            "metadata record at offset " + std::to_string(record.offset) +
                            ": " + record_type_name(skipped->api_key) + " version " +
                            std::to_string(skipped->version) +
                            (skipped->reason == SkipReason::unknown_type
                                 ? ": a record type newer than Kafka 4.1's"
                                 : ": newer than the versions Ballast reads (0-" +
                                       std::to_string(highest_version(
                                           static_cast<RecordType>(skipped->api_key))) +
                                       ")") +
                            "; records of this type are skipped (warned once)");
                    }
                }
            } else {
                ++_counts.records;
                out.push_back(MetadataEntry{record.offset, record.timestamp_ms,
                                            header.partition_leader_epoch,
                                            std::get<MetadataRecord>(std::move(*decoded))});
            }
            _next_offset = record.offset + 1;
        }
        // Offsets a batch skips (none in a metadata log, which is never compacted) are
        // passed with it.
        _next_offset = std::max(_next_offset, header.last_offset() + 1);
    }
    return used_bytes;
}

}  // namespace ballast::kafka::metadata_log
