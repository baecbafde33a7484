/// `ballast replay --explain` from the partition index (tools/driver/journal_explain.h)
/// against the full replay it replaces: on journals of simulated runs (moves,
/// an evacuation, a drain, a topic deleted and created again, failed and stuck
/// submissions, engine crashes with power cuts) and of an operator's
/// cancellation, for every partition the journal names, the two answers are
/// the same bytes; so they are up to a seq, after retention and after a
/// repair cut the journal; and an index that is missing or wrong is never
/// believed: the answer comes from a scan until a writable open rebuilds it,
/// which it says.

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "adapters/sim/sim_scenario.h"
#include "store/journal_index.h"
#include "tests/engine/engine_harness.h"
#include "tests/support/cluster_events.h"
#include "tests/support/raw_journal.h"
#include "tests/support/temp_dir.h"
#include "tools/driver/journal_explain.h"
#include "tools/driver/sim_runner.h"

namespace ballast::driver {
namespace {

using testing::TempDir;

/// Four brokers and two topics with skewed traffic (moves), broker 4
/// stopped for good (an evacuation), broker 3 drained by an operator, a
/// pause, topic "b" deleted and created again, submissions that fail or
/// stick (retries, timeouts), and snapshots often enough for retention.
constexpr const char* busy_scenario = R"({
  "name": "explain", "flavor": "automq", "seed": 7, "duration": "12m",
  "settings": {"autobalancer.controller.anomaly.detect.interval.ms": 30000,
               "ballast.snapshot.interval.events": 400, "ballast.action.timeout.ms": 60000},
  "brokers": [{"id": 1}, {"id": 2}, {"id": 3}, {"id": 4}],
  "topics": [{"name": "a", "partitions": 12, "replication_factor": 1,
              "traffic": {"profile": "constant", "bytes_in_per_s": 8388608, "skew": {"kind": "zipf", "s": 1.2}}},
             {"name": "b", "partitions": 6, "replication_factor": 2,
              "traffic": {"profile": "constant", "bytes_in_per_s": 4194304}}],
  "events": [{"at": "90s", "stop_broker": 4}, {"at": "3m", "remove_broker": 4},
             {"at": "4m", "drain_broker": 3}, {"at": "5m", "pause": true}, {"at": "6m", "resume": true},
             {"at": "7m", "delete_topic": "b"},
             {"at": "8m", "create_topic": {"name": "b", "partitions": 4, "replication_factor": 1,
                                           "traffic": {"profile": "constant", "bytes_in_per_s": 6291456}}}],
  "faults": {"submit_failure_ratio": 0.15, "stuck_ratio": 0.05, "engine_kills": ["100s", "9m"]}
})";

/// Runs a simulation into `path`; the power goes with each engine crash.
void simulate(sim::Scenario scenario, const std::string& path) {
    scenario.faults.engine_kills_cut_power = true;
    events::Result<events::Config> config = sim_config(scenario, {}, "");
    ASSERT_TRUE(config.ok()) << config.error().message;
    SimRunOptions options;
    options.scenario = std::move(scenario);
    options.config = std::move(*config);
    options.journal_path = path;
    events::Result<SimRunSummary> ran = run_simulation(options);
    ASSERT_TRUE(ran.ok()) << ran.error().message;
    EXPECT_GT(ran->engine_restarts, 0u);
}

/// Every partition the journal names, and how many events of each type it holds.
struct Census {
    std::set<std::pair<std::string, int32_t>> partitions;
    std::map<events::EventType, uint64_t> types;
};

Census census(const store::Journal& journal) {
    Census out;
    events::Status scanned = journal.scan(journal.first_seq(), journal.last_seq(), [&](uint64_t, auto bytes) {
        const events::Event e = events::from_flatbuffer(events::view(bytes));
        out.types[e.type()]++;
        if (const auto* c = std::get_if<events::PartitionChanged>(&e.body)) out.partitions.emplace(c->topic, c->partition);
        if (const auto* p = std::get_if<events::ActionsPlanned>(&e.body)) {
            for (const events::Action& a : p->actions) out.partitions.emplace(a.topic, a.partition);
        }
        return true;
    });
    EXPECT_TRUE(scanned.ok()) << scanned.error().to_string();
    return out;
}

