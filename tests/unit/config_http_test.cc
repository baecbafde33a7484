// The HTTP API's keys (`ballast.http.*`): the listen address checked as it
// is set, the token a secret that never reaches the journal; and which keys
// only the process reads at start (PUT /v1/config refuses those).

#include <gtest/gtest.h>

#include <string>

#include "events/config.h"

namespace ballast::events {
namespace {

/// "ok", or the message of setting ballast.http.listen (names differ from
/// config_test.cc's helpers: the suite is one unity translation unit).
std::string listen_message(Config& config, std::string_view value) {
    Status status = config.set("ballast.http.listen", value);
    return status.ok() ? "ok" : status.error().message;
}

bool says(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

TEST(ConfigHttp, TheListenAddressIsHostAndPortOrEmpty) {
    Config config = Config::defaults();
    EXPECT_EQ(config.get_string("ballast.http.listen"), "127.0.0.1:9470");
    for (const char* good : {"0.0.0.0:80", "localhost:0", "[::1]:9470", "ballast-1.example.com:65535", ""}) {
        EXPECT_EQ(listen_message(config, good), "ok") << good;
    }
    EXPECT_TRUE(says(listen_message(config, "127.0.0.1"), "'127.0.0.1' has no port"));
    EXPECT_TRUE(says(listen_message(config, ":9470"), "has no host (127.0.0.1: this machine only"));
    EXPECT_TRUE(says(listen_message(config, "127.0.0.1:65536"),
                         "config key 'ballast.http.listen': value '127.0.0.1:65536' is not HOST:PORT"));
    EXPECT_TRUE(says(listen_message(config, "127.0.0.1:http"), "'http' is not a port in [0, 65535]"));
    EXPECT_TRUE(says(listen_message(config, "::1:9470"), "an IPv6 host goes in brackets: [::1]:9470"));
    EXPECT_TRUE(says(listen_message(config, "a b:1"), "'a b' is not a host name or address"));

    const Result<ListenAddress> v6 = parse_listen_address("[::1]:0");
    ASSERT_TRUE(v6.ok());
    EXPECT_EQ(v6->host, "::1");
    EXPECT_TRUE(v6->loopback());
    EXPECT_EQ(v6->text(), "[::1]:0");
    EXPECT_TRUE(parse_listen_address("127.0.0.2:1")->loopback());
    EXPECT_TRUE(parse_listen_address("localhost:1")->loopback());
    EXPECT_FALSE(parse_listen_address("0.0.0.0:1")->loopback());
    EXPECT_FALSE(parse_listen_address("10.0.0.1:1")->loopback());
}

TEST(ConfigHttp, TheTokenIsASecretThatNeverReachesTheJournal) {
    Config config = Config::defaults();
    ASSERT_TRUE(config.apply_override("ballast.http.auth.token=s3cret").ok());
    ASSERT_TRUE(config.apply_override("ballast.http.auth.token.file=/etc/ballast/token").ok());
    EXPECT_EQ(config.display_text("ballast.http.auth.token"), "[hidden]");
    EXPECT_EQ(config.display_text("ballast.http.auth.token.file"), "/etc/ballast/token");
    EXPECT_FALSE(says(config.to_properties_text(), "s3cret"));
    EXPECT_FALSE(says(config.to_properties_text(), "ballast.http."));
    // What only the process reads at start is marked so (PUT /v1/config refuses it).
    EXPECT_TRUE(find_key("ballast.tick.interval.ms")->start_only);
    EXPECT_TRUE(find_key("ballast.journal.path")->start_only);
    EXPECT_FALSE(find_key("ballast.partition.cooldown.ms")->start_only);
    EXPECT_FALSE(find_key("autobalancer.controller.enable")->start_only);
}

}  // namespace
}  // namespace ballast::events
