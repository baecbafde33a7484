#include "actors/broker_actor.h"

#include <cassert>

#include <caf/all.hpp>

#include "actors/supervision.h"
#include "goals/broker_stability.h"

namespace ballast::actors {

namespace {

void set_liveness(BrokerRecord& record, goals::Liveness liveness, int64_t time_ms) {
    goals::change_liveness(record.liveness, record.liveness_changed_ms, record.fenced_ms, liveness, time_ms);
}

}  // namespace

void apply_broker_update(BrokerRecord& record, const BrokerUpdate& update) {
    assert(update.seq >= record.applied_seq);
    switch (update.kind) {
        case BrokerUpdate::Kind::registered:
            record.registered = true;
            record.rack = update.rack;
            set_liveness(record, goals::Liveness::alive, update.time_ms);
            break;
        case BrokerUpdate::Kind::fenced:
            set_liveness(record, goals::Liveness::fenced, update.time_ms);
            break;
        case BrokerUpdate::Kind::unfenced:
            set_liveness(record, goals::Liveness::alive, update.time_ms);
            break;
        case BrokerUpdate::Kind::unregistered:
            record.registered = false;
            set_liveness(record, goals::Liveness::gone, update.time_ms);
            break;
        case BrokerUpdate::Kind::sample:
            if (update.sample_time_ms >= record.metrics_time_ms) {
                record.sample = update.sample;
                record.metrics_time_ms = update.sample_time_ms;
            }
            break;
        case BrokerUpdate::Kind::reported:
            if (update.sample_time_ms > record.metrics_time_ms) {
                record.metrics_time_ms = update.sample_time_ms;
            }
            break;
    }
    record.applied_seq = update.seq;
}

caf::behavior broker_actor(caf::stateful_actor<BrokerActorState>* self, BrokerRecord initial) {
    end_with_exception_text(self);
    self->state.record = std::move(initial);
    return {
        [=](apply_atom, const BrokerUpdate& update) {
            apply_broker_update(self->state.record, update);
        },
        [=](barrier_atom) -> BrokerRecord { return self->state.record; },
    };
}

}  // namespace ballast::actors
