#pragma once

/// `ballast run`: Ballast beside a real Kafka cluster. It waits for the
/// cluster (a clear error naming the servers, retried with a capped
/// exponential backoff, never an exit), starts the engine on its journal
/// (recovering what a crash left; the admin port adopts the actions in
/// flight and finds each running, done or never started), then the admin port, the metadata source
/// (KRaft's metadata log, or the poller: ballast.metadata.source), the metrics
/// sources and a clock thread that feeds Tick{wall-clock epoch ms} every
/// ballast.tick.interval.ms. Each decision and outcome is one log line.
/// SIGTERM or SIGINT: stop feeding, wait until the engine is idle, stop it
/// (the journal is synced on every group commit), exit 0.

#include <string>

#include "adapters/kafka/wire/security_options.h"
#include "events/config.h"

namespace ballast::tools {

struct LiveRunOptions {
    std::string bootstrap_servers;  // as given: "host:port[,host:port...]"
    /// `--bootstrap-controller`, as given; empty: none. The controllers'
    /// listener, where KRaft's metadata log is read (ballast.metadata.source).
    std::string bootstrap_controllers;
    events::Config config = events::Config::defaults();
    /// How every connection reaches the brokers (the wire client's, and
    /// librdkafka's with the same settings).
    kafka::wire::SecurityOptions security;
};

/// Blocks until a signal stops the run; returns the exit code.
int run_live(const LiveRunOptions& options);

}  // namespace ballast::tools
