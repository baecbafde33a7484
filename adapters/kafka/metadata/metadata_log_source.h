#pragma once

/// The metadata log as `ballast run`'s metadata source
/// (`ballast.metadata.source=kraft`): a thread that fetches KRaft's
/// `__cluster_metadata` from the controller quorum (../metadata_log/observer.h),
/// translates the committed records into events (log_translator.h, source
/// `kafka_metadata_log`, each with its offset), feeds them, then publishes
/// the picture to the ClusterView as the poller does. It replaces the poller:
/// no Metadata, DescribeCluster or ListPartitionReassignments is asked.
///
/// Failures: `start` makes the first fetch itself and returns its error (an
/// unreachable controller, a refused authorization naming the ClusterAction
/// ACL): the caller falls back to polling. Once started, a failed fetch is
/// retried with the adapter's capped exponential backoff, logged as the
/// poller logs (the first failure, a change, a reminder a minute), and
/// `problem()` says so until a fetch works again; the engine keeps the last
/// picture meanwhile. Warnings of the decoder (a record type or version it
/// does not know, once per type) and of the translation are logged; a topic
/// deleted is an info line naming it.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "actors/admin_port.h"
#include "adapters/kafka/metadata/cluster_view.h"
#include "adapters/kafka/event_clock.h"
#include "adapters/kafka/metadata/log_translator.h"
#include "adapters/kafka/metadata_log/observer.h"

namespace ballast::kafka::metadata {

struct MetadataLogSourceOptions {
    /// As the user gave them ("host:port,..."), for messages.
    std::string bootstrap_controllers;
    /// The controllers, their security (the brokers' `kafka.*` settings),
    /// how long a fetch waits.
    metadata_log::ObserverOptions observer;
    /// The first wait after a failed fetch, doubling up to backoff_max_ms.
    int64_t retry_ms = 1000;
    int64_t backoff_max_ms = 30'000;
};

class MetadataLogSource {
public:
    /// `translator`: its picture rebuilt from the journal (where to resume).
    MetadataLogSource(MetadataLogSourceOptions options, EventClock clock, ClusterView* view,
                      LogTranslator translator);
    ~MetadataLogSource();
    MetadataLogSource(const MetadataLogSource&) = delete;
    MetadataLogSource& operator=(const MetadataLogSource&) = delete;

    /// The first fetch in the caller's thread (an error: nothing started,
    /// the caller falls back), then fetches in a thread of its own until
    /// stop().
    events::Status start(actors::EventSink sink);
    void stop();

    /// One fetch in the caller's thread: feed what it gave, publish.
    events::Status poll_once();

    /// Why the last fetch failed ("" while they work).
    std::string problem() const;
    /// The offset of the first record the reader was handed (-1: none yet).
    int64_t first_offset_fetched() const { return _first_offset.load(); }

private:
    void run();

    MetadataLogSourceOptions _options;
    EventClock _clock;
    ClusterView* _view;
    actors::EventSink _sink;
    LogTranslator _translator;
    std::unique_ptr<metadata_log::MetadataLogObserver> _observer;
    bool _published = false;
    std::atomic<int64_t> _first_offset{-1};

    std::thread _thread;
    mutable std::mutex _mutex;
    std::condition_variable _wake;
    bool _stopping = false;
    std::string _problem;  // under _mutex
};

}  // namespace ballast::kafka::metadata
