#pragma once

/// One actor per broker: liveness (registered, fenced, unfenced, gone, and
/// since when), rack, metric freshness and the newest broker-level sample.
/// Brokers are few (hundreds to a few thousand), so a barrier simply asks
/// each for its record.

#include <caf/actor.hpp>
#include <caf/fwd.hpp>
#include <caf/response_promise.hpp>

#include "actors/messages.h"

namespace ballast::actors {

struct BrokerActorState {
    static inline const char* name = "broker";
    BrokerRecord record;
};

caf::behavior broker_actor(caf::stateful_actor<BrokerActorState>* self, BrokerRecord initial);

/// Applies one update to a record. Pure, for tests and recovery.
void apply_broker_update(BrokerRecord& record, const BrokerUpdate& update);

}  // namespace ballast::actors
