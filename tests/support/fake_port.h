#pragma once

/// A small fake of the admin port for engine tests: it records what the
/// executor asked for and reports nothing back (the test feeds outcomes
/// itself, so the input stream stays under the test's control). The real
/// ports (simulator, Kafka) have their own tests.

#include <mutex>
#include <vector>

#include "actors/admin_port.h"

namespace ballast::testing {

class FakePort : public actors::AdminPort {
public:
    void attach(actors::EventSink) override {}
    void submit(const events::Action& action, uint32_t attempt) override {
        std::lock_guard<std::mutex> lock(_mutex);
        _submitted.push_back({action, attempt});
    }
    void cancel(const events::Action& action) override {
        std::lock_guard<std::mutex> lock(_mutex);
        _cancelled.push_back(action);
    }
    void adopt(const events::Action& action, uint32_t attempt) override {
        std::lock_guard<std::mutex> lock(_mutex);
        _adopted.push_back({action, attempt});
    }

    struct Submitted {
        events::Action action;
        uint32_t attempt = 0;
    };
    std::vector<Submitted> submitted() const {
        std::lock_guard<std::mutex> lock(_mutex);
        return _submitted;
    }
    std::vector<Submitted> adopted() const {
        std::lock_guard<std::mutex> lock(_mutex);
        return _adopted;
    }
    std::vector<events::Action> cancelled() const {
        std::lock_guard<std::mutex> lock(_mutex);
        return _cancelled;
    }

private:
    mutable std::mutex _mutex;
    std::vector<Submitted> _submitted;
    std::vector<Submitted> _adopted;
    std::vector<events::Action> _cancelled;
};

/// Collects decisions from the engine's threads.
class DecisionLog {
public:
    std::function<void(const events::Event&)> sink() {
        return [this](const events::Event& e) {
            std::lock_guard<std::mutex> lock(_mutex);
            _events.push_back(e);
        };
    }
    std::vector<events::Event> events() const {
        std::lock_guard<std::mutex> lock(_mutex);
        return _events;
    }
    /// The ActionsPlanned bodies, in order.
    std::vector<events::ActionsPlanned> plans() const {
        std::vector<events::ActionsPlanned> out;
        for (const events::Event& e : events()) {
            if (const auto* p = std::get_if<events::ActionsPlanned>(&e.body)) out.push_back(*p);
        }
        return out;
    }

private:
    mutable std::mutex _mutex;
    std::vector<events::Event> _events;
};

}  // namespace ballast::testing
