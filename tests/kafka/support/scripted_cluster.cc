#include "tests/kafka/support/scripted_cluster.h"

#include <optional>

#include "adapters/kafka/wire/wire_reader.h"
#include "adapters/kafka/wire/wire_writer.h"

namespace ballast::testing {

namespace {

using kafka::wire::Reader;
using kafka::wire::Writer;

constexpr int16_t api_metadata = 3;
constexpr int16_t api_versions_key = 18;
constexpr int16_t api_list_reassignments = 46;
constexpr int16_t api_describe_cluster = 60;
constexpr int16_t api_describe_topic_partitions = 75;
constexpr int16_t unknown_topic_or_partition = 3;

kafka::wire::Uuid topic_id(const std::string& name) {
    // Stable and distinct enough for a test: the name's FNV-1a hash.
    uint64_t hash = 1469598103934665603ULL;
    for (const char c : name) hash = (hash ^ static_cast<uint8_t>(c)) * 1099511628211ULL;
    return kafka::wire::Uuid{static_cast<int64_t>(hash | 1), static_cast<int64_t>(hash * 31 + 7)};
}

/// A reader at the request's body, past header v2 (every API read here is
/// flexible in the versions the cluster offers).
Reader body_of(const ScriptedBroker::Request& request) {
    Reader reader(request.frame, "scripted request");
    reader.int16("api_key");
    reader.int16("api_version");
    reader.int32("correlation_id");
    const int16_t length = reader.int16("client_id");
    if (length > 0) reader.raw("client_id", static_cast<size_t>(length));
    reader.skip_tagged_fields(true);
    return reader;
}

/// Header v1 (flexible) or v0, then the body.
ScriptedBroker::Action respond(int32_t correlation_id, bool flexible, const std::vector<uint8_t>& body) {
    Writer out;
    out.int32(correlation_id);
    if (flexible) out.tagged_fields(true);
    out.raw(body);
    return ScriptedBroker::Action{ScriptedBroker::Action::respond, out.take()};
}

/// The fields Metadata v12 and DescribeTopicPartitions v0 both begin a partition with.
void partition_head(Writer& out, int32_t index, const ModelPartition& p) {
    out.int16(0);
    out.int32(index);
    out.int32(p.leader);
    out.int32(p.leader_epoch);
    out.int32_array(p.replicas, true);
    out.int32_array(p.isr, true);
}

/// Metadata v12's fields of one partition, and DescribeTopicPartitions v0's.
void metadata_partition(Writer& out, int32_t index, const ModelPartition& p) {
    partition_head(out, index, p);
    out.int32_array({}, true);  // offline
    out.tagged_fields(true);
}

void described_partition(Writer& out, int32_t index, const ModelPartition& p) {
    partition_head(out, index, p);
    out.nullable_array_length(std::nullopt, true);  // eligible leader replicas
    out.nullable_array_length(std::nullopt, true);  // last known ELR
    out.int32_array({}, true);                      // offline
    out.tagged_fields(true);
}

void metadata_brokers(Writer& out, const ClusterModel& model, int32_t port) {
    size_t alive = 0;
    for (const auto& [id, b] : model.brokers) alive += b.fenced ? 0 : 1;
    out.array_length(alive, true);
    for (const auto& [id, b] : model.brokers) {
        if (b.fenced) continue;
        out.int32(id);
        out.string("127.0.0.1", true);
        out.int32(port);
        out.nullable_string(b.rack.empty() ? std::nullopt : std::optional<std::string>(b.rack), true);
        out.tagged_fields(true);
    }
    out.nullable_string("scripted", true);
    out.int32(model.brokers.empty() ? -1 : model.brokers.begin()->first);
}

void metadata_topic(Writer& out, const std::string& name, const std::vector<ModelPartition>* partitions) {
    out.int16(partitions ? 0 : unknown_topic_or_partition);
    out.nullable_string(name, true);
    const kafka::wire::Uuid id = partitions ? topic_id(name) : kafka::wire::Uuid{};
    out.uuid(id);
    out.boolean(name.rfind("__", 0) == 0);
    if (partitions) {
        out.array_length(partitions->size(), true);
        for (size_t i = 0; i < partitions->size(); i++) {
            metadata_partition(out, static_cast<int32_t>(i), (*partitions)[i]);
        }
    } else {
        out.array_length(0, true);
    }
    out.int32(INT32_MIN);
    out.tagged_fields(true);
}

}  // namespace

ClusterModel generated_model(int32_t brokers, int32_t count, int32_t partitions, int32_t replication_factor) {
    ClusterModel model;
    for (int32_t b = 1; b <= brokers; b++) model.brokers[b] = ModelBroker{"rack-" + std::to_string(b % 3), false};
    char name[32];
    int64_t n = 0;
    for (int32_t t = 0; t < count; t++) {
        snprintf(name, sizeof name, "t%05d", t);
        std::vector<ModelPartition>& topic = model.topics[name];
        topic.reserve(static_cast<size_t>(partitions));
        for (int32_t p = 0; p < partitions; p++, n++) {
            ModelPartition partition;
            for (int32_t r = 0; r < replication_factor; r++) {
                partition.replicas.push_back(static_cast<int32_t>((n + r) % brokers) + 1);
            }
            partition.isr = partition.replicas;
            partition.leader = partition.replicas[0];
            topic.push_back(std::move(partition));
        }
    }
    return model;
}

ScriptedCluster::ScriptedCluster(ClusterModel model) : _model(std::move(model)) {
    _broker = std::make_unique<ScriptedBroker>([this](const ScriptedBroker::Request& r) { return handle(r); });
}

void ScriptedCluster::edit(const std::function<void(ClusterModel&)>& change) {
    std::lock_guard<std::mutex> lock(_mutex);
    change(_model);
    _model_version++;
}

int64_t ScriptedCluster::requests(int16_t api_key) const {
    std::lock_guard<std::mutex> lock(_mutex);
    auto it = _requests.find(api_key);
    return it == _requests.end() ? 0 : it->second;
}

int64_t ScriptedCluster::partitions_served() const {
    std::lock_guard<std::mutex> lock(_mutex);
    return _partitions_served;
}

ScriptedBroker::Action ScriptedCluster::handle(const ScriptedBroker::Request& request) {
    std::lock_guard<std::mutex> lock(_mutex);
    _requests[request.api_key]++;
    const int32_t id = request.correlation_id;
    switch (request.api_key) {
        case api_versions_key:
            return ScriptedBroker::api_versions(request, {{api_metadata, 0, 12},
                                                          {api_versions_key, 0, 4},
                                                          {api_list_reassignments, 0, 0},
                                                          {api_describe_cluster, 0, 2},
                                                          {api_describe_topic_partitions, 0, 0}});
        case api_metadata: {
            Reader reader = body_of(request);
            const std::optional<size_t> count = reader.nullable_array_length("topics", true);
            std::vector<std::string> names;
            for (size_t i = 0; count && i < *count && reader.ok(); i++) {
                reader.uuid("topic_id");
                names.push_back(reader.nullable_string("name", true).value_or(""));
                reader.skip_tagged_fields(true);
            }
            if (!count) {
                if (_full_metadata_version != _model_version) {
                    Writer out;
                    out.int32(0);
                    metadata_brokers(out, _model, port());
                    out.array_length(_model.topics.size(), true);
                    _model_partitions = 0;
                    for (const auto& [name, partitions] : _model.topics) {
                        metadata_topic(out, name, &partitions);
                        _model_partitions += partitions.size();
                    }
                    out.tagged_fields(true);
                    _full_metadata = out.take();
                    _full_metadata_version = _model_version;
                }
                _partitions_served += static_cast<int64_t>(_model_partitions);
                return respond(id, true, _full_metadata);
            }
            Writer out;
            out.int32(0);
            metadata_brokers(out, _model, port());
            out.array_length(names.size(), true);
            for (const std::string& name : names) {
                auto it = _model.topics.find(name);
                metadata_topic(out, name, it == _model.topics.end() ? nullptr : &it->second);
                if (it != _model.topics.end()) _partitions_served += static_cast<int64_t>(it->second.size());
            }
            out.tagged_fields(true);
            return respond(id, true, out.take());
        }
        case api_describe_cluster: {
            Writer out;
            out.int32(0);
            out.int16(0);
            out.nullable_string(std::nullopt, true);
            out.int8(1);  // brokers
            out.string("scripted", true);
            out.int32(_model.brokers.empty() ? -1 : _model.brokers.begin()->first);
            out.array_length(_model.brokers.size(), true);
            for (const auto& [broker, b] : _model.brokers) {
                out.int32(broker);
                out.string("127.0.0.1", true);
                out.int32(port());
                out.nullable_string(b.rack.empty() ? std::nullopt : std::optional<std::string>(b.rack), true);
                out.boolean(b.fenced);
                out.tagged_fields(true);
            }
            out.int32(INT32_MIN);
            out.tagged_fields(true);
            return respond(id, true, out.take());
        }
        case api_list_reassignments: {
            Writer out;
            out.int32(0);
            out.int16(0);
            out.nullable_string(std::nullopt, true);
            std::vector<std::pair<const std::string*, std::vector<int32_t>>> moving;
            for (const auto& [name, partitions] : _model.topics) {
                std::vector<int32_t> indexes;
                for (size_t i = 0; i < partitions.size(); i++) {
                    if (!partitions[i].adding.empty() || !partitions[i].removing.empty()) {
                        indexes.push_back(static_cast<int32_t>(i));
                    }
                }
                if (!indexes.empty()) moving.emplace_back(&name, std::move(indexes));
            }
            out.array_length(moving.size(), true);
            for (const auto& [name, indexes] : moving) {
                out.string(*name, true);
                out.array_length(indexes.size(), true);
                for (const int32_t i : indexes) {
                    const ModelPartition& p = _model.topics.at(*name)[static_cast<size_t>(i)];
                    out.int32(i);
                    out.int32_array(p.replicas, true);
                    out.int32_array(p.adding, true);
                    out.int32_array(p.removing, true);
                    out.tagged_fields(true);
                }
                out.tagged_fields(true);
            }
            out.tagged_fields(true);
            return respond(id, true, out.take());
        }
        case api_describe_topic_partitions: {
            Reader reader = body_of(request);
            const size_t asked = reader.array_length("topics", true);
            for (size_t i = 0; i < asked && reader.ok(); i++) {
                reader.string("name", true);
                reader.skip_tagged_fields(true);
            }
            const int32_t limit = std::min(reader.int32("response_partition_limit"), 2000);
            std::string from_topic;
            int32_t from_partition = 0;
            if (reader.int8("cursor") == 1) {
                from_topic = reader.string("topic_name", true);
                from_partition = reader.int32("partition_index");
            }
            // Every topic (Ballast asks for no topic by name), from the cursor on.
            Writer topics;
            size_t topic_count = 0;
            int32_t left = limit;
            std::optional<std::pair<std::string, int32_t>> next;
            for (auto it = _model.topics.lower_bound(from_topic); it != _model.topics.end(); ++it) {
                const std::vector<ModelPartition>& partitions = it->second;
                const int32_t first = it->first == from_topic ? from_partition : 0;
                if (left == 0) {
                    next.emplace(it->first, first);
                    break;
                }
                topic_count++;
                topics.int16(0);
                topics.nullable_string(it->first, true);
                topics.uuid(topic_id(it->first));
                topics.boolean(it->first.rfind("__", 0) == 0);
                const int32_t size = static_cast<int32_t>(partitions.size());
                const int32_t last = std::min(size, first + left);
                topics.array_length(static_cast<size_t>(std::max(0, last - first)), true);
                for (int32_t p = first; p < last; p++) {
                    described_partition(topics, p, partitions[static_cast<size_t>(p)]);
                }
                _partitions_served += std::max(0, last - first);
                left -= std::max(0, last - first);
                topics.int32(INT32_MIN);
                topics.tagged_fields(true);
                if (last < size) {
                    next.emplace(it->first, last);
                    break;
                }
            }
            Writer out;
            out.int32(0);
            out.array_length(topic_count, true);
            out.raw(topics.take());
            if (next) {
                out.int8(1);
                out.string(next->first, true);
                out.int32(next->second);
                out.tagged_fields(true);
            } else {
                out.int8(-1);
            }
            out.tagged_fields(true);
            return respond(id, true, out.take());
        }
        default: return ScriptedBroker::Action{ScriptedBroker::Action::close, {}};
    }
}

}  // namespace ballast::testing
