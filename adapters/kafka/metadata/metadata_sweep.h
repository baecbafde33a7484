#pragma once

/// The incremental poller's slow full sweep: the whole cluster's partitions
/// read a page at a time with DescribeTopicPartitions (KIP-966), the pages
/// following Kafka's cursor (topics by name, then partitions), a few pages a
/// tick, so that every partition is read again once a sweep period without a
/// tick ever reading the whole cluster. Pure: the poller sends the requests
/// and hands each answer to `take`, the unit tests hand it made-up pages.
///
/// What a page says:
/// - a topic it holds whole (the next cursor does not point into it) is read:
///   its partitions replace the report's;
/// - a topic split over pages is gathered and read when its last page comes;
/// - a known topic whose name falls strictly between where the page started
///   and where the next starts (the end of the names when the sweep ends) is
///   gone: Kafka would have listed it. A topic on a page's edge is judged by
///   the next pass.
/// - a topic being gathered that the poller read whole meanwhile is read
///   again from its first partition (its gathered part is older).
/// - a topic answered with an error (being created, or deleted since) is
///   left as reported; the topic-scoped reads and the next pass settle it.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "adapters/kafka/metadata/cluster_state.h"
#include "adapters/kafka/wire/messages/describe_topic_partitions.h"

namespace ballast::kafka::metadata {

/// Topics one read learned: read whole, and known ones found gone.
struct TopicsRead {
    std::vector<MetadataTopic> topics;
    std::vector<std::string> deleted;
};

/// A topic's partitions as DescribeTopicPartitions lists them, in the
/// poller's observation form.
MetadataTopic metadata_topic(const wire::messages::DescribeTopicPartitionsTopic& topic);

class MetadataSweep {
public:
    /// The next page's request: from where the last page ended (the first
    /// page of a pass has no cursor), at most `partition_limit` partitions.
    wire::messages::DescribeTopicPartitionsRequest next_request(int32_t partition_limit) const;

    /// Takes the answer to next_request(): the topics read whole and the
    /// known topics (`known`: the report's) found gone go to `out`;
    /// returns the partitions the page held. A pass ends with the page that
    /// has no next cursor; the next page starts a new pass.
    size_t take(const wire::messages::DescribeTopicPartitionsResponse& page, const std::map<std::string, TopicState>& known,
                TopicsRead& out);

    /// `topic` was read whole by other means: partitions of it gathered
    /// before are older than that, and would undo it. The sweep reads the
    /// topic again from its first partition. No effect on other topics.
    void read_elsewhere(const std::string& topic);
    /// The same for every topic (a full read).
    void read_everything_elsewhere();

    /// Passes finished since construction.
    uint64_t passes_done() const { return _passes_done; }
    /// True when the next page starts a pass.
    bool at_start() const { return !_cursor.has_value(); }

private:
    std::optional<wire::messages::DescribeTopicPartitionsCursor> _cursor;
    /// The first pages of a topic the cursor is inside of.
    std::optional<MetadataTopic> _gathering;
    uint64_t _passes_done = 0;
};

}  // namespace ballast::kafka::metadata
