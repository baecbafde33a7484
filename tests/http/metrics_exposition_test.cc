/// Prometheus' text exposition format (tools/metrics/): what `Exposition`
/// writes passes the checker (and `promtool check metrics` where Debian's
/// `prometheus` package installed it), and the checker refuses each breach
/// of the format, naming its line.

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>

#include "tests/support/temp_dir.h"
#include "tools/metrics/exposition.h"
#include "tools/metrics/exposition_check.h"

namespace ballast::metrics {
namespace {

std::string joined(const std::vector<std::string>& errors) {
    std::string out;
    for (const std::string& e : errors) out += e + "\n";
    return out;
}

/// `promtool check metrics`' exit status on `text`; -1 when it is not installed.
int promtool_status(const std::string& text) {
    if (std::system("command -v promtool > /dev/null 2>&1") != 0) return -1;
    testing::TempDir dir;
    const std::string path = dir.path() + "/metrics.txt";
    std::ofstream(path) << text;
    const int status = std::system(("promtool check metrics < " + path + " > " + path + ".out 2>&1").c_str());
    std::ifstream out(path + ".out");
    std::string said((std::istreambuf_iterator<char>(out)), std::istreambuf_iterator<char>());
    if (status != 0) ADD_FAILURE() << "promtool says:\n" << said;
    return WEXITSTATUS(status);
}

Exposition sample_exposition() {
    Exposition e;
    e.declare("ballast_events_total", Type::counter, "Events journaled, by type.\nA second line \\ here.");
    e.add("ballast_events_total", {{"type", "Tick"}}, 12);
    e.add("ballast_events_total", {{"type", "with \"quotes\", a \\ and\na newline"}}, 3);
    e.declare("ballast_journal_size_bytes", Type::gauge, "Bytes the journal's files take.");
    e.add("ballast_journal_size_bytes", {}, 1.5e9);
    e.declare("ballast_broker_band_deviation_ratio", Type::gauge, "A broker's deviation.");
    e.add("ballast_broker_band_deviation_ratio", {{"broker", "1"}, {"direction", "in"}}, -0.25);
    e.declare("ballast_journal_append_seconds", Type::histogram, "Append latency.");
    e.add_histogram("ballast_journal_append_seconds", {}, {{0.001, 0.01, 0.1}, {5, 2, 0}, 9, 0.5});
    return e;
}

TEST(MetricsExposition, WritesHelpTypeSamplesAndHistogramsAsTheFormatSays) {
    const std::string text = sample_exposition().text();
    EXPECT_NE(text.find("# HELP ballast_events_total Events journaled, by type.\\nA second line \\\\ here.\n"
                        "# TYPE ballast_events_total counter\n"
                        "ballast_events_total{type=\"Tick\"} 12\n"
                        "ballast_events_total{type=\"with \\\"quotes\\\", a \\\\ and\\na newline\"} 3\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("ballast_journal_size_bytes 1500000000\n"), std::string::npos) << text;
    EXPECT_NE(text.find("ballast_broker_band_deviation_ratio{broker=\"1\",direction=\"in\"} -0.25\n"), std::string::npos);
    EXPECT_NE(text.find("ballast_journal_append_seconds_bucket{le=\"0.001\"} 5\n"
                        "ballast_journal_append_seconds_bucket{le=\"0.01\"} 7\n"
                        "ballast_journal_append_seconds_bucket{le=\"0.1\"} 7\n"
                        "ballast_journal_append_seconds_bucket{le=\"+Inf\"} 9\n"
                        "ballast_journal_append_seconds_sum 0.5\n"
                        "ballast_journal_append_seconds_count 9\n"),
              std::string::npos)
        << text;
    EXPECT_EQ(joined(check_exposition(text)), "");
    const int promtool = promtool_status(text);
    if (promtool < 0) GTEST_LOG_(INFO) << "promtool is not installed: only the checker ran";
    else EXPECT_EQ(promtool, 0);
}

TEST(MetricsExposition, RefusesBadNamesCountersWithoutTotalAndTwoDeclarations) {
    Exposition e;
    EXPECT_THROW(e.declare("1bad", Type::gauge, "x"), std::invalid_argument);
    EXPECT_THROW(e.declare("ballast_rounds", Type::counter, "x"), std::invalid_argument);
    e.declare("ballast_rounds_total", Type::counter, "x");
    EXPECT_THROW(e.declare("ballast_rounds_total", Type::counter, "x"), std::invalid_argument);
    EXPECT_THROW(e.add("ballast_rounds_total", {}, -1), std::invalid_argument);
    EXPECT_THROW(e.add("ballast_rounds_total", {{"__reserved", "x"}}, 1), std::invalid_argument);
    EXPECT_THROW(e.add("ballast_undeclared", {}, 1), std::invalid_argument);
    EXPECT_THROW(e.add_histogram("ballast_rounds_total", {}, {}), std::invalid_argument);
    EXPECT_EQ(format_value(NAN), "NaN");
    EXPECT_EQ(format_value(-INFINITY), "-Inf");
    EXPECT_EQ(format_value(0.1), "0.1");
    EXPECT_EQ(format_value(0.0001), "0.0001");
    EXPECT_EQ(format_value(349525.3333333333), "349525.3333333333");
    EXPECT_EQ(format_value(1e-9), "1e-09");
    EXPECT_EQ(format_value(1e300), "1e+300");
}

/// The checker's verdict on `text`: its first error.
std::string first_error(const std::string& text) {
    const std::vector<std::string> errors = check_exposition(text);
    return errors.empty() ? "" : errors.front();
}

TEST(MetricsExposition, TheCheckerRefusesEachBreachNamingItsLine) {
    const std::string head = "# HELP a_total A.\n# TYPE a_total counter\n";
    struct Case {
        std::string text;
        std::string error;
    };
    const std::vector<Case> cases = {
        {head + "a_total 1", "line 3: does not end in a newline"},
        {head + "a_total{x=\"1\"} 1\n9b 2\n", "line 4: '9b' is not a metric name (9b 2)"},
        {head + "a_total{x=1} 1\n", "line 3: label x's value is not quoted"},
        {head + "a_total{x=\"1\",x=\"2\"} 1\n", "line 3: label x twice"},
        {head + "a_total{x=\"\\t\"} 1\n", "line 3: label x has the escape \\t"},
        {head + "a_total{__x=\"1\"} 1\n", "line 3: label __x begins with __"},
        {head + "a_total one\n", "line 3: 'one' is not a value"},
        {head + "a_total -1\n", "line 3: counter a_total is -1"},
        {head + "a_total 1\na_total 2\n", "line 4: a second sample of a_total with the same labels"},
        {head + "# TYPE a_total gauge\n", "line 3: a second TYPE for a_total"},
        {head + "# TYPE b gauge\nb 1\na_total 1\n", "line 5: the samples of a_total are not together"},
        {"a 1\n# TYPE a gauge\n", "line 2: TYPE of a after its samples"},
        {"# TYPE a histogrammes\n", "line 1: 'histogrammes' is not a type"},
        {"# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"0.5\"} 3\nh_bucket{le=\"+Inf\"} 3\nh_count 3\n",
         "h: bucket le=0.5 not above the one before"},
        {"# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_count 2\n", "h: no bucket le=\"+Inf\""},
        {"# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n",
         "h: bucket le=+Inf counts fewer than the one before"},
        {"# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_count 3\n", "h: _count differs from the +Inf bucket"},
        {"# TYPE h histogram\nh_bucket 2\n", "line 2: bucket of h without le"},
    };
    for (const Case& c : cases) {
        const std::string error = first_error(c.text);
        EXPECT_EQ(error.substr(0, c.error.size()), c.error) << "text:\n" << c.text << "said: " << error;
    }
    EXPECT_EQ(first_error(head + "a_total{x=\"a \\\"b\\\" \\\\ \\n\"} 1 1700000000000\n\n# a comment\n"), "");
}

}  // namespace
}  // namespace ballast::metrics
