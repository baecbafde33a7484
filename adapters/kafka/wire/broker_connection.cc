#include "adapters/kafka/wire/broker_connection.h"

#include <algorithm>
#include <cassert>
#include <chrono>

namespace ballast::kafka::wire {

using events::make_error;

namespace {

int32_t read_int32(const uint8_t* bytes) {
    return static_cast<int32_t>((uint32_t{bytes[0]} << 24) | (uint32_t{bytes[1]} << 16) |
                                (uint32_t{bytes[2]} << 8) | uint32_t{bytes[3]});
}

std::string range_text(VersionRange range) {
    if (range.empty()) return "none";
    if (range.min == range.max) return "v" + std::to_string(range.min);
    return "v" + std::to_string(range.min) + "-" + std::to_string(range.max);
}

}  // namespace

BrokerConnection::BrokerConnection(std::string host, int32_t port, ConnectionOptions options)
    : _host(std::move(host)), _port(port), _options(std::move(options)) {
    if (!_options.transport) _options.transport = transport_factory(_options.security);
    assert(_options.response_bytes_max > 0);
}

std::string BrokerConnection::describe() const {
    return _transport ? _transport->describe() : address();
}

void BrokerConnection::close() {
    if (_transport) _transport->close();
}

int16_t BrokerConnection::cap_for(ApiKey key) const {
    int16_t cap = api_spec(key).versions.max;
    for (const auto& [capped, version] : _options.version_caps) {
        if (capped == key) cap = std::min(cap, version);
    }
    return cap;
}

std::string BrokerConnection::failure_prefix(ApiKey key, int16_t version) const {
    return api_label(key, version) + " to " + address() + ": ";
}

Status BrokerConnection::ensure_open(Deadline deadline) {
    if (is_open() && !_transport->broken()) {
        if (!_transport->reauthentication_due()) return Status();
        // Between two requests, on the same stream: the broker closes a
        // connection whose session ended at its next other request.
        Status renewed = _transport->authenticate(*this, deadline);
        if (!renewed.ok()) close();
        return renewed;
    }
    close();
    // Connecting gets its own, shorter bound inside the call's.
    const Deadline connect_deadline(
        std::min(deadline.at(), Deadline::after_ms(_options.connect_timeout_ms).at()));
    _transport = _options.transport();
    assert(_transport);
    Status opened = _transport->open(_host, _port, connect_deadline);
    if (!opened.ok()) return opened;
    ++_open_count;
    Status ready = negotiate(connect_deadline);
    if (ready.ok()) ready = _transport->authenticate(*this, connect_deadline);
    if (!ready.ok()) close();
    return ready;
}

Result<ResponseFrame> BrokerConnection::round_trip(ApiKey key, int16_t version,
                                                   const Writer& body, Deadline deadline) {
    if (!is_open()) {
        return make_error(ErrorCode::io_error, failure_prefix(key, version) + "not connected");
    }
    const int32_t correlation_id = _next_correlation_id;
    // Wraps after 2^31 requests; only equality matters.
    _next_correlation_id = correlation_id == INT32_MAX ? 1 : correlation_id + 1;

    Writer frame;
    frame.int32(0);  // the size, patched below
    encode_request_header({key, version, correlation_id, _options.client_id}, frame);
    frame.raw(body.bytes());
    frame.patch_int32(0, static_cast<int32_t>(frame.size() - 4));
    const std::vector<uint8_t> bytes = frame.take();

    const auto started = Deadline::Clock::now();
    auto elapsed_ms = [&] {
        return std::chrono::duration_cast<std::chrono::milliseconds>(Deadline::Clock::now() -
                                                                     started)
            .count();
    };
    Status written = _transport->write(bytes, deadline);
    if (!written.ok()) {
        close();
        // A partial write may still reach the broker as a whole request only
        // if every byte went out, which is not the case here: not applied.
        return make_error(written.error().code, failure_prefix(key, version) +
                                                    written.error().message +
                                                    " (the request was not sent whole)");
    }
    const std::string sent_note = " after " + std::to_string(elapsed_ms()) +
                                  " ms (the request was sent: whether the broker applied it "
                                  "is unknown)";

    uint8_t size_bytes[4];
    Status read = _transport->read(size_bytes, deadline);
    if (!read.ok()) {
        close();
        return make_error(read.error().code,
                          failure_prefix(key, version) + read.error().message + sent_note);
    }
    const int32_t response_size = read_int32(size_bytes);
    if (response_size < 4 || response_size > _options.response_bytes_max) {
        close();
        return make_error(ErrorCode::corruption,
                          failure_prefix(key, version) + "response size " +
                              std::to_string(response_size) + " is outside 4.." +
                              std::to_string(_options.response_bytes_max) + " bytes");
    }
    ResponseFrame response;
    response.bytes.resize(static_cast<size_t>(response_size));
    read = _transport->read(response.bytes, deadline);
    if (!read.ok()) {
        close();
        return make_error(read.error().code,
                          failure_prefix(key, version) + read.error().message + sent_note);
    }

    Reader header_reader(response.bytes,
                         std::string(api_name(key)) + "Response v" + std::to_string(version) +
                             " header from " + address());
    const ResponseHeader header = decode_response_header(header_reader, key, version);
    if (!header_reader.ok()) {
        close();
        return header_reader.status().error();
    }
    if (header.correlation_id != correlation_id) {
        close();
        return make_error(ErrorCode::corruption,
                          failure_prefix(key, version) + "response carries correlation id " +
                              std::to_string(header.correlation_id) + ", expected " +
                              std::to_string(correlation_id) + ": the stream is out of step");
    }
    response.body_offset = header_reader.offset();
    return response;
}

Result<messages::ApiVersionsResponse> BrokerConnection::request_api_versions(int16_t version,
                                                                   Deadline deadline) {
    Writer body;
    messages::ApiVersionsRequest request;
    request.client_software_name = _options.client_software_name;
    request.client_software_version = _options.client_software_version;
    Status encoded = messages::ApiVersions::encode(request, version, body);
    if (!encoded.ok()) return encoded.error();
    Result<ResponseFrame> frame = round_trip(ApiKey::api_versions, version, body, deadline);
    if (!frame.ok()) return frame.error();
    const std::span<const uint8_t> body_bytes = frame->body();

    Reader reader(body_bytes, "ApiVersionsResponse v" + std::to_string(version) + " from " +
                                  address());
    messages::ApiVersionsResponse response = messages::ApiVersions::decode(reader, version);
    Status decoded = reader.finish();
    if (decoded.ok() && response.error.code != error_codes::unsupported_version) {
        return response;
    }
    // A broker that does not know `version` answers in the v0 layout with
    // UNSUPPORTED_VERSION and its own ApiVersions range (KIP-511).
    if (version != 0) {
        Reader v0_reader(body_bytes, "ApiVersionsResponse v0 from " + address());
        messages::ApiVersionsResponse v0 = messages::ApiVersions::decode(v0_reader, 0);
        if (v0_reader.finish().ok() && v0.error.code == error_codes::unsupported_version) {
            return v0;
        }
    }
    if (!decoded.ok()) return decoded.error();
    return response;
}

Status BrokerConnection::negotiate(Deadline deadline) {
    int16_t version = cap_for(ApiKey::api_versions);
    Result<messages::ApiVersionsResponse> response = request_api_versions(version, deadline);
    if (response.ok() && response->error.code == error_codes::unsupported_version) {
        const VersionRange theirs = response->range(ApiKey::api_versions);
        const int16_t retry = std::min(theirs.max, version);
        if (!theirs.empty() && retry < version && retry >= 0) {
            version = retry;
            response = request_api_versions(version, deadline);
        }
    }
    if (!response.ok()) return response.error();
    if (!response->error.ok()) {
        return make_error(ErrorCode::conflict, failure_prefix(ApiKey::api_versions, version) +
                                                   response->error.to_string());
    }
    _broker_versions = std::move(*response);
    _negotiated.clear();
    for (const ApiSpec& spec : implemented_apis()) {
        const VersionRange theirs = _broker_versions.range(spec.key);
        const int16_t low = std::max(spec.versions.min, theirs.min);
        const int16_t high = std::min(cap_for(spec.key), theirs.max);
        _negotiated.emplace_back(spec.key, theirs.empty() || high < low ? int16_t{-1} : high);
    }
    return Status();
}

Result<int16_t> BrokerConnection::version_for(ApiKey key) const {
    for (const auto& [negotiated_key, version] : _negotiated) {
        if (negotiated_key != key) continue;
        if (version >= 0) return version;
        const ApiSpec& spec = api_spec(key);
        VersionRange ours = spec.versions;
        ours.max = cap_for(key);
        return make_error(ErrorCode::unsupported,
                          std::string(spec.name) + " to " + address() +
                              ": no version in common (Ballast speaks " + range_text(ours) +
                              ", the broker " +
                              range_text(_broker_versions.range(key)) + ")");
    }
    return make_error(ErrorCode::io_error,
                      std::string(api_name(key)) + " to " + address() + ": not connected");
}

}  // namespace ballast::kafka::wire
