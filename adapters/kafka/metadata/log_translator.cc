#include "adapters/kafka/metadata/log_translator.h"

#include <algorithm>
#include <cstdio>
#include <type_traits>
#include <variant>

namespace ballast::kafka::metadata {

namespace mlog = metadata_log;

namespace {

/// Kafka's Uuid as its canonical text would be long; records are named by
/// offset, and a topic id in hex is enough to find it in Kafka's tools.
std::string id_text(const mlog::Uuid& id) {
    char text[40];
    std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(id.high),
                  static_cast<unsigned long long>(id.low));
    return text;
}

std::vector<int32_t> list_without(const std::vector<int32_t>& list, const std::vector<int32_t>& drop) {
    std::vector<int32_t> out;
    out.reserve(list.size());
    for (const int32_t id : list) {
        if (std::find(drop.begin(), drop.end(), id) == drop.end()) out.push_back(id);
    }
    return out;
}

/// A partition as the engine sees it (the poller's semantics, cluster_state.h).
events::PartitionChanged visible(const std::string& topic, int32_t partition, const LogPartition& p) {
    return events::PartitionChanged{topic,    partition,       list_without(p.replicas, p.adding),
                                    p.leader, list_without(p.isr, p.adding), p.leader_epoch,
                                    p.adding, p.removing};
}

struct Emitter {
    int64_t offset = -1;
    int32_t epoch = -1;
    int64_t now_ms = 0;
    Translation& out;

    void operator()(events::Body body) const {
        events::Event e{0, now_ms, events::Source::kafka_metadata_log, std::move(body)};
        e.metadata_offset = offset;
        e.metadata_epoch = epoch;
        out.events.push_back(std::move(e));
    }
};

std::vector<events::Endpoint> endpoints_of(const mlog::RegisterBrokerRecord& r) {
    std::vector<events::Endpoint> out;
    out.reserve(r.end_points.size());
    for (const mlog::BrokerEndpoint& e : r.end_points) out.push_back(events::Endpoint{e.name, e.host, e.port});
    return out;
}

/// Fencing changed to `fenced` (a broker never registered is left alone:
/// Kafka's log never fences one, and a rebuilt picture knows every broker).
void set_fenced(LogPicture& picture, int32_t id, bool fenced, const Emitter& emit) {
    auto it = picture.brokers.find(id);
    if (it == picture.brokers.end() || it->second.fenced == fenced) return;
    it->second.fenced = fenced;
    if (fenced) {
        emit(events::BrokerFenced{id});
    } else {
        emit(events::BrokerUnfenced{id});
    }
}

/// The partition named by a record, or a warning naming the record.
LogTopic* topic_of(LogPicture& picture, const mlog::Uuid& id, const char* record, int64_t offset,
                   Translation& out) {
    auto it = picture.topics.find(topic_key(id));
    if (it != picture.topics.end()) return &it->second;
    out.warnings.push_back(std::string(record) + " at offset " + std::to_string(offset) + " names topic id " +
                           id_text(id) + ", which no TopicRecord created: skipped");
    return nullptr;
}

/// What the engine sees of a partition changed (an adding replica joining
/// the ISR does not show until the move completes).
void changed(const LogTopic& topic, int32_t id, const LogPartition& before, const LogPartition& after,
             const Emitter& emit) {
    events::PartitionChanged now = visible(topic.name, id, after);
    if (visible(topic.name, id, before) == now) return;
    emit(std::move(now));
}

/// The TopicCreated of `name` among `out`'s events, to count its partitions.
events::TopicCreated* created_in(Translation& out, const std::string& name) {
    for (size_t i = out.events.size(); i > 0; i--) {
        if (auto* created = std::get_if<events::TopicCreated>(&out.events[i - 1].body); created && created->topic == name) {
            return created;
        }
    }
    return nullptr;
}

}  // namespace

TopicKey topic_key(const mlog::Uuid& id) { return {id.high, id.low}; }

std::vector<uint8_t> topic_id_bytes(const mlog::Uuid& id) {
    std::vector<uint8_t> out(16);
    for (int i = 0; i < 8; i++) {
        out[i] = static_cast<uint8_t>(static_cast<uint64_t>(id.high) >> (56 - 8 * i));
        out[8 + i] = static_cast<uint8_t>(static_cast<uint64_t>(id.low) >> (56 - 8 * i));
    }
    return out;
}

