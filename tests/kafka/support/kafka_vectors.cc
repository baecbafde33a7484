#include "tests/kafka/support/kafka_vectors.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace ballast::testing {

namespace {

[[noreturn]] void die(const std::string& message) {
    std::fprintf(stderr, "kafka vectors: %s\n", message.c_str());
    std::abort();
}

std::vector<uint8_t> parse_hex(const std::string& text, const std::string& name) {
    if (text.size() % 2 != 0) die(name + ": odd number of hex digits");
    std::vector<uint8_t> bytes;
    bytes.reserve(text.size() / 2);
    for (size_t i = 0; i < text.size(); i += 2) {
        bytes.push_back(static_cast<uint8_t>(std::stoul(text.substr(i, 2), nullptr, 16)));
    }
    return bytes;
}

KafkaVectors load() {
    const char* path = std::getenv("BALLAST_KAFKA_VECTORS");
    if (path == nullptr || *path == '\0') {
        die("BALLAST_KAFKA_VECTORS is not set (meson sets it to tests/kafka/vectors/kafka_vectors.txt)");
    }
    std::ifstream in(path);
    if (!in) die(std::string("cannot read ") + path);
    KafkaVectors vectors;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        if (line[0] == '#') {
            const std::string marker = "kafka-clients ";
            const size_t at = line.find(marker);
            if (at != std::string::npos) {
                std::istringstream version(line.substr(at + marker.size()));
                version >> vectors.kafka_version;
                const size_t quote = vectors.kafka_version.find('\'');
                if (quote != std::string::npos) vectors.kafka_version.resize(quote);
            }
            continue;
        }
        std::istringstream fields(line);
        std::string kind;
        fields >> kind;
        if (kind == "error") {
            KafkaErrorEntry entry;
            int code = 0;
            int retriable = 0;
            fields >> code >> entry.name >> retriable;
            entry.code = static_cast<int16_t>(code);
            entry.retriable = retriable != 0;
            vectors.errors.push_back(entry);
        } else {
            std::string text;
            fields >> text;
            vectors.frames[kind] = parse_hex(text, kind);
        }
    }
    if (vectors.frames.empty()) die(std::string(path) + " holds no vectors");
    return vectors;
}

}  // namespace

const std::vector<uint8_t>& KafkaVectors::at(const std::string& name) const {
    auto found = frames.find(name);
    if (found == frames.end()) die("no vector named " + name + " (regenerate the vectors?)");
    return found->second;
}

const KafkaVectors& kafka_vectors() {
    static const KafkaVectors vectors = load();
    return vectors;
}

std::string hex(const std::vector<uint8_t>& bytes) {
    std::string out;
    char digits[4];
    for (size_t i = 0; i < bytes.size(); ++i) {
        std::snprintf(digits, sizeof(digits), i ? " %02x" : "%02x", bytes[i]);
        out += digits;
    }
    return out;
}

}  // namespace ballast::testing
