/// Power cuts under the journal: a writer thread appends batches through a
/// PowerCutFileSystem; at a seeded random moment the power goes off (every
/// write from then on is dropped, mid-append or not), the journal is closed,
/// each file is cut back to what was synced of it, and the journal is opened
/// again on the plain file system. With `sync` on, every append acknowledged
/// before the cut survives; with it off, what survives is the journal up to
/// some append (a prefix of whole batches, exactly what was written): the
/// newest appends are lost, at worst all since the last memtable flush, as
/// the setting's description says.
/// The partition index kept in the same writes survives exactly as they do.
/// Seed: $BALLAST_CRASH_SEED (default 1).

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdlib>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "store/journal.h"
#include "store/power_cut_fs.h"
#include "tests/support/index_check.h"
#include "tests/support/sample_events.h"
#include "tests/support/temp_dir.h"

namespace ballast::store {
namespace {

struct CutRound {
    std::set<uint64_t> batch_ends;  // the last seq of every batch written or begun
    uint64_t acked = 0;             // the last seq acknowledged before the cut
    uint64_t appended = 0;          // the last seq of the last append that returned
};

/// Opens the journal on `fs`, appends from a thread until the power is cut
/// after `run_us`, closes it, and brings the power back.
CutRound append_until_cut(const std::string& path, bool sync, PowerCutFileSystem& fs, uint64_t seed, int run_us) {
    CutRound round;
    JournalOptions options;
    options.sync = sync;
    options.env = fs.env();
    Result<std::unique_ptr<Journal>> journal = Journal::open(path, options);
    EXPECT_TRUE(journal.ok()) << journal.error().to_string();
    if (!journal.ok()) return round;
    std::mutex mutex;
    std::atomic<bool> stop{false};
    std::thread writer([&] {
        std::mt19937_64 random(seed);
        std::uniform_int_distribution<uint64_t> batch_size(1, 64);
        while (!stop.load()) {
            const uint64_t first = (*journal)->last_seq() + 1;
            const uint64_t count = batch_size(random);
            {
                std::lock_guard<std::mutex> lock(mutex);
                round.batch_ends.insert(first + count - 1);
            }
            std::vector<events::Event> batch = testing::sample_events(first, count);
            Result<uint64_t> last = (*journal)->append(batch);
            if (!last.ok()) break;  // the power is off: RocksDB may notice
            // Acknowledged only if the power was still on when it returned:
            // an append whose sync came after the cut never reached the disk.
            const bool powered = !fs.is_cut();
            std::lock_guard<std::mutex> lock(mutex);
            round.appended = *last;
            if (powered) round.acked = *last;
        }
    });
    std::this_thread::sleep_for(std::chrono::microseconds(run_us));
    fs.cut();
    std::this_thread::sleep_for(std::chrono::microseconds(run_us % 500));  // writes into the dark
    stop.store(true);
    writer.join();
    journal->reset();  // closing writes nothing either: the machine is off
    Result<uint64_t> dropped = fs.restore();
    EXPECT_TRUE(dropped.ok()) << dropped.error().to_string();
    return round;
}

/// Reopens on the plain file system and checks what survived: dense, whole
/// batches, exactly what was written. Returns the last seq.
uint64_t check_survivors(const std::string& path, const CutRound& round, uint64_t before) {
    Result<std::unique_ptr<Journal>> journal = Journal::open(path, {});
    EXPECT_TRUE(journal.ok()) << journal.error().to_string();
    if (!journal.ok()) return before;
    const uint64_t last = (*journal)->last_seq();
    EXPECT_GE(last, before) << "what survived an earlier cut was lost";
    if (last > before) {
        EXPECT_TRUE(round.batch_ends.count(last)) << "the journal ends at seq " << last << ", inside a batch";
    }
    Result<std::vector<events::Event>> all = (*journal)->read(1, last);
    EXPECT_TRUE(all.ok()) << all.error().to_string();
    if (!all.ok()) return before;
    EXPECT_EQ(all->size(), last);
    for (uint64_t seq = 1; seq <= all->size(); seq++) {
        if ((*all)[seq - 1] != testing::sample_event_at(seq)) {
            ADD_FAILURE() << "seq " << seq << " is not what was written";
            break;
        }
    }
    testing::expect_index_matches(**journal, *all);
    return last;
}

uint64_t crash_seed() {
    const char* text = std::getenv("BALLAST_CRASH_SEED");
    return text ? std::strtoull(text, nullptr, 10) : 1;
}

constexpr int rounds = 30;

struct CutTotals {
    uint64_t survived = 0;  // the journal's last seq after the last cut
    uint64_t acked = 0;     // events acknowledged before the cuts
    uint64_t lost = 0;      // events appended (acknowledged or not) that did not survive
};

/// `rounds` power cuts on one journal; checks what survived each
/// (check_survivors) and, with sync on, that every acknowledged append did.
CutTotals cut_rounds(bool sync) {
    const uint64_t seed = crash_seed();
    SCOPED_TRACE("reproduce with BALLAST_CRASH_SEED=" + std::to_string(seed));
    std::mt19937_64 random(seed);
    std::uniform_int_distribution<int> run_us(0, 40'000);
    testing::TempDir dir;
    const std::string path = dir / "journal";
    CutTotals totals;
    for (int r = 1; r <= rounds; r++) {
        SCOPED_TRACE("round " + std::to_string(r));
        std::shared_ptr<PowerCutFileSystem> fs = PowerCutFileSystem::make();
        const CutRound round = append_until_cut(path, sync, *fs, seed + r, run_us(random));
        const uint64_t last = check_survivors(path, round, totals.survived);
        if (sync) {
            EXPECT_GE(last, round.acked) << "an acknowledged append was lost";
        }
        totals.acked += round.acked > totals.survived ? round.acked - totals.survived : 0;
        totals.lost += round.appended > last ? round.appended - last : 0;
        totals.survived = last;
    }
    return totals;
}

TEST(JournalPowerCut, WithSyncOnEveryAcknowledgedAppendSurvives) {
    const CutTotals totals = cut_rounds(true);
    // Meaningful only if appends were acknowledged before the cuts.
    EXPECT_GT(totals.acked, 0u);
    std::printf("%d power cuts, sync on: journal ends at seq %" PRIu64 "\n", rounds, totals.survived);
}

TEST(JournalPowerCut, WithSyncOffOnlyTheNewestAppendsAreLost) {
    const CutTotals totals = cut_rounds(false);
    // The file system really dropped what was not synced: without a sync,
    // acknowledged appends went with the power.
    EXPECT_GT(totals.lost, 0u);
    std::printf("%d power cuts, sync off: %" PRIu64 " appended events lost, journal ends at seq %" PRIu64 "\n",
                rounds, totals.lost, totals.survived);
}

}  // namespace
}  // namespace ballast::store
