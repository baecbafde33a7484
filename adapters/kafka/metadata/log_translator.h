#pragma once

/// From KRaft's metadata records to Ballast's events: the same events the
/// metadata poller would feed for the same change (cluster_state.h), each
/// carrying the offset and quorum epoch of the record it came from and the
/// source `kafka_metadata_log`. Pure: a function of the picture so far and
/// the records; no clock (the caller gives the time), no logging (warnings
/// and notes are returned for the caller to log).
///
/// The picture is what the translation needs of the cluster: topic ids to
/// names (records name topics by id), each partition as Kafka holds it (its
/// full replica list and ISR, adding and removing replicas, leader and
/// leader epoch: a PartitionChangeRecord carries only what changed), each
/// broker's registration and fencing, and the position after the last
/// record journaled. It is rebuilt from the journal's `kafka_metadata_log`
/// events on restart (`apply_journaled`), which carry everything it keeps:
/// README.md says why the journal and not a file beside it.
///
/// What each record becomes:
/// - RegisterBrokerRecord: BrokerRegistered when the broker is new or its
///   rack or endpoints changed; then BrokerFenced when it registers fenced
///   and was not (every broker registers fenced and is unfenced once caught
///   up), BrokerUnfenced when it registers unfenced and was fenced.
/// - BrokerRegistrationChangeRecord, FenceBrokerRecord, UnfenceBrokerRecord:
///   BrokerFenced or BrokerUnfenced when the fencing changes.
/// - UnregisterBrokerRecord: BrokerUnregistered.
/// - TopicRecord: TopicCreated, its partition count and replication factor
///   those of the PartitionRecords that follow it in the same translation.
/// - PartitionRecord, PartitionChangeRecord: PartitionChanged when the
///   replicas, leader, ISR, leader epoch or a reassignment's adding/removing
///   replicas change. As the poller reports it, a replica being added is left
///   out of `replicas` and `isr` until the move completes (the engine sees the
///   new set when it is whole); the event names the adding and removing ones.
///   The leader epoch is Kafka's: one more whenever a record sets the leader
///   field (the controller sets it to the current leader when it bumps the
///   epoch without a leader change), as PartitionRegistration.merge does.
/// - RemoveTopicRecord: TopicDeleted, and a note naming the topic.
/// - Begin/End/AbortTransactionRecord: nothing. The observer hands out a
///   transaction's records together at its End, and none after an Abort.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "adapters/kafka/metadata/cluster_state.h"
#include "adapters/kafka/metadata_log/observer.h"
#include "events/event.h"

