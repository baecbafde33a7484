#pragma once

/// What the harnesses share: a broken property stops the run loudly (libFuzzer
/// keeps the input), and bytes copied to 8-byte alignment, as the journal
/// copies a RocksDB value before flatbuffers reads it.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ballast::fuzz {

/// A property the decoder promises is broken: print why and abort, which
/// libFuzzer reports as a crash and saves the input for.
[[noreturn]] inline void fail(const std::string& what) {
    std::fprintf(stderr, "fuzz property broken: %s\n", what.c_str());
    std::fflush(stderr);
    std::abort();
}

inline void expect(bool holds, const std::string& what) {
    if (!holds) fail(what);
}

/// The input copied into storage aligned to 8 bytes; `bytes` views it.
struct Aligned {
    Aligned(const uint8_t* data, size_t size) : storage((size + 7) / 8) {
        if (size > 0) std::memcpy(storage.data(), data, size);
        bytes = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(storage.data()), size);
    }
    std::vector<uint64_t> storage;
    std::span<const uint8_t> bytes;
};

/// Silences spdlog, which the metrics aggregators warn through: a warning per
/// input would cost more than the input. Defined in quiet_logs.cc, beside the
/// code that logs, so a harness never parses spdlog's headers.
void quiet_logs();

inline std::string_view as_text(const uint8_t* data, size_t size) {
    return std::string_view(reinterpret_cast<const char*>(data), size);
}

}  // namespace ballast::fuzz