std::optional<mlog::Uuid> topic_id_from_bytes(const std::vector<uint8_t>& bytes) {
    if (bytes.size() != 16) return std::nullopt;
    uint64_t high = 0;
    uint64_t low = 0;
    for (int i = 0; i < 8; i++) {
        high = (high << 8) | bytes[i];
        low = (low << 8) | bytes[8 + i];
    }
    return mlog::Uuid{static_cast<int64_t>(high), static_cast<int64_t>(low)};
}

void translate_record(LogPicture& picture, const mlog::MetadataEntry& entry, int64_t now_ms, Translation& out) {
    const size_t first_event = out.events.size();
    const Emitter emit{entry.offset, entry.leader_epoch, now_ms, out};
    std::visit(
        [&](const auto& r) {
            using T = std::decay_t<decltype(r)>;
            if constexpr (std::is_same_v<T, mlog::RegisterBrokerRecord>) {
                LogBroker next{r.rack.value_or(""), endpoints_of(r), r.fenced};
                auto it = picture.brokers.find(r.broker_id);
                const bool known = it != picture.brokers.end();
                const bool was_fenced = known && it->second.fenced;
                if (!known || it->second.rack != next.rack || it->second.endpoints != next.endpoints) {
                    emit(events::BrokerRegistered{r.broker_id, next.rack, next.endpoints});
                    if (r.fenced) emit(events::BrokerFenced{r.broker_id});
                } else if (r.fenced != was_fenced) {
                    if (r.fenced) {
                        emit(events::BrokerFenced{r.broker_id});
                    } else {
                        emit(events::BrokerUnfenced{r.broker_id});
                    }
                }
                picture.brokers[r.broker_id] = std::move(next);
            } else if constexpr (std::is_same_v<T, mlog::BrokerRegistrationChangeRecord>) {
                if (r.fenced != 0) set_fenced(picture, r.broker_id, r.fenced > 0, emit);
            } else if constexpr (std::is_same_v<T, mlog::FenceBrokerRecord>) {
                set_fenced(picture, r.id, true, emit);
            } else if constexpr (std::is_same_v<T, mlog::UnfenceBrokerRecord>) {
                set_fenced(picture, r.id, false, emit);
            } else if constexpr (std::is_same_v<T, mlog::UnregisterBrokerRecord>) {
                if (picture.brokers.erase(r.broker_id) > 0) emit(events::BrokerUnregistered{r.broker_id});
            } else if constexpr (std::is_same_v<T, mlog::TopicRecord>) {
                const TopicKey key = topic_key(r.topic_id);
                if (auto same = picture.topic_by_name.find(r.name); same != picture.topic_by_name.end()) {
                    // Kafka removes a topic before a new one takes its name;
                    // a picture that missed the removal reports it now.
                    picture.topics.erase(same->second);
                    emit(events::TopicDeleted{r.name});
                }
                picture.topics[key] = LogTopic{r.name, {}};
                picture.topic_by_name[r.name] = key;
                emit(events::TopicCreated{r.name, topic_id_bytes(r.topic_id), 0, 0});
            } else if constexpr (std::is_same_v<T, mlog::PartitionRecord>) {
                LogTopic* topic = topic_of(picture, r.topic_id, "PartitionRecord", entry.offset, out);
                if (!topic) return;
                LogPartition next{r.replicas, r.isr, r.adding_replicas, r.removing_replicas, r.leader, r.leader_epoch};
                auto it = topic->partitions.find(r.partition_id);
                const LogPartition before = it == topic->partitions.end() ? LogPartition{} : it->second;
                topic->partitions[r.partition_id] = next;
                if (it == topic->partitions.end()) {
                    emit(visible(topic->name, r.partition_id, next));
                } else {
                    changed(*topic, r.partition_id, before, next, emit);
                }
                // Count it into its topic's creation when that is in this translation.
                if (events::TopicCreated* created = created_in(out, topic->name)) {
                    created->partition_count = static_cast<int32_t>(topic->partitions.size());
                    created->replication_factor = std::max<int16_t>(
                        created->replication_factor, static_cast<int16_t>(list_without(r.replicas, r.adding_replicas).size()));
                }
            } else if constexpr (std::is_same_v<T, mlog::PartitionChangeRecord>) {
                LogTopic* topic = topic_of(picture, r.topic_id, "PartitionChangeRecord", entry.offset, out);
                if (!topic) return;
                auto it = topic->partitions.find(r.partition_id);
                if (it == topic->partitions.end()) {
                    out.warnings.push_back("PartitionChangeRecord at offset " + std::to_string(entry.offset) +
                                           " names partition " + topic->name + "-" + std::to_string(r.partition_id) +
                                           ", which no PartitionRecord created: skipped");
                    return;
                }
                const LogPartition before = it->second;
                LogPartition& p = it->second;
                // PartitionRegistration.merge: what the record carries replaces.
                if (r.replicas) p.replicas = *r.replicas;
                if (r.isr) p.isr = *r.isr;
                if (r.adding_replicas) p.adding = *r.adding_replicas;
                if (r.removing_replicas) p.removing = *r.removing_replicas;
                if (r.leader != mlog::leader_unchanged) {
                    p.leader = r.leader;
                    p.leader_epoch++;
                }
                changed(*topic, r.partition_id, before, p, emit);
            } else if constexpr (std::is_same_v<T, mlog::RemoveTopicRecord>) {
                auto it = picture.topics.find(topic_key(r.topic_id));
                if (it == picture.topics.end()) {
                    out.warnings.push_back("RemoveTopicRecord at offset " + std::to_string(entry.offset) +
                                           " names topic id " + id_text(r.topic_id) +
                                           ", which no TopicRecord created: skipped");
                    return;
                }
                const std::string name = it->second.name;
                picture.topic_by_name.erase(name);
                picture.topics.erase(it);
                emit(events::TopicDeleted{name});
                out.notes.push_back("topic " + name + " deleted (RemoveTopicRecord at offset " +
                                    std::to_string(entry.offset) + ")");
            }
            // Transaction markers are the LogTranslator's; nothing else reaches here.
        },
        entry.record.body);
    if (out.events.size() > first_event) {
        picture.next_offset = entry.offset + 1;
        picture.last_epoch = entry.leader_epoch;
    }
}

