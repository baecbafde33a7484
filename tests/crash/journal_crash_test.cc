/// Crash test with real processes: a child appends with sync on and prints
/// every acknowledged sequence number; we kill it with SIGKILL at random
/// moments, 50 times (odd rounds timed from the start, so that kills land in
/// opening and recovery; even rounds timed from the journal being open, so
/// that they land in appends however slow the machine is to open it), and
/// after each kill reopen the journal and check that every acknowledged
/// event is intact, numbering is dense, no batch was half written, and the
/// partition index holds exactly the events that survived. The child binary comes from $BALLAST_JOURNAL_WRITER (meson
/// sets it); the seed from $BALLAST_CRASH_SEED (default 1).

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdlib>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "store/journal.h"
#include "tests/support/index_check.h"
#include "tests/support/sample_events.h"
#include "tests/support/temp_dir.h"

extern char** environ;

namespace ballast::store {
namespace {

struct ChildOutput {
    std::set<std::pair<uint64_t, uint64_t>> intended;  // batches announced
    uint64_t acked_max = 0;
    uint64_t acks = 0;
    bool opened = false;
};

ChildOutput parse(const std::string& text) {
    ChildOutput out;
    std::istringstream lines(text);
    std::string tag;
    while (lines >> tag) {
        if (tag == "O") {
            out.opened = true;
        } else if (tag == "B") {
            uint64_t first = 0, last = 0;
            lines >> first >> last;
            out.intended.insert({first, last});
        } else if (tag == "A") {
            uint64_t last = 0;
            lines >> last;
            out.acked_max = std::max(out.acked_max, last);
            out.acks++;
        }
    }
    return out;
}

enum class KillClock { from_start, from_open };

/// How long the writer may take to open its journal (a sanitized build on a
/// loaded machine can take seconds); past it the round fails.
constexpr auto open_wait_max = std::chrono::seconds(120);

/// Runs the writer for `run_ms` (counted from its start or from its "O"
/// line), kills it with SIGKILL, returns its stdout.
std::string run_and_kill(const std::string& writer, const std::string& journal, uint64_t seed,
                         int run_ms, KillClock clock) {
    int pipe_fds[2];
    EXPECT_EQ(pipe(pipe_fds), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
    const std::string seed_text = std::to_string(seed);
    char* argv[] = {const_cast<char*>(writer.c_str()), const_cast<char*>(journal.c_str()),
                    const_cast<char*>(seed_text.c_str()), nullptr};
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, writer.c_str(), &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(pipe_fds[1]);
    EXPECT_EQ(spawned, 0) << "cannot start " << writer;

    // Drain the pipe while the child runs so it never blocks on a full pipe.
    std::string output;
    fcntl(pipe_fds[0], F_SETFL, O_NONBLOCK);
    const auto started = std::chrono::steady_clock::now();
    auto deadline = started + std::chrono::milliseconds(run_ms);
    if (clock == KillClock::from_open) deadline = started + open_wait_max;
    char buffer[4096];
    bool opened = false;
    while (std::chrono::steady_clock::now() < deadline) {
        const ssize_t n = read(pipe_fds[0], buffer, sizeof buffer);
        if (n > 0) output.append(buffer, static_cast<size_t>(n));
        else std::this_thread::sleep_for(std::chrono::milliseconds(1));
        // "O\n" is the writer's first line.
        if (clock == KillClock::from_open && !opened && output.rfind("O\n", 0) == 0) {
            opened = true;
            deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(run_ms);
        }
    }
    EXPECT_TRUE(clock == KillClock::from_start || opened)
        << "the writer did not open its journal within " << open_wait_max.count() << " s";
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "the writer exited on its own (status " << status << ")";
    fcntl(pipe_fds[0], F_SETFL, 0);
    ssize_t n = 0;
    while ((n = read(pipe_fds[0], buffer, sizeof buffer)) > 0) output.append(buffer, n);
    close(pipe_fds[0]);
    return output;
}

TEST(JournalCrash, SurvivesFiftySigkills) {
    const char* writer = std::getenv("BALLAST_JOURNAL_WRITER");
    ASSERT_NE(writer, nullptr) << "set BALLAST_JOURNAL_WRITER to the journal_writer binary";
    const char* seed_env = std::getenv("BALLAST_CRASH_SEED");
    const uint64_t seed = seed_env ? std::strtoull(seed_env, nullptr, 10) : 1;
    SCOPED_TRACE("reproduce with BALLAST_CRASH_SEED=" + std::to_string(seed));
    std::mt19937_64 random(seed);
    // Kill moments from "before the journal is even open" to well into
    // appending.
    std::uniform_int_distribution<int> run_ms(0, 250);

    testing::TempDir dir;
    const std::string path = dir / "journal";
    uint64_t acked_before = 0;
    uint64_t total_acks = 0;
    int rounds_killed_appending = 0;
    for (int round = 1; round <= 50; round++) {
        SCOPED_TRACE("round " + std::to_string(round));
        const KillClock clock = round % 2 == 1 ? KillClock::from_start : KillClock::from_open;
        const ChildOutput child = parse(run_and_kill(writer, path, seed + round, run_ms(random), clock));
        total_acks += child.acks;
        if (clock == KillClock::from_open) rounds_killed_appending += child.opened;

        Result<std::unique_ptr<Journal>> journal = Journal::open(path, {});
        ASSERT_TRUE(journal.ok()) << journal.error().to_string();
        const uint64_t last = (*journal)->last_seq();
        const uint64_t acked = std::max(acked_before, child.acked_max);
        // Every acknowledged event survived...
        ASSERT_GE(last, acked);
        // ...and what survived ends at a batch boundary: the end of an
        // acknowledged batch or of one announced but not yet acknowledged.
        if (last > acked_before) {
            bool at_boundary = false;
            for (const auto& [first, end] : child.intended) at_boundary |= end == last;
            EXPECT_TRUE(at_boundary) << "recovered journal ends at seq " << last
                                     << ", inside a batch";
        }
        // Dense, checked, and exactly what was written.
        Result<std::vector<events::Event>> all = (*journal)->read(1, last);
        ASSERT_TRUE(all.ok()) << all.error().to_string();
        ASSERT_EQ(all->size(), last);
        for (uint64_t seq = 1; seq <= last; seq++) {
            ASSERT_EQ((*all)[seq - 1], testing::sample_event_at(seq)) << "seq " << seq;
        }
        // The partition index went with the events, exactly.
        testing::expect_index_matches(**journal, *all);
        acked_before = last;
    }
    // The test means something only if the writer got to write.
    EXPECT_EQ(rounds_killed_appending, 25);
    EXPECT_GT(total_acks, 50u);
    std::printf("50 kills: %" PRIu64 " acknowledged appends, journal ends at seq %" PRIu64 "\n",
                total_acks, acked_before);
}

}  // namespace
}  // namespace ballast::store
