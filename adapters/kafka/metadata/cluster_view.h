#pragma once

/// The cluster as the metadata poller last reported it to the engine,
/// shared with the parts of the adapter that need it: the admin port
/// decides an action is complete only once the report shows it (so the
/// engine always sees the new replicas before the ActionCompleted), and the
/// metrics readers attribute partitions to their leaders.
///
/// The poller publishes after it has fed the events of a report, so that
/// anything fed later by a reader of the view comes after them in the
/// journal. Thread-safe: readers take an immutable snapshot.

#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "adapters/kafka/metadata/cluster_state.h"

namespace ballast::kafka::metadata {

class ClusterView {
public:
    using Snapshot = std::shared_ptr<const ClusterState>;

    /// The last published report (empty before the first).
    Snapshot snapshot() const {
        std::lock_guard<std::mutex> lock(_mutex);
        return _state;
    }
    /// How many reports were published: readers can wait for a newer one.
    uint64_t version() const {
        std::lock_guard<std::mutex> lock(_mutex);
        return _version;
    }
    void publish(ClusterState state) {
        auto next = std::make_shared<const ClusterState>(std::move(state));
        std::lock_guard<std::mutex> lock(_mutex);
        _state = std::move(next);
        _version++;
    }

    /// Topics someone waits to see change (the admin port's actions in
    /// flight): the incremental poller reads them every poll rather than
    /// once a sweep. Replaces the last set.
    void watch(std::set<std::string> topics) {
        std::lock_guard<std::mutex> lock(_mutex);
        _watched = std::move(topics);
    }
    std::set<std::string> watched() const {
        std::lock_guard<std::mutex> lock(_mutex);
        return _watched;
    }

private:
    mutable std::mutex _mutex;
    std::set<std::string> _watched;
    Snapshot _state = std::make_shared<const ClusterState>();
    uint64_t _version = 0;
};

}  // namespace ballast::kafka::metadata
