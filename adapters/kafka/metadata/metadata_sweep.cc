#include "adapters/kafka/metadata/metadata_sweep.h"

#include <iterator>
#include <set>

namespace ballast::kafka::metadata {

MetadataTopic metadata_topic(const wire::messages::DescribeTopicPartitionsTopic& topic) {
    MetadataTopic out;
    out.name = topic.name.value_or("");
    out.error_code = topic.error_code;
    out.partitions.reserve(topic.partitions.size());
    for (const wire::messages::DescribeTopicPartitionsPartition& p : topic.partitions) {
        MetadataPartition partition;
        partition.id = p.partition_index;
        partition.error_code = p.error_code;
        partition.leader = p.leader_id;
        partition.replicas = p.replica_nodes;
        partition.isr = p.isr_nodes;
        partition.leader_epoch = p.leader_epoch;
        out.partitions.push_back(std::move(partition));
    }
    return out;
}

wire::messages::DescribeTopicPartitionsRequest MetadataSweep::next_request(int32_t partition_limit) const {
    wire::messages::DescribeTopicPartitionsRequest request;  // every topic
    request.response_partition_limit = partition_limit;
    request.cursor = _cursor;
    return request;
}

void MetadataSweep::read_elsewhere(const std::string& topic) {
    if (!_gathering || _gathering->name != topic) return;
    _cursor = wire::messages::DescribeTopicPartitionsCursor{topic, 0};
    _gathering.reset();
}

void MetadataSweep::read_everything_elsewhere() {
    if (_gathering) read_elsewhere(_gathering->name);
}

size_t MetadataSweep::take(const wire::messages::DescribeTopicPartitionsResponse& page,
                           const std::map<std::string, TopicState>& known, TopicsRead& out) {
    const std::optional<wire::messages::DescribeTopicPartitionsCursor>& next = page.next_cursor;
    // Known topics strictly between this page's start and the next's are gone.
    const std::string from = _cursor ? _cursor->topic_name : std::string();
    std::set<std::string> listed;
    size_t partitions = 0;
    for (const wire::messages::DescribeTopicPartitionsTopic& t : page.topics) {
        if (!t.name) continue;
        listed.insert(*t.name);
        partitions += t.partitions.size();
    }
    auto it = _cursor ? known.upper_bound(from) : known.begin();
    for (; it != known.end(); ++it) {
        if (next && it->first >= next->topic_name) break;
        if (!listed.count(it->first)) out.deleted.push_back(it->first);
    }

    for (const wire::messages::DescribeTopicPartitionsTopic& t : page.topics) {
        if (!t.name) continue;
        MetadataTopic topic = metadata_topic(t);
        if (_gathering && _gathering->name == topic.name) {
            // The rest of a topic a previous page began.
            if (topic.error_code == 0) {
                topic.partitions.insert(topic.partitions.begin(),
                                        std::make_move_iterator(_gathering->partitions.begin()),
                                        std::make_move_iterator(_gathering->partitions.end()));
            }
        }
        _gathering.reset();
        if (topic.error_code != 0) continue;  // left as reported
        if (next && next->topic_name == topic.name) {
            _gathering = std::move(topic);  // continues on the next page
            continue;
        }
        out.topics.push_back(std::move(topic));
    }
    if (!next) {
        _passes_done++;
        _gathering.reset();
    }
    _cursor = next;
    return partitions;
}

}  // namespace ballast::kafka::metadata
