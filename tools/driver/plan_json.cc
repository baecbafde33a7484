#include "tools/driver/plan_json.h"

#include "tools/driver/text_format.h"

namespace ballast::driver {

namespace {

nlohmann::ordered_json load_json(const goals::BrokerLoad& l) {
    return {{"bytes_in_per_s", l.load.bytes_in_per_s},
            {"bytes_out_per_s", l.load.bytes_out_per_s},
            {"size_bytes", l.load.size_bytes},
            {"replicas", l.replica_count},
            {"leaders", l.leader_count}};
}

}  // namespace

const char* liveness_name(goals::Liveness liveness) {
    switch (liveness) {
        case goals::Liveness::alive: return "alive";
        case goals::Liveness::fenced: return "fenced";
        case goals::Liveness::gone: return "gone";
    }
    return "?";
}

nlohmann::ordered_json dry_run_json(const actors::Decision& d) {
    nlohmann::ordered_json out;
    out["as_of_seq"] = d.barrier_seq;
    out["time_ms"] = d.event.time_ms;
    out["plan"] = nlohmann::ordered_json::parse(events::to_json(d.event));
    out["violated_before"] = d.violated_before;
    out["violated_after"] = d.violated_after;
    out["unfixable"] = d.unfixable;
    nlohmann::ordered_json in_flight = nlohmann::ordered_json::array();
    for (size_t i = 0; i < d.in_flight.size(); i++) {
        in_flight.push_back({{"action", describe_action(d.in_flight[i])},
                             {"waiting_for_tick", i + d.pending >= d.in_flight.size()}});
    }
    out["in_flight"] = in_flight;
    nlohmann::ordered_json brokers = nlohmann::ordered_json::array();
    for (const actors::BrokerSummary& b : d.brokers) {
        brokers.push_back({{"broker_id", b.id},
                           {"rack", b.rack},
                           {"state", liveness_name(b.liveness)},
                           {"metrics_fresh", b.metrics_fresh},
                           {"before", load_json(b.before)},
                           {"after", load_json(b.after)}});
    }
    out["brokers"] = brokers;
    return out;
}

}  // namespace ballast::driver
