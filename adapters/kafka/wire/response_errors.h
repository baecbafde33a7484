#pragma once

/// Errors a broker reported inside a response, as one Status whose message
/// names the API, what was asked (topic-partition, target replicas, broker)
/// and Kafka's error: "AlterPartitionReassignments orders-3 (cancel):
/// NO_REASSIGNMENT_IN_PROGRESS (85): ...". OK when every entry succeeded.
/// Callers that act per partition (the admin port) read the response's
/// entries instead; these are for the calls where any error fails the whole.
///
/// The ErrorCode is `not_found` when every failure is an unknown topic or
/// partition, `conflict` otherwise (the cluster refused what was asked).

#include "adapters/kafka/wire/messages/alter_partition_reassignments.h"
#include "adapters/kafka/wire/messages/describe_cluster.h"
#include "adapters/kafka/wire/messages/describe_log_dirs.h"
#include "adapters/kafka/wire/messages/elect_leaders.h"
#include "adapters/kafka/wire/messages/list_partition_reassignments.h"
#include "adapters/kafka/wire/security_options.h"

namespace ballast::kafka::wire {

Status response_errors(const messages::DescribeClusterResponse& response);
/// `request` gives the targets for the message.
Status response_errors(const messages::AlterPartitionReassignmentsRequest& request,
                       const messages::AlterPartitionReassignmentsResponse& response);
Status response_errors(const messages::ListPartitionReassignmentsResponse& response);
Status response_errors(const messages::ElectLeadersRequest& request, const messages::ElectLeadersResponse& response);
Status response_errors(int32_t broker_id, const messages::DescribeLogDirsResponse& response);

/// Who the brokers' authorizer takes Ballast for: "User:<username>" over
/// SASL, "User:ANONYMOUS" over PLAINTEXT or SSL without a client
/// certificate, and with one its subject ("User:CN=..."), which Ballast does
/// not read: "the principal of the client certificate".
std::string principal(const SecurityOptions& security);

/// For an authorization error (CLUSTER_AUTHORIZATION_FAILED,
/// TOPIC_AUTHORIZATION_FAILED) answered to `api`: the permission `principal`
/// lacks and the kafka-acls command that grants it, "needs ALTER on CLUSTER:
/// kafka-acls --bootstrap-server B --command-config ADMIN.properties --add
/// --allow-principal User:observer --operation Alter --cluster" (Kafka's ACL
/// table for that request); "" for any other error. `topic` names the topic
/// of a topic's refusal ("" for any topic: --topic '*').
std::string missing_acl(ApiKey api, int16_t code, const std::string& principal, const std::string& bootstrap_servers,
                        const std::string& topic = "");

}  // namespace ballast::kafka::wire