void diff_pictures(const LogPicture& before, const LogPicture& after, int64_t offset, int32_t epoch, int64_t now_ms,
                   Translation& out) {
    const Emitter emit{offset, epoch, now_ms, out};
    for (const auto& [id, b] : after.brokers) {
        auto was = before.brokers.find(id);
        if (was == before.brokers.end() || was->second.rack != b.rack || was->second.endpoints != b.endpoints) {
            emit(events::BrokerRegistered{id, b.rack, b.endpoints});
        }
    }
    for (const auto& [id, b] : after.brokers) {
        auto was = before.brokers.find(id);
        if (was != before.brokers.end() && was->second.fenced && !b.fenced) emit(events::BrokerUnfenced{id});
    }
    for (const auto& [key, t] : before.topics) {
        auto now = after.topics.find(key);
        if (now != after.topics.end()) continue;
        emit(events::TopicDeleted{t.name});
        out.notes.push_back("topic " + t.name + " deleted (not in the image of the cluster at offset " +
                            std::to_string(offset) + ")");
    }
    for (const auto& [key, t] : after.topics) {
        auto was = before.topics.find(key);
        if (was == before.topics.end()) {
            size_t replication_factor = 0;
            for (const auto& [id, p] : t.partitions) {
                replication_factor = std::max(replication_factor, list_without(p.replicas, p.adding).size());
            }
            emit(events::TopicCreated{t.name, topic_id_bytes(mlog::Uuid{key.first, key.second}),
                                      static_cast<int32_t>(t.partitions.size()),
                                      static_cast<int16_t>(replication_factor)});
        }
        for (const auto& [id, p] : t.partitions) {
            if (was != before.topics.end()) {
                auto old = was->second.partitions.find(id);
                if (old != was->second.partitions.end() &&
                    visible(t.name, id, old->second) == visible(t.name, id, p)) {
                    continue;
                }
            }
            emit(visible(t.name, id, p));
        }
    }
    for (const auto& [id, b] : after.brokers) {
        auto was = before.brokers.find(id);
        const bool registered_now = was == before.brokers.end() || was->second.rack != b.rack ||
                                    was->second.endpoints != b.endpoints;
        if (b.fenced && (registered_now || !was->second.fenced)) emit(events::BrokerFenced{id});
    }
    for (const auto& [id, b] : before.brokers) {
        if (!after.brokers.count(id)) emit(events::BrokerUnregistered{id});
    }
}

