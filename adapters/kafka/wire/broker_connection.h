#pragma once

/// One connection to one broker: opens the transport, negotiates versions
/// with ApiVersions, and carries one request at a time (send, then wait for
/// its response: Ballast's admin calls are rare and small, so no pipelining).
///
/// Version negotiation: for each API we implement, the highest version in
/// both our range and the broker's. A cap (ConnectionOptions::version_caps)
/// lowers ours; tests use it to run every version against a real broker.
///
/// Security: `ConnectionOptions::security` picks the transport (PLAINTEXT by
/// default; SSL, SASL_PLAINTEXT, SASL_SSL: security_options.h). Opening is
/// connect (and the TLS handshake), ApiVersions, then the transport's
/// `authenticate` (SASL) with this connection as its request channel; before
/// each later request, a SASL session near its end is renewed on the same
/// stream (transport.h).
///
/// Failures and what they leave behind:
/// - a transport error or timeout closes the connection: a half-read
///   response would leave the stream out of step. The next call reconnects.
/// - before a request is sent, a stream the broker closed while idle is
///   found (Transport::broken) and reopened, so an idle connection never
///   fails a call. A request that fails after it was sent is never resent:
///   it may have been applied, and the error says so; the caller decides.
/// - a response with the wrong correlation id closes the connection.
/// - a malformed response body fails the call (naming the field and the
///   offset) but keeps the connection: the frame was delimited by its size.
/// - a failed authentication (or re-authentication) closes the connection;
///   the request that waited for it was not sent.
///
/// Not thread-safe: one caller at a time (the client that owns it).

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "adapters/kafka/wire/messages/api_versions.h"
#include "adapters/kafka/wire/protocol_api.h"
#include "adapters/kafka/wire/protocol_header.h"
#include "adapters/kafka/wire/request_channel.h"
#include "adapters/kafka/wire/security_options.h"
#include "adapters/kafka/wire/transport.h"
#include "adapters/kafka/wire/wire_reader.h"
#include "adapters/kafka/wire/wire_writer.h"
#include "events/result.h"

namespace ballast::kafka::wire {

struct ConnectionOptions {
    /// The header's client_id: brokers name the client by it in logs and quotas.
    std::string client_id = "ballast";
    /// ApiVersions v3+ software name and version ([a-zA-Z0-9.-]).
    std::string client_software_name = "ballast";
#ifdef BALLAST_VERSION
    std::string client_software_version = BALLAST_VERSION;
#else
    std::string client_software_version = "0";
#endif
    /// Opening a connection (TCP and ApiVersions) takes at most this long,
    /// and never longer than the call that needs it.
    int64_t connect_timeout_ms = 10000;
    /// Refuse responses larger than this: a corrupt size cannot make us
    /// allocate more. DescribeLogDirs of every partition on a big broker is
    /// the largest answer: ~22 bytes a partition, so 64 MiB covers ~2.5M.
    int32_t response_bytes_max = 64 << 20;
    /// Use at most this version of an API (tests pin old versions).
    std::vector<std::pair<ApiKey, int16_t>> version_caps;
    /// How to reach and authenticate to a broker: PLAINTEXT by default.
    SecurityOptions security;
    /// Overrides `security` when set: tests hand in transports made by hand
    /// (a fixed SCRAM nonce, a fake clock).
    TransportFactory transport;
};

class BrokerConnection final : public RequestChannel {
public:
    BrokerConnection(std::string host, int32_t port, ConnectionOptions options);
    BrokerConnection(const BrokerConnection&) = delete;
    BrokerConnection& operator=(const BrokerConnection&) = delete;

    /// Opens and negotiates if not open, or if the broker closed the idle
    /// stream. Bounded by `deadline` and by connect_timeout_ms.
    Status ensure_open(Deadline deadline);

    /// Sends `request` at the negotiated version of `Api` and decodes the
    /// answer. Opens the connection first if needed.
    template <class Api>
    Result<typename Api::Response> call(const typename Api::Request& request, Deadline deadline);

    /// The version negotiated for `key`. Precondition: open. Fails (naming
    /// both ranges) when the broker and Ballast share no version.
    Result<int16_t> version_for(ApiKey key) const override;
    /// The broker's ApiVersions answer. Precondition: open.
    const messages::ApiVersionsResponse& broker_versions() const { return _broker_versions; }

    void close();
    bool is_open() const { return _transport && _transport->is_open(); }
    /// How many times the connection was opened: reconnects are visible.
    uint64_t open_count() const { return _open_count; }
    const std::string& host() const { return _host; }
    int32_t port() const { return _port; }
    /// "127.0.0.1:9092"
    std::string address() const override { return _host + ":" + std::to_string(_port); }
    /// "SASL_SSL 127.0.0.1:9094" once a transport exists.
    std::string describe() const;

    /// Writes header + body as one frame, reads one response frame, checks
    /// the correlation id (RequestChannel; SASL sends its requests with it
    /// while the connection opens). Fails when not open.
    Result<ResponseFrame> round_trip(ApiKey key, int16_t version, const Writer& body,
                                     Deadline deadline) override;

private:
    /// ApiVersions, retried once at the broker's highest version when it
    /// does not speak ours.
    Status negotiate(Deadline deadline);
    Result<messages::ApiVersionsResponse> request_api_versions(int16_t version, Deadline deadline);
    std::string failure_prefix(ApiKey key, int16_t version) const;
    int16_t cap_for(ApiKey key) const;

    std::string _host;
    int32_t _port;
    ConnectionOptions _options;
    std::unique_ptr<Transport> _transport;
    messages::ApiVersionsResponse _broker_versions;
    std::vector<std::pair<ApiKey, int16_t>> _negotiated;  // -1: no common version
    int32_t _next_correlation_id = 1;
    uint64_t _open_count = 0;
};

template <class Api>
Result<typename Api::Response> BrokerConnection::call(const typename Api::Request& request,
                                                      Deadline deadline) {
    Status opened = ensure_open(deadline);
    if (!opened.ok()) return opened.error();
    Result<int16_t> version = version_for(Api::key);
    if (!version.ok()) return version.error();
    return send_request<Api>(*this, request, *version, deadline);
}

}  // namespace ballast::kafka::wire
