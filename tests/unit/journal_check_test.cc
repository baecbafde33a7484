/// Nothing unreadable gets into the journal: an append whose events break a
/// rule the reader applies (or one no reader should meet: a rate that is not
/// a number, a broker id below zero) is refused whole, naming the event, the
/// field and the value; everything appended reopens and reads back as it was.

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <limits>

#include "events/event_check.h"
#include "store/journal.h"
#include "tests/support/event_gen.h"
#include "tests/support/open_journal.h"
#include "tests/support/temp_dir.h"

namespace ballast::store {
namespace {

using events::Event;
using testing::open_journal;
using testing::TempDir;

Event metrics_report(uint32_t topic_index) {
    return Event{0, 60'000, events::Source::kafka_metrics,
                 events::PartitionMetrics{1, 59'000, {"orders", "payments"},
                                          {{0, 7, 431'000.5, 862'001.0, 3'120.0, 1 << 20},
                                           {topic_index, 0, 12'500.0, 12'500.0, 90.5, 1 << 30}}}};
}

Event tick(int64_t now_ms) { return Event{0, now_ms, events::Source::clock, events::Tick{now_ms}}; }

/// A sample pointing past its report's topics used to append fine and then
/// stop every open of the journal at its seq (the reader's verifier refuses
/// it). It is refused at the append, and the journal goes on.
TEST(JournalCheck, AnEventTheReaderWouldRefuseIsNotAppended) {
    TempDir dir;
    {
        auto journal = open_journal(dir / "j");
        std::vector<Event> good{tick(1'000), metrics_report(1)};
        ASSERT_TRUE(journal->append(good).ok());

        std::vector<Event> bad{tick(2'000), metrics_report(2)};
        Result<uint64_t> refused = journal->append(bad);
        ASSERT_FALSE(refused.ok());
        EXPECT_EQ(refused.error().code, events::ErrorCode::invalid_argument);
        const std::string& message = refused.error().message;
        EXPECT_NE(message.find("append after seq 2 refused (nothing appended)"), std::string::npos) << message;
        EXPECT_NE(message.find("event 1 of 2: partition_metrics from kafka_metrics: "
                               "samples[1].topic_index is 2, past its 2 topics"),
                  std::string::npos)
            << message;
        EXPECT_EQ(journal->last_seq(), 2u);
        EXPECT_EQ(bad[0].seq, 0u);  // no number was handed out

        std::vector<Event> after{tick(3'000)};
        Result<uint64_t> last = journal->append(after);
        ASSERT_TRUE(last.ok());
        EXPECT_EQ(*last, 3u);
    }
    auto reopened = open_journal(dir / "j");
    ASSERT_NE(reopened, nullptr);
    Result<std::vector<Event>> all = reopened->read(1, UINT64_MAX);
    ASSERT_TRUE(all.ok()) << all.error().to_string();
    ASSERT_EQ(all->size(), 3u);
    Event second = store::as_journaled(metrics_report(1));
    second.seq = 2;
    EXPECT_EQ((*all)[1], second);
    EXPECT_TRUE(std::holds_alternative<events::Tick>((*all)[2].body));
}

/// One of the hand-built examples with one field set to a value drawn from
/// the edges: what an adapter with a bug, or a hand-written JSON line, could
/// hand the journal.
rc::Gen<Event> gen_mutated_example() {
    return rc::gen::exec([] {
        const std::vector<Event> examples = testing::event_examples();
        Event e = *rc::gen::elementOf(examples);
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const double inf = std::numeric_limits<double>::infinity();
        const double odd_number = *rc::gen::elementOf(std::vector<double>{nan, inf, -inf, -1.0, -0.0, 0.0, 1e300, 5e-324});
        const auto small_int = *rc::gen::inRange<int32_t>(-3, 8);
        switch (*rc::gen::inRange(0, 6)) {
            case 0:
                e.source = static_cast<events::Source>(*rc::gen::inRange<int>(0, 20));
                break;
            case 1:
                e.time_ms = *rc::gen::inRange<int64_t>(-3, 3);
                break;
            default:
                std::visit(
                    [&](auto& body) {
                        using T = std::decay_t<decltype(body)>;
                        if constexpr (std::is_same_v<T, events::PartitionMetrics>) {
                            auto& s = body.samples.at(static_cast<size_t>(*rc::gen::inRange(0, 2)));
                            s.topic_index = static_cast<uint32_t>(*rc::gen::inRange(0, 4));
                            s.partition = small_int;
                            s.bytes_in_per_s = odd_number;
                        } else if constexpr (std::is_same_v<T, events::BrokerMetrics>) {
                            body.samples.at(0).bytes_out_per_s = odd_number;
                            body.samples.at(1).broker_id = small_int;
                        } else if constexpr (std::is_same_v<T, events::PartitionChanged>) {
                            body.replicas = *rc::gen::container<std::vector<int32_t>>(rc::gen::inRange(-2, 5));
                            body.leader = small_int;
                        } else if constexpr (std::is_same_v<T, events::TopicCreated>) {
                            body.topic = std::string(static_cast<size_t>(*rc::gen::elementOf(std::vector<int>{0, 1, 249, 250})), 'x');
                            body.topic_id.resize(static_cast<size_t>(*rc::gen::inRange(0, 18)));
                        } else if constexpr (std::is_same_v<T, events::OperatorCommand>) {
                            body.command = static_cast<events::CommandKind>(*rc::gen::inRange(0, 12));
                            body.broker_ids.push_back(small_int);
                        } else if constexpr (std::is_same_v<T, events::ActionsPlanned>) {
                            body.actions.at(0).kind = static_cast<events::ActionKind>(*rc::gen::inRange(0, 5));
                            body.actions.at(0).loads.at(0).after.bytes_in_per_s = odd_number;
                        } else if constexpr (std::is_same_v<T, events::Tick>) {
                            body.now_ms = *rc::gen::inRange<int64_t>(-3, 3);
                        } else if constexpr (std::is_same_v<T, events::BrokerFenced> ||
                                             std::is_same_v<T, events::BrokerUnfenced> ||
                                             std::is_same_v<T, events::BrokerUnregistered>) {
                            body.broker_id = small_int;
                        }
                    },
                    e.body);
        }
        return e;
    });
}

/// For random events (the encodings' edges) and mutated realistic ones:
/// either the append is refused, with nothing appended and `check` naming
/// the same problem, or the journal reopens and reads every event back as it
/// was appended (its samples rounded, as the append left them in the batch).
RC_GTEST_PROP(JournalCheck, AnAppendIsRefusedOrReopensAndReadsBackTheSame, ()) {
    const auto count = *rc::gen::inRange(1, 5);
    std::vector<Event> batch;
    for (int i = 0; i < count; i++) {
        batch.push_back(*rc::gen::oneOf(testing::gen_event(), gen_mutated_example()));
        batch.back().seq = 0;
    }
    TempDir dir;
    JournalOptions no_fsync;  // durability is not under test here
    no_fsync.sync = false;
    const std::vector<Event> original = batch;
    const events::Status expected = events::check_batch(batch);
    {
        auto journal = open_journal(dir / "j", no_fsync);
        RC_ASSERT(journal != nullptr);
        Result<uint64_t> appended = journal->append(batch);
        if (!expected.ok()) {
            RC_ASSERT(!appended.ok());
            RC_ASSERT(appended.error().code == events::ErrorCode::invalid_argument);
            RC_ASSERT(appended.error().message.find(expected.error().message) != std::string::npos);
            RC_ASSERT(journal->last_seq() == 0u);
            RC_TAG("refused");
        } else {
            RC_ASSERT(appended.ok());
            RC_TAG("appended");
        }
    }
    auto reopened = open_journal(dir / "j", no_fsync);
    RC_ASSERT(reopened != nullptr);
    Result<std::vector<Event>> all = reopened->read(1, UINT64_MAX);
    RC_ASSERT(all.ok());
    if (expected.ok()) {
        for (size_t i = 0; i < batch.size(); i++) {
            Event journaled = as_journaled(original[i]);
            journaled.seq = i + 1;
            RC_ASSERT(batch[i] == journaled);  // the caller holds what was stored
        }
        RC_ASSERT(*all == batch);
    } else {
        RC_ASSERT(all->empty());
    }
}

}  // namespace
}  // namespace ballast::store
