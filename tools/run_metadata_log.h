#pragma once

/// `ballast run`'s choice of metadata source and, for KRaft's metadata log,
/// where the reader resumes: the picture of the cluster rebuilt from the
/// journal's `kafka_metadata_log` events (adapters/kafka/metadata/log_translator.h),
/// whose offsets say how far the log was read.

#include <cstdint>
#include <string>

#include "adapters/kafka/metadata/log_translator.h"
#include "events/config.h"
#include "events/result.h"
#include "store/journal.h"

namespace ballast::tools {

enum class MetadataSource : uint8_t { poll, kraft };

/// `ballast.metadata.source` with `--bootstrap-controller` (empty: not
/// given): auto is kraft with controllers, else poll; kraft without them is
/// an error naming both.
events::Result<MetadataSource> metadata_source(const events::Config& config, const std::string& controllers);

struct ResumedLog {
    kafka::metadata::LogPicture picture;
    /// The journal holds every event since its first (nothing cut by
    /// retention, no start from a leader's snapshot): the picture is whole.
    /// Otherwise the reader rebuilds it from Kafka's log (LogTranslator's
    /// rebuild_from_log).
    bool whole = true;
    uint64_t events_read = 0;  // kafka_metadata_log events found
};

/// Reads the journal's `kafka_metadata_log` events in order (one walk;
/// other events are passed over by their header, not decoded).
events::Result<ResumedLog> resume_from_journal(const store::Journal& journal);

}  // namespace ballast::tools
