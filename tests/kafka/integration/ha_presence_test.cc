// Another Ballast group on the same cluster, found by a leader
// (adapters/kafka/ha/presence.h), on a real cluster.

#include "adapters/kafka/ha/presence.h"
#include "tests/kafka/integration/ha_log_fixture.h"

namespace ballast::kafka::ha {
namespace {

using namespace fixture;

/// A consumer of another kind than Ballast's in `group`, subscribed to
/// `topic` (librdkafka's default client.id): once assigned, it holds
/// partition 0 as a Ballast leader does, without the mark.
class PlainMember {
public:
    PlainMember(const std::string& bootstrap, const std::string& group, const std::string& topic) {
        char error[512];
        rd_kafka_conf_t* conf = rd_kafka_conf_new();
        rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), error, sizeof(error));
        rd_kafka_conf_set(conf, "group.id", group.c_str(), error, sizeof(error));
        rd_kafka_conf_set(conf, "enable.auto.commit", "false", error, sizeof(error));
        _handle = rd_kafka_new(RD_KAFKA_CONSUMER, conf, error, sizeof(error));
        rd_kafka_poll_set_consumer(_handle);
        rd_kafka_topic_partition_list_t* topics = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(topics, topic.c_str(), RD_KAFKA_PARTITION_UA);
        rd_kafka_subscribe(_handle, topics);
        rd_kafka_topic_partition_list_destroy(topics);
    }
    ~PlainMember() {
        rd_kafka_consumer_close(_handle);
        rd_kafka_destroy(_handle);
    }
    /// Polls until the group assigned it a partition (bounded).
    bool wait_assigned(int64_t timeout_ms) {
        const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
        while (Clock::now() < deadline) {
            if (rd_kafka_message_t* message = rd_kafka_consumer_poll(_handle, 100)) rd_kafka_message_destroy(message);
            rd_kafka_topic_partition_list_t* assigned = nullptr;
            if (rd_kafka_assignment(_handle, &assigned) == RD_KAFKA_RESP_ERR_NO_ERROR && assigned != nullptr) {
                const bool holds = assigned->cnt > 0;
                rd_kafka_topic_partition_list_destroy(assigned);
                if (holds) return true;
            }
        }
        return false;
    }

private:
    rd_kafka_t* _handle = nullptr;
};

/// The check's entry for `group`, if any.
std::optional<OtherBallastGroup> entry_of(const HaPresence& presence, const std::string& group) {
    for (const OtherBallastGroup& other : presence.others) {
        if (other.group_id == group) return other;
    }
    return std::nullopt;
}

/// Checks from the point of view of the instance `options` names until
/// `done` holds (bounded: a rebalance in progress may describe a group
/// without its leader for a moment); the last presence found.
std::optional<HaPresence> presence_until(const KafkaHaOptions& options,
                                         const std::function<bool(const HaPresence&)>& done,
                                         int64_t timeout_ms = 30'000) {
    std::optional<HaPresence> last;
    std::string last_error;
    (void)testing::eventually(
        [&] {
            events::Result<HaPresence> found = other_ballast_groups(options);
            if (!found) {
                last_error = found.error().to_string();
                return false;
            }
            last = std::move(*found);
            return done(*last);
        },
        timeout_ms);
    if (!last) ADD_FAILURE() << "no check succeeded: " << last_error;
    return last;
}

std::string describe(const std::optional<HaPresence>& presence) {
    if (!presence) return "(none)";
    std::string out = std::to_string(presence->groups_listed) + " listed, " +
                      std::to_string(presence->groups_described) + " described; others:";
    for (const OtherBallastGroup& o : presence->others) {
        out += " " + o.group_id + " (" + o.leader_client_id + " on " + o.leader_host + ", " + o.journal_topic + ")";
    }
    for (const UndescribedGroup& u : presence->undescribed) out += "; undescribed " + u.group_id + ": " + u.error;
    return out;
}

