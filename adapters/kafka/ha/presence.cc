#include "adapters/kafka/ha/presence.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <set>
#include <string_view>

#include <spdlog/spdlog.h>

#include "adapters/kafka/ha/election.h"
#include "adapters/kafka/ha/rdkafka.h"

namespace ballast::kafka::ha {

using events::ErrorCode;
using events::make_error;
using detail::error_text;

namespace {

/// librdkafka answers a request that timed out with a result event of its
/// own; the queue is waited on this much longer, so that the event, naming
/// what timed out, comes rather than nothing.
constexpr int64_t presence_queue_grace_ms = 1'000;

/// An admin request gets at least this long, even when the deadline is
/// nearly spent: a shorter one could only time out.
constexpr int64_t presence_request_min_ms = 100;

detail::AdminOptionsPtr presence_request_options(rd_kafka_t* handle, rd_kafka_admin_op_t op,
                                                    int64_t timeout_ms) {
    detail::AdminOptionsPtr options(rd_kafka_AdminOptions_new(handle, op));
    char error[512];
    // Fails only out of librdkafka's range, which timeout_int keeps it in.
    (void)rd_kafka_AdminOptions_set_request_timeout(
        options.get(), detail::timeout_int(std::max(timeout_ms, presence_request_min_ms)), error, sizeof(error));
    return options;
}

/// The result event of the request sent on `queue`, or an error naming `what`.
events::Result<detail::EventPtr> presence_result(rd_kafka_queue_t* queue, int64_t timeout_ms,
                                                    const std::string& what) {
    const int64_t wait_ms = std::max(timeout_ms, presence_request_min_ms) + presence_queue_grace_ms;
    detail::EventPtr event(rd_kafka_queue_poll(queue, detail::timeout_int(wait_ms)));
    if (!event) {
        return make_error(ErrorCode::io_error, what + ": no answer within " + std::to_string(wait_ms) + " ms");
    }
    if (const rd_kafka_resp_err_t error = rd_kafka_event_error(event.get()); error != RD_KAFKA_RESP_ERR_NO_ERROR) {
        const char* detail = rd_kafka_event_error_string(event.get());
        return make_error(ErrorCode::io_error,
                          what + ": " + error_text(error) + (detail ? std::string(": ") + detail : ""));
    }
    return event;
}

/// The coordinator reports a member's host as Java prints an address
/// ("/127.0.0.1").
std::string presence_host(const char* host) {
    if (host == nullptr) return "";
    std::string text = host;
    if (!text.empty() && text.front() == '/') text.erase(0, 1);
    return text;
}

/// The member of a Ballast election that holds partition 0 of some topic,
/// if `group` has one.
std::optional<OtherBallastGroup> presence_leader_of(const rd_kafka_ConsumerGroupDescription_t* group) {
    const size_t members = rd_kafka_ConsumerGroupDescription_member_count(group);
    for (size_t i = 0; i < members; i++) {
        const rd_kafka_MemberDescription_t* member = rd_kafka_ConsumerGroupDescription_member(group, i);
        const char* client_id = member ? rd_kafka_MemberDescription_client_id(member) : nullptr;
        if (client_id == nullptr || !std::string_view(client_id).starts_with(election_client_id_prefix)) continue;
        const rd_kafka_MemberAssignment_t* assignment = rd_kafka_MemberDescription_assignment(member);
        const rd_kafka_topic_partition_list_t* partitions =
            assignment ? rd_kafka_MemberAssignment_partitions(assignment) : nullptr;
        if (partitions == nullptr) continue;
        for (int p = 0; p < partitions->cnt; p++) {
            if (partitions->elems[p].partition != 0 || partitions->elems[p].topic == nullptr) continue;
            OtherBallastGroup found;
            const char* group_id = rd_kafka_ConsumerGroupDescription_group_id(group);
            found.group_id = group_id ? group_id : "";
            found.leader_client_id = client_id;
            found.leader_instance_id = found.leader_client_id.substr(election_client_id_prefix.size());
            found.leader_host = presence_host(rd_kafka_MemberDescription_host(member));
            found.journal_topic = partitions->elems[p].topic;
            return found;
        }
    }
    return std::nullopt;
}

}  // namespace

events::Result<HaPresence> other_ballast_groups(const KafkaHaOptions& options) {
    if (options.bootstrap_servers.empty() || options.instance_id.empty()) {
        return make_error(ErrorCode::invalid_argument,
                          "looking for other Ballast groups needs bootstrap servers and an instance id");
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options.call_timeout_ms);
    const std::string at = " at bootstrap servers " + options.bootstrap_servers;
    events::Result<detail::Handle> handle = detail::make_handle(
        RD_KAFKA_PRODUCER,
        {options.bootstrap_servers, options.instance_id, options.call_timeout_ms, options.client_settings}, {},
        "the admin client that looks for other Ballast groups");
    if (!handle) return handle.error();
    rd_kafka_t* admin = handle->get();
    detail::QueuePtr queue(rd_kafka_queue_new(admin));

    // ListGroups, from every broker: the groups each coordinates.
    const std::string listing = "listing the consumer groups" + at;
    detail::AdminOptionsPtr list_options =
        presence_request_options(admin, RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPS, detail::ms_until(deadline));
    rd_kafka_ListConsumerGroups(admin, list_options.get(), queue.get());
    events::Result<detail::EventPtr> listed = presence_result(queue.get(), detail::ms_until(deadline), listing);
    if (!listed) return listed.error();
    const rd_kafka_ListConsumerGroups_result_t* list = rd_kafka_event_ListConsumerGroups_result(listed->get());
    if (list == nullptr) return make_error(ErrorCode::io_error, listing + ": the answer is not a list of groups");
    size_t error_count = 0;
    const rd_kafka_error_t** errors = rd_kafka_ListConsumerGroups_result_errors(list, &error_count);
    if (error_count > 0) {
        std::string text;
        for (size_t i = 0; i < error_count; i++) text += (i > 0 ? "; " : "") + error_text(errors[i]);
        return make_error(ErrorCode::io_error, listing + ": " + std::to_string(error_count) +
                                                   " broker(s) did not answer: " + text);
    }
    HaPresence presence;
    std::set<std::string> with_members;  // a group is listed twice while its coordinator moves
    size_t listing_count = 0;
    const rd_kafka_ConsumerGroupListing_t** listings = rd_kafka_ListConsumerGroups_result_valid(list, &listing_count);
    for (size_t i = 0; i < listing_count; i++) {
        const rd_kafka_ConsumerGroupListing_t* group = listings[i];
        const char* id = rd_kafka_ConsumerGroupListing_group_id(group);
        if (id == nullptr) continue;
        presence.groups_listed++;
        // A Ballast election joins (protocol type "consumer", never a
        // simple group) and has members while an instance runs.
        const rd_kafka_consumer_group_state_t state = rd_kafka_ConsumerGroupListing_state(group);
        if (rd_kafka_ConsumerGroupListing_is_simple_consumer_group(group) ||
            state == RD_KAFKA_CONSUMER_GROUP_STATE_EMPTY || state == RD_KAFKA_CONSUMER_GROUP_STATE_DEAD ||
            options.group_id == id) {
            continue;
        }
        with_members.insert(id);
    }
    if (with_members.empty()) return presence;

    // DescribeGroups: each member's client.id, host and assignment.
    const std::string describing = "describing " + std::to_string(with_members.size()) + " consumer group(s)" + at;
    std::vector<const char*> names;
    for (const std::string& id : with_members) names.push_back(id.c_str());
    detail::AdminOptionsPtr describe_options =
        presence_request_options(admin, RD_KAFKA_ADMIN_OP_DESCRIBECONSUMERGROUPS, detail::ms_until(deadline));
    rd_kafka_DescribeConsumerGroups(admin, names.data(), names.size(), describe_options.get(), queue.get());
    events::Result<detail::EventPtr> described =
        presence_result(queue.get(), detail::ms_until(deadline), describing);
    if (!described) return described.error();
    const rd_kafka_DescribeConsumerGroups_result_t* descriptions =
        rd_kafka_event_DescribeConsumerGroups_result(described->get());
    if (descriptions == nullptr) {
        return make_error(ErrorCode::io_error, describing + ": the answer is not a description of groups");
    }
    size_t group_count = 0;
    const rd_kafka_ConsumerGroupDescription_t** groups =
        rd_kafka_DescribeConsumerGroups_result_groups(descriptions, &group_count);
    for (size_t i = 0; i < group_count; i++) {
        const rd_kafka_ConsumerGroupDescription_t* group = groups[i];
        const char* id = rd_kafka_ConsumerGroupDescription_group_id(group);
        if (const rd_kafka_error_t* error = rd_kafka_ConsumerGroupDescription_error(group); error) {
            presence.undescribed.push_back({id ? id : "", error_text(error)});
            continue;
        }
        presence.groups_described++;
        if (std::optional<OtherBallastGroup> other = presence_leader_of(group); other) {
            presence.others.push_back(std::move(*other));
        }
    }
    std::sort(presence.others.begin(), presence.others.end(),
              [](const OtherBallastGroup& a, const OtherBallastGroup& b) { return a.group_id < b.group_id; });
    spdlog::debug("{}: looked for other Ballast groups: {} consumer groups listed, {} with members described, {} "
                  "not described, {} other Ballast group(s) with a leader",
                  options.instance_id, presence.groups_listed, presence.groups_described,
                  presence.undescribed.size(), presence.others.size());
    return presence;
}

}  // namespace ballast::kafka::ha
