#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "store/crc32c.h"

namespace ballast::store {
namespace {

uint32_t crc_of(const std::string& s) {
    return crc32c(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

// Check values from RFC 3720 (iSCSI), appendix B.4, and the common "123456789".
TEST(Crc32c, MatchesPublishedCheckValues) {
    EXPECT_EQ(crc_of("123456789"), 0xE3069283u);
    EXPECT_EQ(crc_of(std::string(32, '\0')), 0x8A9136AAu);
    EXPECT_EQ(crc_of(std::string(32, '\xff')), 0x62A8AB43u);
    std::string ascending(32, '\0');
    for (int i = 0; i < 32; i++) ascending[i] = static_cast<char>(i);
    EXPECT_EQ(crc_of(ascending), 0x46DD794Eu);
    EXPECT_EQ(crc_of(""), 0u);
}

TEST(Crc32c, ExtendEqualsOneShotAtEverySplit) {
    std::string text = "the journal is the source of truth; every record carries a checksum";
    const uint32_t whole = crc_of(text);
    for (size_t split = 0; split <= text.size(); split++) {
        const auto* data = reinterpret_cast<const uint8_t*>(text.data());
        EXPECT_EQ(crc32c_extend(crc32c(data, split), data + split, text.size() - split), whole)
            << "split at " << split;
    }
}

TEST(Crc32c, DetectsEverySingleBitFlip) {
    std::string text(100, 'x');
    for (size_t i = 0; i < text.size(); i++) text[i] = static_cast<char>(i * 31);
    const uint32_t original = crc_of(text);
    for (size_t byte = 0; byte < text.size(); byte++) {
        for (int bit = 0; bit < 8; bit++) {
            text[byte] = static_cast<char>(text[byte] ^ (1 << bit));
            EXPECT_NE(crc_of(text), original);
            text[byte] = static_cast<char>(text[byte] ^ (1 << bit));
        }
    }
}

}  // namespace
}  // namespace ballast::store
