#pragma once

/// Typed C++ events: what every room builds, passes around and tests against.
/// The journal and the wire carry the flatbuffers encoding of `event.fbs`,
/// size-prefixed (4 bytes of length first, so the bytes delimit themselves and
/// the verifier catches any truncation); this
/// header is the one way in and out of it: `Encoder` builds bytes, `verify`
/// checks bytes read from disk or network, `decode` turns checked bytes back
/// into an `Event`, `to_json` renders one line for people and tools.
///
/// The structs mirror the schema field for field; the `Body` variant lists the
/// event kinds in the schema's union order, so `EventType` (the variant index)
/// equals the flatbuffers union tag minus one.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <flatbuffers/flatbuffer_builder.h>

#include "events/result.h"

namespace ballast::events {

namespace fb {
struct Event;
}

enum class Source : uint8_t {
    unknown = 0,
    kafka_metadata,
    kafka_metrics,
    kafka_admin,
    simulator,
    storm,
    operator_,  // `operator` is a keyword; the name on the wire and in JSON is "operator"
    engine,
    executor,
    clock,
    tool,
    kafka_metadata_log,
};
inline constexpr uint8_t source_count = 12;

// ---------------------------------------------------------------- metadata

struct Endpoint {
    std::string listener;
    std::string host;
    int32_t port = 0;
    bool operator==(const Endpoint&) const = default;
};

struct BrokerRegistered {
    int32_t broker_id = -1;
    std::string rack;
    std::vector<Endpoint> endpoints;
    bool operator==(const BrokerRegistered&) const = default;
};
struct BrokerFenced {
    int32_t broker_id = -1;
    bool operator==(const BrokerFenced&) const = default;
};
struct BrokerUnfenced {
    int32_t broker_id = -1;
    bool operator==(const BrokerUnfenced&) const = default;
};
struct BrokerUnregistered {
    int32_t broker_id = -1;
    bool operator==(const BrokerUnregistered&) const = default;
};

struct TopicCreated {
    std::string topic;
    std::vector<uint8_t> topic_id;  // 16 bytes, or empty when unknown
    int32_t partition_count = 0;
    int16_t replication_factor = 0;
    bool operator==(const TopicCreated&) const = default;
};
struct TopicDeleted {
    std::string topic;
    bool operator==(const TopicDeleted&) const = default;
};

struct PartitionChanged {
    std::string topic;
    int32_t partition = -1;
    std::vector<int32_t> replicas;  // preference order
    int32_t leader = -1;
    std::vector<int32_t> isr;
    int32_t leader_epoch = -1;
    /// A reassignment in progress: the replicas being added (left out of
    /// `replicas` and `isr` until the move completes) and those being removed
    /// (still in `replicas`). Empty when none, and always from the poller.
    std::vector<int32_t> adding_replicas = {};
    std::vector<int32_t> removing_replicas = {};
    bool operator==(const PartitionChanged&) const = default;
};

// ---------------------------------------------------------------- metrics

struct BrokerSample {
    int32_t broker_id = -1;
    double bytes_in_per_s = 0;
    double bytes_out_per_s = 0;
    double messages_in_per_s = 0;
    uint64_t size_bytes = 0;
    bool operator==(const BrokerSample&) const = default;
};
struct BrokerMetrics {
    int64_t sample_time_ms = 0;
    std::vector<BrokerSample> samples;
    bool operator==(const BrokerMetrics&) const = default;
};

struct PartitionSample {
    uint32_t topic_index = 0;  // into PartitionMetrics::topics
    int32_t partition = -1;
    double bytes_in_per_s = 0;
    double bytes_out_per_s = 0;
    double messages_in_per_s = 0;
    uint64_t size_bytes = 0;
    bool operator==(const PartitionSample&) const = default;
};
struct PartitionMetrics {
    int32_t broker_id = -1;
    int64_t sample_time_ms = 0;
    std::vector<std::string> topics;
    std::vector<PartitionSample> samples;
    bool operator==(const PartitionMetrics&) const = default;
};

// ---------------------------------------------------------------- control

struct Tick {
    int64_t now_ms = 0;
    bool operator==(const Tick&) const = default;
};

struct ConfigEntry {
    std::string key;
    std::string value;
    bool reset = false;
    bool operator==(const ConfigEntry&) const = default;
};
struct ConfigChanged {
    std::vector<ConfigEntry> entries;
    bool operator==(const ConfigChanged&) const = default;
};

enum class CommandKind : uint8_t {
    drain_brokers = 0,
    pause,
    resume,
    exclude_brokers,
    include_brokers,
    exclude_topics,
    include_topics,
    cancel_actions,
    rebalance,  // plan at the next Tick (the operator asked for a round now)
};
inline constexpr uint8_t command_kind_count = 9;

struct OperatorCommand {
    CommandKind command = CommandKind::pause;
    std::vector<int32_t> broker_ids;
    std::vector<std::string> topics;
    std::vector<uint64_t> action_ids;
    std::string reason;
    bool operator==(const OperatorCommand&) const = default;
};

struct LeadershipAcquired {
    int64_t epoch = 0;
    std::string instance_id;
    bool operator==(const LeadershipAcquired&) const = default;
};

// ---------------------------------------------------------------- decisions

enum class ActionKind : uint8_t { move = 0, swap, leader };
inline constexpr uint8_t action_kind_count = 3;

struct Load {
    double bytes_in_per_s = 0;
    double bytes_out_per_s = 0;
    uint64_t size_bytes = 0;
    int32_t replica_count = 0;
    int32_t leader_count = 0;
    bool operator==(const Load&) const = default;
};
struct LoadChange {
    int32_t broker_id = -1;
    Load before;
    Load after;
    bool operator==(const LoadChange&) const = default;
};

struct Action {
    uint64_t action_id = 0;
    ActionKind kind = ActionKind::move;
    std::string topic;
    int32_t partition = -1;
    int32_t source_broker = -1;
    int32_t destination_broker = -1;
    std::vector<int32_t> replicas_before;
    std::vector<int32_t> replicas_after;
    std::string swap_topic;
    int32_t swap_partition = -1;
    std::vector<int32_t> swap_replicas_before;
    std::vector<int32_t> swap_replicas_after;
    std::string goal;
    std::vector<LoadChange> loads;
    bool operator==(const Action&) const = default;
};
struct RejectionCount {
    std::string reason;
    uint32_t count = 0;
    bool operator==(const RejectionCount&) const = default;
};
struct HeldAction {
    Action action;
    std::string reason;
    bool operator==(const HeldAction&) const = default;
};
struct Unfixable {
    std::string topic;  // empty when about a broker
    int32_t partition = -1;
    int32_t broker_id = -1;
    std::string goal;
    std::string reason;
    bool operator==(const Unfixable&) const = default;
};
struct BrokerNote {
    int32_t broker_id = -1;
    std::string reason;
    bool operator==(const BrokerNote&) const = default;
};
struct ActionsPlanned {
    uint64_t round = 0;
    uint64_t barrier_seq = 0;
    std::vector<Action> actions;
    std::vector<RejectionCount> rejections;
    std::vector<HeldAction> held;
    std::vector<Unfixable> unfixable;
    std::vector<BrokerNote> broker_notes;
    bool operator==(const ActionsPlanned&) const = default;
};

// ---------------------------------------------------------------- execution outcomes

struct ActionSubmitted {
    uint64_t action_id = 0;
    uint32_t attempt = 0;
    bool operator==(const ActionSubmitted&) const = default;
};
struct ActionCompleted {
    uint64_t action_id = 0;
    bool operator==(const ActionCompleted&) const = default;
};
struct ActionFailed {
    uint64_t action_id = 0;
    int32_t error_code = 0;
    std::string error_name;
    std::string message;
    bool retriable = false;
    uint32_t attempt = 0;
    bool operator==(const ActionFailed&) const = default;
};
struct ActionTimedOut {
    uint64_t action_id = 0;
    int64_t timeout_ms = 0;
    bool operator==(const ActionTimedOut&) const = default;
};
struct ActionCancelled {
    uint64_t action_id = 0;
    std::string reason;
    bool operator==(const ActionCancelled&) const = default;
};

// ---------------------------------------------------------------- the event

/// In the schema's union order; never reorder, only append (see README.md).
using Body = std::variant<BrokerRegistered, BrokerFenced, BrokerUnfenced, BrokerUnregistered,
                          TopicCreated, TopicDeleted, PartitionChanged, BrokerMetrics,
                          PartitionMetrics, Tick, ConfigChanged, OperatorCommand,
                          LeadershipAcquired, ActionsPlanned, ActionSubmitted, ActionCompleted,
                          ActionFailed, ActionTimedOut, ActionCancelled>;

/// The kind of an event: the index of its body in `Body`.
enum class EventType : uint8_t {
    broker_registered = 0,
    broker_fenced,
    broker_unfenced,
    broker_unregistered,
    topic_created,
    topic_deleted,
    partition_changed,
    broker_metrics,
    partition_metrics,
    tick,
    config_changed,
    operator_command,
    leadership_acquired,
    actions_planned,
    action_submitted,
    action_completed,
    action_failed,
    action_timed_out,
    action_cancelled,
};
inline constexpr uint8_t event_type_count = std::variant_size_v<Body>;

struct Event {
    uint64_t seq = 0;  // 0 until the journal assigns one
    int64_t time_ms = 0;
    Source source = Source::unknown;
    Body body;
    /// Source `kafka_metadata_log`: the offset in `__cluster_metadata` of the
    /// record it came from, and the quorum epoch of that record's batch, so
    /// the journal says where the reader stopped (-1: not from the log).
    int64_t metadata_offset = -1;
    int32_t metadata_epoch = -1;

