#include "adapters/kafka/wire/protocol_api.h"

#include <cassert>
#include <cstdlib>
#include <iterator>

namespace ballast::kafka::wire {

namespace {

// Versions: every version Kafka 4.1 defines for these APIs, except
// DescribeLogDirs v0 (deprecated and removed from 4.x brokers, identical to v1).
// Later APIs come last (SASL, then Metadata and ListOffsets, then Fetch) so that the fuzz
// harness's first byte, an index into this table's versions, still picks what
// it picked before they came. ListOffsets v0 is gone from Kafka 4.
constexpr ApiSpec specs[] = {
    {ApiKey::api_versions, "ApiVersions", {0, 4}, 3},
    {ApiKey::describe_log_dirs, "DescribeLogDirs", {1, 4}, 2},
    {ApiKey::elect_leaders, "ElectLeaders", {0, 2}, 2},
    {ApiKey::alter_partition_reassignments, "AlterPartitionReassignments", {0, 1}, 0},
    {ApiKey::list_partition_reassignments, "ListPartitionReassignments", {0, 0}, 0},
    {ApiKey::describe_cluster, "DescribeCluster", {0, 2}, 0},
    {ApiKey::sasl_handshake, "SaslHandshake", {0, 1}, never_flexible},
    {ApiKey::sasl_authenticate, "SaslAuthenticate", {0, 2}, 2},
    {ApiKey::metadata, "Metadata", {0, 13}, 9},
    {ApiKey::list_offsets, "ListOffsets", {1, 10}, 6},
    // For KRaft's metadata log only: from 13, the first its leader accepts (fetch.h).
    {ApiKey::fetch, "Fetch", {13, 18}, 12},
    // The snapshot a Fetch answer names when its position is older than the log start.
    {ApiKey::fetch_snapshot, "FetchSnapshot", {0, 1}, 0},
    {ApiKey::describe_topic_partitions, "DescribeTopicPartitions", {0, 0}, 0},
    // The sampler's consumer traffic: groups, their coordinators, their committed offsets.
    // ListGroups and FindCoordinator from their first flexible (batched) version; OffsetFetch
    // from v8, the first that asks many groups at once, up to the last by topic name.
    {ApiKey::list_groups, "ListGroups", {3, 5}, 3},
    {ApiKey::find_coordinator, "FindCoordinator", {4, 6}, 3},
    {ApiKey::offset_fetch, "OffsetFetch", {8, 9}, 6},
};

}  // namespace

std::span<const ApiSpec> implemented_apis() { return specs; }

const ApiSpec& api_spec(ApiKey key) {
    for (const ApiSpec& spec : specs) {
        if (spec.key == key) return spec;
    }
    assert(false && "every ApiKey enumerator has a spec");
    std::abort();
}

const char* api_name(ApiKey key) { return api_spec(key).name; }

bool is_flexible(ApiKey key, int16_t version) { return version >= api_spec(key).first_flexible; }

int16_t request_header_version(ApiKey key, int16_t version) {
    return is_flexible(key, version) ? 2 : 1;
}

int16_t response_header_version(ApiKey key, int16_t version) {
    if (key == ApiKey::api_versions) return 0;
    return is_flexible(key, version) ? 1 : 0;
}

std::string api_label(ApiKey key, int16_t version) {
    return std::string(api_name(key)) + " v" + std::to_string(version);
}

}  // namespace ballast::kafka::wire
