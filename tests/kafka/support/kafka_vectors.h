#pragma once

/// The vectors tests/kafka/vectors/VectorGen.java wrote with Kafka's own
/// message classes (kafka_vectors.txt): whole frames after the size prefix,
/// correlation id 7, client id "ballast".

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ballast::testing {

struct KafkaErrorEntry {
    int16_t code = 0;
    std::string name;
    bool retriable = false;
};

struct KafkaVectors {
    std::map<std::string, std::vector<uint8_t>> frames;  // "request.elect_leaders.v2" -> bytes
    std::vector<KafkaErrorEntry> errors;
    std::string kafka_version;                           // from the header line

    /// The frame named `name`; aborts the test run with a clear message if absent.
    const std::vector<uint8_t>& at(const std::string& name) const;
};

/// Loaded once from BALLAST_KAFKA_VECTORS (set by meson to the checked-in file).
const KafkaVectors& kafka_vectors();

/// "00 2b 00 02 ..." for failure messages.
std::string hex(const std::vector<uint8_t>& bytes);

}  // namespace ballast::testing
