#pragma once

/// Metadata logs generated for the benchmarks, as Kafka's controllers write them: no key,
/// one framed record a value, up to 1,000 records a batch, offsets from 0.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "adapters/kafka/metadata_log/metadata_records.h"
#include "adapters/kafka/metadata_log/record_batch.h"

namespace ballast::bench {

namespace metadata_log = kafka::metadata_log;

inline constexpr size_t records_per_batch = 1000;
inline constexpr int64_t append_time_ms = 1733356800000;

inline metadata_log::Uuid uuid_of(int64_t i) {
    return metadata_log::Uuid{0x0102030405060708 + i, 0x1112131415161718 ^ i};
}

/// `topics` TopicRecords, each followed by `partitions` PartitionRecords (v2: 3 replicas
/// over 30 brokers, ISR of 3, a directory a replica): what a new observer reads from the
/// log's start.
inline std::vector<metadata_log::MetadataRecord> topics_log(int64_t topics, int32_t partitions) {
    std::vector<metadata_log::MetadataRecord> records;
    records.reserve(static_cast<size_t>(topics * (partitions + 1)));
    for (int64_t topic = 0; topic < topics; ++topic) {
        records.push_back({0, metadata_log::TopicRecord{"topic-" + std::to_string(topic), uuid_of(topic)}});
        for (int32_t p = 0; p < partitions; ++p) {
            metadata_log::PartitionRecord partition;
            partition.partition_id = p;
            partition.topic_id = uuid_of(topic);
            const int32_t first = (p + static_cast<int32_t>(topic)) % 30;
            partition.replicas = {first, (first + 1) % 30, (first + 2) % 30};
            partition.isr = partition.replicas;
            partition.leader = first;
            partition.leader_epoch = 3;
            partition.partition_epoch = 5;
            partition.directories = {uuid_of(100 + first), uuid_of(101 + first), uuid_of(102 + first)};
            records.push_back({2, partition});
        }
    }
    return records;
}

/// The records as batches of `records_per_batch` written by a leader of `leader_epoch`,
/// each batch's bytes handed to `on_batch` in offset order.
template <class OnBatch>
void for_each_batch(const std::vector<metadata_log::MetadataRecord>& records, int32_t leader_epoch,
                    OnBatch&& on_batch) {
    std::vector<std::vector<uint8_t>> values;
    for (size_t start = 0; start < records.size(); start += records_per_batch) {
        const size_t end = std::min(records.size(), start + records_per_batch);
        values.clear();
        std::vector<metadata_log::Record> batch_records;
        for (size_t i = start; i < end; ++i) values.push_back(metadata_log::encode_record(records[i]).value());
        for (size_t i = start; i < end; ++i) {
            metadata_log::Record& record = batch_records.emplace_back();
            record.offset = static_cast<int64_t>(i);
            record.timestamp_ms = append_time_ms;
            record.value = metadata_log::Bytes(values[i - start]);
        }
        metadata_log::BatchHeader header;
        header.base_offset = static_cast<int64_t>(start);
        header.partition_leader_epoch = leader_epoch;
        header.base_timestamp_ms = append_time_ms;
        on_batch(metadata_log::encode_batch(header, batch_records));
    }
}

/// The whole log, one batch after the other.
inline std::vector<uint8_t> as_log(const std::vector<metadata_log::MetadataRecord>& records,
                                   int32_t leader_epoch = 1) {
    std::vector<uint8_t> log;
    for_each_batch(records, leader_epoch,
                   [&](const std::vector<uint8_t>& batch) { log.insert(log.end(), batch.begin(), batch.end()); });
    return log;
}

}  // namespace ballast::bench
