// A hot standby's lag behind its leader during an event storm, behind
// bench/standby_lag.sh: two high-availability instances (actors::HaNode) in
// this process on Kafka's log (kafka::ha::KafkaHaLog) against a running
// cluster; the first is elected and its engine takes `ballast storm`'s
// synthetic stream (sim::StormGenerator: 100,000 partitions by default) at a
// target rate; the second follows. A run's lag is from the moment the
// leader's publication of it returned (committed) to the moment the
// standby's journal holds it (read, appended and handed to its engine), on
// this process's steady clock. The records behind are sampled after each of
// the standby's steps. Prints one JSON line.
//
// Usage: standby_lag --bootstrap HOST:PORT,... --dir DIR [--partitions N] [--brokers N]
//        [--rate EVENTS_PER_S] [--duration S] [--pattern P] [--seed S]

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "actors/engine.h"
#include "actors/ha_node.h"
#include "adapters/kafka/ha/journal_topic.h"
#include "adapters/sim/storm_generator.h"
#include "store/journal.h"
#include "tools/driver/machine.h"
#include "tools/driver/percentile.h"

namespace {

using namespace ballast;
using Clock = std::chrono::steady_clock;

struct Options {
    std::string bootstrap;
    std::string dir;
    int32_t partitions = 100'000;
    int32_t brokers = 100;
    double rate = 50'000;
    double duration_s = 60;
    std::string pattern = "metrics-flood";
    uint64_t seed = 1;
};

using driver::percentile;

nlohmann::ordered_json summary(const std::vector<double>& values) {
    return {{"count", values.size()},
            {"p50", percentile(values, 0.5)},
            {"p99", percentile(values, 0.99)},
            {"max", values.empty() ? 0.0 : *std::max_element(values.begin(), values.end())}};
}

/// What the leader committed: each run's last seq and when its publication
/// returned.
class Commits {
public:
    void committed(const std::vector<store::ShippedRun>& runs, Clock::time_point at) {
        std::lock_guard<std::mutex> lock(_mutex);
        for (const store::ShippedRun& run : runs) {
            if (auto bounds = store::shipped_run_bounds(run)) {
                _pending.push_back({bounds->second, at});
                _newest_seq = std::max(_newest_seq, bounds->second);
            }
        }
        _publications++;
    }
    void snapshot() {
        std::lock_guard<std::mutex> lock(_mutex);
        _snapshots++;
    }
    /// The standby's journal reached `applied_seq` at `at`: the runs it now
    /// holds are done; returns how far behind it still is, in records.
    uint64_t applied(uint64_t applied_seq, Clock::time_point at, std::vector<double>& lag_ms) {
        std::lock_guard<std::mutex> lock(_mutex);
        while (!_pending.empty() && _pending.front().last_seq <= applied_seq) {
            lag_ms.push_back(std::max(0.0, std::chrono::duration<double, std::milli>(at - _pending.front().at).count()));
            _pending.pop_front();
        }
        return _newest_seq > applied_seq ? _newest_seq - applied_seq : 0;
    }
    uint64_t newest_seq() const {
        std::lock_guard<std::mutex> lock(_mutex);
        return _newest_seq;
    }
    uint64_t publications() const {
        std::lock_guard<std::mutex> lock(_mutex);
        return _publications;
    }
    uint64_t snapshots() const {
        std::lock_guard<std::mutex> lock(_mutex);
        return _snapshots;
    }

private:
    struct Run {
        uint64_t last_seq;
        Clock::time_point at;
    };
    mutable std::mutex _mutex;
    std::deque<Run> _pending;
    uint64_t _newest_seq = 0;
    uint64_t _publications = 0;
    uint64_t _snapshots = 0;
};

/// The leader's log as it is, with its commits timed.
class TimedReplica : public actors::JournalReplica {
public:
    TimedReplica(actors::JournalReplica* inner, Commits* commits) : _inner(inner), _commits(commits) {}
    events::Status publish(const std::vector<store::ShippedRun>& runs) override {
        events::Status published = _inner->publish(runs);
        if (published) _commits->committed(runs, Clock::now());
        return published;
    }
    events::Status publish_snapshot(uint64_t seq, std::span<const uint8_t> bytes) override {
        events::Status published = _inner->publish_snapshot(seq, bytes);
        if (published) _commits->snapshot();
        return published;
    }
    bool may_act() const override { return _inner->may_act(); }

private:
    actors::JournalReplica* _inner;
    Commits* _commits;
};

class TimedLog : public actors::HaLog {
public:
    TimedLog(actors::HaLog* inner, Commits* commits) : _inner(inner), _commits(commits) {}
    bool elected() override { return _inner->elected(); }
    events::Status become_writer() override {
        events::Status became = _inner->become_writer();
        if (became) _writer = std::make_unique<TimedReplica>(_inner->writer(), _commits);
        return became;
    }
    actors::JournalReplica* writer() override { return _inner->writer() ? _writer.get() : nullptr; }
    void drop_writer() override {
        _inner->drop_writer();
        _writer.reset();
    }
    events::Status seek_after(uint64_t seq) override { return _inner->seek_after(seq); }
    events::Result<std::vector<store::ShippedRun>> read(int64_t timeout_ms) override {
        return _inner->read(timeout_ms);
    }
    events::Result<bool> caught_up() override { return _inner->caught_up(); }
    events::Result<std::optional<store::Snapshot>> newest_snapshot() override { return _inner->newest_snapshot(); }
    events::Result<uint64_t> first_seq() override { return _inner->first_seq(); }

private:
    actors::HaLog* _inner;
    Commits* _commits;
    std::unique_ptr<TimedReplica> _writer;
};

/// The storm's settings (tools/storm_command.cc): no fsync, rounds every
/// 10 s, decisions taking effect 3 s after their round; snapshots every
/// million events, so that a minute's storm publishes a few.
events::Config storm_config() {
    events::Config c = events::Config::defaults();
    const auto set = [&](const char* key, const char* value) {
        if (events::Status s = c.set(key, value, "standby_lag"); !s) {
            std::fprintf(stderr, "standby_lag: %s\n", s.error().to_string().c_str());
            std::exit(2);
        }
    };
    set("ballast.journal.sync", "false");
    set("autobalancer.controller.anomaly.detect.interval.ms", "10000");
    set("ballast.snapshot.interval.events", "1000000");
    set("ballast.planner.decision.delay.ms", "3000");
    set("ballast.cluster.flavor", "automq");
    return c;
}

int fail(const std::string& message) {
    std::fprintf(stderr, "standby_lag: %s\n", message.c_str());
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    Options options;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        const std::string value = argv[i + 1];
        if (flag == "--bootstrap") options.bootstrap = value;
        else if (flag == "--dir") options.dir = value;
        else if (flag == "--partitions") options.partitions = std::stoi(value);
        else if (flag == "--brokers") options.brokers = std::stoi(value);
        else if (flag == "--rate") options.rate = std::stod(value);
        else if (flag == "--duration") options.duration_s = std::stod(value);
        else if (flag == "--pattern") options.pattern = value;
        else if (flag == "--seed") options.seed = std::stoull(value);
        else return fail("unknown flag " + flag);
    }
    if (options.bootstrap.empty() || options.dir.empty()) return fail("--bootstrap and --dir are required");
    events::Result<sim::StormPattern> pattern = sim::parse_storm_pattern(options.pattern);
    if (!pattern) return fail(pattern.error().to_string());
    spdlog::set_level(spdlog::level::warn);

