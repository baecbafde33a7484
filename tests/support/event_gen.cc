#include "tests/support/event_gen.h"

#include <bit>
#include <cfloat>
#include <cmath>
#include <limits>
#include <type_traits>

namespace ballast::testing {

// ---------------------------------------------------------------- building blocks

/// A vector of 0 to `max_size` elements.
template <class T>
rc::Gen<std::vector<T>> gen_vector(rc::Gen<T> element, size_t max_size = 20) {
    return rc::gen::mapcat(rc::gen::inRange<size_t>(0, max_size + 1), [element](size_t count) {
        return rc::gen::container<std::vector<T>>(count, element);
    });
}

/// Uniform over [min, max). gen::inRange alone scales the range with the
/// size, so small test cases would only see values near `min`.
template <class T>
rc::Gen<T> gen_uniform(T min, T max) {
    return rc::gen::resize(rc::kNominalSize, rc::gen::inRange<T>(min, max));
}

/// Mostly size-scaled values, sometimes any value of the type or one of its
/// edges, where the JSON reader's range checks and the widest numbers are.
template <class Int>
rc::Gen<Int> gen_int() {
    using limits = std::numeric_limits<Int>;
    std::vector<Int> edges{limits::min(), limits::max(), Int(0)};
    if constexpr (std::is_signed_v<Int>) edges.push_back(Int(-1));
    return rc::gen::weightedOneOf<Int>({
        {6, rc::gen::arbitrary<Int>()},
        {1, gen_uniform<Int>(limits::min(), limits::max())},
        {1, rc::gen::elementOf(edges)},
    });
}

/// Finite doubles only: events never carry NaN or infinity (to_json would
/// print null, which does not read back).
inline rc::Gen<double> gen_double() {
    const auto any_finite_bits = [](rc::Gen<uint64_t> bits) {
        return rc::gen::suchThat(rc::gen::map(bits, [](uint64_t b) { return std::bit_cast<double>(b); }),
                                 [](double d) { return std::isfinite(d); });
    };
    return rc::gen::weightedOneOf<double>({
        // Rates as a broker reports them: bytes per second with a fraction.
        {4, rc::gen::map(rc::gen::inRange<int64_t>(0, 10'000'000'000),
                         [](int64_t milli) { return static_cast<double>(milli) / 1000.0; })},
        // Arbitrary bit patterns: subnormals, huge exponents, negative values.
        {2, any_finite_bits(rc::gen::arbitrary<uint64_t>())},
        {2, any_finite_bits(gen_uniform<uint64_t>(0, std::numeric_limits<uint64_t>::max()))},
        // Values whose shortest text is a trap: integral ones print without a
        // point and read back as JSON integers, some beyond int64. (-0.0
        // reads back from JSON as 0.0, which == still accepts.)
        {1, rc::gen::element(0.0, -0.0, 0.1, 1.0 / 3.0, 5.0, -5.0, 1e21, 1e22, 1.8446744073709552e19,
                             9007199254740993.0, DBL_MAX, -DBL_MAX, DBL_MIN, 5e-324)},
    });
}

/// One character of a generated string, as its UTF-8 bytes.
inline rc::Gen<std::string> gen_character() {
    return rc::gen::weightedOneOf<std::string>({
        {12, rc::gen::map(gen_uniform<char>(0x20, 0x7f), [](char c) { return std::string(1, c); })},
        {2, rc::gen::element<std::string>("\"", "\\", "/")},
        {2, rc::gen::element<std::string>(std::string(1, '\0'), "\n", "\r", "\t", "\b", "\f",
                                          "\x01", "\x1f", "\x7f")},
        {2, rc::gen::element<std::string>("é", "ü", "日", "本", "€", "🙂")},
    });
}

/// Up to 30 characters (up to 120 bytes), always valid UTF-8.
inline rc::Gen<std::string> gen_string() {
    return rc::gen::map(gen_vector(gen_character(), 30), [](const std::vector<std::string>& chars) {
        std::string text;
        for (const std::string& c : chars) text += c;
        return text;
    });
}

/// Each of an enum's `count` values equally often. (gen::inRange scales with
/// the size, so early, small test cases would mostly see the first values.)
template <class Enum>
rc::Gen<Enum> gen_enum(uint8_t count) {
    std::vector<Enum> values;
    for (uint8_t i = 0; i < count; i++) values.push_back(static_cast<Enum>(i));
    return rc::gen::elementOf(values);
}

inline rc::Gen<events::Source> gen_source() { return gen_enum<events::Source>(events::source_count); }

rc::Gen<events::EventType> gen_event_type() {
    return gen_enum<events::EventType>(events::event_type_count);
}

// ---------------------------------------------------------------- metadata

inline rc::Gen<events::Endpoint> gen_endpoint() {
    using events::Endpoint;
    return rc::gen::build<Endpoint>(rc::gen::set(&Endpoint::listener, gen_string()),
                                    rc::gen::set(&Endpoint::host, gen_string()),
                                    rc::gen::set(&Endpoint::port, gen_int<int32_t>()));
}

inline rc::Gen<events::BrokerRegistered> gen_broker_registered() {
    using events::BrokerRegistered;
    return rc::gen::build<BrokerRegistered>(
        rc::gen::set(&BrokerRegistered::broker_id, gen_int<int32_t>()),
        rc::gen::set(&BrokerRegistered::rack, gen_string()),
        rc::gen::set(&BrokerRegistered::endpoints, gen_vector(gen_endpoint(), 5)));
}

/// BrokerFenced, BrokerUnfenced and BrokerUnregistered: just a broker id.
template <class T>
rc::Gen<T> gen_broker_event() {
    return rc::gen::build<T>(rc::gen::set(&T::broker_id, gen_int<int32_t>()));
}

/// Empty (unknown) or Kafka's 16 bytes: the two forms to_json prints.
inline rc::Gen<std::vector<uint8_t>> gen_topic_id() {
    return rc::gen::oneOf(rc::gen::just(std::vector<uint8_t>{}),
                          rc::gen::container<std::vector<uint8_t>>(16, rc::gen::arbitrary<uint8_t>()));
}

inline rc::Gen<events::TopicCreated> gen_topic_created() {
    using events::TopicCreated;
    return rc::gen::build<TopicCreated>(
        rc::gen::set(&TopicCreated::topic, gen_string()),
        rc::gen::set(&TopicCreated::topic_id, gen_topic_id()),
        rc::gen::set(&TopicCreated::partition_count, gen_int<int32_t>()),
        rc::gen::set(&TopicCreated::replication_factor, gen_int<int16_t>()));
}

inline rc::Gen<events::TopicDeleted> gen_topic_deleted() {
    return rc::gen::build<events::TopicDeleted>(
        rc::gen::set(&events::TopicDeleted::topic, gen_string()));
}

inline rc::Gen<events::PartitionChanged> gen_partition_changed() {
    using events::PartitionChanged;
    return rc::gen::build<PartitionChanged>(
        rc::gen::set(&PartitionChanged::topic, gen_string()),
        rc::gen::set(&PartitionChanged::partition, gen_int<int32_t>()),
        rc::gen::set(&PartitionChanged::replicas, gen_vector(gen_int<int32_t>())),
        rc::gen::set(&PartitionChanged::leader, gen_int<int32_t>()),
        rc::gen::set(&PartitionChanged::isr, gen_vector(gen_int<int32_t>())),
        rc::gen::set(&PartitionChanged::leader_epoch, gen_int<int32_t>()));
}

// ---------------------------------------------------------------- metrics

inline rc::Gen<events::BrokerSample> gen_broker_sample() {
    using events::BrokerSample;
    return rc::gen::build<BrokerSample>(
        rc::gen::set(&BrokerSample::broker_id, gen_int<int32_t>()),
        rc::gen::set(&BrokerSample::bytes_in_per_s, gen_double()),
        rc::gen::set(&BrokerSample::bytes_out_per_s, gen_double()),
        rc::gen::set(&BrokerSample::messages_in_per_s, gen_double()),
        rc::gen::set(&BrokerSample::size_bytes, gen_int<uint64_t>()));
}

inline rc::Gen<events::BrokerMetrics> gen_broker_metrics() {
    using events::BrokerMetrics;
    return rc::gen::build<BrokerMetrics>(
        rc::gen::set(&BrokerMetrics::sample_time_ms, gen_int<int64_t>()),
        rc::gen::set(&BrokerMetrics::samples, gen_vector(gen_broker_sample())));
}

/// A sample of a report with `topic_count` topics (> 0): the index stays
/// inside, as verify requires.
inline rc::Gen<events::PartitionSample> gen_partition_sample(size_t topic_count) {
    using events::PartitionSample;
    return rc::gen::build<PartitionSample>(
        rc::gen::set(&PartitionSample::topic_index,
                     rc::gen::inRange<uint32_t>(0, static_cast<uint32_t>(topic_count))),
        rc::gen::set(&PartitionSample::partition, gen_int<int32_t>()),
        rc::gen::set(&PartitionSample::bytes_in_per_s, gen_double()),
        rc::gen::set(&PartitionSample::bytes_out_per_s, gen_double()),
        rc::gen::set(&PartitionSample::messages_in_per_s, gen_double()),
        rc::gen::set(&PartitionSample::size_bytes, gen_int<uint64_t>()));
}

inline rc::Gen<events::PartitionMetrics> gen_partition_metrics() {
    using events::PartitionMetrics;
    using events::PartitionSample;
    return rc::gen::mapcat(gen_vector(gen_string()), [](const std::vector<std::string>& topics) {
        // Without topics no sample has a valid index, so there are none.
        const rc::Gen<std::vector<PartitionSample>> samples =
            topics.empty() ? rc::gen::just(std::vector<PartitionSample>{})
                           : gen_vector(gen_partition_sample(topics.size()));
        return rc::gen::build<PartitionMetrics>(
            rc::gen::set(&PartitionMetrics::broker_id, gen_int<int32_t>()),
            rc::gen::set(&PartitionMetrics::sample_time_ms, gen_int<int64_t>()),
            rc::gen::set(&PartitionMetrics::topics, rc::gen::just(topics)),
            rc::gen::set(&PartitionMetrics::samples, samples));
    });
}

// ---------------------------------------------------------------- control

inline rc::Gen<events::Tick> gen_tick() {
    return rc::gen::build<events::Tick>(rc::gen::set(&events::Tick::now_ms, gen_int<int64_t>()));
}

inline rc::Gen<events::ConfigEntry> gen_config_entry() {
    using events::ConfigEntry;
    return rc::gen::build<ConfigEntry>(rc::gen::set(&ConfigEntry::key, gen_string()),
                                       rc::gen::set(&ConfigEntry::value, gen_string()),
                                       rc::gen::set(&ConfigEntry::reset));
}

inline rc::Gen<events::ConfigChanged> gen_config_changed() {
    return rc::gen::build<events::ConfigChanged>(
        rc::gen::set(&events::ConfigChanged::entries, gen_vector(gen_config_entry())));
}

inline rc::Gen<events::OperatorCommand> gen_operator_command() {
    using events::OperatorCommand;
    return rc::gen::build<OperatorCommand>(
        rc::gen::set(&OperatorCommand::command,
                     gen_enum<events::CommandKind>(events::command_kind_count)),
        rc::gen::set(&OperatorCommand::broker_ids, gen_vector(gen_int<int32_t>())),
        rc::gen::set(&OperatorCommand::topics, gen_vector(gen_string())),
        rc::gen::set(&OperatorCommand::action_ids, gen_vector(gen_int<uint64_t>())),
        rc::gen::set(&OperatorCommand::reason, gen_string()));
}

inline rc::Gen<events::LeadershipAcquired> gen_leadership_acquired() {
    using events::LeadershipAcquired;
    return rc::gen::build<LeadershipAcquired>(
        rc::gen::set(&LeadershipAcquired::epoch, gen_int<int64_t>()),
        rc::gen::set(&LeadershipAcquired::instance_id, gen_string()));
}

// ---------------------------------------------------------------- decisions

inline rc::Gen<events::Load> gen_load() {
    using events::Load;
    return rc::gen::build<Load>(rc::gen::set(&Load::bytes_in_per_s, gen_double()),
                                rc::gen::set(&Load::bytes_out_per_s, gen_double()),
                                rc::gen::set(&Load::size_bytes, gen_int<uint64_t>()),
                                rc::gen::set(&Load::replica_count, gen_int<int32_t>()),
                                rc::gen::set(&Load::leader_count, gen_int<int32_t>()));
}

inline rc::Gen<events::LoadChange> gen_load_change() {
    using events::LoadChange;
    return rc::gen::build<LoadChange>(rc::gen::set(&LoadChange::broker_id, gen_int<int32_t>()),
                                      rc::gen::set(&LoadChange::before, gen_load()),
                                      rc::gen::set(&LoadChange::after, gen_load()));
}

/// Only swap actions carry swap_* values: to_json leaves those members out
/// for the other kinds, so anything else would not survive a JSON round trip.
inline rc::Gen<events::Action> gen_action() {
    using events::Action;
    const auto kinds = gen_enum<events::ActionKind>(events::action_kind_count);
    return rc::gen::mapcat(kinds, [](events::ActionKind kind) {
        rc::Gen<Action> common = rc::gen::build<Action>(
            rc::gen::set(&Action::action_id, gen_int<uint64_t>()),
            rc::gen::set(&Action::kind, rc::gen::just(kind)),
            rc::gen::set(&Action::topic, gen_string()),
            rc::gen::set(&Action::partition, gen_int<int32_t>()),
            rc::gen::set(&Action::source_broker, gen_int<int32_t>()),
            rc::gen::set(&Action::destination_broker, gen_int<int32_t>()),
            rc::gen::set(&Action::replicas_before, gen_vector(gen_int<int32_t>(), 6)),
            rc::gen::set(&Action::replicas_after, gen_vector(gen_int<int32_t>(), 6)),
            rc::gen::set(&Action::goal, gen_string()),
            rc::gen::set(&Action::loads, gen_vector(gen_load_change(), 4)));
        if (kind != events::ActionKind::swap) return common;
        return rc::gen::build(
            common, rc::gen::set(&Action::swap_topic, gen_string()),
            rc::gen::set(&Action::swap_partition, gen_int<int32_t>()),
            rc::gen::set(&Action::swap_replicas_before, gen_vector(gen_int<int32_t>(), 6)),
            rc::gen::set(&Action::swap_replicas_after, gen_vector(gen_int<int32_t>(), 6)));
    });
}

inline rc::Gen<events::ActionsPlanned> gen_actions_planned() {
    using events::ActionsPlanned;
    using events::HeldAction;
    using events::RejectionCount;
    const auto rejection = rc::gen::build<RejectionCount>(
        rc::gen::set(&RejectionCount::reason, gen_string()),
        rc::gen::set(&RejectionCount::count, gen_int<uint32_t>()));
    const auto held = rc::gen::build<HeldAction>(rc::gen::set(&HeldAction::action, gen_action()),
                                                 rc::gen::set(&HeldAction::reason, gen_string()));
    const auto unfixable = rc::gen::build<events::Unfixable>(
        rc::gen::set(&events::Unfixable::topic, gen_string()),
        rc::gen::set(&events::Unfixable::partition, gen_int<int32_t>()),
        rc::gen::set(&events::Unfixable::broker_id, gen_int<int32_t>()),
        rc::gen::set(&events::Unfixable::goal, gen_string()),
        rc::gen::set(&events::Unfixable::reason, gen_string()));
    // Fewer actions than the usual 20: each one is itself a dozen vectors.
    return rc::gen::build<ActionsPlanned>(
        rc::gen::set(&ActionsPlanned::round, gen_int<uint64_t>()),
        rc::gen::set(&ActionsPlanned::barrier_seq, gen_int<uint64_t>()),
        rc::gen::set(&ActionsPlanned::actions, gen_vector(gen_action(), 6)),
        rc::gen::set(&ActionsPlanned::rejections, gen_vector(rejection)),
        rc::gen::set(&ActionsPlanned::held, gen_vector(held, 4)),
        rc::gen::set(&ActionsPlanned::unfixable, gen_vector(unfixable, 4)));
}

// ---------------------------------------------------------------- execution outcomes

inline rc::Gen<events::ActionSubmitted> gen_action_submitted() {
    using events::ActionSubmitted;
    return rc::gen::build<ActionSubmitted>(
        rc::gen::set(&ActionSubmitted::action_id, gen_int<uint64_t>()),
        rc::gen::set(&ActionSubmitted::attempt, gen_int<uint32_t>()));
}

inline rc::Gen<events::ActionCompleted> gen_action_completed() {
    return rc::gen::build<events::ActionCompleted>(
        rc::gen::set(&events::ActionCompleted::action_id, gen_int<uint64_t>()));
}

inline rc::Gen<events::ActionFailed> gen_action_failed() {
    using events::ActionFailed;
    return rc::gen::build<ActionFailed>(
        rc::gen::set(&ActionFailed::action_id, gen_int<uint64_t>()),
        rc::gen::set(&ActionFailed::error_code, gen_int<int32_t>()),
        rc::gen::set(&ActionFailed::error_name, gen_string()),
        rc::gen::set(&ActionFailed::message, gen_string()),
        rc::gen::set(&ActionFailed::retriable),
        rc::gen::set(&ActionFailed::attempt, gen_int<uint32_t>()));
}

inline rc::Gen<events::ActionTimedOut> gen_action_timed_out() {
    using events::ActionTimedOut;
    return rc::gen::build<ActionTimedOut>(
        rc::gen::set(&ActionTimedOut::action_id, gen_int<uint64_t>()),
        rc::gen::set(&ActionTimedOut::timeout_ms, gen_int<int64_t>()));
}

inline rc::Gen<events::ActionCancelled> gen_action_cancelled() {
    using events::ActionCancelled;
    return rc::gen::build<ActionCancelled>(
        rc::gen::set(&ActionCancelled::action_id, gen_int<uint64_t>()),
        rc::gen::set(&ActionCancelled::reason, gen_string()));
}

// ---------------------------------------------------------------- whole events

/// A body of the given kind. The switch has no default, so a kind added to
/// `EventType` without a generator here is a -Wswitch warning.
inline rc::Gen<events::Body> gen_body(events::EventType type) {
    using events::Body;
    using events::EventType;
    switch (type) {
        case EventType::broker_registered: return rc::gen::cast<Body>(gen_broker_registered());
        case EventType::broker_fenced:
            return rc::gen::cast<Body>(gen_broker_event<events::BrokerFenced>());
        case EventType::broker_unfenced:
            return rc::gen::cast<Body>(gen_broker_event<events::BrokerUnfenced>());
        case EventType::broker_unregistered:
            return rc::gen::cast<Body>(gen_broker_event<events::BrokerUnregistered>());
        case EventType::topic_created: return rc::gen::cast<Body>(gen_topic_created());
        case EventType::topic_deleted: return rc::gen::cast<Body>(gen_topic_deleted());
        case EventType::partition_changed: return rc::gen::cast<Body>(gen_partition_changed());
        case EventType::broker_metrics: return rc::gen::cast<Body>(gen_broker_metrics());
        case EventType::partition_metrics: return rc::gen::cast<Body>(gen_partition_metrics());
        case EventType::tick: return rc::gen::cast<Body>(gen_tick());
        case EventType::config_changed: return rc::gen::cast<Body>(gen_config_changed());
        case EventType::operator_command: return rc::gen::cast<Body>(gen_operator_command());
        case EventType::leadership_acquired:
            return rc::gen::cast<Body>(gen_leadership_acquired());
        case EventType::actions_planned: return rc::gen::cast<Body>(gen_actions_planned());
        case EventType::action_submitted: return rc::gen::cast<Body>(gen_action_submitted());
        case EventType::action_completed: return rc::gen::cast<Body>(gen_action_completed());
        case EventType::action_failed: return rc::gen::cast<Body>(gen_action_failed());
        case EventType::action_timed_out: return rc::gen::cast<Body>(gen_action_timed_out());
        case EventType::action_cancelled: return rc::gen::cast<Body>(gen_action_cancelled());
    }
    // Only reachable with a value outside the enum: the tick that comes back
    // is not the kind asked for, which the callers' kind checks notice.
    return rc::gen::just(Body(events::Tick{}));
}

/// An event of the given kind with a random header.
rc::Gen<events::Event> gen_event_of(events::EventType type) {
    using events::Event;
    return rc::gen::build<Event>(rc::gen::set(&Event::seq, gen_int<uint64_t>()),
                                 rc::gen::set(&Event::time_ms, gen_int<int64_t>()),
                                 rc::gen::set(&Event::source, gen_source()),
                                 rc::gen::set(&Event::body, gen_body(type)));
}

/// An event of any kind.
rc::Gen<events::Event> gen_event() { return rc::gen::mapcat(gen_event_type(), gen_event_of); }


}  // namespace ballast::testing
