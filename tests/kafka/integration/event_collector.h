#pragma once

/// An EventSink for tests: keeps every event fed, in order, and waits
/// (bounded) until the events satisfy a condition.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <vector>

#include "actors/admin_port.h"
#include "events/event.h"

namespace ballast::testing {

class EventCollector {
public:
    actors::EventSink sink() {
        return [this](std::vector<events::Event> batch) {
            std::lock_guard<std::mutex> lock(_mutex);
            for (events::Event& e : batch) _events.push_back(std::move(e));
            _changed.notify_all();
        };
    }
    std::vector<events::Event> events() const {
        std::lock_guard<std::mutex> lock(_mutex);
        return _events;
    }
    /// Waits until `condition(events)` holds; false after `timeout_ms`.
    bool wait_for(const std::function<bool(const std::vector<events::Event>&)>& condition, int64_t timeout_ms) {
        std::unique_lock<std::mutex> lock(_mutex);
        return _changed.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] { return condition(_events); });
    }
    /// The index of the first event at or after `from` that `match` accepts; -1 if none.
    static long find(const std::vector<events::Event>& events, const std::function<bool(const events::Event&)>& match,
                     long from = 0) {
        for (size_t i = static_cast<size_t>(std::max(from, 0L)); i < events.size(); i++) {
            if (match(events[i])) return static_cast<long>(i);
        }
        return -1;
    }

private:
    mutable std::mutex _mutex;
    std::condition_variable _changed;
    std::vector<events::Event> _events;
};

}  // namespace ballast::testing
