#pragma once

/// What the engine says of itself when asked (`Engine::status`): the
/// router's clock and settings, each broker's record, the scheduler's memory
/// and the executor's actions in flight. Each part is its actor's answer to
/// a request, taken in that actor's mailbox order; nothing is read from
/// outside an actor's thread. The parts may be a few events apart (each
/// actor answers as of what it has applied), never torn within one. For the
/// HTTP API (`tools/http/`) and `ballast ctl status`.

#include <cstdint>
#include <memory>
#include <vector>

#include <caf/allowed_unsafe_message_type.hpp>

#include "actors/engine_snapshot.h"
#include "actors/messages.h"
#include "events/config.h"

namespace ballast::actors {

struct EngineStatus {
    RouterMemory router;                  // the clock (newest Tick), the last round, the newest routed seq
    events::Config config = events::Config::defaults();  // as of the newest routed ConfigChanged
    uint32_t topics = 0;
    uint64_t partitions = 0;              // that exist now
    std::vector<BrokerRecord> brokers;    // sorted by id
    SchedulerMemory scheduler;            // rounds, paused, the operator's exclusions and drains, unfixable
    std::vector<TrackedAction> in_flight;  // by action id
};
using EngineStatusPtr = std::shared_ptr<const EngineStatus>;

}  // namespace ballast::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ballast::actors::EngineStatusPtr)
