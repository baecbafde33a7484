// The primitives on their own, with hand-written vectors from Kafka's protocol guide
// (big-endian integers, unsigned varints, classic and compact strings and arrays,
// tagged-field sections). The message tests cover them again through Kafka's vectors.

#include <gtest/gtest.h>

#include "adapters/kafka/wire/wire_reader.h"
#include "adapters/kafka/wire/wire_writer.h"

namespace ballast::kafka::wire {
namespace {

std::vector<uint8_t> varint(uint32_t value) {
    Writer writer;
    writer.uvarint(value);
    return writer.take();
}

TEST(WirePrimitives, UnsignedVarintsAtEveryLengthBoundary) {
    EXPECT_EQ(varint(0), (std::vector<uint8_t>{0x00}));
    EXPECT_EQ(varint(1), (std::vector<uint8_t>{0x01}));
    EXPECT_EQ(varint(127), (std::vector<uint8_t>{0x7f}));
    EXPECT_EQ(varint(128), (std::vector<uint8_t>{0x80, 0x01}));
    EXPECT_EQ(varint(300), (std::vector<uint8_t>{0xac, 0x02}));
    EXPECT_EQ(varint(16383), (std::vector<uint8_t>{0xff, 0x7f}));
    EXPECT_EQ(varint(16384), (std::vector<uint8_t>{0x80, 0x80, 0x01}));
    EXPECT_EQ(varint(0xffffffff), (std::vector<uint8_t>{0xff, 0xff, 0xff, 0xff, 0x0f}));
    for (uint32_t value : {0u, 1u, 127u, 128u, 300u, 16383u, 16384u, 2097151u, 2097152u,
                           268435455u, 268435456u, 0xffffffffu}) {
        const std::vector<uint8_t> bytes = varint(value);
        Reader reader(bytes, "varint");
        EXPECT_EQ(reader.uvarint("value"), value);
        EXPECT_TRUE(reader.finish().ok());
    }
}

TEST(WirePrimitives, IntegersAreBigEndian) {
    Writer writer;
    writer.int8(-2);
    writer.int16(0x0102);
    writer.int32(-1);
    writer.int64(0x0102030405060708);
    writer.boolean(true);
    EXPECT_EQ(writer.bytes(), (std::vector<uint8_t>{0xfe, 0x01, 0x02, 0xff, 0xff, 0xff, 0xff,
                                                    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
                                                    0x08, 0x01}));
    Reader reader(writer.bytes(), "ints");
    EXPECT_EQ(reader.int8("a"), -2);
    EXPECT_EQ(reader.int16("b"), 0x0102);
    EXPECT_EQ(reader.int32("c"), -1);
    EXPECT_EQ(reader.int64("d"), 0x0102030405060708);
    EXPECT_TRUE(reader.boolean("e"));
    EXPECT_TRUE(reader.finish().ok());
}

TEST(WirePrimitives, StringsClassicAndCompactNullAndEmpty) {
    Writer writer;
    writer.string("ab", false);                      // 00 02 'a' 'b'
    writer.nullable_string(std::nullopt, false);     // ff ff
    writer.string("ab", true);                       // 03 'a' 'b'
    writer.nullable_string(std::nullopt, true);      // 00
    writer.string("", true);                         // 01
    EXPECT_EQ(writer.bytes(), (std::vector<uint8_t>{0x00, 0x02, 'a', 'b', 0xff, 0xff, 0x03, 'a',
                                                    'b', 0x00, 0x01}));
    Reader reader(writer.bytes(), "strings");
    EXPECT_EQ(reader.string("a", false), "ab");
    EXPECT_EQ(reader.nullable_string("b", false), std::nullopt);
    EXPECT_EQ(reader.string("c", true), "ab");
    EXPECT_EQ(reader.nullable_string("d", true), std::nullopt);
    EXPECT_EQ(reader.nullable_string("e", true), std::optional<std::string>(""));
    EXPECT_TRUE(reader.finish().ok());
}

TEST(WirePrimitives, ArraysClassicAndCompactAndNull) {
    Writer writer;
    const std::vector<int32_t> values{1, -1};
    writer.int32_array(values, false);                  // 00 00 00 02, then the ints
    writer.int32_array(values, true);                   // 03, then the ints
    writer.nullable_array_length(std::nullopt, false);  // ff ff ff ff
    writer.nullable_array_length(std::nullopt, true);   // 00
    writer.tagged_fields(true);                         // 00
    writer.tagged_fields(false);                        // nothing
    EXPECT_EQ(writer.bytes(),
              (std::vector<uint8_t>{0, 0, 0, 2, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0x03, 0, 0,
                                    0, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00,
                                    0x00}));
    Reader reader(writer.bytes(), "arrays");
    EXPECT_EQ(reader.int32_array("a", false), values);
    EXPECT_EQ(reader.int32_array("b", true), values);
    EXPECT_EQ(reader.nullable_array_length("c", false), std::nullopt);
    EXPECT_EQ(reader.nullable_array_length("d", true), std::nullopt);
    EXPECT_EQ(reader.skip_tagged_fields(true), 0u);
    EXPECT_TRUE(reader.finish().ok());
}

TEST(WirePrimitives, BytesClassicAndCompact) {
    Writer writer;
    const std::vector<uint8_t> token{'n', 0, 0xff};
    writer.bytes(token, false);  // 00 00 00 03, then the bytes
    writer.bytes(token, true);   // 04, then the bytes
    writer.bytes({}, true);      // 01
    EXPECT_EQ(writer.bytes(), (std::vector<uint8_t>{0, 0, 0, 3, 'n', 0, 0xff, 0x04, 'n', 0, 0xff,
                                                    0x01}));
    Reader reader(writer.bytes(), "bytes");
    EXPECT_EQ(reader.bytes("a", false), token);
    EXPECT_EQ(reader.bytes("b", true), token);
    EXPECT_EQ(reader.bytes("c", true), std::vector<uint8_t>{});
    EXPECT_TRUE(reader.finish().ok());

    const std::vector<uint8_t> null_bytes{0xff, 0xff, 0xff, 0xff};
    Reader null_reader(null_bytes, "TestResponse v0");
    null_reader.bytes("auth_bytes", false);
    EXPECT_EQ(null_reader.status().error().message,
              "TestResponse v0: auth_bytes at offset 0: null, but the field is not nullable");
    const std::vector<uint8_t> negative{0xff, 0xff, 0xff, 0xfe};
    Reader negative_reader(negative, "TestResponse v0");
    negative_reader.bytes("auth_bytes", false);
    EXPECT_EQ(negative_reader.status().error().message,
              "TestResponse v0: auth_bytes at offset 0: negative bytes length -2");
    const std::vector<uint8_t> short_bytes{0x05, 'a'};
    Reader short_reader(short_bytes, "TestResponse v2");
    short_reader.bytes("auth_bytes", true);
    EXPECT_EQ(short_reader.status().error().message,
              "TestResponse v2: auth_bytes at offset 1: truncated: needs 4 bytes, 1 left");
}

TEST(WirePrimitives, TaggedFieldsAreSkipped) {
    // Two fields: tag 0 with 1 byte, tag 300 (ac 02) with 2 bytes; then an int8.
    const std::vector<uint8_t> bytes{0x02, 0x00, 0x01, 0xaa, 0xac, 0x02, 0x02, 0xbb, 0xcc, 0x05};
    Reader reader(bytes, "tags");
    EXPECT_EQ(reader.skip_tagged_fields(true), 2u);
    EXPECT_EQ(reader.int8("after"), 5);
    EXPECT_TRUE(reader.finish().ok());
}

TEST(WirePrimitives, ErrorsAreStickyAndNameThePath) {
    const std::vector<uint8_t> bytes{0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x07, 0x00};
    Reader reader(bytes, "TestResponse v0");
    const size_t count = reader.array_length("items", false);
    ASSERT_EQ(count, 2u);
    for (size_t i = 0; i < count; ++i) {
        auto element = reader.element("items", i);
        reader.int32("id");
    }
    EXPECT_FALSE(reader.ok());
    // Later reads return zero values and keep the first error.
    EXPECT_EQ(reader.int64("later"), 0);
    EXPECT_EQ(reader.status().error().message,
              "TestResponse v0: items[1].id at offset 8: truncated: needs 4 bytes, 1 left");
    EXPECT_EQ(reader.status().error().code, events::ErrorCode::corruption);
}

TEST(WirePrimitives, NullWhereTheSchemaForbidsItFails) {
    const std::vector<uint8_t> bytes{0xff, 0xff, 0xff, 0xff};
    Reader reader(bytes, "TestResponse v0");
    reader.array_length("items", false);
    EXPECT_EQ(reader.status().error().message,
              "TestResponse v0: items at offset 0: null, but the array is not nullable");
}

TEST(WirePrimitives, TaggedFieldCountBeyondTheBytesLeftFails) {
    const std::vector<uint8_t> bytes{0x7f, 0x00};
    Reader reader(bytes, "TestResponse v3");
    reader.skip_tagged_fields(true);
    EXPECT_EQ(reader.status().error().message,
              "TestResponse v3: _tagged_fields at offset 1: truncated or corrupt: tagged field "
              "count 127 exceeds the 1 bytes left");
}

TEST(WirePrimitives, ZigzagVarintsAsRecordBatchesCarryThem) {
    // Kafka's ByteUtils: zigzag, then unsigned base-128 (0 -> 00, -1 -> 01, 1 -> 02, ...).
    const std::vector<std::pair<int64_t, std::vector<uint8_t>>> longs{
        {0, {0x00}},
        {-1, {0x01}},
        {1, {0x02}},
        {-64, {0x7f}},
        {64, {0x80, 0x01}},
        {1733356800000, {0x80, 0xa0, 0xee, 0xc1, 0xf2, 0x64}},
        {INT64_MAX, {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
        {INT64_MIN, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
    };
    for (const auto& [value, bytes] : longs) {
        Writer writer;
        writer.varlong(value);
        EXPECT_EQ(writer.bytes(), bytes) << value;
        Reader reader(bytes, "test");
        EXPECT_EQ(reader.varlong("v"), value);
        EXPECT_TRUE(reader.finish().ok()) << value;
    }
    for (int32_t value : {0, -1, 1, 63, -64, 64, 300, INT32_MAX, INT32_MIN}) {
        Writer writer;
        writer.varint(value);
        Reader reader(writer.bytes(), "test");
        EXPECT_EQ(reader.varint("v"), value);
        EXPECT_TRUE(reader.finish().ok()) << value;
    }
    Writer minus_one;
    minus_one.varint(-1);
    EXPECT_EQ(minus_one.bytes(), (std::vector<uint8_t>{0x01}));

    const std::vector<uint8_t> eleven(11, 0x80);
    Reader too_long(eleven, "test");
    too_long.varlong("delta");
    EXPECT_FALSE(too_long.ok());
    EXPECT_NE(too_long.status().error().message.find("delta at offset 0"), std::string::npos)
        << too_long.status().error().message;
}

TEST(WirePrimitives, RawBytesAreViewedNotCopiedAndChecked) {
    const std::vector<uint8_t> bytes{1, 2, 3};
    Reader reader(bytes, "test");
    const std::span<const uint8_t> first = reader.raw("first", 2);
    EXPECT_EQ(first.data(), bytes.data());
    EXPECT_EQ(first.size(), 2u);
    EXPECT_TRUE(reader.raw("rest", 2).empty());
    EXPECT_NE(reader.status().error().message.find("rest at offset 2: truncated"),
              std::string::npos);
}

}  // namespace
}  // namespace ballast::kafka::wire