namespace ballast::kafka::metadata {

/// A topic id as a map key: Kafka's Uuid, high then low.
using TopicKey = std::pair<int64_t, int64_t>;

struct LogBroker {
    std::string rack;  // empty: none
    std::vector<events::Endpoint> endpoints;
    bool fenced = true;
    bool operator==(const LogBroker&) const = default;
};

/// One partition as Kafka's controller holds it.
struct LogPartition {
    std::vector<int32_t> replicas;  // all of them, adding ones included
    std::vector<int32_t> isr;       // all of them
    std::vector<int32_t> adding;
    std::vector<int32_t> removing;
    int32_t leader = -1;
    int32_t leader_epoch = -1;
    bool operator==(const LogPartition&) const = default;
};

struct LogTopic {
    std::string name;
    std::map<int32_t, LogPartition> partitions;
    bool operator==(const LogTopic&) const = default;
};

/// What the translation knows of the cluster so far.
struct LogPicture {
    std::map<int32_t, LogBroker> brokers;
    std::map<TopicKey, LogTopic> topics;
    std::map<std::string, TopicKey> topic_by_name;  // the same topics by name
    /// The offset after the last record that gave an event, and that
    /// record's batch epoch: where a restart resumes (0, -1: the log's start).
    int64_t next_offset = 0;
    int32_t last_epoch = -1;
    bool operator==(const LogPicture&) const = default;
};

/// What translating some records gave.
struct Translation {
    std::vector<events::Event> events;  // in log order, each with its offset and epoch
    /// Info lines for the operator: a topic deleted, by name and offset.
    std::vector<std::string> notes;
    /// Records that could not be applied (a partition of a topic id never
    /// created), named with their offset; they are skipped.
    std::vector<std::string> warnings;
};

TopicKey topic_key(const metadata_log::Uuid& id);
/// Kafka's 16 bytes of a topic id (TopicCreated::topic_id) and back.
std::vector<uint8_t> topic_id_bytes(const metadata_log::Uuid& id);
std::optional<metadata_log::Uuid> topic_id_from_bytes(const std::vector<uint8_t>& bytes);

/// The pure step: one record applied to `picture`, its events appended to
/// `out` (time `now_ms`). Transaction markers are not records here: the
/// LogTranslator groups what they enclose.
void translate_record(LogPicture& picture, const metadata_log::MetadataEntry& entry, int64_t now_ms,
                      Translation& out);

/// The events that take the engine from `before` to `after` (an image of
/// the cluster: what is not in `after` is gone), in the poller's order:
/// brokers registered, unfenced; topics deleted (also one whose name now
/// has another id: deleted and created again); topics created with their
/// partitions; partitions changed; brokers fenced, unregistered. Every event
/// carries `offset` and `epoch`, the image's last record's.
void diff_pictures(const LogPicture& before, const LogPicture& after, int64_t offset, int32_t epoch,
                   int64_t now_ms, Translation& out);

/// The poller's view of the picture (ClusterView): brokers with their first
/// endpoint, partitions as the engine sees them (replicas being added left
/// out, `reassigning` while any are added or removed).
ClusterState cluster_state(const LogPicture& picture);

/// The translation over polls: the first catch-up and snapshots' images
/// turned into a diff.
class LogTranslator {
public:
    /// `picture`: as rebuilt from the journal. With nothing journaled
    /// (next_offset 0) the log is read from its start as one image: its
    /// records applied quietly until the reader reaches the high watermark,
    /// then the difference from `picture` fed at once, as the poller's first
    /// report; a history of brokers coming and going is not replayed as if
    /// it were happening now.
    ///
    /// `rebuild_from_log`: the journal no longer holds every event the
    /// picture needs (retention cut it, or a standby started from a leader's
    /// snapshot), so the picture is rebuilt from Kafka's log instead: read
    /// from the log's start, the records before `picture.next_offset` (their
    /// events are journaled) applied quietly, the ones after translated.
    explicit LogTranslator(LogPicture picture = {}, bool rebuild_from_log = false);

    /// Where the reader starts, and the epoch of the batch before it.
    int64_t fetch_from() const;
    int32_t fetch_epoch() const;

    /// One poll's committed records. `next_offset`: the reader's position
    /// after them (the observer's committed_offset(): records Ballast does
    /// not read, NoOps among them, move it too). `poll.image`: the entries
    /// are the whole cluster as of the snapshot's end, and replace the
    /// picture.
    Translation translate(const metadata_log::PollResult& poll, int64_t next_offset, int64_t now_ms);

    /// Rebuilds the picture from one journaled event of source
    /// `kafka_metadata_log` (others are ignored), in journal order.
    void apply_journaled(const events::Event& event);

    const LogPicture& picture() const { return _picture; }
    /// Still reading the log's start as one image.
    bool catching_up() const { return _catch_up.has_value(); }

private:
    void apply(const metadata_log::MetadataEntry& entry, int64_t now_ms, Translation& out);

    LogPicture _picture;
    /// The picture being read from the log's start (or a snapshot's image),
    /// fed as a difference once whole.
    std::optional<LogPicture> _catch_up;
    /// Records before this offset are journaled already (rebuild_from_log).
    int64_t _quiet_before = 0;
};

/// Rebuilds a picture from journaled events, in order.
inline LogPicture picture_from(const std::vector<events::Event>& journaled) {
    LogTranslator translator;
    for (const events::Event& e : journaled) translator.apply_journaled(e);
    return translator.picture();
}

}  // namespace ballast::kafka::metadata
