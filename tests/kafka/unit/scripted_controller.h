#pragma once

/// A controller quorum's leader played from a script on a real loopback socket, for the
/// observer's tests (`observer_test.cc`, `observer_snapshot_test.cc`): each Fetch answered
/// with the next `Answer` (FetchResponse v18, built field by field), each FetchSnapshot with
/// the next chunk of a snapshot's bytes, cut at the `max_bytes` the observer asks. Also the
/// batches such a leader sends, encoded as Kafka's MemoryRecordsBuilder writes them
/// (`encode_batch`, checked against Kafka's own bytes in `record_batch_test.cc`).

#include <algorithm>
#include <functional>
#include <mutex>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "adapters/kafka/metadata_log/observer.h"
#include "adapters/kafka/metadata_log/record_batch.h"
#include "adapters/kafka/wire/protocol_header.h"
#include "tests/kafka/support/kafka_vectors.h"
#include "tests/kafka/support/scripted_broker.h"

namespace ballast::kafka::metadata_log {

using testing::kafka_vectors;
using testing::ScriptedBroker;
using Action = ScriptedBroker::Action;

inline constexpr int16_t fetch_version = 18;
inline constexpr int16_t fetch_snapshot_version = 1;

/// ApiVersions v3+ answered with Fetch 4-18, ApiVersions 0-4 and FetchSnapshot 0-1, as a
/// 4.1 controller lists them (response header v0, then the body).
inline Action api_versions(const ScriptedBroker::Request& request) {
    wire::Writer out;
    out.int32(request.correlation_id);
    out.int16(0);
    out.array_length(3, true);
    for (auto [key, min, max] :
         {std::tuple<int16_t, int16_t, int16_t>{1, 4, 18}, {18, 0, 4}, {59, 0, 1}}) {
        out.int16(key);
        out.int16(min);
        out.int16(max);
        out.tagged_fields(true);
    }
    out.int32(0);  // throttle
    out.tagged_fields(true);
    return Action{Action::respond, out.take()};
}

struct Answer {
    int16_t top_error = 0;
    int16_t error = 0;
    int64_t high_watermark = -1;
    wire::messages::FetchLeader leader{100, 5};
    std::optional<wire::messages::FetchEpochEndOffset> diverging;
    std::optional<wire::messages::FetchEpochEndOffset> snapshot;
    bool records = false;                       // batch.metadata
    std::optional<std::vector<uint8_t>> batches;  // these bytes instead
};

inline Answer answer(const std::function<void(Answer&)>& fill) {
    Answer out;
    fill(out);
    return out;
}

/// FetchResponse v18 (response header v1) for the metadata topic's partition 0.
inline Action fetch_answer(const ScriptedBroker::Request& request, const Answer& answer) {
    wire::Writer out;
    out.int32(request.correlation_id);
    out.tagged_fields(true);
    out.int32(0);
    out.int16(answer.top_error);
    out.int32(0);
    out.array_length(1, true);
    out.uuid(wire::messages::metadata_topic_id);
    out.array_length(1, true);
    out.int32(0);
    out.int16(answer.error);
    out.int64(answer.high_watermark);
    out.int64(-1);
    out.int64(0);
    out.nullable_array_length(std::nullopt, true);  // aborted transactions
    out.int32(-1);
    if (answer.batches) {
        out.bytes(*answer.batches, true);
    } else if (answer.records) {
        out.bytes(kafka_vectors().at("batch.metadata"), true);
    } else {
        out.uvarint(0);  // null
    }
    wire::TaggedFields tagged;
    if (answer.diverging) {
        wire::Writer& field = tagged.add(0);
        field.int32(answer.diverging->epoch);
        field.int64(answer.diverging->end_offset);
        field.tagged_fields(true);
    }
    wire::Writer& leader = tagged.add(1);
    leader.int32(answer.leader.leader_id);
    leader.int32(answer.leader.leader_epoch);
    leader.tagged_fields(true);
    if (answer.snapshot) {
        wire::Writer& field = tagged.add(2);
        field.int64(answer.snapshot->end_offset);
        field.int32(answer.snapshot->epoch);
        field.tagged_fields(true);
    }
    tagged.write_to(out);
    out.tagged_fields(true);  // topic
    out.tagged_fields(true);  // response: no node endpoints
    return Action{Action::respond, out.take()};
}

/// The Fetch the observer should send for this position.
inline std::vector<uint8_t> expected_fetch(int32_t correlation_id, int32_t leader_epoch,
                                           int64_t offset, int32_t last_epoch,
                                           int32_t max_bytes = 8 << 20) {
    wire::messages::FetchRequest request;
    request.max_wait_ms = 50;
    request.min_bytes = 1;
    request.max_bytes = max_bytes;
    wire::messages::FetchRequestTopic& topic = request.topics.emplace_back();
    topic.topic_id = wire::messages::metadata_topic_id;
    wire::messages::FetchRequestPartition& partition = topic.partitions.emplace_back();
    partition.current_leader_epoch = leader_epoch;
    partition.fetch_offset = offset;
    partition.last_fetched_epoch = last_epoch;
    partition.partition_max_bytes = max_bytes;
    wire::Writer out;
    wire::encode_request_header({wire::ApiKey::fetch, fetch_version, correlation_id, "ballast"}, out);
    EXPECT_TRUE(wire::messages::Fetch::encode(request, fetch_version, out).ok());
    return out.take();
}

/// The FetchSnapshot the observer should send for this chunk.
inline std::vector<uint8_t> expected_fetch_snapshot(int32_t correlation_id, int32_t leader_epoch,
                                                    wire::messages::FetchEpochEndOffset id,
                                                    int64_t position, int32_t max_bytes) {
    wire::messages::FetchSnapshotRequest request;
    request.max_bytes = max_bytes;
    wire::messages::FetchSnapshotRequestPartition& partition =
        request.topics.emplace_back(wire::messages::FetchSnapshotRequestTopic{
                                        wire::messages::metadata_topic_name, {}})
            .partitions.emplace_back();
    partition.current_leader_epoch = leader_epoch;
    partition.snapshot_id = id;
    partition.position = position;
    wire::Writer out;
    wire::encode_request_header(
        {wire::ApiKey::fetch_snapshot, fetch_snapshot_version, correlation_id, "ballast"}, out);
    EXPECT_TRUE(wire::messages::FetchSnapshot::encode(request, fetch_snapshot_version, out).ok());
    return out.take();
}

/// A FetchSnapshot's position and max bytes, read from its frame (request header v2).
inline std::pair<int64_t, int32_t> snapshot_chunk_asked(const ScriptedBroker::Request& request) {
    wire::Reader in(request.frame, "FetchSnapshotRequest");
    in.int16("api_key");
    in.int16("api_version");
    in.int32("correlation_id");
    in.nullable_string("client_id", false);
    in.skip_tagged_fields(true);
    in.int32("replica_id");
    const int32_t max_bytes = in.int32("max_bytes");
    in.array_length("topics", true);
    in.string("name", true);
    in.array_length("partitions", true);
    in.int32("partition");
    in.int32("current_leader_epoch");
    in.int64("end_offset");
    in.int32("epoch");
    in.skip_tagged_fields(true);
    const int64_t position = in.int64("position");
    EXPECT_TRUE(in.ok()) << in.status().error().to_string();
    return {position, max_bytes};
}

/// FetchSnapshotResponse v1: `bytes[position, position + max_bytes)` of the snapshot `id`.
inline Action snapshot_answer(const ScriptedBroker::Request& request,
                              wire::messages::FetchEpochEndOffset id,
                              const std::vector<uint8_t>& bytes, wire::messages::FetchLeader leader,
                              int16_t error = 0) {
    const auto [position, max_bytes] = snapshot_chunk_asked(request);
    const size_t from = std::min(static_cast<size_t>(std::max<int64_t>(position, 0)), bytes.size());
    const size_t count = std::min(bytes.size() - from, static_cast<size_t>(std::max(max_bytes, 0)));
    wire::Writer out;
    out.int32(request.correlation_id);
    out.tagged_fields(true);
    out.int32(0);
    out.int16(0);
    out.array_length(1, true);
    out.string(wire::messages::metadata_topic_name, true);
    out.array_length(1, true);
    out.int32(0);
    out.int16(error);
    out.int64(id.end_offset);
    out.int32(id.epoch);
    out.tagged_fields(true);
    out.int64(error == 0 ? static_cast<int64_t>(bytes.size()) : -1);
    out.int64(error == 0 ? position : -1);
    out.bytes(error == 0 ? std::span<const uint8_t>(bytes).subspan(from, count)
                         : std::span<const uint8_t>(),
              true);
    wire::TaggedFields tagged;
    wire::Writer& current = tagged.add(0);
    current.int32(leader.leader_id);
    current.int32(leader.leader_epoch);
    current.tagged_fields(true);
    tagged.write_to(out);
    out.tagged_fields(true);  // topic
    out.tagged_fields(true);  // response: no node endpoints
    return Action{Action::respond, out.take()};
}

/// A controller answering each Fetch with the next of `answers` (the last one again after),
/// and each FetchSnapshot with a chunk of `snapshot` (SNAPSHOT_NOT_FOUND for the first
/// `snapshot_not_found` of them).
class ScriptedController {
public:
    explicit ScriptedController(std::vector<Answer> answers,
                                std::vector<uint8_t> snapshot = {},
                                wire::messages::FetchEpochEndOffset snapshot_id = {},
                                int snapshot_not_found = 0)
        : _answers(std::move(answers)),
          _snapshot(std::move(snapshot)),
          _snapshot_id(snapshot_id),
          _snapshot_not_found(snapshot_not_found),
          _broker([this](const ScriptedBroker::Request& request) {
              if (request.api_key == 18) return api_versions(request);
              std::lock_guard lock(_mutex);
              if (request.api_key == 59) {
                  const int16_t error = _snapshot_not_found-- > 0 ? 98 : 0;  // SNAPSHOT_NOT_FOUND
                  return snapshot_answer(request, _snapshot_id, _snapshot, {100, 5}, error);
              }
              const Answer& answer = _answers[std::min(_fetches++, _answers.size() - 1)];
              return fetch_answer(request, answer);
          }) {}

