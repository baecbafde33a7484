#include "events/event.h"

#include <cassert>

#include "events/event_generated.h"

namespace ballast::events {

namespace {

using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

// The C++ enums mirror the generated ones value for value; these checks make
// a schema edit that forgets the mirror a compile error.
static_assert(static_cast<uint8_t>(fb::Source::MAX) + 1 == source_count);
static_assert(static_cast<uint8_t>(fb::CommandKind::MAX) + 1 == command_kind_count);
static_assert(static_cast<uint8_t>(fb::ActionKind::MAX) + 1 == action_kind_count);
static_assert(static_cast<uint8_t>(fb::Body::MAX) == event_type_count);

constexpr const char* type_names[event_type_count] = {
    "broker_registered", "broker_fenced",     "broker_unfenced",    "broker_unregistered",
    "topic_created",     "topic_deleted",     "partition_changed",  "broker_metrics",
    "partition_metrics", "tick",              "config_changed",     "operator_command",
    "leadership_acquired", "actions_planned", "action_submitted",   "action_completed",
    "action_failed",     "action_timed_out",  "action_cancelled",
};

// ---------------------------------------------------------------- encode helpers

/// Empty strings and vectors are left out of the buffer (null reads back as
/// empty), which keeps small events small.
Offset<flatbuffers::String> opt_string(FlatBufferBuilder& b, const std::string& s) {
    return s.empty() ? 0 : b.CreateString(s);
}

template <class T>
Offset<flatbuffers::Vector<T>> opt_vector(FlatBufferBuilder& b, const std::vector<T>& v) {
    return v.empty() ? 0 : b.CreateVector(v);
}

Offset<flatbuffers::Vector<Offset<flatbuffers::String>>> opt_strings(
    FlatBufferBuilder& b, const std::vector<std::string>& v) {
    return v.empty() ? 0 : b.CreateVectorOfStrings(v);
}

fb::Load to_fb(const Load& l) {
    return fb::Load(l.bytes_in_per_s, l.bytes_out_per_s, l.size_bytes, l.replica_count,
                    l.leader_count);
}

Offset<fb::Action> encode_action(FlatBufferBuilder& b, const Action& a) {
    std::vector<fb::LoadChange> loads;
    loads.reserve(a.loads.size());
    for (const LoadChange& c : a.loads) {
        loads.emplace_back(to_fb(c.before), to_fb(c.after), c.broker_id);
    }
    return fb::CreateAction(
        b, a.action_id, static_cast<fb::ActionKind>(a.kind), opt_string(b, a.topic), a.partition,
        a.source_broker, a.destination_broker, opt_vector(b, a.replicas_before),
        opt_vector(b, a.replicas_after), opt_string(b, a.swap_topic), a.swap_partition,
        opt_vector(b, a.swap_replicas_before), opt_vector(b, a.swap_replicas_after),
        opt_string(b, a.goal), loads.empty() ? 0 : b.CreateVectorOfStructs(loads));
}

/// One overload per body kind: builds the body table, returns its offset.
struct BodyEncoder {
    FlatBufferBuilder& b;