    const std::string group = "ballast-lag-" + std::to_string(::getpid());
    const auto open_log = [&](const std::string& instance) {
        kafka::ha::KafkaHaOptions ha;
        ha.bootstrap_servers = options.bootstrap;
        ha.instance_id = instance;
        ha.group_id = group;
        ha.assignment_strategy = "cooperative-sticky";
        return kafka::ha::KafkaHaLog::open(ha);
    };
    const events::Config config = storm_config();
    Commits commits;
    sim::StormPort port(1'500);

    // The leader: elected alone, before the standby joins.
    events::Result<std::unique_ptr<kafka::ha::KafkaHaLog>> leader_log = open_log("leader");
    if (!leader_log) return fail(leader_log.error().to_string());
    TimedLog timed(leader_log->get(), &commits);
    actors::HaNodeOptions leader_options;
    leader_options.instance_id = "leader";
    leader_options.log = &timed;
    leader_options.engine.config = config;
    leader_options.engine.journal_path = options.dir + "/leader";
    leader_options.engine.port = &port;
    events::Result<std::unique_ptr<actors::HaNode>> leader = actors::HaNode::start(leader_options);
    if (!leader) return fail(leader.error().to_string());
    const Clock::time_point election_start = Clock::now();
    while ((*leader)->role() != actors::HaRole::leader) {
        if (events::Status s = (*leader)->step(); !s) return fail("the leader: " + s.error().to_string());
        if (Clock::now() - election_start > std::chrono::seconds(60)) return fail("no leader after 60 s");
    }
    actors::Engine& engine = *(*leader)->engine();

    // The cluster first, then the standby joins from the log's start.
    sim::StormGenerator generator({options.brokers, options.partitions, *pattern, options.seed});
    for (std::vector<events::Event>& batch : generator.setup(10'000)) {
        if (events::Status s = engine.feed(std::move(batch)); !s) return fail(s.error().to_string());
    }
    if (events::Status s = engine.wait_idle(); !s) return fail(s.error().to_string());
    events::Result<std::unique_ptr<kafka::ha::KafkaHaLog>> standby_log = open_log("standby");
    if (!standby_log) return fail(standby_log.error().to_string());
    actors::HaNodeOptions standby_options;
    standby_options.instance_id = "standby";
    standby_options.log = standby_log->get();
    standby_options.engine.config = config;
    standby_options.engine.journal_path = options.dir + "/standby";
    sim::StormPort unused_port(1'500);
    standby_options.engine.port = &unused_port;
    events::Result<std::unique_ptr<actors::HaNode>> standby = actors::HaNode::start(standby_options);
    if (!standby) return fail(standby.error().to_string());

    // The standby's thread: step, then see how far its journal got. Its lag
    // counts from when it has caught up with the setup.
    std::vector<double> lag_ms;
    std::vector<double> behind_records;
    std::atomic<bool> measuring{false};
    std::atomic<bool> stop{false};
    std::atomic<uint64_t> standby_seq{0};  // status() is the stepping thread's
    std::string standby_error;  // read once the thread is joined
    std::atomic<bool> standby_failed{false};
    std::thread follower([&] {
        while (!stop) {
            if (events::Status s = (*standby)->step(); !s) {
                standby_error = s.error().to_string();
                standby_failed = true;
                return;
            }
            const uint64_t seq = (*standby)->status().journal_seq;
            standby_seq = seq;
            std::vector<double> done;
            const uint64_t behind = commits.applied(seq, Clock::now(), done);
            if (measuring) {
                lag_ms.insert(lag_ms.end(), done.begin(), done.end());
                behind_records.push_back(static_cast<double>(behind));
            }
        }
    });
    const Clock::time_point catch_up_start = Clock::now();
    while (standby_seq < commits.newest_seq() && !standby_failed) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (Clock::now() - catch_up_start > std::chrono::seconds(300)) break;
    }
    const double setup_catch_up_s = std::chrono::duration<double>(Clock::now() - catch_up_start).count();
    measuring = true;

    // The storm, as `ballast storm` feeds it: ~1 ms of events a batch, broker
    // totals and a Tick each second; the leader's step every 100 ms.
    const driver::CpuTimes cpu_start = driver::cpu_times();
    const size_t batch_events = std::max<size_t>(1, static_cast<size_t>(options.rate / 1000));
    const Clock::time_point start = Clock::now();
    const auto duration = std::chrono::duration<double>(options.duration_s);
    int64_t next_tick_ms = 1'000;
    int64_t next_step_ms = 100;
    uint64_t storm_events = 0;
    std::string leader_error;
    std::vector<events::Event> batch;
    while (Clock::now() - start < duration && leader_error.empty() && !standby_failed) {
        const double elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
        const auto now_ms = static_cast<int64_t>(elapsed_s * 1000);
        const auto due = static_cast<uint64_t>(options.rate * elapsed_s);
        if (now_ms >= next_step_ms) {
            if (events::Status s = (*leader)->step(); !s) leader_error = s.error().to_string();
            if ((*leader)->role() != actors::HaRole::leader) leader_error = "the leader stepped down: " +
                                                                             (*leader)->status().last_demotion;
            next_step_ms += 100;
            continue;
        }
        if (storm_events >= due && now_ms < next_tick_ms) {
            std::this_thread::sleep_for(std::chrono::microseconds(500));
            continue;
        }
        batch.clear();
        if (now_ms >= next_tick_ms) {
            port.set_now(next_tick_ms);
            for (events::Event& e : port.due(next_tick_ms)) {
                if (const auto* c = std::get_if<events::PartitionChanged>(&e.body)) {
                    generator.moved(c->topic, c->partition, c->replicas);
                }
                batch.push_back(std::move(e));
            }
            batch.push_back(generator.broker_report(next_tick_ms));
            batch.push_back({0, next_tick_ms, events::Source::clock, events::Tick{next_tick_ms}});
            next_tick_ms += 1'000;
        }
        const size_t n = static_cast<size_t>(std::min<uint64_t>(batch_events, due > storm_events ? due - storm_events : 0));
        generator.generate(n, now_ms, batch);
        storm_events += n;
        if (events::Status s = engine.feed(std::move(batch)); !s) leader_error = s.error().to_string();
        batch = {};
    }
    const double storm_s = std::chrono::duration<double>(Clock::now() - start).count();
    if (leader_error.empty()) {
        if (events::Status s = engine.wait_idle(); !s) leader_error = s.error().to_string();
    }
    const double drained_s = std::chrono::duration<double>(Clock::now() - start).count() - storm_s;
    const double steal_pct = driver::steal_percent(cpu_start, driver::cpu_times());
    // The standby's end: all that was committed, or a minute.
    const uint64_t leader_seq = commits.newest_seq();
    const Clock::time_point end_wait = Clock::now();
    while (standby_seq < leader_seq && !standby_failed &&
           Clock::now() - end_wait < std::chrono::seconds(60)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    stop = true;
    follower.join();
    const actors::HaStatus standby_status = (*standby)->status();

    nlohmann::ordered_json out;
    out["pattern"] = options.pattern;
    out["brokers"] = options.brokers;
    out["partitions"] = options.partitions;
    out["rate_target"] = options.rate;
    out["duration_s"] = storm_s;
    out["events"] = storm_events;
    out["events_per_s"] = static_cast<double>(storm_events) / storm_s;
    out["leader_drain_s"] = drained_s;
    out["publications"] = commits.publications();
    out["publications_per_s"] = static_cast<double>(commits.publications()) / (storm_s + drained_s);
    out["snapshots_published"] = commits.snapshots();
    out["setup_catch_up_s"] = setup_catch_up_s;
    out["lag_ms"] = summary(lag_ms);
    out["lag_records"] = summary(behind_records);
    out["leader_seq"] = leader_seq;
    out["standby_seq"] = standby_status.journal_seq;
    out["standby_caught_up"] = standby_status.journal_seq >= leader_seq;
    out["rounds_matched"] = standby_status.decisions_matched;
    out["rounds_diverged"] = standby_status.decisions_diverged;
    if (!standby_status.first_divergence.empty()) out["first_divergence"] = standby_status.first_divergence;
    out["machine"] = {{"cpus", driver::cpu_count()}, {"cpu_model", driver::cpu_model()}, {"steal_pct", steal_pct}};
    if (!leader_error.empty()) out["leader_error"] = leader_error;
    if (!standby_error.empty()) out["standby_error"] = standby_error;
    std::printf("%s\n", out.dump().c_str());
    std::fflush(stdout);

    (void)(*standby)->stop();
    standby->reset();
    (*standby_log)->close();
    (void)(*leader)->stop();
    leader->reset();
    (*leader_log)->close();
    return leader_error.empty() && standby_error.empty() && standby_status.journal_seq >= leader_seq ? 0 : 1;
}