    MetadataLogObserver observer(int64_t offset, int32_t last_epoch, int32_t max_bytes = 8 << 20) {
        ObserverOptions options;
        options.controllers = {{"127.0.0.1", _broker.port()}};
        options.max_wait_ms = 50;
        options.max_bytes = max_bytes;
        options.call_timeout_ms = 5000;
        return MetadataLogObserver(options, offset, last_epoch);
    }

    /// The requests received with this api key (1 Fetch, 59 FetchSnapshot), frames after
    /// the size prefix.
    std::vector<ScriptedBroker::Request> requests(int16_t api_key = 1) const {
        std::vector<ScriptedBroker::Request> out;
        for (const auto& request : _broker.requests()) {
            if (request.api_key == api_key) out.push_back(request);
        }
        return out;
    }
    std::vector<ScriptedBroker::Request> fetches() const { return requests(1); }

private:
    std::vector<Answer> _answers;
    std::vector<uint8_t> _snapshot;
    wire::messages::FetchEpochEndOffset _snapshot_id;
    int _snapshot_not_found;
    std::mutex _mutex;
    size_t _fetches = 0;
    ScriptedBroker _broker;
};

inline std::vector<int64_t> offsets(const std::vector<MetadataEntry>& entries) {
    std::vector<int64_t> out;
    for (const MetadataEntry& entry : entries) out.push_back(entry.offset);
    return out;
}

/// One batch of `records` from `base_offset`, written in quorum epoch `epoch`; `control`:
/// a control batch (its records' bytes are not read by the decoder).
inline std::vector<uint8_t> batch(int64_t base_offset, int32_t epoch,
                                  const std::vector<MetadataRecord>& records, bool control = false) {
    std::vector<std::vector<uint8_t>> values;
    for (const MetadataRecord& record : records) {
        Result<std::vector<uint8_t>> encoded = encode_record(record);
        EXPECT_TRUE(encoded.ok()) << encoded.error().to_string();
        values.push_back(encoded.ok() ? *encoded : std::vector<uint8_t>{});
    }
    BatchHeader header;
    header.base_offset = base_offset;
    header.partition_leader_epoch = epoch;
    header.base_timestamp_ms = 1700000000000;
    if (control) header.attributes = 0x20;
    std::vector<Record> batch_records;
    for (size_t i = 0; i < values.size(); ++i) {
        Record& record = batch_records.emplace_back();
        record.offset = base_offset + static_cast<int64_t>(i);
        record.timestamp_ms = header.base_timestamp_ms;
        record.value = values[i];
    }
    return encode_batch(header, batch_records);
}

inline std::vector<uint8_t> joined(std::initializer_list<std::vector<uint8_t>> parts) {
    std::vector<uint8_t> out;
    for (const std::vector<uint8_t>& part : parts) out.insert(out.end(), part.begin(), part.end());
    return out;
}

inline MetadataRecord topic_record(const std::string& name, int64_t id) {
    return MetadataRecord{0, TopicRecord{name, wire::Uuid{0, id}}};
}

}  // namespace ballast::kafka::metadata_log
