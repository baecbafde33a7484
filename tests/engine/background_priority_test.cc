/// Background work at a lower priority (`ballast storm --background-priority`):
/// what an operator would see with `ps -L -o tid,cls,ni,comm`. Its own
/// program: RocksDB's background threads are lowered for the whole process
/// and for good, which must not slow the flushes of other suites' journals.

#include <dirent.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "actors/engine.h"
#include "actors/thread_priority.h"
#include "store/journal.h"
#include "tests/support/cluster_events.h"
#include "tests/support/fake_port.h"
#include "tests/support/temp_dir.h"

namespace ballast::actors {
namespace {

using testing::TempDir;

struct ThreadInfo {
    pid_t tid = 0;
    std::string name;
    int policy = -1;
};

/// Every thread of this process, with its name and scheduling policy.
std::vector<ThreadInfo> threads() {
    std::vector<ThreadInfo> out;
    DIR* dir = opendir("/proc/self/task");
    if (dir == nullptr) return out;
    while (const dirent* entry = readdir(dir)) {
        if (entry->d_name[0] == '.') continue;
        ThreadInfo t;
        t.tid = static_cast<pid_t>(std::stol(entry->d_name));
        std::ifstream comm(std::string("/proc/self/task/") + entry->d_name + "/comm");
        std::getline(comm, t.name);
        t.policy = sched_getscheduler(t.tid);
        out.push_back(t);
    }
    closedir(dir);
    return out;
}

/// Threads at SCHED_IDLE other than RocksDB's (lowered for the whole
/// process once a journal asks, and named "rocksdb:...").
size_t idle_engine_threads() {
    size_t n = 0;
    for (const ThreadInfo& t : threads()) n += t.policy == SCHED_IDLE && t.name.rfind("rocksdb", 0) != 0;
    return n;
}

pid_t this_tid() { return static_cast<pid_t>(syscall(SYS_gettid)); }

TEST(ThreadPriority, EachLevelIsWhatItSays) {
    struct Seen {
        int policy = -1;
        int nice = -100;
    };
    auto on_a_thread = [](store::BackgroundPriority priority) {
        Seen seen;
        std::thread([&] {
            lower_this_thread_priority("test", priority);
            seen.policy = sched_getscheduler(0);
            errno = 0;
            seen.nice = getpriority(PRIO_PROCESS, static_cast<id_t>(this_tid()));
        }).join();
        return seen;
    };
    const Seen normal = on_a_thread(store::BackgroundPriority::normal);
    EXPECT_EQ(normal.policy, SCHED_OTHER);
    EXPECT_EQ(normal.nice, getpriority(PRIO_PROCESS, static_cast<id_t>(this_tid())));
    const Seen low = on_a_thread(store::BackgroundPriority::low);
    EXPECT_EQ(low.policy, SCHED_OTHER);
    EXPECT_EQ(low.nice, background_low_nice);
    EXPECT_EQ(on_a_thread(store::BackgroundPriority::idle).policy, SCHED_IDLE);
    // The caller's own thread is never touched.
    EXPECT_EQ(sched_getscheduler(0), SCHED_OTHER);
}

/// The planner runs at SCHED_IDLE from the start, and still plans: the
/// dead broker's partitions move once its grace runs out.
TEST(ThreadPriority, IdleEngineRunsItsPlannerAtSchedIdleAndStillPlans) {
    // A thread an earlier test lowered and joined may still be listed for a
    // moment (the kernel wakes the joiner before it reaps the thread): the
    // count is taken once none is, or after 2 s as it stands.
    size_t idle_before = idle_engine_threads();
    for (int i = 0; i < 200 && idle_before > 0; i++) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        idle_before = idle_engine_threads();
    }
    TempDir dir;
    testing::FakePort port;
    testing::DecisionLog log;
    events::Config config = events::Config::defaults();
    for (const char* s : {"ballast.cluster.flavor=automq", "ballast.journal.sync=false",
                          "autobalancer.controller.anomaly.detect.interval.ms=10000",
                          "autobalancer.controller.metrics.delay.ms=120000"}) {
        ASSERT_TRUE(config.apply_override(s).ok()) << s;
    }
    EngineOptions options;
    options.threads = 2;
    options.config = config;
    options.journal_path = dir / "journal";
    options.port = &port;
    options.on_decision = log.sink();
    options.background_priority = store::BackgroundPriority::idle;
    events::Result<std::unique_ptr<Engine>> started = Engine::start(std::move(options));
    ASSERT_TRUE(started.ok()) << started.error().to_string();
    Engine& engine = **started;

