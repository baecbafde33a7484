#pragma once

/// Requests on an open connection, for what runs between the transport and
/// the calls: SASL authenticates with ordinary Kafka requests (SaslHandshake,
/// SaslAuthenticate) after ApiVersions, and again before a request once its
/// session nears its end. `BrokerConnection` is the one implementation: the
/// requests get its correlation ids, header, framing and limits, and its
/// negotiated versions.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "adapters/kafka/wire/deadline.h"
#include "adapters/kafka/wire/protocol_api.h"
#include "adapters/kafka/wire/wire_reader.h"
#include "adapters/kafka/wire/wire_writer.h"
#include "events/result.h"

namespace ballast::kafka::wire {

/// A response frame after its size prefix: the header, then the body.
struct ResponseFrame {
    std::vector<uint8_t> bytes;
    size_t body_offset = 0;
    std::span<const uint8_t> body() const {
        return std::span<const uint8_t>(bytes).subspan(body_offset);
    }
};

class RequestChannel {
public:
    /// The version negotiated for `key`; an error naming both ranges when the
    /// broker and Ballast share none.
    virtual Result<int16_t> version_for(ApiKey key) const = 0;
    /// Sends `body` as one request of `key` at `version` and returns the
    /// response frame, its correlation id checked. A transport failure or a
    /// wrong correlation id closes the connection.
    virtual Result<ResponseFrame> round_trip(ApiKey key, int16_t version, const Writer& body,
                                             Deadline deadline) = 0;
    /// "127.0.0.1:9092", for errors.
    virtual std::string address() const = 0;

protected:
    ~RequestChannel() = default;
};

/// `request` encoded at `version`, sent, and its answer decoded (errors name
/// the API, the version and the broker).
template <class Api>
Result<typename Api::Response> send_request(RequestChannel& channel,
                                            const typename Api::Request& request,
                                            int16_t version, Deadline deadline) {
    Writer body;
    Status encoded = Api::encode(request, version, body);
    if (!encoded.ok()) return encoded.error();
    Result<ResponseFrame> frame = channel.round_trip(Api::key, version, body, deadline);
    if (!frame.ok()) return frame.error();
    Reader reader(frame->body(), std::string(api_name(Api::key)) + "Response v" +
                               std::to_string(version) + " from " + channel.address());
    typename Api::Response response = Api::decode(reader, version);
    Status decoded = reader.finish();
    if (!decoded.ok()) return decoded.error();
    return response;
}

}  // namespace ballast::kafka::wire
