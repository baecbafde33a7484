#pragma once

/// CRC32C (Castagnoli), the checksum on every journal record, snapshot and
/// export frame. Uses the SSE4.2 crc32 instruction when the CPU has it
/// (about 8 bytes a cycle) and a table otherwise; both give the same values.

#include <cstddef>
#include <cstdint>
#include <span>

namespace ballast::store {

/// Continues a CRC32C: crc32c_extend(crc32c(a), b) == crc32c(a + b).
uint32_t crc32c_extend(uint32_t crc, const uint8_t* data, size_t size);

inline uint32_t crc32c(const uint8_t* data, size_t size) { return crc32c_extend(0, data, size); }
inline uint32_t crc32c(std::span<const uint8_t> bytes) {
    return crc32c(bytes.data(), bytes.size());
}

}  // namespace ballast::store
