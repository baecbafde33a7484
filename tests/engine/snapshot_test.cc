/// The engine snapshot's encoding, whole and in pieces: the pieces a large
/// snapshot is written in (store::SnapshotWriter) join to exactly the whole
/// encoding, a sink's error stops it, and what the journal stores in parts
/// decodes to the state that was captured.

#include <gtest/gtest.h>

#include "actors/engine_snapshot.h"
#include "store/journal.h"
#include "tests/support/sample_events.h"
#include "tests/support/temp_dir.h"

namespace ballast::actors {
namespace {

/// 20,000 partitions (~3 MB encoded: several pieces), a few brokers, some memory.
EngineSnapshot large_snapshot() {
    EngineSnapshot s;
    s.seq = 42;
    s.router.now_ms = 123'000;
    s.router.last_seq = 42;
    s.config_properties = "ballast.partition.cooldown.ms=1000\n";
    s.topics = {"orders", "payments"};
    for (uint32_t i = 0; i < 20'000; i++) {
        PartitionRecord p;
        p.topic = i % 2;
        p.partition = static_cast<int32_t>(i / 2);
        p.exists = true;
        p.leader = static_cast<int32_t>(i % 7) + 1;
        p.replica_count = 2;
        p.replicas[0] = p.leader;
        p.replicas[1] = p.leader % 7 + 1;
        p.bytes_in_per_s = 1000.5 * i;
        p.applied_seq = i;
        // Every third partition with a load window of one to five slices
        // (the newest wrapped past the end for some).
        for (uint32_t sample = 0; i % 3 == 0 && sample < 1 + i % 5; sample++) {
            p.window.add(1'000'000 + (i % 11 + sample) * 37'500, 10.0 * i + sample, 20.0 * i, 37'500);
        }
        s.partitions.push_back(p);
    }
    for (int32_t id = 1; id <= 7; id++) {
        BrokerRecord b;
        b.id = id;
        b.rack = "rack-" + std::to_string(id % 3);
        b.registered = true;
        for (int32_t k = 0; k < id % 4; k++) b.fenced_ms[k] = 100'000 - 1'000 * (id + k);
        s.brokers.push_back(b);
    }
    s.scheduler.round = 9;
    s.scheduler.next_action_id = 77;
    s.scheduler.broker_notes = {"3: unstable (fenced 3 times within 600 s): takes no load until alive for 300 s"};
    return s;
}

TEST(EngineSnapshot, PiecesJoinToTheWholeEncoding) {
    const EngineSnapshot s = large_snapshot();
    const std::string whole = encode_snapshot(s);
    std::vector<std::string> pieces;
    events::Status status = encode_snapshot(s, [&](std::string_view piece) {
        pieces.emplace_back(piece);
        return events::Status();
    });
    ASSERT_TRUE(status.ok()) << status.error().to_string();
    ASSERT_GE(pieces.size(), 3u) << "a 3 MB snapshot in fewer than three pieces of ~1 MiB";
    std::string joined;
    for (size_t i = 0; i < pieces.size(); i++) {
        if (i + 1 < pieces.size()) {
            EXPECT_GE(pieces[i].size(), snapshot_piece_bytes) << "piece " << i;
        }
        EXPECT_LT(pieces[i].size(), snapshot_piece_bytes + 1024) << "piece " << i << " far over the piece size";
        joined += pieces[i];
    }
    EXPECT_TRUE(joined == whole) << "the pieces are not the whole encoding";
}

TEST(EngineSnapshot, ASinkErrorStopsTheEncodingAndIsReturned) {
    size_t calls = 0;
    events::Status status = encode_snapshot(large_snapshot(), [&](std::string_view) {
        calls++;
        return events::Status(events::make_error(events::ErrorCode::io_error, "disk full at piece 1"));
    });
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().message, "disk full at piece 1");
    EXPECT_EQ(calls, 1u) << "the sink was called again after it failed";
}

TEST(EngineSnapshot, WrittenInPartsItDecodesToWhatWasCaptured) {
    testing::TempDir dir;
    const EngineSnapshot s = large_snapshot();
    {
        auto journal = store::Journal::open(dir / "j", {});
        ASSERT_TRUE(journal.ok()) << journal.error().to_string();
        std::vector<events::Event> events = testing::sample_events(1, 50);
        ASSERT_TRUE((*journal)->append(events).ok());
        auto writer = (*journal)->begin_snapshot(s.seq);
        ASSERT_TRUE(writer.ok()) << writer.error().to_string();
        events::Status status = encode_snapshot(s, [&](std::string_view piece) {
            return (*writer)->append({reinterpret_cast<const uint8_t*>(piece.data()), piece.size()});
        });
        ASSERT_TRUE(status.ok()) << status.error().to_string();
        ASSERT_TRUE((*writer)->finish().ok());
    }
    auto journal = store::Journal::open(dir / "j", {});
    ASSERT_TRUE(journal.ok()) << journal.error().to_string();
    auto newest = (*journal)->newest_snapshot();
    ASSERT_TRUE(newest.ok()) << newest.error().to_string();
    ASSERT_TRUE(newest->has_value());
    EXPECT_EQ((*newest)->seq, 42u);
    events::Result<EngineSnapshot> decoded = decode_snapshot((*newest)->bytes);
    ASSERT_TRUE(decoded.ok()) << decoded.error().to_string();
    EXPECT_EQ(decoded->router.now_ms, 123'000);
    EXPECT_EQ(decoded->topics, s.topics);
    ASSERT_EQ(decoded->partitions.size(), s.partitions.size());
    for (size_t i = 0; i < s.partitions.size(); i += 997) {
        EXPECT_EQ(decoded->partitions[i].partition, s.partitions[i].partition);
        EXPECT_EQ(decoded->partitions[i].replicas, s.partitions[i].replicas);
        EXPECT_EQ(decoded->partitions[i].bytes_in_per_s, s.partitions[i].bytes_in_per_s);
    }
    for (size_t i = 0; i < s.partitions.size(); i++) {
        const LoadWindow& got = decoded->partitions[i].window;
        const LoadWindow& want = s.partitions[i].window;
        ASSERT_EQ(got.used(), want.used()) << "partition record " << i;
        EXPECT_EQ(got.bucket_ms, want.bucket_ms);
        EXPECT_EQ(got.newest, want.newest);
        EXPECT_EQ(got.count, want.count);
        EXPECT_EQ(got.bucket, want.bucket);
        EXPECT_EQ(got.bytes_in_per_s, want.bytes_in_per_s);
        EXPECT_EQ(got.bytes_out_per_s, want.bytes_out_per_s);
    }
    ASSERT_EQ(decoded->brokers.size(), 7u);
    for (size_t i = 0; i < s.brokers.size(); i++) {
        EXPECT_EQ(decoded->brokers[i].fenced_ms, s.brokers[i].fenced_ms) << "broker " << s.brokers[i].id;
    }
    EXPECT_EQ(decoded->scheduler.next_action_id, 77u);
    EXPECT_EQ(decoded->scheduler.broker_notes, s.scheduler.broker_notes);
}

}  // namespace
}  // namespace ballast::actors
