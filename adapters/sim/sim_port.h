#pragma once

/// The simulator's admin port: what the engine's executor calls, from its
/// actor thread. Requests wait in an inbox until the cluster takes them at
/// its next `advance()`, so the port never touches the cluster's state from
/// another thread. Private to adapters/sim.

#include <mutex>
#include <vector>

#include "adapters/sim/sim_cluster.h"

namespace ballast::sim {

class SimCluster::Port : public actors::AdminPort {
public:
    /// The simulator feeds its outcomes through the driver, in time order;
    /// it needs no sink.
    void attach(actors::EventSink) override {}

    void submit(const events::Action& action, uint32_t attempt) override {
        std::lock_guard<std::mutex> lock(_mutex);
        _inbox.push_back({Request::Kind::submit, action, attempt});
    }

    void cancel(const events::Action& action) override {
        std::lock_guard<std::mutex> lock(_mutex);
        _inbox.push_back({Request::Kind::cancel, action, 0});
    }

    /// Taken at the cluster's next step like a submission (see
    /// SimCluster::take_requests).
    void adopt(const events::Action& action, uint32_t attempt) override {
        std::lock_guard<std::mutex> lock(_mutex);
        _inbox.push_back({Request::Kind::adopt, action, attempt});
    }

    std::vector<Request> take() {
        std::lock_guard<std::mutex> lock(_mutex);
        std::vector<Request> out;
        out.swap(_inbox);
        return out;
    }

private:
    std::mutex _mutex;
    std::vector<Request> _inbox;
};

}  // namespace ballast::sim
