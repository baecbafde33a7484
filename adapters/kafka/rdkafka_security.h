#pragma once

/// The same security settings for librdkafka as for the wire client: a
/// `wire::SecurityOptions` as librdkafka's properties, and what librdkafka
/// cannot do with them.
///
/// | SecurityOptions (Kafka's property)     | librdkafka's                                    |
/// |---|---|
/// | security.protocol                      | security.protocol (lowercase)                   |
/// | sasl.mechanism, sasl.jaas.config       | sasl.mechanisms, sasl.username, sasl.password   |
/// | ssl.truststore PEM                     | ssl.ca.location (the file)                      |
/// | ssl.truststore PKCS12                  | ssl.ca.pem (its certificates, converted)        |
/// | ssl.keystore PKCS12                    | ssl.keystore.location, ssl.keystore.password    |
/// | ssl.keystore PEM, ssl.key.password     | ssl.certificate.location and ssl.key.location (the same file), ssl.key.password |
/// | ssl.endpoint.identification.algorithm  | the same: https or none                         |
///
/// librdkafka before 2.6.1 (Debian 12 has 2.0.2) sends its client nonce twice
/// in SCRAM's final message; Kafka 4.0 and later check the nonce as RFC 5802
/// says and refuse the login as invalid credentials (older brokers only
/// checked its end). `librdkafka_scram_refusal` says so before anything tries.

#include <string>
#include <utility>
#include <vector>

#include "adapters/kafka/wire/messages/api_versions.h"
#include "adapters/kafka/wire/security_options.h"
#include "events/result.h"

namespace ballast::kafka {

using RdKafkaSettings = std::vector<std::pair<std::string, std::string>>;

/// librdkafka's properties for `security`; PLAINTEXT gives none. Errors: a
/// PKCS12 trust store that does not read (file, reason; never the password).
events::Result<RdKafkaSettings> rdkafka_security_settings(const wire::SecurityOptions& security);

/// "key=value" for messages: the passwords as [hidden], a PEM text by its size.
std::string rdkafka_setting_text(const std::string& key, const std::string& value);

/// Whether the brokers answering `versions` are Kafka 4.0 or later: 4.0
/// removed Fetch v0-3 (KIP-896), so its lowest Fetch version is 4. (Produce
/// v0-2 went too, but brokers still list Produce from 0: librdkafka reads the
/// lowest version as a sign of support.)
bool kafka4_or_later(const wire::messages::ApiVersionsResponse& versions);

/// Why librdkafka `version` (rd_kafka_version()'s number, 0xMMmmrrxx) cannot
/// log in with `security` to brokers that are Kafka 4 or later, naming the
/// version, the problem and the remedy; "" when it can.
std::string librdkafka_scram_refusal(int version, const wire::SecurityOptions& security, bool kafka4);

}  // namespace ballast::kafka
