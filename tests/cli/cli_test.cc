/// The `ballast` command end to end, as an operator runs it: real binary,
/// real journal directories, output and exit codes checked. The binary comes
/// from $BALLAST_BIN (meson sets it).

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/ballast_cli.h"
#include "tests/support/raw_journal.h"
#include "tests/support/temp_dir.h"

namespace ballast::tools {
namespace {

using testing::TempDir;
using Outcome = testing::CliOutcome;
using testing::ballast;
using testing::contains;

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_file(const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
}

const char* three_events =
    R"({"type":"broker_registered","time_ms":1000,"source":"simulator","broker_id":1,"rack":"rack-a"})"
    "\n"
    R"({"type":"broker_fenced","time_ms":2000,"source":"kafka_metadata","broker_id":1})"
    "\n"
    R"({"type":"tick","time_ms":3000,"source":"clock","now_ms":3000})"
    "\n";

TEST(Cli, VersionAndHelp) {
    Outcome version = ballast("--version");
    EXPECT_EQ(version.exit_code, 0);
    EXPECT_TRUE(contains(version.out, "ballast 0.")) << version.out;
    for (const char* command : {"--help", "log --help", "log show --help", "config --help",
                                "log repair --help", "log export --help"}) {
        Outcome help = ballast(command);
        EXPECT_EQ(help.exit_code, 0) << command;
        EXPECT_TRUE(contains(help.out, "Usage:")) << command << ": " << help.out;
    }
}

TEST(Cli, UnknownSubcommandsAndFlagsAreRefused) {
    Outcome unknown = ballast("frobnicate");
    EXPECT_NE(unknown.exit_code, 0);
    EXPECT_TRUE(contains(unknown.out, "frobnicate")) << unknown.out;
    Outcome flag = ballast("log show --frobnicate");
    EXPECT_NE(flag.exit_code, 0);
    EXPECT_TRUE(contains(flag.out, "--frobnicate")) << flag.out;
}

TEST(Cli, ConfigShowsDefaultsOverridesAndOrigins) {
    TempDir dir;
    write_file(dir / "ballast.properties",
               "# a comment\nballast.partition.cooldown.ms = 30000\n");
    Outcome run = ballast("--config " + (dir / "ballast.properties") +
                      " --set autobalancer.controller.execution.concurrency=7 config");
    ASSERT_EQ(run.exit_code, 0) << run.out;
    EXPECT_TRUE(contains(run.out, "ballast.partition.cooldown.ms=30000    # from " +
                                      (dir / "ballast.properties") + ":2"))
        << run.out;
    EXPECT_TRUE(contains(run.out, "autobalancer.controller.execution.concurrency=7    # from --set"));
    EXPECT_TRUE(contains(run.out, "ballast.journal.sync=true\n"));

    Outcome defaults = ballast("config --defaults");
    ASSERT_EQ(defaults.exit_code, 0);
    EXPECT_TRUE(contains(defaults.out, "autobalancer.controller.anomaly.detect.interval.ms=60000"));
    EXPECT_TRUE(contains(defaults.out, "ballast.partition.cooldown.ms=60000"));
}

TEST(Cli, ConfigErrorsNameTheKeyAndTheValue) {
    Outcome unknown = ballast("--set ballast.jornal.sync=true config");
    EXPECT_EQ(unknown.exit_code, 1);
    EXPECT_TRUE(contains(unknown.out, "unknown config key 'ballast.jornal.sync' (did you mean "
                                      "'ballast.journal.sync'?)"))
        << unknown.out;
    Outcome bad = ballast("--set ballast.journal.sync=maybe config");
    EXPECT_EQ(bad.exit_code, 1);
    EXPECT_TRUE(contains(bad.out, "'ballast.journal.sync': value 'maybe' is not a boolean"))
        << bad.out;
}

TEST(Cli, AppendShowTailAndStats) {
    TempDir dir;
    write_file(dir / "events.jsonl", three_events);
    const std::string journal = " --journal " + (dir / "j");
    Outcome append = ballast("log append --input " + (dir / "events.jsonl") + journal);
    ASSERT_EQ(append.exit_code, 0) << append.out;
    EXPECT_TRUE(contains(append.out, "appended 3 events; the journal now ends at seq 3"));

    Outcome show = ballast("log show" + journal);
    ASSERT_EQ(show.exit_code, 0) << show.out;
    EXPECT_TRUE(contains(show.out, "broker_registered")) << show.out;
    EXPECT_TRUE(contains(show.out, "rack=rack-a")) << show.out;

    Outcome json = ballast("log show --json --from 2 --to 2" + journal);
    ASSERT_EQ(json.exit_code, 0);
    EXPECT_EQ(json.out,
              R"({"seq":2,"time_ms":2000,"source":"kafka_metadata","type":"broker_fenced","broker_id":1})"
              "\n");

    Outcome typed = ballast("log show --json --type tick" + journal);
    EXPECT_EQ(typed.out, R"({"seq":3,"time_ms":3000,"source":"clock","type":"tick","now_ms":3000})"
                         "\n");

    Outcome tail = ballast("log tail -n 1 --json" + journal);
    EXPECT_TRUE(contains(tail.out, R"("seq":3)"));
    EXPECT_FALSE(contains(tail.out, R"("seq":2)"));

    Outcome stats = ballast("log stats --json" + journal);
    ASSERT_EQ(stats.exit_code, 0) << stats.out;
    EXPECT_TRUE(contains(stats.out, R"("events":3)")) << stats.out;
    EXPECT_TRUE(contains(stats.out, R"("by_type":{"broker_fenced":1,"broker_registered":1,"tick":1})"))
        << stats.out;
}

TEST(Cli, AppendWithABadLineAppendsNothingAndNamesTheLine) {
    TempDir dir;
    write_file(dir / "events.jsonl",
               std::string(three_events) + R"({"type":"broker_fenced","broker_id":"three"})" + "\n");
    Outcome append =
        ballast("log append --journal " + (dir / "j") + " --input " + (dir / "events.jsonl"));
    EXPECT_EQ(append.exit_code, 1);
    EXPECT_TRUE(contains(append.out, "events.jsonl:4: ")) << append.out;
    EXPECT_TRUE(contains(append.out, "broker_id")) << append.out;
    EXPECT_TRUE(contains(append.out, "nothing was appended")) << append.out;
}

/// Well-formed JSON that the journal could not read back (a sample past its
/// report's topics) is refused the same way: the line, the field, the value.
TEST(Cli, AppendRefusesAnEventTheJournalCouldNotReadBack) {
    TempDir dir;
    write_file(dir / "events.jsonl",
               std::string(three_events) +
                   R"({"type":"partition_metrics","source":"tool","broker_id":1,"sample_time_ms":0,"topics":["t"],)"
                   R"("samples":[{"topic_index":3,"partition":0,"bytes_in_per_s":1,"bytes_out_per_s":1,)"
                   R"("messages_in_per_s":1,"size_bytes":1}]})" "\n");
    Outcome append = ballast("log append --journal " + (dir / "j") + " --input " + (dir / "events.jsonl"));
    EXPECT_EQ(append.exit_code, 1);
    EXPECT_TRUE(contains(append.out, "events.jsonl:4: partition_metrics from tool: samples[0].topic_index is 3, "
                                     "past its 1 topics (nothing was appended)"))
        << append.out;
    EXPECT_FALSE(std::filesystem::exists(dir / "j"));  // refused before the journal was opened
}

TEST(Cli, UnknownEventTypeListsTheKnownOnes) {
    TempDir dir;
    write_file(dir / "events.jsonl", three_events);
    ASSERT_EQ(ballast("log append --journal " + (dir / "j") + " --input " + (dir / "events.jsonl"))
                  .exit_code,
              0);
    Outcome run = ballast("log show --type broker_died --journal " + (dir / "j"));
    EXPECT_EQ(run.exit_code, 1);
    EXPECT_TRUE(contains(run.out, "--type broker_died: no such event type (known: "
                                  "broker_registered, "))
        << run.out;
}

TEST(Cli, ACorruptJournalShowsUpToTheBadRecordThenRepairs) {
    TempDir dir;
    const std::string journal = " --journal " + (dir / "j");
    write_file(dir / "events.jsonl", std::string(three_events) + three_events);
    ASSERT_EQ(ballast("log append --input " + (dir / "events.jsonl") + journal).exit_code, 0);
    {
        testing::RawJournal raw(dir / "j");
        ASSERT_TRUE(raw.ok()) << raw.status();
        raw.mutate(4, [](std::string& v) { v[v.size() / 2] ^= 0x40; });
    }
    // Reading shows the good records and stops at the bad one, naming it.
    Outcome show = ballast("log show --json" + journal);
    EXPECT_EQ(show.exit_code, 1);
    EXPECT_TRUE(contains(show.out, R"("seq":3)")) << show.out;
    EXPECT_FALSE(contains(show.out, R"("seq":5)")) << show.out;
    EXPECT_TRUE(contains(show.out, "journal record seq 4: CRC32C mismatch")) << show.out;

    // Writing refuses: recovery checks the tail.
    Outcome append = ballast("log append --input " + (dir / "events.jsonl") + journal);
    EXPECT_EQ(append.exit_code, 1);
    EXPECT_TRUE(contains(append.out, "journal record seq 4")) << append.out;
    EXPECT_TRUE(contains(append.out, "ballast log repair --truncate-after")) << append.out;

    Outcome repair = ballast("log repair --truncate-after 3" + journal);
    ASSERT_EQ(repair.exit_code, 0) << repair.out;
    EXPECT_TRUE(contains(repair.out, "kept seq 1..3, 0 snapshot(s); dropped 3 events after seq 3")) << repair.out;
    EXPECT_TRUE(contains(repair.out, "now holds seq 1..3 and opens cleanly")) << repair.out;
    EXPECT_EQ(ballast("log append --input " + (dir / "events.jsonl") + journal).exit_code, 0);
}

/// `count` clock ticks as JSON lines, the first at time `first_ms`.
std::string ticks(int count, int64_t first_ms) {
    std::string out;
    for (int i = 0; i < count; i++) {
        const std::string ms = std::to_string(first_ms + i);
        out += R"({"type":"tick","time_ms":)" + ms + R"(,"source":"clock","now_ms":)" + ms + "}\n";
    }
    return out;
}

void flip_byte(const std::string& path, size_t offset) {
    std::string bytes = read_file(path);
    ASSERT_LT(offset, bytes.size());
    bytes[offset] = static_cast<char>(bytes[offset] ^ 0x10);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

/// The largest file of the directory whose name ends with `suffix`.
std::string largest_file(const std::string& dir, const std::string& suffix) {
    std::string best;
    uintmax_t best_size = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        const std::string name = entry.path().filename().string();
        if (name.size() < suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0 ||
            name.rfind("LOG", 0) == 0) {
            continue;
        }
        if (entry.file_size() >= best_size) {
            best_size = entry.file_size();
            best = entry.path().string();
        }
    }
    return best;
}

/// The N of "ballast log repair --truncate-after N" in `text`, or "".
std::string suggested_seq(const std::string& text) {
    std::smatch match;
    if (!std::regex_search(text, match, std::regex("ballast log repair --truncate-after ([0-9]+)"))) return "";
    return match[1].str();
}

/// A flipped byte in the write-ahead log, with intact writes after it: RocksDB
/// alone would drop them without a word and the next append would take their
/// numbers. The journal refuses to open, names the log, the offset and the
/// range, and the repair it names works.
TEST(Cli, DamageInTheLogStopsEveryOpenAndNamesTheLoss) {
    TempDir dir;
    const std::string journal = " --journal " + (dir / "j");
    write_file(dir / "events.jsonl", three_events);
    write_file(dir / "ticks.jsonl", ticks(2500, 10'000));
    ASSERT_EQ(ballast("log append --input " + (dir / "events.jsonl") + journal).exit_code, 0);
    // Three writes (1,000 + 1,000 + 500 events) in the newest log; the byte
    // in its middle is in the second.
    ASSERT_EQ(ballast("log append --input " + (dir / "ticks.jsonl") + journal).exit_code, 0);
    const std::string log = largest_file(dir / "j", ".log");
    ASSERT_FALSE(log.empty());
    flip_byte(log, std::filesystem::file_size(log) / 2);

    Outcome show = ballast("log show --json" + journal);
    EXPECT_EQ(show.exit_code, 1) << show.out;
    EXPECT_TRUE(contains(show.out, "write-ahead log " + log + " is damaged at byte offset ")) << show.out;
    EXPECT_TRUE(contains(show.out, "1 intact write(s) after it hold seq 2004..2503")) << show.out;
    EXPECT_TRUE(contains(show.out, "drops seq 1004..2503")) << show.out;
    EXPECT_EQ(suggested_seq(show.out), "1003") << show.out;

    Outcome append = ballast("log append --input " + (dir / "events.jsonl") + journal);
    EXPECT_EQ(append.exit_code, 1) << append.out;
    EXPECT_TRUE(contains(append.out, "is damaged at byte offset")) << append.out;

    // Without the seq, the repair refuses: it would drop events.
    Outcome refused = ballast("log repair" + journal);
    EXPECT_EQ(refused.exit_code, 1) << refused.out;
    EXPECT_EQ(suggested_seq(refused.out), "1003") << refused.out;

    Outcome repair = ballast("log repair --truncate-after 1003" + journal);
    ASSERT_EQ(repair.exit_code, 0) << repair.out;
    EXPECT_TRUE(contains(repair.out, "kept seq 1..1003")) << repair.out;
    EXPECT_TRUE(contains(repair.out, "the journal as it was is kept at " + (dir / "j") + ".damaged-")) << repair.out;
    EXPECT_TRUE(contains(repair.out, "now holds seq 1..1003 and opens cleanly")) << repair.out;
    Outcome after = ballast("log show --json --from 1003" + journal);
    EXPECT_EQ(after.exit_code, 0) << after.out;
    EXPECT_TRUE(contains(after.out, R"("seq":1003)")) << after.out;
    EXPECT_FALSE(contains(after.out, R"("seq":1004)")) << after.out;
}

/// A flipped byte in a table file: show names the seq and the repair, the
/// export skips the damage and says so, and the named repair works.
TEST(Cli, DamageInATableFileIsSkippedByExportAndRepaired) {
    TempDir dir;
    const std::string journal = " --journal " + (dir / "j");
    write_file(dir / "events.jsonl", three_events);
    write_file(dir / "ticks.jsonl", ticks(2500, 10'000));
    // Each open moves the log before it into a table file: the ticks end up
    // in one of their own.
    ASSERT_EQ(ballast("log append --input " + (dir / "events.jsonl") + journal).exit_code, 0);
    ASSERT_EQ(ballast("log append --input " + (dir / "ticks.jsonl") + journal).exit_code, 0);
    write_file(dir / "later.jsonl", ticks(3, 20'000));
    ASSERT_EQ(ballast("log append --input " + (dir / "later.jsonl") + journal).exit_code, 0);
    const std::string table = largest_file(dir / "j", ".sst");
    ASSERT_FALSE(table.empty());
    flip_byte(table, std::filesystem::file_size(table) / 2);

    Outcome show = ballast("log show --json" + journal);
    EXPECT_EQ(show.exit_code, 1) << show.out;
    EXPECT_TRUE(contains(show.out, R"("seq":1,)")) << show.out;
    const std::string keep = suggested_seq(show.out);
    ASSERT_FALSE(keep.empty()) << show.out;
    const uint64_t kept = std::stoull(keep);
    EXPECT_GT(kept, 3u);
    EXPECT_LT(kept, 2503u);
    EXPECT_TRUE(contains(show.out, "journal record seq " + std::to_string(kept + 1) + ": ")) << show.out;

    Outcome exported = ballast("log export " + (dir / "j.export") + journal);
    EXPECT_EQ(exported.exit_code, 1) << exported.out;
    EXPECT_TRUE(contains(exported.out, "skipped (damaged, not in the file): seq " + std::to_string(kept + 1) + ".."))
        << exported.out;
    EXPECT_TRUE(contains(exported.out, "is not whole")) << exported.out;
    EXPECT_TRUE(contains(exported.out, "(seq 1..2506)")) << exported.out;

    Outcome repair = ballast("log repair --truncate-after " + keep + journal);
    ASSERT_EQ(repair.exit_code, 0) << repair.out;
    EXPECT_TRUE(contains(repair.out, "kept seq 1.." + keep)) << repair.out;
    EXPECT_TRUE(contains(repair.out, "dropped " + std::to_string(2506 - kept) + " events after seq " + keep))
        << repair.out;
    EXPECT_TRUE(contains(repair.out, "now holds seq 1.." + keep + " and opens cleanly")) << repair.out;
    EXPECT_EQ(ballast("log append --input " + (dir / "events.jsonl") + journal).exit_code, 0);
    Outcome whole = ballast("log export " + (dir / "k.export") + journal);
    EXPECT_EQ(whole.exit_code, 0) << whole.out;
}

TEST(Cli, ExportImportExportIsByteIdentical) {
    TempDir dir;
    write_file(dir / "events.jsonl", three_events);
    ASSERT_EQ(ballast("log append --journal " + (dir / "a") + " --input " + (dir / "events.jsonl"))
                  .exit_code,
              0);
    Outcome exported = ballast("log export " + (dir / "a.export") + " --journal " + (dir / "a"));
    ASSERT_EQ(exported.exit_code, 0) << exported.out;
    EXPECT_TRUE(contains(exported.out, "exported 3 events (seq 1..3)")) << exported.out;
    Outcome imported = ballast("log import " + (dir / "a.export") + " --journal " + (dir / "b"));
    ASSERT_EQ(imported.exit_code, 0) << imported.out;
    ASSERT_EQ(ballast("log export " + (dir / "b.export") + " --journal " + (dir / "b")).exit_code, 0);
    EXPECT_EQ(read_file(dir / "a.export"), read_file(dir / "b.export"));

    Outcome again = ballast("log import " + (dir / "a.export") + " --journal " + (dir / "b"));
    EXPECT_EQ(again.exit_code, 1);
    EXPECT_TRUE(contains(again.out, "import needs an empty journal")) << again.out;
}

TEST(Cli, ReadingAMissingJournalNamesIt) {
    TempDir dir;
    Outcome run = ballast("log show --journal " + (dir / "nowhere"));
    EXPECT_EQ(run.exit_code, 1);
    EXPECT_TRUE(contains(run.out, "no journal at " + (dir / "nowhere"))) << run.out;
}

TEST(Cli, RunRefusesABadBootstrapStringAtOnce) {
    for (const auto& [servers, why] : std::vector<std::pair<std::string, std::string>>{
             {"nonsense", "bootstrap server 'nonsense': expected host:port"},
             {"127.0.0.1:99999", "bootstrap server '127.0.0.1:99999': port '99999' is not a number in 1-65535"},
             {"a:1,:2", "bootstrap server ':2': empty host"},
             {"' , '", "expected host:port[,host:port...]"}}) {
        Outcome run = ballast("run --bootstrap-server " + servers);
        EXPECT_EQ(run.exit_code, 1) << servers;
        EXPECT_TRUE(contains(run.out, "ballast: error: --bootstrap-server: ")) << run.out;
        EXPECT_TRUE(contains(run.out, why)) << run.out;
    }
    Outcome missing = ballast("run");
    EXPECT_NE(missing.exit_code, 0);
    EXPECT_TRUE(contains(missing.out, "--bootstrap-server is required")) << missing.out;
}

// Nothing listens on port 1: the run says so, naming the server, keeps
// retrying (no exit, no crash loop), and SIGTERM ends it cleanly.
TEST(Cli, RunWaitsForAnUnreachableClusterAndStopsOnSigterm) {
    TempDir dir;
    const char* bin = std::getenv("BALLAST_BIN");
    ASSERT_NE(bin, nullptr);
    const std::string script = std::string(bin) + " --set ballast.http.listen=127.0.0.1:0 run --bootstrap-server 127.0.0.1:1 --journal " + (dir / "j") +
                               " & pid=$!; sleep 4; kill -0 $pid && echo still-running; kill -TERM $pid; wait $pid; "
                               "echo exit=$?";
    FILE* pipe = popen(("(" + script + ") 2>&1").c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string out;
    char buffer[4096];
    size_t n = 0;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
    pclose(pipe);
    EXPECT_TRUE(contains(out, "connecting to the Kafka cluster at 127.0.0.1:1 failed")) << out;
    EXPECT_TRUE(contains(out, "Connection refused; retrying in")) << out;
    EXPECT_TRUE(contains(out, "still-running")) << out;
    EXPECT_TRUE(contains(out, "stopped before the cluster answered")) << out;
    EXPECT_TRUE(contains(out, "exit=0")) << out;
}

}  // namespace
}  // namespace ballast::tools
