/// Partition samples in the journal (store/journal_samples.h): rounded to 11
/// significant bits on append, so what the engine acts on is what a replay
/// reads; stored in 8 bytes a sample; a value the codes cannot hold goes in
/// the event's flatbuffer unchanged; a damaged compact record is named.

#include <cmath>
#include <random>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "store/journal.h"
#include "store/journal_record.h"
#include "store/journal_samples.h"
#include "tests/support/open_journal.h"
#include "tests/support/raw_journal.h"
#include "tests/support/temp_dir.h"

namespace ballast::store {
namespace {

using events::Event;
using events::PartitionMetrics;
using events::PartitionSample;
using testing::open_journal;
using testing::RawJournal;
using testing::TempDir;

/// A report of `count` samples over three topics, partitions in runs with a
/// gap, values drawn over many decades (seeded).
Event metrics_report(uint64_t seed, size_t count) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> decades(0, 10);
    auto rate = [&] { return std::pow(10.0, decades(rng)) * 1.000123; };
    PartitionMetrics m;
    m.broker_id = 3;
    m.sample_time_ms = 1'700'000'000'000 + static_cast<int64_t>(seed);
    m.topics = {"orders", "payments", "clicks"};
    for (size_t i = 0; i < count; i++) {
        PartitionSample s;
        s.topic_index = static_cast<uint32_t>(i * 3 / count);
        s.partition = static_cast<int32_t>(i % 400 + (i % 400 >= 200 ? 7 : 0));  // a gap at 200
        s.bytes_in_per_s = rate();
        s.bytes_out_per_s = rate();
        s.messages_in_per_s = rate() / 1000;
        s.size_bytes = static_cast<uint64_t>(rate() * 1000);
        m.samples.push_back(s);
    }
    Event e;
    e.time_ms = m.sample_time_ms + 5;
    e.source = events::Source::kafka_metrics;
    e.body = std::move(m);
    return e;
}

TEST(JournalSamples, RoundingKeepsElevenSignificantBitsAndIsStable) {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> exponent(-14, 49);
    for (int i = 0; i < 200'000; i++) {
        const double value = std::exp2(exponent(rng));
        const double rounded = round_sample_value(value);
        ASSERT_LE(std::abs(rounded - value), value * 0x1p-11) << value;
        ASSERT_EQ(round_sample_value(rounded), rounded) << value;
    }
    EXPECT_EQ(round_sample_value(1234.0), 1234.0);             // 11 bits already
    EXPECT_EQ(round_sample_value(1'048'577.0), 1'048'576.0);  // 2^20 + 1
    EXPECT_FALSE(std::signbit(round_sample_value(-0.0)));
    // Outside the codes' range: left as they are.
    EXPECT_EQ(round_sample_value(1e-9), 1e-9);
    EXPECT_EQ(round_sample_value(1e300), 1e300);
}

TEST(JournalSamples, RoundedSizesStayWholeBytes) {
    for (uint64_t bytes = 0; bytes < 2048; bytes++) ASSERT_EQ(round_sample_size(bytes), bytes);
    std::mt19937_64 rng(11);
    for (int i = 0; i < 100'000; i++) {
        const uint64_t bytes = rng() >> (rng() % 64);
        const uint64_t rounded = round_sample_size(bytes);
        ASSERT_EQ(round_sample_size(rounded), rounded) << bytes;
        if (bytes < (uint64_t{1} << 49)) {
            ASSERT_LE(std::abs(static_cast<double>(rounded) - static_cast<double>(bytes)),
                      static_cast<double>(bytes) * 0x1p-11)
                << bytes;
        }
    }
    const uint64_t huge = (uint64_t{1} << 60) + 12345;  // past 2^53: not rounded
    EXPECT_EQ(round_sample_size(huge), huge);
}

TEST(JournalSamples, ACompactRecordTakesEightBytesASampleAndDecodesToTheRoundedEvent) {
    Event event = as_journaled(metrics_report(1, 1000));
    event.seq = 42;
    std::string compact;
    ASSERT_TRUE(encode_compact_samples(event, &compact));
    // 8 bytes of codes a sample and a byte for its partition (one after the
    // other, but for a gap and a topic's first), the header a few dozen bytes.
    EXPECT_LE(compact.size(), 9 * 1000 + 80) << compact.size();
    EXPECT_GE(compact.size(), 9 * 1000u);
    const std::span<const uint8_t> payload(reinterpret_cast<const uint8_t*>(compact.data()), compact.size());
    ASSERT_TRUE(is_compact_samples(payload));
    Event decoded;
    ASSERT_TRUE(decode_compact_samples(payload, "test", &decoded).ok());
    EXPECT_EQ(decoded, event);
}

TEST(JournalSamples, AnEventWithAValueTheCodesCannotHoldIsStoredWhole) {
    Event event = as_journaled(metrics_report(2, 10));
    std::get<PartitionMetrics>(event.body).samples[4].messages_in_per_s = 1e-9;  // under 2^-14
    std::get<PartitionMetrics>(event.body).samples[6].size_bytes = uint64_t{1} << 60;
    event.seq = 1;
    std::string compact;
    EXPECT_FALSE(encode_compact_samples(event, &compact));

    TempDir dir;
    {
        auto journal = open_journal(dir / "j");
        std::vector<Event> batch{event};
        ASSERT_TRUE(journal->append(batch).ok());
        EXPECT_EQ(batch[0], event);  // nothing to round
    }
    auto reopened = open_journal(dir / "j");
    Result<Event> read = reopened->read_one(1);
    ASSERT_TRUE(read.ok()) << read.error().to_string();
    EXPECT_EQ(*read, event);
}

/// The order an append keeps: the batch is rounded in place, so the caller
/// (the journal actor, which routes it) acts on what is stored; reopened,
/// the journal gives back exactly that.
TEST(JournalSamples, AnAppendRoundsTheBatchItWasGivenAndReadsBackTheSame) {
    TempDir dir;
    std::vector<Event> batch;
    for (uint64_t i = 0; i < 5; i++) batch.push_back(metrics_report(10 + i, 300));
    const std::vector<Event> original = batch;
    {
        auto journal = open_journal(dir / "j");
        ASSERT_TRUE(journal->append(batch).ok());
    }
    size_t changed = 0;
    for (size_t i = 0; i < batch.size(); i++) {
        Event expected = as_journaled(original[i]);
        expected.seq = i + 1;
        ASSERT_EQ(batch[i], expected);
        changed += batch[i] != original[i] ? 1 : 0;
    }
    EXPECT_EQ(changed, batch.size());  // the draws are not on the grid
    auto reopened = open_journal(dir / "j");
    Result<std::vector<Event>> all = reopened->read(1, UINT64_MAX);
    ASSERT_TRUE(all.ok()) << all.error().to_string();
    EXPECT_EQ(*all, batch);
    // Stored compact: each record about 9 bytes a sample before compression.
    reopened.reset();
    RawJournal raw(dir / "j");
    for (uint64_t seq = 1; seq <= 5; seq++) {
        const std::string record = raw.get(seq);
        EXPECT_LE(record.size(), 9 * 300 + 100u) << "seq " << seq;
        EXPECT_TRUE(is_compact_samples({reinterpret_cast<const uint8_t*>(record.data()) + record_header_size,
                                        record.size() - record_header_size}));
    }
}

/// Any byte of a compact record changed (its CRC recomputed, as a buggy
/// writer would): the reader gives the event it then holds, which passes
/// the reader's checks, or an error naming the record; never a crash.
TEST(JournalSamples, ADamagedCompactRecordIsNamedOrDecodesToACheckedEvent) {
    Event event = as_journaled(metrics_report(3, 40));
    event.seq = 9;
    std::string compact;
    ASSERT_TRUE(encode_compact_samples(event, &compact));
    std::string record;
    std::vector<uint64_t> aligned;
    size_t named = 0;
    for (size_t at = 0; at < compact.size(); at++) {
        for (const uint8_t flip : {0x01, 0x80, 0xFF}) {
            std::string damaged = compact;
            damaged[at] = static_cast<char>(damaged[at] ^ flip);
            encode_record({reinterpret_cast<const uint8_t*>(damaged.data()), damaged.size()}, &record);
            std::span<const uint8_t> bytes;
            const events::Status status = check_event_record(9, record, &aligned, &bytes);
            if (!status) {
                ASSERT_NE(status.error().message.find("journal record seq 9"), std::string::npos);
                named++;
            }
        }
    }
    for (size_t cut = 0; cut < compact.size(); cut++) {
        encode_record({reinterpret_cast<const uint8_t*>(compact.data()), cut}, &record);
        std::span<const uint8_t> bytes;
        ASSERT_FALSE(check_event_record(9, record, &aligned, &bytes).ok()) << "cut at " << cut;
    }
    EXPECT_GT(named, 0u);
}

RC_GTEST_PROP(JournalSamples, ACompactRecordDecodesToTheEventItWasMadeFrom, ()) {
    const auto count = *rc::gen::inRange<size_t>(0, 50);
    const auto seed = *rc::gen::arbitrary<uint64_t>();
    Event event = as_journaled(metrics_report(seed, count));
    auto& samples = std::get<PartitionMetrics>(event.body).samples;
    for (PartitionSample& s : samples) {
        // Partitions anywhere in their range, zero values, and order mixed.
        if (*rc::gen::inRange(0, 4) == 0) s.partition = *rc::gen::inRange(0, INT32_MAX);
        if (*rc::gen::inRange(0, 8) == 0) s.bytes_out_per_s = 0;
    }
    if (count > 1 && *rc::gen::arbitrary<bool>()) std::swap(samples.front(), samples.back());
    event.seq = *rc::gen::arbitrary<uint64_t>();
    event.time_ms = *rc::gen::arbitrary<int64_t>();
    std::get<PartitionMetrics>(event.body).broker_id = *rc::gen::arbitrary<int32_t>();
    std::string compact;
    RC_ASSERT(encode_compact_samples(event, &compact));
    Event decoded;
    RC_ASSERT(decode_compact_samples({reinterpret_cast<const uint8_t*>(compact.data()), compact.size()}, "test",
                                     &decoded)
                  .ok());
    RC_ASSERT(decoded == event);
}

}  // namespace
}  // namespace ballast::store
