#pragma once

/// What the poller and the sampler ask of the cluster through the wire client
/// (so that they log in as the admin port does: SCRAM included, which
/// librdkafka before 2.6.1 cannot do against Kafka 4): the metadata of every
/// topic, and partitions' end offsets from their leaders.

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "adapters/kafka/metadata/cluster_state.h"
#include "adapters/kafka/wire/admin_client.h"
#include "events/result.h"

namespace ballast::kafka::metadata {

struct PartitionOffset {
    std::string topic;
    int32_t partition = -1;
    int64_t offset = -1;  // the end offset (next offset to be written); -1 when unknown
    int16_t error_code = 0;
};

/// Metadata (every topic, none created) from any broker, as the poller reads
/// it. Metadata changes nothing, so a call that failed on its connection is
/// made once more, on whichever broker opens next.
events::Result<Metadata> cluster_metadata(wire::AdminClient& admin, int64_t timeout_ms);
/// The same for the topics named only (a topic unknown to the broker comes
/// back with its error code).
events::Result<Metadata> topics_metadata(wire::AdminClient& admin, const std::set<std::string>& topics,
                                         int64_t timeout_ms);

/// The end offset of each partition (ListOffsets, latest, read_uncommitted:
/// the high watermark, every record written), one call per leader. Who leads
/// comes from a Metadata of the topics asked; partitions whose leader said it
/// no longer leads (a leader that just moved) are looked up and asked once
/// more. Per-partition failures come back with their error code; the whole
/// fails only when no leader could be learned.
events::Result<std::vector<PartitionOffset>> end_offsets(wire::AdminClient& admin,
                                                         const std::vector<wire::TopicPartitions>& partitions,
                                                         int64_t timeout_ms);

}  // namespace ballast::kafka::metadata