/// For every partition of the journal at `path` (and one it never had):
/// the index's answer is the full replay's, byte for byte, read from the
/// index (`how_prefix`) and from fewer events than the journal holds.
/// Returns the census of the journal.
Census expect_answers_as_replay(const std::string& path, uint64_t to = UINT64_MAX,
                                const std::string& how_prefix = "partition index",
                                const std::set<std::pair<std::string, int32_t>>& also = {}) {
    events::Result<ReplaySource> source = open_replay_source(path, ReplayStart::oldest, to);
    EXPECT_TRUE(source.ok()) << source.error().to_string();
    if (!source.ok()) return {};
    events::Result<std::vector<events::Event>> plans = replay_decisions(*source, {}, {});
    EXPECT_TRUE(plans.ok()) << plans.error().to_string();
    if (!plans.ok()) return {};
    Census names = census(*source->journal);
    EXPECT_GE(names.partitions.size() + also.size(), 4u);
    names.partitions.insert(also.begin(), also.end());
    names.partitions.emplace("never-there", 0);
    for (const auto& [topic, partition] : names.partitions) {
        SCOPED_TRACE(path + ": " + topic + "-" + std::to_string(partition));
        ExplainRequest request;
        request.topic = topic;
        request.partition = partition;
        request.to = to;
        events::Result<Explanation> indexed = explain_partition(*source->journal, request);
        events::Result<Explanation> replayed = explain_from_replay(*source, *plans, topic, partition);
        EXPECT_TRUE(indexed.ok()) << indexed.error().to_string();
        EXPECT_TRUE(replayed.ok()) << replayed.error().to_string();
        if (!indexed.ok() || !replayed.ok()) continue;
        EXPECT_EQ(indexed->text, replayed->text);
        EXPECT_EQ(indexed->how.rfind(how_prefix, 0), 0u) << indexed->how;
        if (how_prefix == "partition index") {
            EXPECT_LT(indexed->events_read, source->journal->event_count());
        }
    }
    return names;
}

std::string copy_of(const std::string& from, const std::string& to) {
    std::filesystem::copy(from, to, std::filesystem::copy_options::recursive);
    return to;
}

std::unique_ptr<store::Journal> open_writable(const std::string& path) {
    events::Result<std::unique_ptr<store::Journal>> journal = store::Journal::open(path, {});
    EXPECT_TRUE(journal.ok()) << journal.error().to_string();
    return journal.ok() ? std::move(*journal) : nullptr;
}

bool warned(const store::Journal& journal, const std::string& text) {
    for (const std::string& w : journal.warnings()) {
        if (w.find(text) != std::string::npos) return true;
    }
    return false;
}

/// One busy simulated run, shared by the tests below (each copies it).
class ExplainIndex : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        spdlog::set_level(spdlog::level::warn);
        _dir = new TempDir;
        events::Result<sim::Scenario> scenario = sim::parse_scenario_json(busy_scenario, "explain.json");
        ASSERT_TRUE(scenario.ok()) << scenario.error().message;
        simulate(*scenario, *_dir / "busy");
    }
    static void TearDownTestSuite() {
        delete _dir;
        _dir = nullptr;
    }
    static std::string busy() { return *_dir / "busy"; }
    static std::string scratch(const std::string& name) { return copy_of(busy(), *_dir / name); }

    static TempDir* _dir;
};
TempDir* ExplainIndex::_dir = nullptr;

TEST_F(ExplainIndex, AnswersAsTheFullReplayOnABusySimulatedRun) {
    Census names = expect_answers_as_replay(busy());
    // The run has what the test is for.
    EXPECT_GT(names.types.count(events::EventType::actions_planned), 0u);
    EXPECT_GT(names.types.count(events::EventType::action_completed), 0u);
    EXPECT_GT(names.types.count(events::EventType::action_failed), 0u);
    EXPECT_GT(names.types.count(events::EventType::topic_deleted), 0u);
    EXPECT_GE(names.types[events::EventType::topic_created], 3u) << "a, b, and b again";
    EXPECT_GT(names.types.count(events::EventType::operator_command), 0u);

    // The whole path, as `ballast replay --explain` and `--full-replay` take it.
    ExplainRequest request;
    request.topic = "a";
    request.partition = 0;
    events::Result<Explanation> indexed = explain_partition(busy(), request);
    request.path = ExplainPath::full_replay;
    events::Result<Explanation> replayed = explain_partition(busy(), request);
    ASSERT_TRUE(indexed.ok() && replayed.ok());
    EXPECT_EQ(indexed->text, replayed->text);
    EXPECT_NE(indexed->text.find("round "), std::string::npos) << indexed->text;
}

TEST_F(ExplainIndex, AnswersAsTheFullReplayUpToASeq) {
    events::Result<std::unique_ptr<store::Journal>> journal = store::Journal::open(busy(), {.read_only = true});
    ASSERT_TRUE(journal.ok());
    const uint64_t middle = (*journal)->last_seq() / 2;
    journal->reset();
    expect_answers_as_replay(busy(), middle);
}

