#include "adapters/kafka/wire/transport_sasl.h"

#include <openssl/crypto.h>

#include <cassert>
#include <cmath>

#include "adapters/kafka/wire/messages/sasl_authenticate.h"
#include "adapters/kafka/wire/messages/sasl_handshake.h"

namespace ballast::kafka::wire {

using events::ErrorCode;
using events::make_error;
using events::Result;
using events::Status;

namespace {

std::vector<uint8_t> bytes_of(std::string_view text) {
    return std::vector<uint8_t>(text.begin(), text.end());
}

std::string text_of(const std::vector<uint8_t>& bytes) {
    return std::string(bytes.begin(), bytes.end());
}

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
    return out.empty() ? "none" : out;
}

}  // namespace

SaslTransport::SaslTransport(std::unique_ptr<Transport> inner, SaslOptions options,
                             ScramNonceSource nonce, Now now)
    : _inner(std::move(inner)),
      _options(std::move(options)),
      _nonce(std::move(nonce)),
      _now(std::move(now)) {
    assert(_inner && _options.mechanism && !_options.username.empty());
}

TransportFactory SaslTransport::factory(TransportFactory inner, SaslOptions options,
                                        ScramNonceSource nonce, Now now) {
    return [inner, options, nonce, now] {
        return std::make_unique<SaslTransport>(inner(), options, nonce, now);
    };
}

Status SaslTransport::open(const std::string& host, int32_t port, Deadline deadline) {
    close();
    return _inner->open(host, port, deadline);
}

void SaslTransport::close() {
    _inner->close();
    _reauthenticate_at.reset();
    _authentications = 0;
}

bool SaslTransport::reauthentication_due() const {
    return _reauthenticate_at && _now() >= *_reauthenticate_at;
}

std::string SaslTransport::failure(const std::string& detail) const {
    return std::string(_authentications > 0 ? "SASL re-authentication" : "SASL authentication") +
           " failed for user '" + _options.username + "' with " +
           sasl_mechanism_name(*_options.mechanism) + ": " + detail + " (" + describe() + ")";
}

events::Error SaslTransport::interrupted(const events::Error& error) const {
    const char* what = _authentications > 0 ? "SASL re-authentication" : "SASL authentication";
    return make_error(error.code, std::string(what) + " for user '" + _options.username +
                                      "' with " + sasl_mechanism_name(*_options.mechanism) +
                                      ": " + error.message);
}

Status SaslTransport::authenticate(RequestChannel& channel, Deadline deadline) {
    const char* mechanism = sasl_mechanism_name(*_options.mechanism);
    // SaslHandshake v0 hands the stream to raw SASL frames (Kafka before
    // 1.0); Ballast speaks only v1, where the tokens travel in requests.
    Result<int16_t> handshake_version = channel.version_for(ApiKey::sasl_handshake);
    Result<int16_t> authenticate_version = channel.version_for(ApiKey::sasl_authenticate);
    if (!handshake_version.ok() || *handshake_version < 1 || !authenticate_version.ok()) {
        return make_error(ErrorCode::unsupported,
                          failure("the broker does not speak SaslHandshake v1 and "
                                  "SaslAuthenticate (Kafka 1.0 and later do)"));
    }

    Result<messages::SaslHandshakeResponse> handshake =
        send_request<messages::SaslHandshake>(channel, {mechanism}, *handshake_version, deadline);
    if (!handshake.ok()) return interrupted(handshake.error());
    if (handshake->error.code == error_codes::unsupported_sasl_mechanism) {
        return make_error(ErrorCode::invalid_argument,
                          std::string("SASL mechanism ") + mechanism +
                              " is not enabled on the broker: it enables " +
                              joined(handshake->mechanisms) + " (" + describe() + ")");
    }
    if (!handshake->error.ok()) {
        // ILLEGAL_SASL_STATE: a listener that is not SASL, or one that did
        // not expect a handshake now.
        return make_error(ErrorCode::invalid_argument,
                          failure("SaslHandshake refused: " + handshake->error.to_string() +
                                  " (is it a SASL listener?)"));
    }

    int64_t lifetime_ms = 0;
    Status done = run_mechanism(channel, *authenticate_version, deadline, lifetime_ms);
    if (!done.ok()) return done;
    ++_authentications;
    _reauthenticate_at.reset();
    if (lifetime_ms > 0) {
        const double after_ms =
            std::floor(static_cast<double>(lifetime_ms) * _options.reauthenticate_at);
        _reauthenticate_at = _now() + std::chrono::milliseconds(static_cast<int64_t>(after_ms));
    }
    return Status();
}

Status SaslTransport::run_mechanism(RequestChannel& channel, int16_t version, Deadline deadline,
                                    int64_t& lifetime_ms) {
    // One SaslAuthenticate round: the broker's token, or the error that ends it.
    auto round = [&](std::vector<uint8_t> token) -> Result<messages::SaslAuthenticateResponse> {
        Result<messages::SaslAuthenticateResponse> answer =
            send_request<messages::SaslAuthenticate>(channel, {std::move(token)}, version, deadline);
        if (!answer.ok()) return interrupted(answer.error());
        if (!answer->error.ok()) {
            const KafkaError& error = answer->error;
            const bool refused =
                error.code == error_codes::sasl_authentication_failed && error.message;
            return make_error(ErrorCode::invalid_argument,
                              failure(refused ? *error.message : error.to_string()));
        }
        lifetime_ms = answer->session_lifetime_ms;
        return answer;
    };

    if (*_options.mechanism == SaslMechanism::plain) {
        // RFC 4616: [authzid] NUL authcid NUL passwd; no authorization id.
        std::string message;
        message.reserve(_options.username.size() + _options.password.reveal().size() + 2);
        message += '\0';
        message += _options.username;
        message += '\0';
        message += _options.password.reveal();
        std::vector<uint8_t> token = bytes_of(message);
        OPENSSL_cleanse(message.data(), message.size());
        Result<messages::SaslAuthenticateResponse> answer = round(std::move(token));
        return answer.ok() ? Status() : Status(answer.error());
    }

    const ScramHash hash = *_options.mechanism == SaslMechanism::scram_sha_256 ? ScramHash::sha256
                                                                                : ScramHash::sha512;
    Result<std::string> nonce = _nonce();
    if (!nonce.ok()) return interrupted(nonce.error());
    ScramClient scram(hash, _options.username, _options.password.reveal(), std::move(*nonce));
    Result<messages::SaslAuthenticateResponse> server_first = round(bytes_of(scram.client_first()));
    if (!server_first.ok()) return server_first.error();
    Result<std::string> client_final = scram.client_final(text_of(server_first->auth_bytes));
    if (!client_final.ok()) {
        return make_error(client_final.error().code, failure(client_final.error().message));
    }
    Result<messages::SaslAuthenticateResponse> server_final = round(bytes_of(*client_final));
    if (!server_final.ok()) return server_final.error();
    Status verified = scram.verify_server_final(text_of(server_final->auth_bytes));
    if (!verified.ok()) return make_error(verified.error().code, failure(verified.error().message));
    return Status();
}

}  // namespace ballast::kafka::wire
