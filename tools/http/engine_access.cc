#include "tools/http/engine_access.h"

#include <cassert>

namespace ballast::http {

using events::ErrorCode;
using events::make_error;

/// One call waiting for the owner's thread. Shared by the caller and the
/// queue: a caller that gives up marks it abandoned and the owner skips it,
/// so work is never run after its caller (whose stack it uses) has returned.
struct EngineAccess::Item {
    enum class State : uint8_t { queued, running, done, abandoned };
    Work work;
    State state = State::queued;
    std::string refused;  // closed before it ran: why
};

EngineAccess::EngineAccess(Mode mode, std::function<int64_t()> clock) : _mode(mode), _clock(std::move(clock)) {
    assert(mode == Mode::owner_thread || _clock);
}

EngineAccess::~EngineAccess() { close("stopped"); }

events::Status EngineAccess::call(const Work& work, int64_t timeout_ms) {
    if (_mode == Mode::any_thread) {
        std::shared_lock<std::shared_mutex> lock(_engine_mutex);
        {
            std::lock_guard<std::mutex> closed(_mutex);
            if (_closed) return make_error(ErrorCode::conflict, _closed_why);
        }
        work(_engine, _clock());
        return {};
    }
    auto item = std::make_shared<Item>();
    item->work = work;
    std::unique_lock<std::mutex> lock(_mutex);
    if (_closed) return make_error(ErrorCode::conflict, _closed_why);
    _queue.push_back(item);
    _wake.notify_all();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    // Queued: wait until the deadline. Running: until it is done, however
    // long (the work uses this stack).
    while (item->state == Item::State::queued) {
        if (_wake.wait_until(lock, deadline) == std::cv_status::timeout && item->state == Item::State::queued) {
            item->state = Item::State::abandoned;
            return make_error(ErrorCode::io_error, "the engine did not take the request within " +
                                                       std::to_string(timeout_ms) + " ms");
        }
    }
    _wake.wait(lock, [&] { return item->state == Item::State::done; });
    if (!item->refused.empty()) return make_error(ErrorCode::conflict, item->refused);
    return {};
}

void EngineAccess::serve_until(actors::Engine& engine, int64_t now_ms, std::chrono::steady_clock::time_point deadline,
                               const std::function<bool()>& stop) {
    assert(_mode == Mode::owner_thread);
    std::unique_lock<std::mutex> lock(_mutex);
    for (;;) {
        while (!_queue.empty()) {
            std::shared_ptr<Item> item = std::move(_queue.front());
            _queue.pop_front();
            if (item->state != Item::State::queued) continue;  // its caller gave up
            item->state = Item::State::running;
            lock.unlock();
            item->work(&engine, now_ms);
            lock.lock();
            item->state = Item::State::done;
            _wake.notify_all();
        }
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline || (stop && stop())) return;
        _wake.wait_until(lock, std::min(deadline, now + std::chrono::milliseconds(100)));
    }
}

void EngineAccess::attach(actors::Engine* engine) {
    std::unique_lock<std::shared_mutex> lock(_engine_mutex);
    _engine = engine;
}

Readiness EngineAccess::readiness() const {
    std::lock_guard<std::mutex> lock(_readiness_mutex);
    return _readiness;
}

void EngineAccess::set_readiness(Readiness readiness) {
    std::lock_guard<std::mutex> lock(_readiness_mutex);
    _readiness = std::move(readiness);
}

void EngineAccess::close(const std::string& why) {
    std::unique_lock<std::shared_mutex> engine_lock(_engine_mutex);  // no call in progress
    std::lock_guard<std::mutex> lock(_mutex);
    if (_closed) return;
    _closed = true;
    _closed_why = why;
    _engine = nullptr;
    for (const std::shared_ptr<Item>& item : _queue) {
        if (item->state != Item::State::queued) continue;
        item->refused = why;
        item->state = Item::State::done;
    }
    _queue.clear();
    _wake.notify_all();
}

}  // namespace ballast::http