TEST_F(ExplainIndex, AnswersAsTheFullReplayAfterRetentionCutTheJournal) {
    const std::string path = scratch("retained");
    std::set<std::pair<std::string, int32_t>> before;
    {
        std::unique_ptr<store::Journal> journal = open_writable(path);
        ASSERT_NE(journal, nullptr);
        before = census(*journal).partitions;
        // Keeps the last half of the run's twelve minutes (from a snapshot).
        events::Result<events::Event> last = journal->read_one(journal->last_seq());
        ASSERT_TRUE(last.ok());
        store::RetentionPolicy policy;
        policy.retention_ms = 6 * 60'000;
        events::Result<store::RetentionReport> cut = journal->apply_retention(last->time_ms, policy);
        ASSERT_TRUE(cut.ok()) << cut.error().to_string();
        ASSERT_GT(cut->events_deleted, 0u);
    }
    // Partitions whose events went too: what is left of their story.
    expect_answers_as_replay(path, UINT64_MAX, "partition index", before);
}

TEST_F(ExplainIndex, AnswersAsTheFullReplayAfterARepairCutTheJournal) {
    const std::string path = scratch("repaired");
    uint64_t last = 0;
    {
        std::unique_ptr<store::Journal> journal = open_writable(path);
        ASSERT_NE(journal, nullptr);
        last = journal->last_seq();
    }
    events::Result<uint64_t> dropped = store::Journal::truncate_after(path, last * 2 / 3);
    ASSERT_TRUE(dropped.ok()) << dropped.error().to_string();
    ASSERT_GT(*dropped, 0u);
    // The index the repair left (or the one the next open builds) ends where the journal does.
    { ASSERT_NE(open_writable(path), nullptr); }
    expect_answers_as_replay(path);
}

TEST_F(ExplainIndex, AMissingIndexIsScannedAroundThenRebuiltByTheWritableOpen) {
    const std::string path = scratch("missing");
    {
        testing::RawJournal raw(path);
        ASSERT_TRUE(raw.ok()) << raw.status();
        raw.drop_index();
    }
    // Read-only, it cannot be rebuilt: the answer comes from a scan.
    expect_answers_as_replay(path, UINT64_MAX, "scan: ");
    std::unique_ptr<store::Journal> journal = open_writable(path);
    ASSERT_NE(journal, nullptr);
    EXPECT_TRUE(warned(*journal, "its partition index has no marker")) << ::testing::PrintToString(journal->warnings());
    EXPECT_TRUE(warned(*journal, "rebuilt the partition index from seq 1..")) << ::testing::PrintToString(journal->warnings());
    journal.reset();
    expect_answers_as_replay(path);
}

TEST_F(ExplainIndex, ADamagedIndexIsNeverBelievedAndTheNextOpenRebuildsIt) {
    const std::string path = scratch("damaged");
    const std::string prefix = store::partition_index_prefix("a", 0);
    {
        testing::RawJournal raw(path);
        ASSERT_TRUE(raw.ok()) << raw.status();
        bool flipped = false;
        for (auto [key, value] : raw.index_entries()) {
            if (key.rfind(prefix, 0) != 0 || key.size() != prefix.size() + 8) continue;
            value.back() ^= 0x01;
            raw.put_index(key, value);
            flipped = true;
            break;
        }
        ASSERT_TRUE(flipped) << "no entry for a-0";
    }
    expect_answers_as_replay(path, UINT64_MAX, "");  // a-0 by a scan, the rest by the index
    {
        // A writable journal's reader notes what it found, for the next open.
        std::unique_ptr<store::Journal> journal = open_writable(path);
        ASSERT_NE(journal, nullptr);
        ExplainRequest request;
        request.topic = "a";
        request.partition = 0;
        events::Result<Explanation> answer = explain_partition(*journal, request);
        ASSERT_TRUE(answer.ok()) << answer.error().to_string();
        EXPECT_EQ(answer->how.rfind("scan: ", 0), 0u) << answer->how;
        EXPECT_FALSE(journal->index_status().ok()) << "the index stops answering once found wrong";
    }
    std::unique_ptr<store::Journal> journal = open_writable(path);
    ASSERT_NE(journal, nullptr);
    EXPECT_TRUE(warned(*journal, "a reader found it wrong")) << ::testing::PrintToString(journal->warnings());
    journal.reset();
    expect_answers_as_replay(path);
}

