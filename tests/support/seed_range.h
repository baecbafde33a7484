#pragma once

/// The seeds a seeded suite runs: "FROM-TO" (or one seed) from an
/// environment variable, else the suite's default range.

#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>

namespace ballast::testing {

inline std::pair<uint64_t, uint64_t> seed_range(const char* variable, std::pair<uint64_t, uint64_t> fallback) {
    const char* text = std::getenv(variable);
    if (!text) return fallback;
    const std::string range(text);
    const size_t dash = range.find('-');
    const uint64_t from = std::stoull(range.substr(0, dash));
    const uint64_t to = dash == std::string::npos ? from : std::stoull(range.substr(dash + 1));
    return {from, to};
}

}  // namespace ballast::testing