    EventType type() const { return static_cast<EventType>(body.index()); }
    bool operator==(const Event&) const = default;
};

/// The action an execution outcome (submitted, completed, failed, timed
/// out, cancelled) is about; nullopt for any other event.
inline std::optional<uint64_t> outcome_action_id(const Event& event) {
    return std::visit(
        [](const auto& body) -> std::optional<uint64_t> {
            if constexpr (requires { body.action_id; }) return body.action_id;
            return std::nullopt;
        },
        event.body);
}

/// "broker_registered", ...; the names `ballast log --type` accepts.
const char* type_name(EventType type);
std::optional<EventType> type_from_name(std::string_view name);
const char* source_name(Source source);
const char* command_kind_name(CommandKind kind);
const char* action_kind_name(ActionKind kind);

/// One line for people: "MOVE orders-3 3 -> 1 [NetworkInUsageDistributionGoal]",
/// "SWAP orders-3 3 -> 1 with orders-7 1 -> 3 [...]", "LEADER orders-3 3 -> 1 [...]".
std::string describe_action(const Action& action);

/// Is this event a decision the engine made (source `engine` or `executor`:
/// ActionsPlanned, ActionSubmitted, ActionTimedOut, ActionCancelled), rather
/// than an input (something that happened to it)? Replay feeds the inputs to
/// a fresh engine and compares the decisions it makes with these.
bool is_decision(Source source);

/// Builds the flatbuffers encoding of events, reusing one buffer: the bytes a
/// call returns stay valid until the next call.
class Encoder {
public:
    std::span<const uint8_t> encode(const Event& event);

private:
    flatbuffers::FlatBufferBuilder _builder{512};
};

/// One-off convenience over `Encoder`.
std::vector<uint8_t> encode(const Event& event);

/// Checks bytes from disk or the network: the flatbuffers verifier (size
/// prefix equal to the length, bounds, alignment, offsets, the "BLEV"
/// identifier), a known body type and source, and the
/// semantic rules the verifier cannot see (a partition sample's topic index
/// inside its report). Nothing reads an event's bytes before this passes.
Status verify(std::span<const uint8_t> bytes);

/// Zero-copy access to verified bytes. Precondition: `verify(bytes)` passed.
const fb::Event& view(std::span<const uint8_t> bytes);

/// The header fields of verified bytes, without decoding the body.
struct Header {
    uint64_t seq = 0;
    int64_t time_ms = 0;
    Source source = Source::unknown;
    EventType type = EventType::tick;
};
Header header(const fb::Event& event);

/// verify + convert to the typed `Event`.
Result<Event> decode(std::span<const uint8_t> bytes);

/// Convert verified flatbuffers to the typed `Event`.
Event from_flatbuffer(const fb::Event& event);

/// One JSON object on one line, no trailing newline:
/// {"seq":7,"time_ms":1000,"source":"simulator","type":"broker_fenced","broker_id":3}
/// The body's fields sit beside the header's; doubles print in their shortest
/// form that reads back to the same value.
std::string to_json(const Event& event);

}  // namespace ballast::events
