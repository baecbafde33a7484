/// `GET /metrics` against `ballast sim --realtime` as a real process
/// (api_client.h's cluster): the answer is Prometheus' text format (the
/// checker, and `promtool check metrics` where it is installed), and its
/// figures move with what happens: a drain and a rebalance count a round
/// and two moves planned, in flight while they copy; a cancel counts one
/// cancelled move of its kind and goal; the operator's commands are counted
/// as journaled events of their source.

#include <gtest/gtest.h>
#include <httplib.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

#include "tests/http/api_client.h"
#include "tests/support/temp_dir.h"
#include "tools/metrics/exposition_check.h"

namespace ballast::http {
namespace {

using namespace api_testing;

/// One scrape: each sample line as `name{labels}` and its value.
struct Scrape {
    int status = 0;
    std::string content_type;
    std::string text;
    std::map<std::string, double> samples;

    double at(const std::string& series) const {
        auto it = samples.find(series);
        if (it == samples.end()) {
            ADD_FAILURE() << "no sample " << series << " in:\n" << text;
            return -1;
        }
        return it->second;
    }
    /// The sum of the samples of `name` whose labels hold every one of `labels` ("k=\"v\"").
    double sum(const std::string& name, const std::vector<std::string>& labels) const {
        double total = 0;
        for (const auto& [series, value] : samples) {
            if (!series.starts_with(name + "{") && series != name) continue;
            bool all = true;
            for (const std::string& l : labels) all = all && series.find(l) != std::string::npos;
            if (all) total += value;
        }
        return total;
    }
};

Scrape scrape(const std::string& url, const std::string& token = "") {
    httplib::Client client(url);
    client.set_read_timeout(30, 0);
    if (!token.empty()) client.set_bearer_token_auth(token);
    Scrape s;
    httplib::Result r = client.Get("/metrics");
    if (!r) {
        ADD_FAILURE() << "GET " << url << "/metrics: " << httplib::to_string(r.error());
        return s;
    }
    s.status = r->status;
    s.content_type = r->get_header_value("Content-Type");
    s.text = r->body;
    if (s.status != 200) return s;
    size_t begin = 0;
    while (begin < s.text.size()) {
        const size_t end = s.text.find('\n', begin);
        const std::string line = s.text.substr(begin, end - begin);
        begin = end == std::string::npos ? s.text.size() : end + 1;
        if (line.empty() || line[0] == '#') continue;
        const size_t space = line.rfind(' ');
        s.samples[line.substr(0, space)] = std::stod(line.substr(space + 1));
    }
    return s;
}

void expect_valid(const Scrape& s) {
    EXPECT_EQ(s.status, 200) << s.text;
    EXPECT_TRUE(s.content_type.starts_with("text/plain; version=0.0.4")) << s.content_type;
    std::string errors;
    for (const std::string& e : metrics::check_exposition(s.text)) errors += e + "\n";
    EXPECT_EQ(errors, "") << s.text;
    if (std::system("command -v promtool > /dev/null 2>&1") != 0) return;
    testing::TempDir dir;
    std::ofstream(dir / "metrics.txt") << s.text;
    const std::string command = "promtool check metrics < " + (dir / "metrics.txt") + " > " + (dir / "out") + " 2>&1";
    const int status = std::system(command.c_str());
    std::ifstream out(dir / "out");
    const std::string said((std::istreambuf_iterator<char>(out)), std::istreambuf_iterator<char>());
    EXPECT_EQ(status, 0) << "promtool check metrics says:\n" << said;
}

TEST(HttpMetrics, AScrapeIsValidAndItsFiguresMoveWithTheRoundsActionsAndCommands) {
    TempDir dir;
    Sim sim = start_sim(dir, {});
    ASSERT_FALSE(sim.url.empty());

    const Scrape first = scrape(sim.url);
    expect_valid(first);
    EXPECT_EQ(first.at("ballast_role{role=\"simulation\"}"), 1);
    EXPECT_EQ(first.at("ballast_ready"), 1);
    EXPECT_EQ(first.at("ballast_brokers{state=\"alive\"}"), 3);
    EXPECT_EQ(first.at("ballast_brokers{state=\"fenced\"}"), 0);
    EXPECT_EQ(first.at("ballast_partitions"), 6);
    EXPECT_EQ(first.at("ballast_actions_in_flight"), 0);
    EXPECT_GT(first.sum("ballast_events_total", {"type=\"tick\""}), 0);
    EXPECT_GT(first.at("ballast_journal_size_bytes"), 0);
    EXPECT_EQ(first.at("ballast_journal_events"), first.at("ballast_journal_last_seq"));
    EXPECT_GT(first.at("ballast_journal_append_duration_seconds_count"), 0);
    // Even traffic: every broker in the band's middle.
    EXPECT_GT(first.at("ballast_broker_network_in_bytes_per_second{broker=\"3\",rack=\"c\"}"), 0);
    EXPECT_NEAR(first.at("ballast_broker_network_band_deviation_ratio{broker=\"3\",direction=\"in\"}"), 0, 0.05);
    EXPECT_EQ(first.sum("ballast_events_total", {"type=\"operator_command\""}), 0);

    ASSERT_EQ(call(sim.url, "POST", "/v1/brokers/3/drain").status, 200);
    ASSERT_EQ(call(sim.url, "POST", "/v1/rebalance?dryrun=false").status, 202);
    Scrape moving;
    ASSERT_TRUE(eventually([&] {
        moving = scrape(sim.url);
        return moving.samples["ballast_actions_in_flight"] == 2;
    })) << moving.text;
    expect_valid(moving);
    EXPECT_GT(moving.at("ballast_planning_rounds_total"), first.at("ballast_planning_rounds_total"));
    EXPECT_GT(moving.at("ballast_plan_duration_seconds_count"), first.at("ballast_plan_duration_seconds_count"));
    EXPECT_EQ(moving.at("ballast_actions_planned_total{kind=\"move\",goal=\"Evacuation\"}"), 2) << moving.text;
    EXPECT_EQ(moving.at("ballast_action_submissions_total{kind=\"move\",goal=\"Evacuation\"}"), 2);
    EXPECT_EQ(moving.sum("ballast_events_total", {"type=\"operator_command\"", "source=\"operator\""}), 2);
    EXPECT_EQ(moving.sum("ballast_actions_ended_total", {}), 0);

    const json in_flight = call(sim.url, "GET", "/v1/actions?state=in_flight").body.at("actions");
    ASSERT_EQ(in_flight.size(), 2u);
    ASSERT_EQ(call(sim.url, "POST", "/v1/actions/" + std::to_string(in_flight[0].at("action_id").get<uint64_t>()) +
                                        "/cancel")
                  .status,
              200);
    const Scrape after = scrape(sim.url);
    expect_valid(after);
    EXPECT_EQ(after.at("ballast_actions_ended_total{kind=\"move\",goal=\"Evacuation\",outcome=\"cancelled\"}"), 1);
    EXPECT_EQ(after.at("ballast_actions_in_flight"), 1);
    EXPECT_EQ(after.sum("ballast_events_total", {"type=\"operator_command\"", "source=\"operator\""}), 3);
    EXPECT_GE(after.at("ballast_journal_last_seq"), moving.at("ballast_journal_last_seq"));
}

TEST(HttpMetrics, BehindATokenAsTheReadsAre) {
    TempDir dir;
    Sim sim = start_sim(dir, {"ballast.http.auth.token=s3cret"});
    ASSERT_FALSE(sim.url.empty());
    EXPECT_EQ(scrape(sim.url).status, 401);
    expect_valid(scrape(sim.url, "s3cret"));
}

}  // namespace
}  // namespace ballast::http
