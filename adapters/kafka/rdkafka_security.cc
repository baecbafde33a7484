#include "adapters/kafka/rdkafka_security.h"

#include <algorithm>
#include <cctype>

#include "adapters/kafka/wire/transport_tls.h"

namespace ballast::kafka {

namespace {

constexpr int scram_fixed_version = 0x020601ff;  // librdkafka 2.6.1

std::string lowercase(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

std::string version_text(int version) {
    return std::to_string((version >> 24) & 0xff) + "." + std::to_string((version >> 16) & 0xff) + "." +
           std::to_string((version >> 8) & 0xff);
}

}  // namespace

events::Result<RdKafkaSettings> rdkafka_security_settings(const wire::SecurityOptions& security) {
    RdKafkaSettings out;
    if (security.protocol == wire::SecurityProtocol::plaintext) return out;
    out.emplace_back("security.protocol", lowercase(wire::security_protocol_name(security.protocol)));
    if (security.uses_sasl()) {
        if (security.sasl.mechanism) {
            out.emplace_back("sasl.mechanisms", wire::sasl_mechanism_name(*security.sasl.mechanism));
        }
        out.emplace_back("sasl.username", security.sasl.username);
        out.emplace_back("sasl.password", security.sasl.password.reveal());
    }
    if (!security.uses_tls()) return out;
    const wire::TlsOptions& tls = security.tls;
    if (tls.truststore_type == wire::StoreType::pem && !tls.truststore_path.empty()) {
        out.emplace_back("ssl.ca.location", tls.truststore_path);
    } else if (!tls.truststore_path.empty()) {
        // librdkafka reads a PEM file or PEM text, not a PKCS12 trust store.
        events::Result<std::string> pem = wire::truststore_pem(tls);
        if (!pem) return pem.error();
        out.emplace_back("ssl.ca.pem", *pem);
    }
    if (!tls.keystore_path.empty() && tls.keystore_type == wire::StoreType::pkcs12) {
        out.emplace_back("ssl.keystore.location", tls.keystore_path);
        out.emplace_back("ssl.keystore.password", tls.keystore_password.reveal());
    } else if (!tls.keystore_path.empty()) {
        // One PEM file holds both: OpenSSL's readers skip the blocks of the other kind.
        out.emplace_back("ssl.certificate.location", tls.keystore_path);
        out.emplace_back("ssl.key.location", tls.keystore_path);
        if (!tls.key_password.empty()) out.emplace_back("ssl.key.password", tls.key_password.reveal());
    }
    out.emplace_back("ssl.endpoint.identification.algorithm", tls.verify_hostname ? "https" : "none");
    return out;
}

std::string rdkafka_setting_text(const std::string& key, const std::string& value) {
    if (key == "sasl.password" || key == "ssl.key.password" || key == "ssl.keystore.password") {
        return key + "=" + (value.empty() ? "" : "[hidden]");
    }
    if (key == "ssl.ca.pem" || key == "ssl.certificate.pem" || key == "ssl.key.pem") {
        return key + "=(" + std::to_string(value.size()) + " bytes of PEM)";
    }
    return key + "=" + value;
}

bool kafka4_or_later(const wire::messages::ApiVersionsResponse& versions) {
    for (const wire::messages::ApiVersionRange& range : versions.api_keys) {
        if (range.api_key == 1) return range.min_version >= 4;  // Fetch
    }
    return false;
}

std::string librdkafka_scram_refusal(int version, const wire::SecurityOptions& security, bool kafka4) {
    if (!security.uses_sasl() || !security.sasl.mechanism || *security.sasl.mechanism == wire::SaslMechanism::plain) {
        return "";
    }
    if (version >= scram_fixed_version || !kafka4) return "";
    const std::string mechanism = wire::sasl_mechanism_name(*security.sasl.mechanism);
    return "librdkafka " + version_text(version) + " (the one this process loaded) cannot log in with " + mechanism +
           " to this cluster: before 2.6.1 librdkafka sends its nonce twice in SCRAM's final message, and Kafka 4.0 "
           "and later refuse that as invalid credentials. Give Ballast's user PLAIN (sasl.mechanism=PLAIN with "
           "org.apache.kafka.common.security.plain.PlainLoginModule; over SASL_SSL the password travels encrypted), "
           "or run Ballast with librdkafka 2.6.1 or later";
}

}  // namespace ballast::kafka
