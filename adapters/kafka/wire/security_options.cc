#include "adapters/kafka/wire/security_options.h"

#include <algorithm>
#include <cctype>

#include "adapters/kafka/wire/transport_sasl.h"
#include "adapters/kafka/wire/transport_tcp.h"
#include "adapters/kafka/wire/transport_tls.h"

namespace ballast::kafka::wire {

using events::ErrorCode;
using events::make_error;
using events::Result;
using events::Status;

namespace {

std::string upper(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return out;
}

/// What `check` refuses: every open fails with it.
class RefusedTransport final : public Transport {
public:
    explicit RefusedTransport(events::Error error) : _error(std::move(error)) {}
    Status open(const std::string&, int32_t, Deadline) override { return _error; }
    Status write(std::span<const uint8_t>, Deadline) override { return _error; }
    Status read(std::span<uint8_t>, Deadline) override { return _error; }
    bool broken() override { return true; }
    void close() override {}
    bool is_open() const override { return false; }
    std::string describe() const override { return "(refused configuration)"; }

private:
    events::Error _error;
};

}  // namespace

const char* security_protocol_name(SecurityProtocol protocol) {
    switch (protocol) {
        case SecurityProtocol::plaintext: return "PLAINTEXT";
        case SecurityProtocol::ssl: return "SSL";
        case SecurityProtocol::sasl_plaintext: return "SASL_PLAINTEXT";
        case SecurityProtocol::sasl_ssl: return "SASL_SSL";
    }
    return "?";
}

Result<SecurityProtocol> parse_security_protocol(std::string_view text) {
    const std::string name = upper(text);
    for (SecurityProtocol protocol : {SecurityProtocol::plaintext, SecurityProtocol::ssl,
                                      SecurityProtocol::sasl_plaintext, SecurityProtocol::sasl_ssl}) {
        if (name == security_protocol_name(protocol)) return protocol;
    }
    return make_error(ErrorCode::invalid_argument,
                      "security.protocol '" + std::string(text) +
                          "' is not one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL");
}

const char* sasl_mechanism_name(SaslMechanism mechanism) {
    switch (mechanism) {
        case SaslMechanism::plain: return "PLAIN";
        case SaslMechanism::scram_sha_256: return "SCRAM-SHA-256";
        case SaslMechanism::scram_sha_512: return "SCRAM-SHA-512";
    }
    return "?";
}

Result<SaslMechanism> parse_sasl_mechanism(std::string_view text) {
    for (SaslMechanism mechanism :
         {SaslMechanism::plain, SaslMechanism::scram_sha_256, SaslMechanism::scram_sha_512}) {
        if (text == sasl_mechanism_name(mechanism)) return mechanism;
    }
    const bool known_elsewhere = text == "GSSAPI" || text == "OAUTHBEARER";
    return make_error(known_elsewhere ? ErrorCode::unsupported : ErrorCode::invalid_argument,
                      "sasl.mechanism '" + std::string(text) + "'" +
                          (known_elsewhere ? " is not supported" : " is not known") +
                          ": Ballast speaks PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512");
}

const char* store_type_name(StoreType type) { return type == StoreType::pem ? "PEM" : "PKCS12"; }

Result<StoreType> parse_store_type(std::string_view text) {
    const std::string name = upper(text);
    if (name == "PEM") return StoreType::pem;
    if (name == "PKCS12") return StoreType::pkcs12;
    if (name == "JKS") {
        return make_error(ErrorCode::unsupported,
                          "store type JKS is not read: convert the store with keytool "
                          "-importkeystore -srcstoretype JKS -deststoretype PKCS12, or use PEM");
    }
    return make_error(ErrorCode::invalid_argument,
                      "store type '" + std::string(text) + "' is not one of PEM, PKCS12");
}

bool SecurityOptions::uses_tls() const {
    return protocol == SecurityProtocol::ssl || protocol == SecurityProtocol::sasl_ssl;
}

bool SecurityOptions::uses_sasl() const {
    return protocol == SecurityProtocol::sasl_plaintext || protocol == SecurityProtocol::sasl_ssl;
}

Status SecurityOptions::check() const {
    auto refuse = [](const std::string& why) {
        return make_error(ErrorCode::invalid_argument, why);
    };
    if (uses_sasl()) {
        const std::string protocol_text =
            std::string("security.protocol=") + security_protocol_name(protocol);
        if (!sasl.mechanism) {
            return refuse(protocol_text +
                          " needs sasl.mechanism: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (Kafka's "
                          "default, GSSAPI, is not supported)");
        }
        if (sasl.username.empty()) {
            return refuse(protocol_text + " needs a username (sasl.jaas.config username=\"...\")");
        }
        // PLAIN separates its fields with NUL (RFC 4616); no credential may hold one.
        if (sasl.username.find('\0') != std::string::npos ||
            sasl.password.reveal().find('\0') != std::string::npos) {
            return refuse("the SASL username or password contains a NUL character");
        }
        if (!(sasl.reauthenticate_at > 0.0 && sasl.reauthenticate_at <= 1.0)) {
            return refuse("the re-authentication point " + std::to_string(sasl.reauthenticate_at) +
                          " is not a fraction of the session lifetime in (0, 1]");
        }
    }
    if (uses_tls()) {
        if (tls.truststore_type == StoreType::pem && !tls.truststore_password.empty()) {
            return refuse("ssl.truststore.password cannot be given for a PEM trust store");
        }
        if (tls.truststore_type == StoreType::pkcs12 && tls.truststore_path.empty()) {
            return refuse("ssl.truststore.type=PKCS12 needs ssl.truststore.location");
        }
        if (!tls.keystore_path.empty() && tls.keystore_type == StoreType::pem &&
            !tls.keystore_password.empty()) {
            return refuse(
                "ssl.keystore.password cannot be given for a PEM key store (its key's is "
                "ssl.key.password)");
        }
    }
    return Status();
}

std::string SecurityOptions::redacted() const {
    std::string out = std::string("security.protocol=") + security_protocol_name(protocol);
    auto add = [&](const char* key, const std::string& value) {
        if (value.empty()) return;
        out += ", ";
        out += key;
        out += '=';
        out += value;
    };
    if (uses_sasl()) {
        add("sasl.mechanism", sasl.mechanism ? sasl_mechanism_name(*sasl.mechanism) : "(unset)");
        add("sasl.username", sasl.username);
        add("sasl.password", sasl.password.redacted());
    }
    if (uses_tls()) {
        add("ssl.truststore.location",
            tls.truststore_path.empty() ? "(system default)" : tls.truststore_path);
        if (!tls.truststore_path.empty()) {
            add("ssl.truststore.type", store_type_name(tls.truststore_type));
        }
        add("ssl.truststore.password", tls.truststore_password.redacted());
        add("ssl.keystore.location", tls.keystore_path);
        if (!tls.keystore_path.empty()) {
            add("ssl.keystore.type", store_type_name(tls.keystore_type));
            add("ssl.keystore.password", tls.keystore_password.redacted());
            add("ssl.key.password", tls.key_password.redacted());
        }
        out += ", ssl.endpoint.identification.algorithm=";
        out += tls.verify_hostname ? "https" : "";
    }
    return out;
}

TransportFactory transport_factory(const SecurityOptions& options) {
    Status valid = options.check();
    if (!valid.ok()) {
        return [error = valid.error()] { return std::make_unique<RefusedTransport>(error); };
    }
    const std::string label = security_protocol_name(options.protocol);
    TransportFactory stream = options.uses_tls() ? TlsTransport::factory(options.tls, label)
                                                 : TcpTransport::factory(label);
    if (!options.uses_sasl()) return stream;
    return SaslTransport::factory(std::move(stream), options.sasl);
}

}  // namespace ballast::kafka::wire
