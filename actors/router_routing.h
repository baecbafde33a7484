#pragma once

/// The router's routing, private to it: how one event is handed to the
/// actors it concerns (brokers, partition shards, scheduler, executor) and
/// what it changes in the router's maps and clock. `router_actor.cc` holds
/// the rest: the barrier, the gate that decides what may pass a round, flow
/// control and idle.

#include <cstdint>
#include <string>

#include <caf/fwd.hpp>

#include "actors/router_actor.h"

namespace ballast::actors::routing {

using RouterSelf = caf::stateful_actor<RouterState>;

/// The router's key of (topic index, partition) in `RouterState::slot_of`.
uint64_t partition_key(uint32_t topic, int32_t partition);

/// The topic's index, adding it on first sight.
uint32_t ensure_topic(RouterState& st, const std::string& name);

/// Sends each shard the updates queued for it: one message per shard per
/// routed batch, all of one epoch.
void send_partition_batches(RouterSelf* self);

/// Sends a broker its report time held back, if any.
void flush_report(RouterSelf* self, int32_t id);

/// Whether a Tick at `tick_ms` makes a planning round due: the detect
/// interval passed, a broker changed, a fenced broker's grace ran out, or
/// the last round held work back and the execution interval passed. Pure,
/// so that a barrier can ask before the Tick is routed.
bool round_due_at(const RouterState& st, int64_t tick_ms);

/// Routes one event. Returns true when a barrier must happen right after it.
bool route(RouterSelf* self, const events::Event& e);

}  // namespace ballast::actors::routing
