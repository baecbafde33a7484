#pragma once

/// Kafka's error codes (the protocol's `ErrorCode` fields) by name, and which
/// ones Kafka calls retriable. The table mirrors Kafka 4.1's list; the unit
/// test compares it with the one the kafka-clients jar prints (see
/// tests/kafka/vectors/).

#include <cstdint>
#include <optional>
#include <string>

namespace ballast::kafka::wire {

/// Codes Ballast's callers test for by name.
namespace error_codes {
inline constexpr int16_t none = 0;
inline constexpr int16_t unknown_topic_or_partition = 3;
inline constexpr int16_t request_timed_out = 7;
inline constexpr int16_t coordinator_load_in_progress = 14;
inline constexpr int16_t coordinator_not_available = 15;
inline constexpr int16_t not_coordinator = 16;
inline constexpr int16_t topic_authorization_failed = 29;
inline constexpr int16_t group_authorization_failed = 30;
inline constexpr int16_t cluster_authorization_failed = 31;
inline constexpr int16_t unsupported_sasl_mechanism = 33;
inline constexpr int16_t illegal_sasl_state = 34;
inline constexpr int16_t not_controller = 41;
inline constexpr int16_t invalid_replica_assignment = 39;
inline constexpr int16_t unsupported_version = 35;
inline constexpr int16_t sasl_authentication_failed = 58;
inline constexpr int16_t group_id_not_found = 69;
inline constexpr int16_t election_not_needed = 84;
inline constexpr int16_t no_reassignment_in_progress = 85;
inline constexpr int16_t preferred_leader_not_available = 80;
}  // namespace error_codes

/// "NO_REASSIGNMENT_IN_PROGRESS"; "UNKNOWN_ERROR_CODE" for a code Kafka 4.1
/// does not define (newer brokers add codes).
const char* error_name(int16_t code);

/// Whether the code is one Kafka defines (in Kafka 4.1).
bool is_known_error(int16_t code);

/// Kafka's own judgement: the client may retry the same request unchanged.
bool is_retriable(int16_t code);

/// An error a broker returned in a response: its code and, where the schema
/// has one, its message. Code 0 is success.
struct KafkaError {
    int16_t code = 0;
    std::optional<std::string> message;

    bool ok() const { return code == 0; }
    /// "NO_REASSIGNMENT_IN_PROGRESS (85): No reassignment in progress for t-0"
    std::string to_string() const;
    bool operator==(const KafkaError&) const = default;
};

}  // namespace ballast::kafka::wire
