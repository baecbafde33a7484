#include "adapters/kafka/wire/response_errors.h"

#include <cctype>

namespace ballast::kafka::wire {

namespace {

/// Gathers failures; the first decides nothing, all are listed.
class Failures {
public:
    explicit Failures(std::string api) : _api(std::move(api)) {}

    void add(const std::string& what, const KafkaError& error) {
        if (error.ok()) return;
        if (error.code != error_codes::unknown_topic_or_partition) _all_not_found = false;
        _text += (_text.empty() ? "" : "; ") + what + ": " + error.to_string();
        ++_count;
    }

    Status status() const {
        if (_count == 0) return Status();
        return events::make_error(_all_not_found ? ErrorCode::not_found : ErrorCode::conflict,
                                  _api + " " + _text);
    }

private:
    std::string _api;
    std::string _text;
    size_t _count = 0;
    bool _all_not_found = true;
};

std::string replica_list(const std::vector<int32_t>& replicas) {
    std::string out = "[";
    for (size_t i = 0; i < replicas.size(); ++i) {
        out += (i ? "," : "") + std::to_string(replicas[i]);
    }
    return out + "]";
}

std::string partition_name(const std::string& topic, int32_t partition) {
    return topic + "-" + std::to_string(partition);
}

}  // namespace

Status response_errors(const messages::DescribeClusterResponse& response) {
    Failures failures("DescribeCluster");
    failures.add("cluster", response.error);
    return failures.status();
}

Status response_errors(const messages::AlterPartitionReassignmentsRequest& request,
                       const messages::AlterPartitionReassignmentsResponse& response) {
    Failures failures("AlterPartitionReassignments");
    failures.add("(every partition)", response.error);
    for (const messages::ReassignableTopicResponse& topic : response.responses) {
        for (const messages::ReassignablePartitionResponse& partition : topic.partitions) {
            std::string what = partition_name(topic.name, partition.partition_index);
            for (const messages::ReassignableTopic& asked : request.topics) {
                if (asked.name != topic.name) continue;
                for (const messages::ReassignablePartition& target : asked.partitions) {
                    if (target.partition_index != partition.partition_index) continue;
                    what += target.replicas ? " (target " + replica_list(*target.replicas) + ")"
                                            : std::string(" (cancel)");
                }
            }
            failures.add(what, partition.error);
        }
    }
    return failures.status();
}

Status response_errors(const messages::ListPartitionReassignmentsResponse& response) {
    Failures failures("ListPartitionReassignments");
    failures.add("(every partition)", response.error);
    return failures.status();
}

Status response_errors(const messages::ElectLeadersRequest& request, const messages::ElectLeadersResponse& response) {
    Failures failures(std::string("ElectLeaders (") +
                      (request.election_type == messages::ElectionType::preferred ? "preferred" : "unclean") +
                      ")");
    failures.add("(every partition)", response.error);
    for (const messages::ReplicaElectionResult& topic : response.replica_election_results) {
        for (const messages::ElectLeadersPartitionResult& result : topic.partition_result) {
            failures.add(partition_name(topic.topic, result.partition_id), result.error);
        }
    }
    return failures.status();
}

Status response_errors(int32_t broker_id, const messages::DescribeLogDirsResponse& response) {
    Failures failures("DescribeLogDirs of broker " + std::to_string(broker_id));
    failures.add("(every directory)", response.error);
    for (const messages::DescribeLogDirsResult& dir : response.results) {
        failures.add("log dir " + dir.log_dir, dir.error);
    }
    return failures.status();
}

std::string principal(const SecurityOptions& security) {
    if (security.uses_sasl()) return "User:" + security.sasl.username;
    if (security.uses_tls() && !security.tls.keystore_path.empty()) return "the principal of the client certificate";
    return "User:ANONYMOUS";
}

std::string missing_acl(ApiKey api, int16_t code, const std::string& principal, const std::string& bootstrap_servers,
                        const std::string& topic) {
    std::string operation;
    std::string resource;
    if (code == error_codes::cluster_authorization_failed) {
        switch (api) {
            case ApiKey::alter_partition_reassignments:
            case ApiKey::elect_leaders: operation = "Alter"; break;
            case ApiKey::list_partition_reassignments:
            case ApiKey::describe_log_dirs:
            case ApiKey::describe_cluster: operation = "Describe"; break;
            default: return "";
        }
        resource = "CLUSTER";
    } else if (code == error_codes::topic_authorization_failed) {
        // Every topic refusal Ballast can meet is about seeing the topic.
        operation = "Describe";
        resource = "TOPIC";
    } else {
        return "";
    }
    std::string upper = operation;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const std::string target = resource == "CLUSTER" ? "--cluster"
                               : topic.empty()        ? "--topic '*'"
                                                      : "--topic " + topic;
    const std::string grantee = principal.starts_with("User:") ? principal : "<" + principal + ">";
    return principal + " needs " + upper + " on " + resource + (topic.empty() ? "" : " " + topic) +
           ": kafka-acls --bootstrap-server " + bootstrap_servers +
           " --command-config ADMIN.properties --add --allow-principal " + grantee + " --operation " + operation + " " +
           target;
}

}  // namespace ballast::kafka::wire