    std::vector<events::Event> events = testing::cluster_setup(3, 3, {{"orders", 6, 1}});
    const std::vector<int32_t> leaders = {1, 2, 3, 1, 2, 3};
    for (events::Event& e : testing::metrics_reports(1000, "orders", leaders, std::vector<double>(6, 1 << 20))) {
        events.push_back(std::move(e));
    }
    events.push_back(testing::at(2000, events::BrokerFenced{3}, events::Source::kafka_metadata));
    for (int64_t t = 2000; t <= 30'000; t += 1000) events.push_back(testing::tick(t));
    ASSERT_TRUE(engine.feed(std::move(events)).ok());
    ASSERT_TRUE(engine.wait_idle().ok());

    // The scheduler's thread (the snapshot writer's is made at the first
    // snapshot); the stream's threads and the caller's are untouched.
    EXPECT_EQ(idle_engine_threads(), idle_before + 1);
    EXPECT_EQ(sched_getscheduler(0), SCHED_OTHER);
    bool moved_off_3 = false;
    for (const events::Event& e : log.events()) {
        if (const auto* plan = std::get_if<events::ActionsPlanned>(&e.body)) {
            for (const events::Action& a : plan->actions) moved_off_3 |= a.source_broker == 3;
        }
    }
    EXPECT_TRUE(moved_off_3) << "the planner at SCHED_IDLE made no plan that drains broker 3";
    engine.stop();
}

/// RocksDB's flush thread takes SCHED_IDLE before its next job: fill a
/// memtable (64 MiB) so that one flush runs.
TEST(ThreadPriority, IdleJournalFlushesAtSchedIdle) {
    TempDir dir;
    store::JournalOptions options;
    options.sync = false;
    options.background_priority = store::BackgroundPriority::idle;
    events::Result<std::unique_ptr<store::Journal>> journal = store::Journal::open(dir / "journal", options);
    ASSERT_TRUE(journal.ok()) << journal.error().to_string();

    // ~190 KB an event (4,000 samples): 400 of them fill a memtable.
    events::PartitionMetrics metrics;
    metrics.broker_id = 1;
    metrics.topics = {"orders"};
    for (int32_t p = 0; p < 4000; p++) metrics.samples.push_back({0, p, 1024.0 * p, 2048.0 * p, 1.0 * p, 1u << 20});
    for (int i = 0; i < 400; i++) {
        std::vector<events::Event> batch = {{0, i, events::Source::tool, metrics}};
        ASSERT_TRUE((*journal)->append(batch).ok());
    }

    bool flushed_idle = false;
    for (int i = 0; i < 200 && !flushed_idle; i++) {
        for (const ThreadInfo& t : threads()) flushed_idle |= t.name == "rocksdb:high" && t.policy == SCHED_IDLE;
        if (!flushed_idle) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_TRUE(flushed_idle) << "no RocksDB flush thread at SCHED_IDLE within 10 s";
    // Everything appended reads back: the lowered flush lost nothing.
    EXPECT_EQ((*journal)->last_seq(), 400u);
    events::Result<std::vector<events::Event>> last = (*journal)->read(400, 400);
    ASSERT_TRUE(last.ok()) << last.error().to_string();
    ASSERT_EQ(last->size(), 1u);
    EXPECT_EQ(std::get<events::PartitionMetrics>(last->front().body).samples.size(), 4000u);
}

}  // namespace
}  // namespace ballast::actors
