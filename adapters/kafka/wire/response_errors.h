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

#include "adapters/kafka/wire/alter_partition_reassignments.h"
#include "adapters/kafka/wire/describe_cluster.h"
#include "adapters/kafka/wire/describe_log_dirs.h"
#include "adapters/kafka/wire/elect_leaders.h"
#include "adapters/kafka/wire/list_partition_reassignments.h"

namespace ballast::kafka::wire {

Status response_errors(const DescribeClusterResponse& response);
/// `request` gives the targets for the message.
Status response_errors(const AlterPartitionReassignmentsRequest& request,
                       const AlterPartitionReassignmentsResponse& response);
Status response_errors(const ListPartitionReassignmentsResponse& response);
Status response_errors(const ElectLeadersRequest& request, const ElectLeadersResponse& response);
Status response_errors(int32_t broker_id, const DescribeLogDirsResponse& response);

}  // namespace ballast::kafka::wire
