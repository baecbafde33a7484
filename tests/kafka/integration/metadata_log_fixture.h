#pragma once

// What the cases that read KRaft's metadata log from a real cluster share
// (metadata_log_test.cc against one controller, metadata_quorum_test.cc against three):
// the brokers' bootstrap servers, the controllers `tools/kafka-cluster controller`
// names, and librdkafka to change the cluster with.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "adapters/kafka/metadata_log/observer.h"
#include "tests/kafka/integration/kafka_cluster.h"

namespace ballast::kafka::metadata_log {

class ObserverOnKafka : public ::testing::Test {
protected:
    void SetUp() override {
        _bootstrap = testing::bootstrap_servers_from_env();
        ASSERT_FALSE(_bootstrap.empty()) << testing::no_cluster_message();
        const Result<std::string> controller = testing::ask_script({"controller"});
        ASSERT_TRUE(controller.ok()) << controller.error().to_string();
        _controller = *controller;
        Result<std::vector<wire::BrokerAddress>> controllers = wire::parse_bootstrap_servers(_controller);
        ASSERT_TRUE(controllers.ok()) << controllers.error().to_string();
        _controllers = *controllers;
        _rdkafka = std::make_unique<testing::RdKafka>(_bootstrap);
    }

    std::string _bootstrap;
    std::string _controller;  // as the script names them: "host:port[,host:port...]"
    std::vector<wire::BrokerAddress> _controllers;
    std::unique_ptr<testing::RdKafka> _rdkafka;
};

}  // namespace ballast::kafka::metadata_log