TEST_F(ExplainIndex, AnEntryNamingAnotherEventIsCaught) {
    const std::string path = scratch("misfiled");
    uint64_t tick_seq = 0;
    {
        events::Result<std::unique_ptr<store::Journal>> journal = store::Journal::open(path, {.read_only = true});
        ASSERT_TRUE(journal.ok());
        ASSERT_TRUE((*journal)
                        ->scan(1, UINT64_MAX,
                               [&](uint64_t seq, auto bytes) {
                                   if (events::header(events::view(bytes)).type != events::EventType::tick) return true;
                                   tick_seq = seq;
                                   return false;
                               })
                        .ok());
    }
    ASSERT_GT(tick_seq, 0u);
    {
        // A well-formed entry (its checksum holds) that files a Tick under a-1.
        testing::RawJournal raw(path);
        ASSERT_TRUE(raw.ok()) << raw.status();
        auto [key, value] = store::encode_index_entry(store::partition_index_prefix("a", 1), {tick_seq});
        raw.put_index(key, value);
    }
    events::Result<std::unique_ptr<store::Journal>> journal = store::Journal::open(path, {.read_only = true});
    ASSERT_TRUE(journal.ok());
    ExplainRequest request;
    request.topic = "a";
    request.partition = 1;
    events::Result<Explanation> answer = explain_partition(**journal, request);
    ASSERT_TRUE(answer.ok()) << answer.error().to_string();
    EXPECT_EQ(answer->how.rfind("scan: ", 0), 0u) << answer->how;
    EXPECT_NE(answer->how.find("seq " + std::to_string(tick_seq) + " is indexed under a-1"), std::string::npos)
        << answer->how;
    journal->reset();
    expect_answers_as_replay(path, UINT64_MAX, "");  // a-1 by a scan, the others by the index
}

/// A second shape of run: racks, RF3, a broker added (moves onto it), one
/// fenced and unfenced, a traffic shift, a crash.
TEST(ExplainIndexRuns, AnswersAsTheFullReplayOnAGrowingRackAwareCluster) {
    events::Result<sim::Scenario> scenario = sim::parse_scenario_json(R"({
      "name": "grow", "flavor": "apache", "seed": 3, "duration": "7m",
      "settings": {"autobalancer.controller.anomaly.detect.interval.ms": 30000},
      "brokers": [{"id": 1, "rack": "r1"}, {"id": 2, "rack": "r2"}, {"id": 3, "rack": "r3"}],
      "topics": [{"name": "c", "partitions": 9, "replication_factor": 3,
                  "traffic": {"profile": "constant", "bytes_in_per_s": 3145728, "skew": {"kind": "lognormal", "sigma": 1.0}}}],
      "events": [{"at": "60s", "add_broker": {"id": 4, "rack": "r1"}},
                 {"at": "3m", "fence_broker": 2}, {"at": "210s", "unfence_broker": 2},
                 {"at": "4m", "traffic": {"topic": "c", "led_by": 1, "scale": 3}}],
      "faults": {"engine_kills": ["150s"]}
    })", "grow.json");
    ASSERT_TRUE(scenario.ok()) << scenario.error().message;
    TempDir dir;
    simulate(*scenario, dir / "grow");
    const Census names = expect_answers_as_replay(dir / "grow");
    EXPECT_GT(names.types.count(events::EventType::actions_planned), 0u);
}

/// An operator's cancellation and a final failure, through the engine (the
/// simulator's scenarios have no cancel).
TEST(ExplainIndexEngine, AnswersAsTheFullReplayWithACancelledAndAFailedAction) {
    using actors::engine_harness::start;
    using actors::engine_harness::test_config;
    using ballast::testing::at;
    using ballast::testing::tick;
    TempDir dir;
    const std::string path = dir / "j";
    {
        ballast::testing::FakePort port;
        ballast::testing::DecisionLog log;
        std::unique_ptr<actors::Engine> engine = start(path, &port, log, test_config({"ballast.action.retries.max=0"}));
        ASSERT_NE(engine, nullptr);
        std::vector<events::Event> setup = ballast::testing::cluster_setup(3, 3, {{"t", 6, 1}, {"u", 4, 1}});
        setup.push_back(at(0, events::BrokerMetrics{0, {{1, 0, 0, 0, 0}, {2, 0, 0, 0, 0}, {3, 0, 0, 0, 0}}}));
        setup.push_back(tick(0));
        setup.push_back(at(1000, events::BrokerFenced{3}, events::Source::kafka_metadata));
        for (int64_t t = 1000; t <= 12'000; t += 1000) setup.push_back(tick(t));
        actors::engine_harness::feed_all(*engine, setup);
        ASSERT_FALSE(log.plans().empty());
        ASSERT_GE(log.plans().back().actions.size(), 2u);
        const uint64_t cancelled = log.plans().back().actions[0].action_id;
        const uint64_t failed = log.plans().back().actions[1].action_id;
        actors::engine_harness::feed_all(
            *engine, {at(13'000, events::OperatorCommand{events::CommandKind::cancel_actions, {}, {}, {cancelled},
                                                         "wrong destination"},
                         events::Source::operator_),
                      at(14'000, events::ActionFailed{failed, 39, "INVALID_REPLICA_ASSIGNMENT", "no", false, 1},
                         events::Source::kafka_admin),
                      tick(15'000), tick(30'000)});
    }
    const Census names = expect_answers_as_replay(path);
    EXPECT_GT(names.types.count(events::EventType::action_cancelled), 0u);
    EXPECT_GT(names.types.count(events::EventType::action_failed), 0u);
}

}  // namespace
}  // namespace ballast::driver
