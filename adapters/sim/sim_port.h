#pragma once

/// The simulator's admin port: what the engine's executor calls, from its
/// actor thread. Requests wait in an inbox until the cluster takes them at
/// its next `advance()`; the running reassignments are published by the
/// cluster after each step, so `running()` never touches the cluster's
/// state from another thread. Private to adapters/sim.

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

    std::vector<actors::RunningReassignment> running() override {
        std::lock_guard<std::mutex> lock(_mutex);
        return _running;
    }

    std::vector<Request> take() {
        std::lock_guard<std::mutex> lock(_mutex);
        std::vector<Request> out;
        out.swap(_inbox);
        return out;
    }

    void publish(std::vector<actors::RunningReassignment> running) {
        std::lock_guard<std::mutex> lock(_mutex);
        _running = std::move(running);
    }

private:
    std::mutex _mutex;
    std::vector<Request> _inbox;
    std::vector<actors::RunningReassignment> _running;
};

}  // namespace ballast::sim