ClusterState cluster_state(const LogPicture& picture) {
    ClusterState state;
    for (const auto& [id, b] : picture.brokers) {
        BrokerState& broker = state.brokers[id];
        broker.id = id;
        if (!b.endpoints.empty()) {
            broker.host = b.endpoints.front().host;
            broker.port = b.endpoints.front().port;
        }
        broker.rack = b.rack;
        broker.fenced = b.fenced;
    }
    for (const auto& [key, t] : picture.topics) {
        TopicState& topic = state.topics[t.name];
        for (const auto& [id, p] : t.partitions) {
            PartitionState& partition = topic.partitions[id];
            partition.replicas = list_without(p.replicas, p.adding);
            partition.isr = list_without(p.isr, p.adding);
            partition.leader = p.leader;
            partition.leader_epoch = p.leader_epoch;
            partition.reassigning = !p.adding.empty() || !p.removing.empty();
            partition.adding = p.adding;
        }
    }
    return state;
}

// ---------------------------------------------------------------- LogTranslator

LogTranslator::LogTranslator(LogPicture picture, bool rebuild_from_log) : _picture(std::move(picture)) {
    if (_picture.next_offset == 0) {
        _catch_up.emplace();
    } else if (rebuild_from_log) {
        _quiet_before = _picture.next_offset;
        const int32_t last_epoch = _picture.last_epoch;
        _picture = LogPicture{};
        _picture.next_offset = _quiet_before;
        _picture.last_epoch = last_epoch;
    }
}

int64_t LogTranslator::fetch_from() const { return _quiet_before > 0 ? 0 : _picture.next_offset; }
int32_t LogTranslator::fetch_epoch() const { return _quiet_before > 0 ? -1 : _picture.last_epoch; }

void LogTranslator::apply(const mlog::MetadataEntry& entry, int64_t now_ms, Translation& out) {
    // Transactions are the observer's: it hands out a transaction's records
    // whole, at its End, and none of an aborted one; the markers say nothing more.
    const mlog::RecordBody& body = entry.record.body;
    if (std::holds_alternative<mlog::BeginTransactionRecord>(body) ||
        std::holds_alternative<mlog::EndTransactionRecord>(body) ||
        std::holds_alternative<mlog::AbortTransactionRecord>(body)) {
        return;
    }
    if (entry.offset < _quiet_before) {
        // Journaled already: only the picture learns it.
        const int64_t next_offset = _picture.next_offset;
        const int32_t last_epoch = _picture.last_epoch;
        Translation quiet;
        translate_record(_picture, entry, now_ms, quiet);
        for (std::string& w : quiet.warnings) out.warnings.push_back(std::move(w));
        _picture.next_offset = next_offset;
        _picture.last_epoch = last_epoch;
        return;
    }
    if (_catch_up) {
        Translation quiet;
        translate_record(*_catch_up, entry, now_ms, quiet);
        for (std::string& w : quiet.warnings) out.warnings.push_back(std::move(w));
        // The image's position: the last record read, events or not.
        _catch_up->next_offset = entry.offset + 1;
        _catch_up->last_epoch = entry.leader_epoch;
        return;
    }
    translate_record(_picture, entry, now_ms, out);
}

