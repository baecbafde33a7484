#pragma once

/// RapidCheck generators for events: every kind, any source, random header.
///
/// The values are chosen to stress the encodings rather than to look like a
/// cluster: integers reach their type's limits (the JSON reader's range
/// checks sit there), doubles include subnormals and huge values (shortest
/// printing), strings carry quotes, backslashes, control characters and
/// non-ASCII UTF-8 (JSON escaping). Every generated event passes
/// `events::verify` once encoded.
///
/// The generators are defined in event_gen.cc: their templates are heavy, and
/// compiling them once instead of in every test file saves minutes.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "events/event.h"

namespace ballast::testing {

/// An event type, each equally likely (rapidcheck's inRange favours low values).
rc::Gen<events::EventType> gen_event_type();

/// An event of the given kind with a random header.
rc::Gen<events::Event> gen_event_of(events::EventType type);

/// An event of any kind.
rc::Gen<events::Event> gen_event();

// ---------------------------------------------------------------- hand-built examples

/// One realistic event of every kind, in `EventType` order, as a Kafka
/// cluster and the engine would produce them. Tests that must cover every
/// kind iterate these and check that none is missing.
inline std::vector<events::Event> event_examples() {
    using namespace events;
    constexpr int64_t t = 1'718'000'000'000;  // June 2024, in ms
    const Load before{5.2e6, 1.04e7, 412'316'860'416, 1'204, 401};
    const Load after{4.9e6, 9.8e6, 401'316'860'416, 1'203, 401};
    const Action move{
        .action_id = 9001,
        .kind = ActionKind::move,
        .topic = "orders",
        .partition = 7,
        .source_broker = 1,
        .destination_broker = 4,
        .replicas_before = {1, 2, 3},
        .replicas_after = {4, 2, 3},
        .swap_topic = "",
        .swap_partition = -1,
        .swap_replicas_before = {},
        .swap_replicas_after = {},
        .goal = "disk_usage_distribution",
        .loads = {LoadChange{1, before, after}, LoadChange{4, after, before}},
    };
    const Action swap{
        .action_id = 9002,
        .kind = ActionKind::swap,
        .topic = "payments",
        .partition = 0,
        .source_broker = 2,
        .destination_broker = 5,
        .replicas_before = {2, 3, 6},
        .replicas_after = {5, 3, 6},
        .swap_topic = "clickstream",
        .swap_partition = 31,
        .swap_replicas_before = {5, 1, 4},
        .swap_replicas_after = {2, 1, 4},
        .goal = "network_inbound_distribution",
        .loads = {},
    };
    const Action leader{
        .action_id = 9003,
        .kind = ActionKind::leader,
        .topic = "orders",
        .partition = 3,
        .source_broker = 3,
        .destination_broker = 1,
        .replicas_before = {3, 1, 2},
        .replicas_after = {1, 3, 2},
        .swap_topic = "",
        .swap_partition = -1,
        .swap_replicas_before = {},
        .swap_replicas_after = {},
        .goal = "leader_distribution",
        .loads = {},
    };
    return {
        {1, t, Source::kafka_metadata,
         BrokerRegistered{1, "us-east-1a",
                          {{"PLAINTEXT", "kafka-1.internal", 9092}, {"SSL", "kafka-1.internal", 9093}}}},
        {2, t + 5, Source::kafka_metadata, BrokerFenced{3}},
        {3, t + 9, Source::kafka_metadata, BrokerUnfenced{3}},
        {4, t + 12, Source::kafka_metadata, BrokerUnregistered{6}},
        {5, t + 20, Source::kafka_metadata,
         TopicCreated{"orders",
                      {0x3f, 0x2a, 0x91, 0x0c, 0x7e, 0x44, 0x4b, 0x1d, 0x9a, 0x55, 0x0e, 0xc2, 0x61,
                       0x88, 0xf0, 0x17},
                      12, 3}},
        {6, t + 21, Source::operator_, TopicDeleted{"orders-staging"}},
        {7, t + 30, Source::kafka_metadata, PartitionChanged{"orders", 7, {1, 2, 3}, 1, {1, 3}, 14}},
        {8, t + 60'000, Source::kafka_metrics,
         BrokerMetrics{t + 59'000,
                       {{1, 5.2e6, 1.04e7, 48'211.5, 412'316'860'416},
                        {2, 4.75e6, 9.5e6, 40'002.25, 398'000'112'640}}}},
        {9, t + 60'001, Source::kafka_metrics,
         PartitionMetrics{1,
                          t + 59'000,
                          {"orders", "payments"},
                          {{0, 7, 431'000.5, 862'001.0, 3'120.0, 34'359'738'368},
                           {1, 0, 12'500.0, 12'500.0, 90.5, 1'073'741'824}}}},
        {10, t + 61'000, Source::clock, Tick{t + 61'000}},
        {11, t + 61'500, Source::operator_,
         ConfigChanged{{{"goals.disk_usage_distribution.threshold", "1.10", false},
                        {"executor.max_concurrent_moves", "", true}}}},
        {12, t + 62'000, Source::operator_,
         OperatorCommand{CommandKind::drain_brokers, {5, 6}, {}, {}, "decommissioning rack c"}},
        {13, t + 62'100, Source::engine, LeadershipAcquired{7, "ballast-0.ballast.svc"}},
        {14, t + 63'000, Source::engine,
         ActionsPlanned{42, 13, {move, swap, leader}, {{"broker excluded", 3}, {"rack", 1}},
                        {HeldAction{leader, "max concurrent leader moves reached"}},
                        {{"payments", 0, -1, "RackAwareGoal", "3 replicas, 2 racks"}},
                        {{3, "unstable (fenced 3 times within 600 s): takes no load until alive for 300 s"}}}},
        {15, t + 63'010, Source::executor, ActionSubmitted{9001, 1}},
        {16, t + 95'000, Source::kafka_admin, ActionCompleted{9001}},
        {17, t + 96'000, Source::kafka_admin,
         ActionFailed{9002, 60, "REASSIGNMENT_IN_PROGRESS",
                      "a partition reassignment is in progress for payments-0", true, 2}},
        {18, t + 400'000, Source::executor, ActionTimedOut{9003, 300'000}},
        {19, t + 401'000, Source::operator_, ActionCancelled{9003, "operator: cancel 9003"}},
    };
}

}  // namespace ballast::testing

namespace ballast::events {

/// Failing cases print as the JSON line `ballast log` would show, in
/// RapidCheck's counterexamples (found by argument lookup)...
inline void showValue(const Event& event, std::ostream& os) { os << to_json(event); }

/// ...and in GoogleTest's EXPECT_EQ messages.
inline void PrintTo(const Event& event, std::ostream* os) { *os << to_json(event); }

}  // namespace ballast::events