TEST_F(HaLogOnKafka, ALeaderFindsAnotherBallastGroupButNotItsOwnNorOtherConsumersAndASingleRunFindsBoth) {
    const std::string ours = unique("presence-ours");
    const std::string theirs = unique("presence-theirs");
    const std::string plain_group = unique("presence-plain");
    _consumer_groups.insert(plain_group);
    // As ballast run --ha elects.
    auto member = [&](const std::string& group, const std::string& instance) {
        KafkaHaOptions o = options(group, instance, true);
        o.assignment_strategy = "cooperative-sticky";
        return open(o);
    };
    const auto started = Clock::now();
    auto a = member(ours, "a");
    auto b = member(theirs, "b");
    ASSERT_TRUE(a && b);
    ASSERT_TRUE(testing::eventually([&] { return a->elected() && b->elected(); }, 30'000))
        << "a elected " << a->elected() << ", b elected " << b->elected();
    // A standby of theirs (never named as their leader), and a consumer
    // group of another kind holding partition 0 of our journal topic.
    auto b_standby = member(theirs, "b-standby");
    ASSERT_TRUE(b_standby);
    PlainMember plain(_bootstrap, plain_group, a->options().journal_topic_name());
    ASSERT_TRUE(plain.wait_assigned(30'000)) << "the plain consumer was never assigned";

    // From a: their group, led by b, and neither ours nor the plain one.
    const auto checked = Clock::now();
    std::optional<HaPresence> seen = presence_until(a->options(), [&](const HaPresence& p) {
        const std::optional<OtherBallastGroup> them = entry_of(p, theirs);
        return them && them->leader_instance_id == "b";
    });
    const int64_t found_ms = ms_since(checked);
    ASSERT_TRUE(seen.has_value());
    const std::optional<OtherBallastGroup> them = entry_of(*seen, theirs);
    ASSERT_TRUE(them.has_value()) << describe(seen);
    EXPECT_EQ(them->leader_client_id, "ballast-ha/b");
    EXPECT_EQ(them->leader_instance_id, "b");
    EXPECT_EQ(them->leader_host, "127.0.0.1");
    EXPECT_EQ(them->journal_topic, b->options().journal_topic_name());
    EXPECT_FALSE(entry_of(*seen, ours).has_value()) << describe(seen);
    EXPECT_FALSE(entry_of(*seen, plain_group).has_value()) << describe(seen);
    // The plain group was described, not passed over: a verdict, not a miss.
    EXPECT_GE(seen->groups_described, 2u) << describe(seen);
    for (const UndescribedGroup& u : seen->undescribed) {
        EXPECT_NE(u.group_id, plain_group) << describe(seen);
        EXPECT_NE(u.group_id, theirs) << describe(seen);
    }

    // From b: ours, led by a, and not theirs.
    std::optional<HaPresence> from_b = presence_until(b->options(), [&](const HaPresence& p) {
        const std::optional<OtherBallastGroup> us = entry_of(p, ours);
        return us && us->leader_instance_id == "a";
    });
    ASSERT_TRUE(from_b.has_value());
    ASSERT_TRUE(entry_of(*from_b, ours).has_value()) << describe(from_b);
    EXPECT_EQ(entry_of(*from_b, ours)->leader_client_id, "ballast-ha/a");
    EXPECT_EQ(entry_of(*from_b, ours)->journal_topic, a->options().journal_topic_name());
    EXPECT_FALSE(entry_of(*from_b, theirs).has_value()) << describe(from_b);
    EXPECT_FALSE(entry_of(*from_b, plain_group).has_value()) << describe(from_b);

    // From a single `ballast run`, in no group: both groups, each by its leader.
    KafkaHaOptions single = a->options();
    single.group_id.clear();
    single.instance_id = "single";
    std::optional<HaPresence> from_single = presence_until(single, [&](const HaPresence& p) {
        const std::optional<OtherBallastGroup> us = entry_of(p, ours);
        const std::optional<OtherBallastGroup> them = entry_of(p, theirs);
        return us && us->leader_instance_id == "a" && them && them->leader_instance_id == "b";
    });
    ASSERT_TRUE(from_single.has_value());
    EXPECT_TRUE(entry_of(*from_single, ours).has_value()) << describe(from_single);
    EXPECT_TRUE(entry_of(*from_single, theirs).has_value()) << describe(from_single);
    EXPECT_FALSE(entry_of(*from_single, plain_group).has_value()) << describe(from_single);

    const auto timed = Clock::now();
    EXPECT_TRUE(other_ballast_groups(a->options()).ok());
    std::printf("presence: both elected and the others joined after %lld ms; found %lld ms later; one check on %zu "
                "groups listed took %lld ms\n",
                static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(checked - started).count()),
                static_cast<long long>(found_ms), seen->groups_listed, static_cast<long long>(ms_since(timed)));
}

TEST_F(HaLogOnKafka, AnotherGroupIsNamedByItsLeaderOfTheMomentAndNotOnceItsMembersLeft) {
    const std::string ours = unique("presence-stay");
    const std::string theirs = unique("presence-go");
    auto member = [&](const std::string& group, const std::string& instance) {
        KafkaHaOptions o = options(group, instance, true);
        o.assignment_strategy = "cooperative-sticky";
        return open(o);
    };
    auto a = member(ours, "a");
    auto b = member(theirs, "b");
    ASSERT_TRUE(a && b);
    ASSERT_TRUE(testing::eventually([&] { return b->elected(); }, 30'000));
    auto c = member(theirs, "c");
    ASSERT_TRUE(c);
    auto led_by = [&](const std::string& instance) {
        return [&, instance](const HaPresence& p) {
            const std::optional<OtherBallastGroup> them = entry_of(p, theirs);
            return them && them->leader_instance_id == instance;
        };
    };
    std::optional<HaPresence> seen = presence_until(a->options(), led_by("b"));
    ASSERT_TRUE(seen && led_by("b")(*seen)) << describe(seen);

    // b leaves: c leads them now, and is the one named.
    b->close();
    seen = presence_until(a->options(), led_by("c"));
    ASSERT_TRUE(seen && led_by("c")(*seen)) << describe(seen);

    // c leaves too: their group has no member, and is not reported.
    c->close();
    const auto left = Clock::now();
    seen = presence_until(a->options(), [&](const HaPresence& p) { return !entry_of(p, theirs).has_value(); });
    ASSERT_TRUE(seen.has_value());
    EXPECT_FALSE(entry_of(*seen, theirs).has_value()) << "still reported 30 s after its members left: "
                                                      << describe(seen);
    std::printf("presence: their group no longer reported %lld ms after its last member left\n",
                static_cast<long long>(ms_since(left)));
}

}  // namespace
}  // namespace ballast::kafka::ha