Translation LogTranslator::translate(const mlog::PollResult& poll, int64_t next_offset, int64_t now_ms) {
    Translation out;
    if (poll.image) {
        // A snapshot: the whole cluster, replacing whatever was read so far.
        LogPicture image;
        Translation quiet;
        for (const mlog::MetadataEntry& entry : poll.entries) translate_record(image, entry, now_ms, quiet);
        for (std::string& w : quiet.warnings) out.warnings.push_back(std::move(w));
        image.next_offset = next_offset;
        image.last_epoch = poll.entries.empty() ? _picture.last_epoch : poll.entries.back().leader_epoch;
        if (_catch_up) {
            _catch_up = std::move(image);
        } else {
            diff_pictures(_picture, image, next_offset - 1, image.last_epoch, now_ms, out);
            if (out.events.empty()) {
                // Nothing journaled says where the image ends: keep the old position.
                image.next_offset = _picture.next_offset;
                image.last_epoch = _picture.last_epoch;
            }
            _picture = std::move(image);
        }
    } else {
        for (const mlog::MetadataEntry& entry : poll.entries) apply(entry, now_ms, out);
    }
    if (_catch_up && poll.high_watermark >= 0 && next_offset >= poll.high_watermark) {
        LogPicture whole = std::move(*_catch_up);
        _catch_up.reset();
        diff_pictures(_picture, whole, whole.next_offset - 1, whole.last_epoch, now_ms, out);
        if (out.events.empty()) {
            // Nothing to journal: the position is not kept, the next start reads the start again.
            whole.next_offset = _picture.next_offset;
            whole.last_epoch = _picture.last_epoch;
        }
        _picture = std::move(whole);
    }
    return out;
}

void LogTranslator::apply_journaled(const events::Event& e) {
    if (e.source != events::Source::kafka_metadata_log) return;
    LogPicture& p = _picture;
    std::visit(
        [&](const auto& body) {
            using T = std::decay_t<decltype(body)>;
            if constexpr (std::is_same_v<T, events::BrokerRegistered>) {
                // Registered means alive until a BrokerFenced says otherwise,
                // as the engine reads it.
                p.brokers[body.broker_id] = LogBroker{body.rack, body.endpoints, false};
            } else if constexpr (std::is_same_v<T, events::BrokerFenced>) {
                if (auto it = p.brokers.find(body.broker_id); it != p.brokers.end()) it->second.fenced = true;
            } else if constexpr (std::is_same_v<T, events::BrokerUnfenced>) {
                if (auto it = p.brokers.find(body.broker_id); it != p.brokers.end()) it->second.fenced = false;
            } else if constexpr (std::is_same_v<T, events::BrokerUnregistered>) {
                p.brokers.erase(body.broker_id);
            } else if constexpr (std::is_same_v<T, events::TopicCreated>) {
                const std::optional<mlog::Uuid> id = topic_id_from_bytes(body.topic_id);
                if (!id) return;
                if (auto same = p.topic_by_name.find(body.topic); same != p.topic_by_name.end()) {
                    p.topics.erase(same->second);
                }
                p.topics[topic_key(*id)] = LogTopic{body.topic, {}};
                p.topic_by_name[body.topic] = topic_key(*id);
            } else if constexpr (std::is_same_v<T, events::TopicDeleted>) {
                if (auto it = p.topic_by_name.find(body.topic); it != p.topic_by_name.end()) {
                    p.topics.erase(it->second);
                    p.topic_by_name.erase(it);
                }
            } else if constexpr (std::is_same_v<T, events::PartitionChanged>) {
                auto it = p.topic_by_name.find(body.topic);
                if (it == p.topic_by_name.end()) return;
                // The event leaves the adding replicas out of replicas and
                // ISR; they are added back at the end. Their order within
                // the list does not matter: a later record either carries a
                // whole list or is read through the same filter. In the ISR
                // they count as members: a reassignment completes only once
                // every adding replica is in it, and until then the filter
                // hides them.
                LogPartition& partition = p.topics[it->second].partitions[body.partition];
                partition.replicas = body.replicas;
                partition.replicas.insert(partition.replicas.end(), body.adding_replicas.begin(),
                                          body.adding_replicas.end());
                partition.isr = body.isr;
                partition.isr.insert(partition.isr.end(), body.adding_replicas.begin(), body.adding_replicas.end());
                partition.adding = body.adding_replicas;
                partition.removing = body.removing_replicas;
                partition.leader = body.leader;
                partition.leader_epoch = body.leader_epoch;
            }
        },
        e.body);
    if (e.metadata_offset >= 0 && e.metadata_offset + 1 > p.next_offset) {
        p.next_offset = e.metadata_offset + 1;
        p.last_epoch = e.metadata_epoch;
    }
    if (p.next_offset > 0) _catch_up.reset();
}

}  // namespace ballast::kafka::metadata
