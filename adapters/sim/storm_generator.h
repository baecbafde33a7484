#pragma once

/// Synthetic event storms for load tests (`ballast storm`): a cluster of N
/// brokers and P partitions, then events in one of four patterns, as fast
/// as asked. Deterministic from a seed; time is given by the caller.
///
///   metrics-flood  one sample per partition per event (AutoMQ's reporter
///                  writes one record per partition metric), cycling over
///                  every partition, plus broker totals once a second
///   broker-flap    brokers fenced and unfenced in turn (each change makes a
///                  planning round due), over a metrics background
///   topic-churn    small topics created, filled and deleted in turn, over a
///                  metrics background
///   mixed          90% metrics, 5% leader/ISR changes, 3% broker flaps,
///                  2% topic churn
///
/// The storm's executor (`StormPort`) finishes every action after a fixed
/// delay; the driver feeds the outcomes back like any other event.

#include <cstdint>
#include <deque>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "actors/admin_port.h"
#include "events/event.h"
#include "events/result.h"

namespace ballast::sim {

enum class StormPattern : uint8_t { metrics_flood, broker_flap, topic_churn, mixed };
events::Result<StormPattern> parse_storm_pattern(const std::string& text);
const char* storm_pattern_name(StormPattern pattern);

struct StormSpec {
    int32_t brokers = 100;
    int32_t partitions = 100'000;
    StormPattern pattern = StormPattern::metrics_flood;
    uint64_t seed = 1;
};

class StormGenerator {
public:
    explicit StormGenerator(StormSpec spec);

    /// The cluster: brokers 1..N in 3 racks, topic "storm" with P RF1
    /// partitions round robin, and one metrics report for every partition.
    /// In batches of at most `batch_max` events.
    std::vector<std::vector<events::Event>> setup(size_t batch_max) const;

    /// `count` events of the pattern, at `time_ms`.
    void generate(size_t count, int64_t time_ms, std::vector<events::Event>& out);

    /// Broker totals for every live broker (fed once a second: keeps every
    /// broker's metrics fresh).
    events::Event broker_report(int64_t time_ms) const;

    /// Applies a completed action to the generator's view of placement, so
    /// later metrics and leader changes name the right brokers.
    void moved(const std::string& topic, int32_t partition, const std::vector<int32_t>& replicas);

    uint64_t generated() const { return _generated; }

private:
    void metrics(int64_t time_ms, std::vector<events::Event>& out);
    void flap(int64_t time_ms, std::vector<events::Event>& out);
    void churn(int64_t time_ms, std::vector<events::Event>& out);
    void leader_change(int64_t time_ms, std::vector<events::Event>& out);

    StormSpec _spec;
    std::mt19937_64 _random;
    std::vector<int32_t> _leader;  // by partition of "storm"
    std::vector<uint8_t> _fenced;  // by broker id
    uint32_t _next_metric = 0;
    int32_t _next_flap = 1;
    uint64_t _churn_topics = 0;
    std::deque<std::pair<std::string, int32_t>> _churn_live;  // topic, partitions
    int32_t _churn_step = 0;                                  // within the topic in progress
    uint64_t _generated = 0;
};

/// The storm's executor: every submitted action completes `delay_ms` after
/// it was submitted (engine time); the driver takes the due completions and
/// feeds them as ActionCompleted + PartitionChanged.
class StormPort : public actors::AdminPort {
public:
    explicit StormPort(int64_t delay_ms) : _delay_ms(delay_ms) {}
    void attach(actors::EventSink) override {}
    void submit(const events::Action& action, uint32_t attempt) override;
    void cancel(const events::Action& action) override;
    /// A storm's engine never restarts; an adopted action would complete as
    /// a submitted one does.
    void adopt(const events::Action& action, uint32_t attempt) override { submit(action, attempt); }

    /// Completions due at `now_ms`, as events, in submission order.
    std::vector<events::Event> due(int64_t now_ms);
    /// The engine's clock, as last fed (submissions are stamped with it).
    void set_now(int64_t now_ms);
    size_t outstanding() const;
    size_t outstanding_max() const;

private:
    struct Pending {
        events::Action action;
        int64_t done_ms = 0;
    };
    mutable std::mutex _mutex;
    int64_t _delay_ms;
    int64_t _now_ms = 0;
    std::deque<Pending> _pending;
    size_t _outstanding_max = 0;
};

}  // namespace ballast::sim
