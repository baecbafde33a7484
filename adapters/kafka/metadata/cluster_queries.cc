#include "adapters/kafka/metadata/cluster_queries.h"

#include <chrono>
#include <map>
#include <set>

namespace ballast::kafka::metadata {

using events::ErrorCode;
using events::make_error;

namespace {

constexpr int16_t leader_not_available = 5;
constexpr int16_t not_leader_or_follower = 6;
constexpr int16_t fenced_leader_epoch = 74;
constexpr int16_t unknown_leader_epoch = 75;

/// Errors that mean the broker asked does not lead the partition (any more).
bool leader_moved(int16_t code) {
    return code == not_leader_or_follower || code == leader_not_available || code == fenced_leader_epoch ||
           code == unknown_leader_epoch || code == wire::error_codes::unknown_topic_or_partition;
}

int64_t ms_left(std::chrono::steady_clock::time_point deadline) {
    return std::max<int64_t>(
        1, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count());
}

events::Result<wire::messages::MetadataResponse> ask_metadata(wire::AdminClient& admin, const wire::messages::MetadataRequest& request,
                                                    int64_t timeout_ms) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    events::Result<wire::messages::MetadataResponse> answer = admin.metadata(request, timeout_ms);
    if (!answer) answer = admin.metadata(request, ms_left(deadline));
    if (answer && answer->error_code != 0) {
        return make_error(ErrorCode::io_error, "metadata request: " + wire::KafkaError{answer->error_code, {}}.to_string());
    }
    return answer;
}

using Leaders = std::map<std::pair<std::string, int32_t>, int32_t>;

events::Result<Leaders> leaders_of(wire::AdminClient& admin, const std::set<std::string>& topics, int64_t timeout_ms) {
    wire::messages::MetadataRequest request;
    request.topics.emplace();
    for (const std::string& topic : topics) request.topics->push_back({wire::Uuid{}, topic});
    request.allow_auto_topic_creation = false;
    events::Result<wire::messages::MetadataResponse> answer = ask_metadata(admin, request, timeout_ms);
    if (!answer) return answer.error();
    Leaders out;
    for (const wire::messages::MetadataResponseTopic& t : answer->topics) {
        if (!t.name) continue;
        for (const wire::messages::MetadataResponsePartition& p : t.partitions) out[{*t.name, p.partition_index}] = p.leader_id;
    }
    return out;
}

}  // namespace

namespace {

events::Result<Metadata> metadata_of(wire::AdminClient& admin, const wire::messages::MetadataRequest& request,
                                     int64_t timeout_ms) {
    events::Result<wire::messages::MetadataResponse> answer = ask_metadata(admin, request, timeout_ms);
    if (!answer) return make_error(answer.error().code, "metadata request: " + answer.error().message);
    Metadata out;
    for (const wire::messages::MetadataResponseBroker& b : answer->brokers) out.brokers.push_back({b.node_id, b.host, b.port});
    for (wire::messages::MetadataResponseTopic& t : answer->topics) {
        if (!t.name) continue;  // only a topic asked by an unknown id has none
        MetadataTopic topic;
        topic.name = std::move(*t.name);
        topic.error_code = t.error_code;
        for (wire::messages::MetadataResponsePartition& p : t.partitions) {
            MetadataPartition partition;
            partition.id = p.partition_index;
            partition.error_code = p.error_code;
            partition.leader = p.leader_id;
            partition.replicas = std::move(p.replica_nodes);
            partition.isr = std::move(p.isr_nodes);
            partition.leader_epoch = p.leader_epoch;
            topic.partitions.push_back(std::move(partition));
        }
        out.topics.push_back(std::move(topic));
    }
    return out;
}

}  // namespace

events::Result<Metadata> cluster_metadata(wire::AdminClient& admin, int64_t timeout_ms) {
    wire::messages::MetadataRequest request;  // every topic
    request.allow_auto_topic_creation = false;
    return metadata_of(admin, request, timeout_ms);
}

events::Result<Metadata> topics_metadata(wire::AdminClient& admin, const std::set<std::string>& topics,
                                         int64_t timeout_ms) {
    wire::messages::MetadataRequest request;
    request.topics.emplace();
    for (const std::string& topic : topics) request.topics->push_back({wire::Uuid{}, topic});
    request.allow_auto_topic_creation = false;
    return metadata_of(admin, request, timeout_ms);
}

events::Result<std::vector<PartitionOffset>> end_offsets(wire::AdminClient& admin,
                                                         const std::vector<wire::TopicPartitions>& partitions,
                                                         int64_t timeout_ms) {
    std::vector<PartitionOffset> out;
    std::set<std::string> topics;
    for (const wire::TopicPartitions& t : partitions) {
        if (!t.partitions.empty()) topics.insert(t.topic);
    }
    if (topics.empty()) return out;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    events::Result<Leaders> leaders = leaders_of(admin, topics, timeout_ms);
    if (!leaders) return leaders.error();

    // Partition by partition: its answer, or the error that kept it from one.
    std::map<std::pair<std::string, int32_t>, PartitionOffset> answers;
    for (const wire::TopicPartitions& t : partitions) {
        for (const int32_t p : t.partitions) answers[{t.topic, p}] = {t.topic, p, -1, leader_not_available};
    }
    auto ask = [&](const std::set<std::pair<std::string, int32_t>>& wanted) {
        std::map<int32_t, wire::messages::ListOffsetsRequest> by_leader;
        for (const auto& key : wanted) {
            auto leader = leaders->find(key);
            if (leader == leaders->end() || leader->second < 0) continue;  // no leader now: leader_not_available
            wire::messages::ListOffsetsRequest& request = by_leader[leader->second];
            if (request.topics.empty() || request.topics.back().name != key.first) request.topics.push_back({key.first, {}});
            request.topics.back().partitions.push_back({key.second, -1, wire::messages::list_offsets_timestamp::latest});
        }
        for (const auto& [leader, request] : by_leader) {
            events::Result<wire::messages::ListOffsetsResponse> answer = admin.list_offsets(leader, request, ms_left(deadline));
            if (!answer) continue;  // the broker did not answer: its partitions keep their error
            for (const wire::messages::ListOffsetsTopicResponse& t : answer->topics) {
                for (const wire::messages::ListOffsetsPartitionResponse& p : t.partitions) {
                    auto it = answers.find({t.name, p.partition_index});
                    if (it == answers.end()) continue;
                    it->second.error_code = p.error.code;
                    it->second.offset = p.error.ok() ? p.offset : -1;
                }
            }
        }
    };
    std::set<std::pair<std::string, int32_t>> wanted;
    for (const auto& [key, answer] : answers) wanted.insert(key);
    ask(wanted);
    // A leader that moved since the metadata was read: learn it again, ask once more.
    std::set<std::pair<std::string, int32_t>> again;
    std::set<std::string> again_topics;
    for (const auto& [key, answer] : answers) {
        if (leader_moved(answer.error_code)) {
            again.insert(key);
            again_topics.insert(key.first);
        }
    }
    if (!again.empty() && std::chrono::steady_clock::now() < deadline) {
        if (events::Result<Leaders> fresh = leaders_of(admin, again_topics, ms_left(deadline)); fresh) {
            leaders = std::move(fresh);
            ask(again);
        }
    }
    for (auto& [key, answer] : answers) out.push_back(std::move(answer));
    return out;
}

}  // namespace ballast::kafka::metadata
