// Ballast's settings read from Java .properties files: Kafka's syntax
// (separators, continuations, escapes, line endings), errors naming the file
// and line, and a printed configuration read back whole.

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "events/config.h"
#include "tests/unit/config_test_support.h"

namespace ballast::events {
namespace {

// ------------------------------------------------------------ .properties

TEST(ConfigProperties, CommentsBlankLinesAndAllThreeSeparators) {
    Config config = Config::defaults();
    ASSERT_EQ(load_message(config,
                           "# a comment\n"
                           "! also a comment\n"
                           "   # an indented comment\n"
                           "\n"
                           "   \t\n"
                           "ballast.log.level=debug\n"
                           "ballast.journal.path : /var/lib/ballast\n"
                           "ballast.cluster.flavor automq\n"
                           "  autobalancer.controller.execution.concurrency   =   12   \n"
                           "ballast.journal.sync:false"),  // no final newline
              "ok");
    EXPECT_EQ(config.get_string("ballast.log.level"), "debug");
    EXPECT_EQ(config.get_string("ballast.journal.path"), "/var/lib/ballast");
    EXPECT_EQ(config.get_string("ballast.cluster.flavor"), "automq");
    EXPECT_EQ(config.get_int32("autobalancer.controller.execution.concurrency"), 12);
    EXPECT_FALSE(config.get_bool("ballast.journal.sync"));
    EXPECT_EQ(config.origin("ballast.log.level"), "f.properties:6");
    EXPECT_EQ(config.origin("ballast.journal.sync"), "f.properties:10");
    EXPECT_EQ(config.origin("ballast.capacity.threshold"), "default");
}

TEST(ConfigProperties, ContinuationLinesJoinWithLeadingBlanksDropped) {
    Config config = Config::defaults();
    ASSERT_EQ(load_message(config,
                           "autobalancer.controller.goals = RackAwareGoal, \\\n"
                           "      ReplicaCapacityGoal,\\\n"
                           "\tTopicSpreadGoal\n"
                           "ballast.log.level=warn\n"),
              "ok");
    EXPECT_EQ(config.get_goals(),
              (std::vector<std::string>{"RackAwareGoal", "ReplicaCapacityGoal",
                                        "TopicSpreadGoal"}));
    EXPECT_EQ(config.origin("autobalancer.controller.goals"), "f.properties:1");
    EXPECT_EQ(config.origin("ballast.log.level"), "f.properties:4");

    // Inside a string nothing else trims, so this shows the blanks really go.
    ASSERT_EQ(load_message(config, "ballast.journal.path = /var/\\\n   \tlib/\\\n\n"), "ok");
    EXPECT_EQ(config.get_string("ballast.journal.path"), "/var/lib/");
}

TEST(ConfigProperties, EvenBackslashesDoNotContinueAndCommentsNeverDo) {
    Config config = Config::defaults();
    ASSERT_EQ(load_message(config,
                           "ballast.journal.path=C:\\\\data\\\\\n"  // C:\\data\\ in the file
                           "# a comment ending in a backslash \\\n"
                           "ballast.log.level=error\n"),
              "ok");
    EXPECT_EQ(config.get_string("ballast.journal.path"), "C:\\data\\");
    EXPECT_EQ(config.get_string("ballast.log.level"), "error");
    EXPECT_EQ(config.origin("ballast.log.level"), "f.properties:3");
}

TEST(ConfigProperties, EscapesInValuesAndKeys) {
    Config config = Config::defaults();
    ASSERT_EQ(load_message(config,
                           "ballast.journal.path = "
                           "\\ lead a\\ b\\=c\\:d\\#e\\!f\\\\g\\tt\\nn\\ \n"),
              "ok");
    EXPECT_EQ(config.get_string("ballast.journal.path"), " lead a b=c:d#e!f\\g\tt\nn ");
    // An escaped separator belongs to the key.
    EXPECT_EQ(load_message(config, "ballast.log.level\\=x = info\n"),
              "f.properties:1: unknown config key 'ballast.log.level=x' (did you mean "
              "'ballast.log.level'?)");
    EXPECT_TRUE(contains(load_message(config, "ballast.log\\ level info\n"),
                "unknown config key 'ballast.log level'"));
}

TEST(ConfigProperties, UnknownEscapeIsAnErrorNotASilentlyMangledPath) {
    Config config = Config::defaults();
    EXPECT_EQ(load_message(config, "ballast.journal.path=C:\\data\n"),
              "f.properties:1: unknown escape '\\d' in 'C:\\data' (write '\\\\' for a backslash)");
}

TEST(ConfigProperties, LaterDuplicateWins) {
    Config config = Config::defaults();
    ASSERT_EQ(load_message(config, "ballast.log.level=debug\nballast.log.level=trace\n"), "ok");
    EXPECT_EQ(config.get_string("ballast.log.level"), "trace");
    EXPECT_EQ(config.origin("ballast.log.level"), "f.properties:2");
}

TEST(ConfigProperties, ErrorsNameFileAndLine) {
    Config config = Config::defaults();
    EXPECT_EQ(load_message(config, "# header\n\nballast.jornal.path=x\n", "ballast.properties"),
              "ballast.properties:3: unknown config key 'ballast.jornal.path' (did you mean "
              "'ballast.journal.path'?)");
    EXPECT_EQ(load_message(config, "ballast.log.level=info\nballast.journal.sync = maybe\n",
                           "b.properties"),
              "b.properties:2: config key 'ballast.journal.sync': value 'maybe' is not a boolean "
              "(expected true or false)");
    // A continued entry is reported at the line it starts on.
    EXPECT_TRUE(contains(load_message(config,
                                      "\n"
                                      "autobalancer.controller.exclude.broker.ids = 1,\\\n"
                                      "  x,3\n"),
                "f.properties:2: config key 'autobalancer.controller.exclude.broker.ids': "
                          "value '1,x,3' has a bad element 'x'"));
    EXPECT_EQ(load_message(config, "= value\n"),
              "f.properties:1: missing key before the value in '= value'");
    EXPECT_TRUE(contains(load_message(config, "ballast.journal.path\n"),
                "f.properties:1: config key 'ballast.journal.path': value '' is empty"));
}

TEST(ConfigProperties, AFailedLoadChangesNothing) {
    Config config = Config::defaults();
    EXPECT_NE(load_message(config, "ballast.log.level=debug\nballast.journal.sync=maybe\n"), "ok");
    EXPECT_EQ(config.get_string("ballast.log.level"), "info");
    EXPECT_EQ(config.origin("ballast.log.level"), "default");
}

TEST(ConfigProperties, WindowsAndOldMacLineEndingsAndByteOrderMark) {
    Config config = Config::defaults();
    ASSERT_EQ(load_message(config,
                           "\xEF\xBB\xBF# bom\r\n"
                           "ballast.log.level=debug\r\n"
                           "\r\n"
                           "ballast.journal.sync=false\r\n"),
              "ok");
    EXPECT_EQ(config.get_string("ballast.log.level"), "debug");
    EXPECT_EQ(config.origin("ballast.journal.sync"), "f.properties:4");
    ASSERT_EQ(load_message(config, "ballast.log.level=warn\rballast.cluster.flavor=automq\r"),
              "ok");
    EXPECT_EQ(config.get_string("ballast.log.level"), "warn");
    EXPECT_EQ(config.origin("ballast.cluster.flavor"), "f.properties:2");
}

TEST(ConfigProperties, MissingFileNamesThePath) {
    Config config = Config::defaults();
    const std::string path = testing::TempDir() + "ballast-config-test-does-not-exist.properties";
    Status status = config.load_properties_file(path);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().code, ErrorCode::not_found);
    EXPECT_TRUE(contains(status.error().message, "cannot read config file '" + path + "'"));
    EXPECT_TRUE(contains(status.error().message, "No such file or directory"));
}

TEST(ConfigProperties, ADirectoryIsAnIoErrorNotAnEmptyFile) {
    Config config = Config::defaults();
    Status status = config.load_properties_file(testing::TempDir());
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().code, ErrorCode::io_error);
    EXPECT_TRUE(contains(status.error().message, "cannot read config file"));
}

