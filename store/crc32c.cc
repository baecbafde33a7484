#include "store/crc32c.h"

#include <array>
#include <cstring>

namespace ballast::store {

namespace {

constexpr uint32_t castagnoli_reflected = 0x82F63B78u;

constexpr std::array<uint32_t, 256> make_table() {
    std::array<uint32_t, 256> table{};
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t crc = i;
        for (int bit = 0; bit < 8; bit++) crc = (crc >> 1) ^ ((crc & 1) ? castagnoli_reflected : 0);
        table[i] = crc;
    }
    return table;
}

constexpr std::array<uint32_t, 256> table = make_table();

uint32_t extend_portable(uint32_t crc, const uint8_t* data, size_t size) {
    crc = ~crc;
    for (size_t i = 0; i < size; i++) crc = table[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t extend_sse42(uint32_t crc, const uint8_t* data,
                                                          size_t size) {
    uint64_t c = ~crc;
    while (size >= 8) {
        uint64_t word;
        std::memcpy(&word, data, 8);  // unaligned-safe load
        c = __builtin_ia32_crc32di(c, word);
        data += 8;
        size -= 8;
    }
    auto c32 = static_cast<uint32_t>(c);
    while (size > 0) {
        c32 = __builtin_ia32_crc32qi(c32, *data);
        data++;
        size--;
    }
    return ~c32;
}

using extend_fn = uint32_t (*)(uint32_t, const uint8_t*, size_t);

extend_fn choose() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2") ? extend_sse42 : extend_portable;
}
#endif

}  // namespace

uint32_t crc32c_extend(uint32_t crc, const uint8_t* data, size_t size) {
#if defined(__x86_64__)
    // A function-local static: safe to call from other static initializers.
    static const extend_fn extend_impl = choose();
    return extend_impl(crc, data, size);
#else
    return extend_portable(crc, data, size);
#endif
}

}  // namespace ballast::store