    Offset<void> operator()(const BrokerRegistered& e) const {
        std::vector<Offset<fb::Endpoint>> endpoints;
        endpoints.reserve(e.endpoints.size());
        for (const Endpoint& p : e.endpoints) {
            endpoints.push_back(
                fb::CreateEndpoint(b, opt_string(b, p.listener), opt_string(b, p.host), p.port));
        }
        return fb::CreateBrokerRegistered(b, e.broker_id, opt_string(b, e.rack),
                                          endpoints.empty() ? 0 : b.CreateVector(endpoints))
            .Union();
    }
    Offset<void> operator()(const BrokerFenced& e) const {
        return fb::CreateBrokerFenced(b, e.broker_id).Union();
    }
    Offset<void> operator()(const BrokerUnfenced& e) const {
        return fb::CreateBrokerUnfenced(b, e.broker_id).Union();
    }
    Offset<void> operator()(const BrokerUnregistered& e) const {
        return fb::CreateBrokerUnregistered(b, e.broker_id).Union();
    }
    Offset<void> operator()(const TopicCreated& e) const {
        return fb::CreateTopicCreated(b, opt_string(b, e.topic), opt_vector(b, e.topic_id),
                                      e.partition_count, e.replication_factor)
            .Union();
    }
    Offset<void> operator()(const TopicDeleted& e) const {
        return fb::CreateTopicDeleted(b, opt_string(b, e.topic)).Union();
    }
    Offset<void> operator()(const PartitionChanged& e) const {
        return fb::CreatePartitionChanged(b, opt_string(b, e.topic), e.partition,
                                          opt_vector(b, e.replicas), e.leader,
                                          opt_vector(b, e.isr), e.leader_epoch,
                                          opt_vector(b, e.adding_replicas),
                                          opt_vector(b, e.removing_replicas))
            .Union();
    }
    Offset<void> operator()(const BrokerMetrics& e) const {
        std::vector<fb::BrokerSample> samples;
        samples.reserve(e.samples.size());
        for (const BrokerSample& s : e.samples) {
            samples.emplace_back(s.bytes_in_per_s, s.bytes_out_per_s, s.messages_in_per_s,
                                 s.size_bytes, s.broker_id);
        }
        return fb::CreateBrokerMetrics(b, e.sample_time_ms,
                                       samples.empty() ? 0 : b.CreateVectorOfStructs(samples))
            .Union();
    }
    Offset<void> operator()(const PartitionMetrics& e) const {
        // Samples are written straight into the buffer: a report can hold
        // tens of thousands of them and a temporary copy would double the work.
        Offset<flatbuffers::Vector<const fb::PartitionSample*>> samples = 0;
        if (!e.samples.empty()) {
            fb::PartitionSample* out = nullptr;
            samples = b.CreateUninitializedVectorOfStructs(e.samples.size(), &out);
            for (const PartitionSample& s : e.samples) {
                *out++ = fb::PartitionSample(s.bytes_in_per_s, s.bytes_out_per_s,
                                             s.messages_in_per_s, s.size_bytes, s.topic_index,
                                             s.partition);
            }
        }
        auto topics = opt_strings(b, e.topics);
        return fb::CreatePartitionMetrics(b, e.broker_id, e.sample_time_ms, topics, samples)
            .Union();
    }
    Offset<void> operator()(const Tick& e) const { return fb::CreateTick(b, e.now_ms).Union(); }
    Offset<void> operator()(const ConfigChanged& e) const {
        std::vector<Offset<fb::ConfigEntry>> entries;
        entries.reserve(e.entries.size());
        for (const ConfigEntry& c : e.entries) {
            entries.push_back(
                fb::CreateConfigEntry(b, opt_string(b, c.key), opt_string(b, c.value), c.reset));
        }
        return fb::CreateConfigChanged(b, entries.empty() ? 0 : b.CreateVector(entries)).Union();
    }
    Offset<void> operator()(const OperatorCommand& e) const {
        return fb::CreateOperatorCommand(b, static_cast<fb::CommandKind>(e.command),
                                         opt_vector(b, e.broker_ids), opt_strings(b, e.topics),
                                         opt_vector(b, e.action_ids), opt_string(b, e.reason))
            .Union();
    }
    Offset<void> operator()(const LeadershipAcquired& e) const {
        return fb::CreateLeadershipAcquired(b, e.epoch, opt_string(b, e.instance_id)).Union();
    }
    Offset<void> operator()(const ActionsPlanned& e) const {
        std::vector<Offset<fb::Action>> actions;
        actions.reserve(e.actions.size());
        for (const Action& a : e.actions) actions.push_back(encode_action(b, a));
        std::vector<Offset<fb::RejectionCount>> rejections;
        rejections.reserve(e.rejections.size());
        for (const RejectionCount& r : e.rejections) {
            rejections.push_back(fb::CreateRejectionCount(b, opt_string(b, r.reason), r.count));
        }
        std::vector<Offset<fb::HeldAction>> held;
        held.reserve(e.held.size());
        for (const HeldAction& h : e.held) {
            auto action = encode_action(b, h.action);
            held.push_back(fb::CreateHeldAction(b, action, opt_string(b, h.reason)));
        }
        std::vector<Offset<fb::Unfixable>> unfixable;
        unfixable.reserve(e.unfixable.size());
        for (const Unfixable& u : e.unfixable) {
            unfixable.push_back(fb::CreateUnfixable(b, opt_string(b, u.topic), u.partition,
                                                    u.broker_id, opt_string(b, u.goal),
                                                    opt_string(b, u.reason)));
        }
        std::vector<Offset<fb::BrokerNote>> notes;
        notes.reserve(e.broker_notes.size());
        for (const BrokerNote& n : e.broker_notes) {
            notes.push_back(fb::CreateBrokerNote(b, n.broker_id, opt_string(b, n.reason)));
        }
        return fb::CreateActionsPlanned(b, e.round, e.barrier_seq,
                                        actions.empty() ? 0 : b.CreateVector(actions),
                                        rejections.empty() ? 0 : b.CreateVector(rejections),
                                        held.empty() ? 0 : b.CreateVector(held),
                                        unfixable.empty() ? 0 : b.CreateVector(unfixable),
                                        notes.empty() ? 0 : b.CreateVector(notes))
            .Union();
    }
    Offset<void> operator()(const ActionSubmitted& e) const {
        return fb::CreateActionSubmitted(b, e.action_id, e.attempt).Union();
    }
    Offset<void> operator()(const ActionCompleted& e) const {
        return fb::CreateActionCompleted(b, e.action_id).Union();
    }
    Offset<void> operator()(const ActionFailed& e) const {
        return fb::CreateActionFailed(b, e.action_id, e.error_code, opt_string(b, e.error_name),
                                      opt_string(b, e.message), e.retriable, e.attempt)
            .Union();
    }
    Offset<void> operator()(const ActionTimedOut& e) const {
        return fb::CreateActionTimedOut(b, e.action_id, e.timeout_ms).Union();
    }
    Offset<void> operator()(const ActionCancelled& e) const {
        return fb::CreateActionCancelled(b, e.action_id, opt_string(b, e.reason)).Union();
    }
};

// ---------------------------------------------------------------- decode helpers

std::string str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

template <class T>
std::vector<T> vec(const flatbuffers::Vector<T>* v) {
    return v ? std::vector<T>(v->begin(), v->end()) : std::vector<T>();
}

std::vector<std::string> strings(const flatbuffers::Vector<Offset<flatbuffers::String>>* v) {
    std::vector<std::string> out;
    if (v) {
        out.reserve(v->size());
        for (const flatbuffers::String* s : *v) out.push_back(str(s));
    }
    return out;
}

Load from_fb(const fb::Load& l) {
    return Load{l.bytes_in_per_s(), l.bytes_out_per_s(), l.size_bytes(), l.replica_count(),
                l.leader_count()};
}

Action decode_action(const fb::Action* a) {
    Action out;
    if (!a) return out;
    out.action_id = a->action_id();
    out.kind = static_cast<ActionKind>(a->kind());
    out.topic = str(a->topic());
    out.partition = a->partition();
    out.source_broker = a->source_broker();
    out.destination_broker = a->destination_broker();
    out.replicas_before = vec(a->replicas_before());
    out.replicas_after = vec(a->replicas_after());
    out.swap_topic = str(a->swap_topic());
    out.swap_partition = a->swap_partition();
    out.swap_replicas_before = vec(a->swap_replicas_before());
    out.swap_replicas_after = vec(a->swap_replicas_after());
    out.goal = str(a->goal());
    if (a->loads()) {
        out.loads.reserve(a->loads()->size());
        for (const fb::LoadChange* c : *a->loads()) {
            out.loads.push_back(LoadChange{c->broker_id(), from_fb(c->before()), from_fb(c->after())});
        }
    }
    return out;
}

Body decode_body(const fb::Event& e) {
    switch (e.body_type()) {
        case fb::Body::BrokerRegistered: {
            const auto* b = e.body_as_BrokerRegistered();
            BrokerRegistered out{b->broker_id(), str(b->rack()), {}};
            if (b->endpoints()) {
                for (const fb::Endpoint* p : *b->endpoints()) {
                    out.endpoints.push_back(Endpoint{str(p->listener()), str(p->host()), p->port()});
                }
            }
            return out;
        }
        case fb::Body::BrokerFenced: return BrokerFenced{e.body_as_BrokerFenced()->broker_id()};
        case fb::Body::BrokerUnfenced:
            return BrokerUnfenced{e.body_as_BrokerUnfenced()->broker_id()};
        case fb::Body::BrokerUnregistered:
            return BrokerUnregistered{e.body_as_BrokerUnregistered()->broker_id()};
        case fb::Body::TopicCreated: {
            const auto* b = e.body_as_TopicCreated();
            return TopicCreated{str(b->topic()), vec(b->topic_id()), b->partition_count(),
                                b->replication_factor()};
        }
        case fb::Body::TopicDeleted: return TopicDeleted{str(e.body_as_TopicDeleted()->topic())};
        case fb::Body::PartitionChanged: {
            const auto* b = e.body_as_PartitionChanged();
            return PartitionChanged{str(b->topic()),          b->partition(),
                                    vec(b->replicas()),       b->leader(),
                                    vec(b->isr()),            b->leader_epoch(),
                                    vec(b->adding_replicas()), vec(b->removing_replicas())};
        }
        case fb::Body::BrokerMetrics: {
            const auto* b = e.body_as_BrokerMetrics();
            BrokerMetrics out{b->sample_time_ms(), {}};
            if (b->samples()) {
                out.samples.reserve(b->samples()->size());
                for (const fb::BrokerSample* s : *b->samples()) {
                    out.samples.push_back(BrokerSample{s->broker_id(), s->bytes_in_per_s(),
                                                       s->bytes_out_per_s(),
                                                       s->messages_in_per_s(), s->size_bytes()});
                }
            }
            return out;
        }
        case fb::Body::PartitionMetrics: {
            const auto* b = e.body_as_PartitionMetrics();
            PartitionMetrics out{b->broker_id(), b->sample_time_ms(), strings(b->topics()), {}};
            if (b->samples()) {
                out.samples.reserve(b->samples()->size());
                for (const fb::PartitionSample* s : *b->samples()) {
                    out.samples.push_back(PartitionSample{
                        s->topic_index(), s->partition(), s->bytes_in_per_s(),
                        s->bytes_out_per_s(), s->messages_in_per_s(), s->size_bytes()});
                }
            }
            return out;
        }
        case fb::Body::Tick: return Tick{e.body_as_Tick()->now_ms()};
        case fb::Body::ConfigChanged: {
            ConfigChanged out;
            if (const auto* entries = e.body_as_ConfigChanged()->entries()) {
                for (const fb::ConfigEntry* c : *entries) {
                    out.entries.push_back(ConfigEntry{str(c->key()), str(c->value()), c->reset()});
                }
            }
            return out;
        }
        case fb::Body::OperatorCommand: {
            const auto* b = e.body_as_OperatorCommand();
            return OperatorCommand{static_cast<CommandKind>(b->command()), vec(b->broker_ids()),
                                   strings(b->topics()), vec(b->action_ids()), str(b->reason())};
        }
        case fb::Body::LeadershipAcquired: {
            const auto* b = e.body_as_LeadershipAcquired();
            return LeadershipAcquired{b->epoch(), str(b->instance_id())};
        }
        case fb::Body::ActionsPlanned: {
            const auto* b = e.body_as_ActionsPlanned();
            ActionsPlanned out{b->round(), b->barrier_seq(), {}, {}, {}, {}, {}};
            if (b->actions()) {
                out.actions.reserve(b->actions()->size());
                for (const fb::Action* a : *b->actions()) out.actions.push_back(decode_action(a));
            }
            if (b->rejections()) {
                for (const fb::RejectionCount* r : *b->rejections()) {
                    out.rejections.push_back(RejectionCount{str(r->reason()), r->count()});
                }
            }
            if (b->held()) {
                for (const fb::HeldAction* h : *b->held()) {
                    out.held.push_back(HeldAction{decode_action(h->action()), str(h->reason())});
                }
            }
            if (b->unfixable()) {
                for (const fb::Unfixable* u : *b->unfixable()) {
                    out.unfixable.push_back(Unfixable{str(u->topic()), u->partition(),
                                                      u->broker_id(), str(u->goal()),
                                                      str(u->reason())});
                }
            }
            if (b->broker_notes()) {
                for (const fb::BrokerNote* n : *b->broker_notes()) {
                    out.broker_notes.push_back(BrokerNote{n->broker_id(), str(n->reason())});
                }
            }
            return out;
        }
        case fb::Body::ActionSubmitted: {
            const auto* b = e.body_as_ActionSubmitted();
            return ActionSubmitted{b->action_id(), b->attempt()};
        }
        case fb::Body::ActionCompleted:
            return ActionCompleted{e.body_as_ActionCompleted()->action_id()};
        case fb::Body::ActionFailed: {
            const auto* b = e.body_as_ActionFailed();
            return ActionFailed{b->action_id(), b->error_code(), str(b->error_name()),
                                str(b->message()), b->retriable(), b->attempt()};
        }
        case fb::Body::ActionTimedOut: {
            const auto* b = e.body_as_ActionTimedOut();
            return ActionTimedOut{b->action_id(), b->timeout_ms()};
        }
        case fb::Body::ActionCancelled: {
            const auto* b = e.body_as_ActionCancelled();
            return ActionCancelled{b->action_id(), str(b->reason())};
        }
        case fb::Body::NONE: break;
    }
    // verify() rejects unknown and missing bodies, so this is a broken precondition.
    assert(false && "decode_body on unverified bytes");
    return Tick{};
}

/// Enum fields are not range-checked by the flatbuffers verifier: a flipped
/// bit can turn `kind` into 200. We check the ones the typed API casts.
bool action_enums_valid(const fb::Action* a) {
    return !a || static_cast<uint8_t>(a->kind()) < action_kind_count;
}

/// The flatbuffers verifier (2.0.8, and upstream still: google/flatbuffers#8397)
/// checks a vector's 4-byte length for alignment but not its elements, so a
/// corrupted offset can leave a vector of ulongs, or of structs holding
/// doubles, 4 bytes off; reading it is undefined behaviour. Elements follow
/// the length, so check where they start, relative to the buffer as the
/// verifier does.
template <class Vector>
bool elements_aligned(const Vector* v, const uint8_t* buffer) {
    return !v || (reinterpret_cast<const uint8_t*>(v->Data()) - buffer) % 8 == 0;
}

bool action_aligned(const fb::Action* a, const uint8_t* buffer) {
    return !a || elements_aligned(a->loads(), buffer);
}

}  // namespace

// ---------------------------------------------------------------- names

const char* type_name(EventType type) {
    const auto index = static_cast<uint8_t>(type);
    assert(index < event_type_count);
    return type_names[index];
}

std::optional<EventType> type_from_name(std::string_view name) {
    for (uint8_t i = 0; i < event_type_count; i++) {
        if (name == type_names[i]) return static_cast<EventType>(i);
    }
    return std::nullopt;
}

const char* source_name(Source source) {
    switch (source) {
        case Source::unknown: return "unknown";
        case Source::kafka_metadata: return "kafka_metadata";
        case Source::kafka_metrics: return "kafka_metrics";
        case Source::kafka_admin: return "kafka_admin";
        case Source::simulator: return "simulator";
        case Source::storm: return "storm";
        case Source::operator_: return "operator";
        case Source::engine: return "engine";
        case Source::executor: return "executor";
        case Source::clock: return "clock";
        case Source::tool: return "tool";
        case Source::kafka_metadata_log: return "kafka_metadata_log";
    }
    return "unknown";
}

const char* command_kind_name(CommandKind kind) {
    switch (kind) {
        case CommandKind::drain_brokers: return "drain_brokers";
        case CommandKind::pause: return "pause";
        case CommandKind::resume: return "resume";
        case CommandKind::exclude_brokers: return "exclude_brokers";
        case CommandKind::include_brokers: return "include_brokers";
        case CommandKind::exclude_topics: return "exclude_topics";
        case CommandKind::include_topics: return "include_topics";
        case CommandKind::cancel_actions: return "cancel_actions";
        case CommandKind::rebalance: return "rebalance";
    }
    return "unknown";
}

const char* action_kind_name(ActionKind kind) {
    switch (kind) {
        case ActionKind::move: return "move";
        case ActionKind::swap: return "swap";
        case ActionKind::leader: return "leader";
    }
    return "unknown";
}

bool is_decision(Source source) { return source == Source::engine || source == Source::executor; }

// ---------------------------------------------------------------- encode

std::span<const uint8_t> Encoder::encode(const Event& event) {
    _builder.Clear();
    const Offset<void> body = std::visit(BodyEncoder{_builder}, event.body);
    const auto body_type = static_cast<fb::Body>(event.body.index() + 1);
    const auto root = fb::CreateEvent(_builder, event.seq, event.time_ms,
                                      static_cast<fb::Source>(event.source), body_type, body,
                                      event.metadata_offset, event.metadata_epoch);
    fb::FinishSizePrefixedEventBuffer(_builder, root);
    return {_builder.GetBufferPointer(), _builder.GetSize()};
}

std::vector<uint8_t> encode(const Event& event) {
    Encoder encoder;
    const std::span<const uint8_t> bytes = encoder.encode(event);
    return {bytes.begin(), bytes.end()};
}

// ---------------------------------------------------------------- verify and decode

Status verify(std::span<const uint8_t> bytes) {
    // Bounds: a verifier depth and table count large enough for any real
    // event (a report of 1M partition samples is one vector, not 1M tables)
    // and small enough that a crafted buffer cannot make verification slow.
    if (bytes.size() >= FLATBUFFERS_MAX_BUFFER_SIZE) {
        return make_error(ErrorCode::corruption,
                          "event of " + std::to_string(bytes.size()) + " bytes is too large");
    }
    flatbuffers::Verifier::Options options;
    options.max_depth = 16;
    options.max_tables = 4'000'000;
    flatbuffers::Verifier verifier(bytes.data(), bytes.size(), options);
    if (bytes.size() < 12 || !fb::SizePrefixedEventBufferHasIdentifier(bytes.data())) {
        return make_error(ErrorCode::corruption,
                          "event of " + std::to_string(bytes.size()) +
                              " bytes lacks the BLEV identifier");
    }
    // Size-prefixed: the verifier also checks that the prefix equals the
    // length, so every truncation and every extension is caught here.
    if (!fb::VerifySizePrefixedEventBuffer(verifier)) {
        return make_error(ErrorCode::corruption, "flatbuffers verifier rejected event of " +
                                                     std::to_string(bytes.size()) + " bytes");
    }
    const fb::Event* e = fb::GetSizePrefixedEvent(bytes.data());
    const auto body_type = static_cast<uint8_t>(e->body_type());
    if (body_type == 0 || body_type > event_type_count || e->body() == nullptr) {
        return make_error(ErrorCode::corruption,
                          "event has no known body (body type " + std::to_string(body_type) + ")");
    }
    if (static_cast<uint8_t>(e->source()) >= source_count) {
        return make_error(ErrorCode::corruption, "event has unknown source " +
                                                     std::to_string(static_cast<int>(e->source())));
    }
    const auto misaligned = [&] {
        return make_error(ErrorCode::corruption, "event has a misaligned vector");
    };
    switch (e->body_type()) {
        case fb::Body::BrokerMetrics:
            if (!elements_aligned(e->body_as_BrokerMetrics()->samples(), bytes.data())) return misaligned();
            break;
        case fb::Body::PartitionMetrics: {
            const auto* m = e->body_as_PartitionMetrics();
            if (!elements_aligned(m->samples(), bytes.data())) return misaligned();
            const uint32_t topic_count = m->topics() ? m->topics()->size() : 0;
            if (m->samples()) {
                for (const fb::PartitionSample* s : *m->samples()) {
                    if (s->topic_index() >= topic_count) {
                        return make_error(ErrorCode::corruption,
                                          "partition sample refers to topic index " +
                                              std::to_string(s->topic_index()) + " of " +
                                              std::to_string(topic_count));
                    }
                }
            }
            break;
        }
        case fb::Body::OperatorCommand:
            if (static_cast<uint8_t>(e->body_as_OperatorCommand()->command()) >=
                command_kind_count) {
                return make_error(ErrorCode::corruption, "operator command has unknown kind");
            }
            if (!elements_aligned(e->body_as_OperatorCommand()->action_ids(), bytes.data())) {
                return misaligned();
            }
            break;
        case fb::Body::ActionsPlanned: {
            const auto* p = e->body_as_ActionsPlanned();
            if (p->actions()) {
                for (const fb::Action* a : *p->actions()) {
                    if (!action_enums_valid(a)) {
                        return make_error(ErrorCode::corruption, "action has unknown kind");
                    }
                    if (!action_aligned(a, bytes.data())) return misaligned();
                }
            }
            if (p->held()) {
                for (const fb::HeldAction* h : *p->held()) {
                    if (!action_enums_valid(h->action())) {
                        return make_error(ErrorCode::corruption, "held action has unknown kind");
                    }
                    if (!action_aligned(h->action(), bytes.data())) return misaligned();
                }
            }
            break;
        }
        default: break;
    }
    return {};
}

const fb::Event& view(std::span<const uint8_t> bytes) {
    return *fb::GetSizePrefixedEvent(bytes.data());
}

Header header(const fb::Event& event) {
    return Header{event.seq(), event.time_ms(), static_cast<Source>(event.source()),
                  static_cast<EventType>(static_cast<uint8_t>(event.body_type()) - 1)};
}

Event from_flatbuffer(const fb::Event& e) {
    return Event{e.seq(),          e.time_ms(),          static_cast<Source>(e.source()),
                 decode_body(e),   e.metadata_offset(),  e.metadata_epoch()};
}

Result<Event> decode(std::span<const uint8_t> bytes) {
    if (Status status = verify(bytes); !status) return status.error();
    return from_flatbuffer(view(bytes));
}

}  // namespace ballast::events
