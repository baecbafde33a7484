/// High availability, simulated deterministically: three instances share a
/// simulated journal log with Kafka's election and fencing and one simulated
/// cluster; the leader is killed, paused past its session timeout and
/// resumed as a zombie, and stopped cleanly, at times drawn from the seed,
/// and one instance joins late from a snapshot after the log's retention
/// (tools/driver/ha_sim.h). Every admin call is checked as it is made: its
/// caller is the log's current writer, its intent was committed in the
/// caller's epoch, and it was never made before. At the end every standby
/// decided each of its rounds as the leader did and every journal holds
/// exactly the log's events.
///
/// Seeds: BALLAST_HA_SEEDS=FROM-TO (default 1-12).

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "adapters/sim/random_scenario.h"
#include "tests/support/seed_range.h"
#include "tests/support/temp_dir.h"
#include "tools/driver/ha_sim.h"
#include "tools/driver/sim_runner.h"

namespace ballast::driver {
namespace {

std::pair<uint64_t, uint64_t> seed_range() { return testing::seed_range("BALLAST_HA_SEEDS", {1, 12}); }

TEST(HaSim, EverySeedKeepsOneActingLeaderAndLosesNothing) {
    const auto [from, to] = seed_range();
    HaSimSummary total;
    for (uint64_t seed = from; seed <= to; seed++) {
        events::Result<sim::Scenario> scenario = sim::random_scenario(seed);
        ASSERT_TRUE(scenario.ok()) << scenario.error().message;
        // High availability replaces the engine crashes of the fault seeds.
        scenario->faults.engine_kills_ms.clear();
        // Snapshots often, so a late joiner has one to start from.
        events::Result<events::Config> config =
            sim_config(*scenario, {"ballast.snapshot.interval.events=2000"}, "");
        ASSERT_TRUE(config.ok()) << config.error().message;
        testing::TempDir dir;
        HaSimOptions options;
        options.scenario = *scenario;
        options.config = *config;
        options.dir = dir.path();
        events::Result<HaSimSummary> summary = run_ha_simulation(options);
        ASSERT_TRUE(summary.ok()) << "seed " << seed << ": " << summary.error().to_string();
        std::string violations;
        for (const std::string& v : summary->violations) violations += "  " + v + "\n";
        EXPECT_TRUE(summary->violations.empty()) << "seed " << seed << ":\n" << violations;
        EXPECT_GT(summary->promotions, 0u) << "seed " << seed;
        total.kills += summary->kills;
        total.pauses += summary->pauses;
        total.handovers += summary->handovers;
        total.late_joins += summary->late_joins;
        total.promotions += summary->promotions;
        total.demotions += summary->demotions;
        total.submissions += summary->submissions;
        total.calls_refused += summary->calls_refused;
        total.fenced_publications += summary->fenced_publications;
        total.decisions_matched += summary->decisions_matched;
    }
    const auto n = [](uint64_t v) { return static_cast<unsigned long>(v); };
    std::printf("seeds %lu-%lu: %lu kills, %lu pauses, %lu handovers, %lu late joins; %lu promotions, %lu "
                "demotions; %lu admin calls checked, %lu refused by the lease or election, %lu fenced "
                "publications; %lu standby rounds equal to the leader's\n",
                n(from), n(to), n(total.kills), n(total.pauses), n(total.handovers), n(total.late_joins),
                n(total.promotions), n(total.demotions), n(total.submissions), n(total.calls_refused),
                n(total.fenced_publications), n(total.decisions_matched));
    // The seeds exercise what they are meant to.
    EXPECT_GT(total.submissions, 0u);
    EXPECT_GT(total.decisions_matched, 0u);
    if (to - from + 1 >= 8) {
        EXPECT_GT(total.kills, 0u);
        EXPECT_GT(total.pauses, 0u);
        EXPECT_GT(total.handovers, 0u);
        EXPECT_GT(total.late_joins, 0u);
        EXPECT_GT(total.fenced_publications, 0u);
        // A zombie resumed between an intent's commit and its admin call:
        // only the lease stops that call.
        EXPECT_GT(total.calls_refused, 0u);
    }
}

}  // namespace
}  // namespace ballast::driver
