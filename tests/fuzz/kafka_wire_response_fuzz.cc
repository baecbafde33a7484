/// Every response decoder of the Kafka wire client, as a broker's answer
/// reaches it: the first byte picks the API and version (the versions the
/// client speaks, in `implemented_apis()` order), the rest is the frame after
/// its size: the response header, then the body. Decoded as
/// `BrokerConnection` decodes it (the header, the body, `finish`), then the
/// errors inside it folded as the client folds them. Whatever the bytes, the
/// answer is a response or an error naming message, field and offset.

#include <utility>
#include <vector>

#include "adapters/kafka/wire/messages/alter_partition_reassignments.h"
#include "adapters/kafka/wire/messages/api_versions.h"
#include "adapters/kafka/wire/messages/describe_cluster.h"
#include "adapters/kafka/wire/messages/describe_log_dirs.h"
#include "adapters/kafka/wire/messages/describe_topic_partitions.h"
#include "adapters/kafka/wire/messages/elect_leaders.h"
#include "adapters/kafka/wire/messages/fetch.h"
#include "adapters/kafka/wire/messages/fetch_snapshot.h"
#include "adapters/kafka/wire/messages/find_coordinator.h"
#include "adapters/kafka/wire/messages/list_groups.h"
#include "adapters/kafka/wire/messages/list_offsets.h"
#include "adapters/kafka/wire/messages/list_partition_reassignments.h"
#include "adapters/kafka/wire/messages/metadata.h"
#include "adapters/kafka/wire/messages/offset_fetch.h"
#include "adapters/kafka/wire/protocol_api.h"
#include "adapters/kafka/wire/protocol_header.h"
#include "adapters/kafka/wire/response_errors.h"
#include "adapters/kafka/wire/messages/sasl_authenticate.h"
#include "adapters/kafka/wire/messages/sasl_handshake.h"
#include "adapters/kafka/wire/wire_reader.h"
#include "tests/fuzz/fuzz_support.h"

using namespace ballast;
using namespace ballast::kafka::wire;
using namespace ballast::kafka::wire::messages;

namespace {

/// (API, version) for every version of every implemented API.
const std::vector<std::pair<ApiKey, int16_t>>& choices() {
    static const std::vector<std::pair<ApiKey, int16_t>> all = [] {
        std::vector<std::pair<ApiKey, int16_t>> out;
        for (const ApiSpec& spec : implemented_apis()) {
            for (int16_t v = spec.versions.min; v <= spec.versions.max; v++) out.emplace_back(spec.key, v);
        }
        return out;
    }();
    return all;
}

/// The body decoded as `Api`; its errors folded by `fold` when it decoded.
template <class Api, class Fold>
void decode_body(std::span<const uint8_t> body, int16_t version, Fold fold) {
    Reader reader(body, std::string(api_name(Api::key)) + "Response v" + std::to_string(version));
    typename Api::Response response = Api::decode(reader, version);
    Status finished = reader.finish();
    if (!finished.ok()) {
        fuzz::expect(!finished.error().message.empty(), "a decoder's error says nothing");
        return;
    }
    (void)fold(response);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    const auto [key, version] = choices()[data[0] % choices().size()];
    const std::span<const uint8_t> frame(data + 1, size - 1);

    Reader header_reader(frame, std::string(api_name(key)) + "Response header");
    (void)decode_response_header(header_reader, key, version);
    if (!header_reader.ok()) return 0;
    const std::span<const uint8_t> body = frame.subspan(header_reader.offset());

    switch (key) {
        case ApiKey::api_versions:
            decode_body<ApiVersions>(body, version, [](const ApiVersionsResponse&) { return Status(); });
            // A broker that does not speak our version answers in the v0 layout.
            decode_body<ApiVersions>(body, 0, [](const ApiVersionsResponse&) { return Status(); });
            break;
        case ApiKey::describe_cluster:
            decode_body<DescribeCluster>(body, version, [](const DescribeClusterResponse& r) {
                return response_errors(r);
            });
            break;
        case ApiKey::alter_partition_reassignments:
            decode_body<AlterPartitionReassignments>(
                body, version, [](const AlterPartitionReassignmentsResponse& r) {
                    return response_errors(AlterPartitionReassignmentsRequest{}, r);
                });
            break;
        case ApiKey::list_partition_reassignments:
            decode_body<ListPartitionReassignments>(
                body, version, [](const ListPartitionReassignmentsResponse& r) { return response_errors(r); });
            break;
        case ApiKey::elect_leaders:
            decode_body<ElectLeaders>(body, version, [](const ElectLeadersResponse& r) {
                return response_errors(ElectLeadersRequest{}, r);
            });
            break;
        case ApiKey::describe_log_dirs:
            decode_body<DescribeLogDirs>(body, version, [](const DescribeLogDirsResponse& r) {
                return response_errors(1, r);
            });
            break;
        case ApiKey::sasl_handshake:
            decode_body<SaslHandshake>(body, version, [](const SaslHandshakeResponse&) { return Status(); });
            break;
        case ApiKey::sasl_authenticate:
            decode_body<SaslAuthenticate>(body, version, [](const SaslAuthenticateResponse&) { return Status(); });
            break;
        case ApiKey::metadata:
            decode_body<Metadata>(body, version, [](const MetadataResponse&) { return Status(); });
            break;
        case ApiKey::list_offsets:
            decode_body<ListOffsets>(body, version, [](const ListOffsetsResponse&) { return Status(); });
            break;
        case ApiKey::fetch:
            decode_body<Fetch>(body, version, [](const FetchResponse&) { return Status(); });
            break;
        case ApiKey::fetch_snapshot:
            decode_body<FetchSnapshot>(body, version, [](const FetchSnapshotResponse&) { return Status(); });
            break;
        case ApiKey::describe_topic_partitions:
            decode_body<DescribeTopicPartitions>(body, version,
                                                 [](const DescribeTopicPartitionsResponse&) { return Status(); });
            break;
        case ApiKey::list_groups:
            decode_body<ListGroups>(body, version, [](const ListGroupsResponse&) { return Status(); });
            break;
        case ApiKey::find_coordinator:
            decode_body<FindCoordinator>(body, version, [](const FindCoordinatorResponse&) { return Status(); });
            break;
        case ApiKey::offset_fetch:
            decode_body<OffsetFetch>(body, version, [](const OffsetFetchResponse&) { return Status(); });
            break;
    }
    return 0;
}
