#pragma once

/// What the engine tests share: their configuration, an engine on a journal
/// with a fake port and a decision log, feeding in small batches, and
/// decisions compared by what was decided rather than where.

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "actors/engine.h"
#include "tests/support/fake_port.h"

namespace ballast::actors::engine_harness {

using events::Event;
using testing::DecisionLog;

inline events::Config test_config(std::vector<std::string> settings = {}) {
    events::Config config = events::Config::defaults();
    for (const char* s : {"ballast.cluster.flavor=automq", "ballast.journal.sync=false",
                                 "autobalancer.controller.anomaly.detect.interval.ms=10000",
                                 "autobalancer.controller.execution.interval.ms=0",
                                 "autobalancer.controller.metrics.delay.ms=120000"}) {
        EXPECT_TRUE(config.apply_override(s).ok()) << s;
    }
    for (const std::string& s : settings) EXPECT_TRUE(config.apply_override(s).ok()) << s;
    return config;
}

inline std::unique_ptr<Engine> start(const std::string& journal, AdminPort* port, DecisionLog& log,
                              events::Config config, size_t threads = 2,
                              std::function<void(const store::RetentionReport&)> on_retention = {}) {
    EngineOptions options;
    options.threads = threads;
    options.config = std::move(config);
    options.journal_path = journal;
    options.port = port;
    options.on_decision = log.sink();
    options.on_retention = std::move(on_retention);
    events::Result<std::unique_ptr<Engine>> engine = Engine::start(std::move(options));
    EXPECT_TRUE(engine.ok()) << engine.error().to_string();
    return engine.ok() ? std::move(*engine) : nullptr;
}

inline void feed_all(Engine& engine, const std::vector<Event>& events, size_t batch = 7) {
    for (size_t i = 0; i < events.size(); i += batch) {
        std::vector<Event> part(events.begin() + i,
                                events.begin() + std::min(events.size(), i + batch));
        ASSERT_TRUE(engine.feed(std::move(part)).ok());
    }
    ASSERT_TRUE(engine.wait_idle().ok());
}

/// Recovery reports the decisions it makes again; each round once.
inline std::vector<events::ActionsPlanned> each_round_once(const DecisionLog& log) {
    std::map<uint64_t, events::ActionsPlanned> by_round;
    for (const events::ActionsPlanned& p : log.plans()) by_round.emplace(p.round, p);
    std::vector<events::ActionsPlanned> out;
    for (auto& [round, plan] : by_round) out.push_back(plan);
    return out;
}

/// Barrier seqs differ between runs (each start journals its config and
/// leadership), so compare what was decided, not where.
inline std::vector<std::string> decided(const std::vector<events::ActionsPlanned>& plans) {
    std::vector<std::string> out;
    for (events::ActionsPlanned p : plans) {
        p.barrier_seq = 0;
        out.push_back(events::to_json(Event{0, 0, events::Source::engine, p}));
    }
    return out;
}

}  // namespace ballast::actors::engine_harness