TEST(ConfigProperties, RealFileRoundTripsThePrintedConfig) {
    Config written = Config::defaults();
    ASSERT_TRUE(written.set("ballast.journal.path", " /tmp/my dir\\x=y#z\t ").ok());
    ASSERT_TRUE(written.set("autobalancer.controller.exclude.broker.ids", "3, 1").ok());
    ASSERT_TRUE(written.set("autobalancer.controller.exclude.topics", "a,b").ok());
    ASSERT_TRUE(
        written.set("autobalancer.controller.goals", "kafka.autobalancer.goals.TopicSpreadGoal")
            .ok());
    ASSERT_TRUE(written.set("ballast.capacity.threshold", "0.3").ok());
    ASSERT_TRUE(written.set("autobalancer.controller.enable", "FALSE").ok());

    const std::string path = testing::TempDir() + "ballast-config-test-round-trip.properties";
    {
        std::ofstream out(path, std::ios::binary);
        out << "# printed by the test\n" << written.to_properties_text();
    }
    Config read = Config::defaults();
    Status status = read.load_properties_file(path);
    std::remove(path.c_str());
    ASSERT_TRUE(status.ok()) << status.error().message;

    EXPECT_EQ(read.entries(), written.entries());
    EXPECT_EQ(read.get_string("ballast.journal.path"), " /tmp/my dir\\x=y#z\t ");
    EXPECT_EQ(read.origin("autobalancer.controller.enable"), path + ":2");
    // Line 1 is the comment; the last journaled key is on line 1 + their number.
    EXPECT_EQ(read.origin("ballast.log.level"),
              path + ":" + std::to_string(written.journal_entries().size() + 1));
}

}  // namespace
}  // namespace ballast::events
