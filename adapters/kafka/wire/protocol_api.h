#pragma once

/// The Kafka APIs this client speaks, the versions of each it implements, and
/// which versions are "flexible" (compact encodings, tagged fields, header
/// v2 / v1). Every message is encoded and decoded by one file per API
/// (api_versions.h, describe_cluster.h, ...) following Apache Kafka's schemas
/// in clients/src/main/resources/common/message/*.json (4.1).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ballast::kafka::wire {

enum class ApiKey : int16_t {
    fetch = 1,
    list_offsets = 2,
    metadata = 3,
    offset_fetch = 9,
    find_coordinator = 10,
    list_groups = 16,
    sasl_handshake = 17,
    api_versions = 18,
    describe_log_dirs = 35,
    sasl_authenticate = 36,
    elect_leaders = 43,
    alter_partition_reassignments = 45,
    list_partition_reassignments = 46,
    fetch_snapshot = 59,
    describe_cluster = 60,
    describe_topic_partitions = 75,
};

struct VersionRange {
    int16_t min = 0;
    int16_t max = -1;  // max < min: empty
    bool contains(int16_t version) const { return version >= min && version <= max; }
    bool empty() const { return max < min; }
};

/// What Ballast implements of one API.
struct ApiSpec {
    ApiKey key;
    const char* name;         // Kafka's name: "AlterPartitionReassignments"
    VersionRange versions;    // the versions we can encode and decode
    int16_t first_flexible;   // from this version on: compact encodings, tagged fields
};

/// `first_flexible` of an API that has no flexible version (SaslHandshake).
inline constexpr int16_t never_flexible = INT16_MAX;

/// Every API the client implements, by key.
std::span<const ApiSpec> implemented_apis();
const ApiSpec& api_spec(ApiKey key);
const char* api_name(ApiKey key);

bool is_flexible(ApiKey key, int16_t version);

/// Request header v2 for flexible versions, v1 otherwise.
int16_t request_header_version(ApiKey key, int16_t version);
/// Response header v1 for flexible versions, v0 otherwise; ApiVersions
/// responses always use v0 (a client must be able to read the header before
/// it knows which versions the broker speaks).
int16_t response_header_version(ApiKey key, int16_t version);

/// "ElectLeaders v2", for errors.
std::string api_label(ApiKey key, int16_t version);

/// A topic and some of its partitions: the shape several requests share.
struct TopicPartitions {
    std::string topic;
    std::vector<int32_t> partitions;
    bool operator==(const TopicPartitions&) const = default;
};

}  // namespace ballast::kafka::wire
