// The snapshot parts of high availability (adapters/kafka/ha/snapshot_chunk.h):
// the header's bytes as the format says, every check a damaged part fails,
// and which snapshot a reader assembles from committed parts in any order,
// with aborted gaps, repeated publications and damaged parts among them.

#include <gtest/gtest.h>

#include <random>

#include "adapters/kafka/ha/snapshot_chunk.h"
#include "store/crc32c.h"

namespace ballast::kafka::ha {
namespace {

std::vector<uint8_t> random_bytes(size_t size, uint32_t seed) {
    std::mt19937 random(seed);
    std::vector<uint8_t> bytes(size);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(random());
    return bytes;
}

uint64_t be(const std::string& s, size_t at, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v = (v << 8) | static_cast<uint8_t>(s[at + static_cast<size_t>(i)]);
    return v;
}

/// Every part of the snapshot `bytes` at `seq`, decoded.
std::vector<SnapshotChunk> parts_of(uint64_t seq, const std::vector<uint8_t>& bytes) {
    std::vector<SnapshotChunk> out;
    for (uint32_t p = 0; p < snapshot_part_count(bytes.size()); p++) {
        events::Result<SnapshotChunk> chunk =
            decode_snapshot_chunk(snapshot_chunk_key(seq), encode_snapshot_chunk(seq, bytes, p));
        EXPECT_TRUE(chunk.ok()) << chunk.error().to_string();
        out.push_back(std::move(*chunk));
    }
    return out;
}

std::string as_string(const std::vector<uint8_t>& bytes) { return std::string(bytes.begin(), bytes.end()); }

TEST(HaSnapshotChunk, TheHeaderIsTheDocumentedLayout) {
    const std::vector<uint8_t> bytes = random_bytes(snapshot_part_bytes + 5, 1);
    ASSERT_EQ(snapshot_part_count(bytes.size()), 2u);
    const std::string last = encode_snapshot_chunk(0x0102030405060708ULL, bytes, 1);
    ASSERT_EQ(last.size(), snapshot_chunk_header_bytes + 5);
    EXPECT_EQ(last.substr(0, 4), "BLSN");
    EXPECT_EQ(static_cast<uint8_t>(last[4]), 1);
    EXPECT_EQ(be(last, 5, 8), 0x0102030405060708ULL);
    EXPECT_EQ(be(last, 13, 4), 1u);
    EXPECT_EQ(be(last, 17, 4), 2u);
    EXPECT_EQ(be(last, 21, 8), snapshot_part_bytes + 5);
    EXPECT_EQ(be(last, 29, 4), store::crc32c(bytes.data() + snapshot_part_bytes, 5));
    EXPECT_EQ(last.substr(33), std::string(bytes.end() - 5, bytes.end()));
    EXPECT_EQ(snapshot_chunk_key(0x0102030405060708ULL), std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8));
    EXPECT_EQ(snapshot_part_count(0), 1u);
    EXPECT_EQ(snapshot_part_count(snapshot_part_bytes), 1u);
}

TEST(HaSnapshotChunk, EveryCheckOfADamagedPartFails) {
    const std::vector<uint8_t> bytes = random_bytes(3000, 2);
    const std::string key = snapshot_chunk_key(7);
    const std::string good = encode_snapshot_chunk(7, bytes, 0);
    ASSERT_TRUE(decode_snapshot_chunk(key, good).ok());
    auto fails_with = [&](const std::string& k, const std::string& value, const std::string& text) {
        events::Result<SnapshotChunk> chunk = decode_snapshot_chunk(k, value);
        ASSERT_FALSE(chunk.ok()) << text;
        EXPECT_NE(chunk.error().message.find(text), std::string::npos) << chunk.error().message;
    };
    std::string damaged = good;
    damaged[snapshot_chunk_header_bytes + 100] ^= 0x10;
    fails_with(key, damaged, "CRC32C mismatch");
    fails_with(key, good.substr(0, 20), "shorter than its 33-byte header");
    fails_with(key, "XLSN" + good.substr(4), "magic");
    damaged = good;
    damaged[4] = 2;
    fails_with(key, damaged, "format version 2");
    fails_with(snapshot_chunk_key(8), good, "key");
    fails_with(key, good.substr(0, good.size() - 1), "holds 2999 bytes where 3000 were expected");
    damaged = good;
    damaged[20] = 3;  // count 3 for 3000 bytes
    fails_with(key, damaged, "3000 bytes make 1 parts");
}

TEST(HaSnapshotChunk, TheNewestCompleteSnapshotIsAssembledFromPartsInAnyOrder) {
    const std::vector<uint8_t> older = random_bytes(2 * snapshot_part_bytes + 10, 3);
    const std::vector<uint8_t> newer = random_bytes(3 * snapshot_part_bytes, 4);
    std::vector<SnapshotChunk> older_parts = parts_of(10, older);
    std::vector<SnapshotChunk> newer_parts = parts_of(20, newer);
    SnapshotAssembly assembly;
    // Offsets 100-102: older; 103 a commit marker; 104-106 newer; read back
    // from the end, so the newer parts come first.
    assembly.add(106, newer_parts[2]);
    assembly.add(105, newer_parts[1]);
    EXPECT_FALSE(assembly.newest_complete().has_value());
    assembly.add(104, newer_parts[0]);
    assembly.add(102, older_parts[2]);
    assembly.add(101, older_parts[1]);
    assembly.add(100, older_parts[0]);
    std::optional<store::Snapshot> newest = assembly.newest_complete();
    ASSERT_TRUE(newest.has_value());
    EXPECT_EQ(newest->seq, 20u);
    EXPECT_EQ(newest->bytes, as_string(newer));
}

TEST(HaSnapshotChunk, ADamagedOrMissingPartMakesAnOlderSnapshotTheNewest) {
    const std::vector<uint8_t> older = random_bytes(snapshot_part_bytes + 1, 5);
    const std::vector<uint8_t> newer = random_bytes(3 * snapshot_part_bytes, 6);
    std::vector<SnapshotChunk> older_parts = parts_of(10, older);
    std::vector<SnapshotChunk> newer_parts = parts_of(20, newer);
    SnapshotAssembly assembly;
    assembly.add(10, older_parts[0]);
    assembly.add(11, older_parts[1]);
    assembly.add(20, newer_parts[0]);
    assembly.add_bad(21);  // part 1 failed its CRC
    assembly.add(22, newer_parts[2]);
    std::optional<store::Snapshot> newest = assembly.newest_complete();
    ASSERT_TRUE(newest.has_value());
    EXPECT_EQ(newest->seq, 10u);
    EXPECT_EQ(newest->bytes, as_string(older));

    // A publication missing its middle part (never read) is not complete either.
    SnapshotAssembly gap;
    gap.add(20, newer_parts[0]);
    gap.add(22, newer_parts[2]);
    EXPECT_FALSE(gap.newest_complete().has_value());
}

TEST(HaSnapshotChunk, PartsOfTwoPublicationsOfOneSeqAreNeverMixed) {
    const std::vector<uint8_t> bytes = random_bytes(2 * snapshot_part_bytes, 7);
    std::vector<SnapshotChunk> parts = parts_of(30, bytes);
    SnapshotAssembly assembly;
    // The first publication's part 1 was damaged; the second is whole.
    assembly.add(1, parts[0]);
    assembly.add_bad(2);
    assembly.add(3, parts[0]);
    assembly.add(4, parts[1]);
    std::optional<store::Snapshot> newest = assembly.newest_complete();
    ASSERT_TRUE(newest.has_value());
    EXPECT_EQ(newest->bytes, as_string(bytes));
    // Part 0 twice in a row, then part 1: the second run of parts is whole.
    SnapshotAssembly twice;
    twice.add(1, parts[0]);
    twice.add(2, parts[0]);
    twice.add(3, parts[1]);
    ASSERT_TRUE(twice.newest_complete().has_value());
    // Only part 1 and then part 0: out of order, never complete.
    SnapshotAssembly reversed;
    reversed.add(1, parts[1]);
    reversed.add(2, parts[0]);
    EXPECT_FALSE(reversed.newest_complete().has_value());
}

TEST(HaSnapshotChunk, UnfinishablePartsAreDroppedAndTheOldestMayStillGrow) {
    const std::vector<uint8_t> a = random_bytes(3 * snapshot_part_bytes, 8);
    const std::vector<uint8_t> b = random_bytes(2 * snapshot_part_bytes, 9);
    std::vector<SnapshotChunk> a_parts = parts_of(40, a);
    std::vector<SnapshotChunk> b_parts = parts_of(50, b);
    SnapshotAssembly assembly;
    // Read so far (from offset 11 on): a's last two parts, then b broken.
    assembly.add(11, a_parts[1]);
    assembly.add(12, a_parts[2]);
    assembly.add(13, b_parts[0]);
    assembly.add_bad(14);
    EXPECT_FALSE(assembly.newest_complete().has_value());
    assembly.drop_unfinishable();
    EXPECT_EQ(assembly.bytes_held(), 2 * snapshot_part_bytes);  // b's part 0 is gone, a's stay
    // The next window brings a's first part: a is whole.
    assembly.add(10, a_parts[0]);
    std::optional<store::Snapshot> newest = assembly.newest_complete();
    ASSERT_TRUE(newest.has_value());
    EXPECT_EQ(newest->seq, 40u);
    EXPECT_EQ(newest->bytes, as_string(a));
}

TEST(HaSnapshotChunk, AnEmptySnapshotIsOneEmptyPart) {
    const std::vector<uint8_t> nothing;
    std::vector<SnapshotChunk> parts = parts_of(60, nothing);
    ASSERT_EQ(parts.size(), 1u);
    EXPECT_TRUE(parts[0].data.empty());
    SnapshotAssembly assembly;
    assembly.add(0, parts[0]);
    std::optional<store::Snapshot> newest = assembly.newest_complete();
    ASSERT_TRUE(newest.has_value());
    EXPECT_EQ(newest->seq, 60u);
    EXPECT_TRUE(newest->bytes.empty());
}

}  // namespace
}  // namespace ballast::kafka::ha
