#pragma once

/// How the wire client reaches a secured broker: the protocol, the TLS trust
/// and identity, the SASL mechanism and credentials. Plain data, filled by
/// whoever reads the configuration (Kafka's client properties); each field
/// names the Kafka property it stands for, so that filling it is a
/// transcription. `transport_factory` turns it into the transports a
/// connection opens.
///
/// What a reader of Kafka properties must know:
/// - `sasl.jaas.config` carries the username and password
///   (`org.apache.kafka.common.security.plain.PlainLoginModule required
///   username="..." password="...";`, or `...scram.ScramLoginModule`); they go
///   to `SaslOptions::username` and `SaslOptions::password`.
/// - Kafka's defaults that Ballast cannot follow: `sasl.mechanism` defaults to
///   GSSAPI and `ssl.truststore.type`/`ssl.keystore.type` to JKS. Neither is
///   read; the reader should refuse them by name (a JKS store converts with
///   `keytool -importkeystore -deststoretype PKCS12`). Here the mechanism has
///   no default (`check` says so) and the store types default to PEM.
/// - `ssl.endpoint.identification.algorithm`: "https" (Kafka's default) sets
///   `verify_hostname`; an empty value clears it.
/// - Inline PEM (`ssl.truststore.certificates`, `ssl.keystore.key`,
///   `ssl.keystore.certificate.chain`) is not supported: files only.
///
/// Secrets are `Secret`s: their only text form is "[hidden]", so neither
/// `redacted()`, nor an error, nor a transport's `describe()` can show one.

#include <optional>
#include <string>
#include <string_view>

#include "adapters/kafka/wire/transport.h"
#include "events/result.h"

namespace ballast::kafka::wire {

/// A password or passphrase. `reveal()` is for the code that hands it to
/// OpenSSL or SASL, nothing else.
class Secret {
public:
    Secret() = default;
    explicit Secret(std::string value) : _value(std::move(value)) {}
    const std::string& reveal() const { return _value; }
    bool empty() const { return _value.empty(); }
    /// "[hidden]" (Kafka's own Password type prints the same), "" when empty.
    std::string redacted() const { return _value.empty() ? "" : "[hidden]"; }

private:
    std::string _value;
};

/// security.protocol
enum class SecurityProtocol { plaintext, ssl, sasl_plaintext, sasl_ssl };
/// sasl.mechanism
enum class SaslMechanism { plain, scram_sha_256, scram_sha_512 };
/// ssl.truststore.type, ssl.keystore.type
enum class StoreType { pem, pkcs12 };

/// "PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL".
const char* security_protocol_name(SecurityProtocol protocol);
/// Case-insensitive, as Kafka reads it. Errors list the valid names.
events::Result<SecurityProtocol> parse_security_protocol(std::string_view text);
/// "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512".
const char* sasl_mechanism_name(SaslMechanism mechanism);
/// Exact, as Kafka matches mechanism names. GSSAPI and OAUTHBEARER are
/// refused by name; errors list what Ballast speaks.
events::Result<SaslMechanism> parse_sasl_mechanism(std::string_view text);
/// "PEM", "PKCS12".
const char* store_type_name(StoreType type);
/// Case-insensitive, as Kafka reads it; JKS is refused with how to convert.
events::Result<StoreType> parse_store_type(std::string_view text);

/// SSL and SASL_SSL.
struct TlsOptions {
    /// ssl.truststore.location: the CA certificates that may sign a broker's
    /// certificate. Empty: the system's (OpenSSL's default paths; on Debian
    /// /etc/ssl/certs, from the ca-certificates package).
    std::string truststore_path;
    /// ssl.truststore.type: PEM (one or more certificates) or PKCS12.
    StoreType truststore_type = StoreType::pem;
    /// ssl.truststore.password: the PKCS12 file's password. PEM stores have
    /// none (Kafka refuses one, and so does `check`).
    Secret truststore_password;

    /// ssl.keystore.location: Ballast's own certificate and key, for brokers
    /// that require client certificates (ssl.client.auth=required). Empty:
    /// none. PEM: one file with the private key (PKCS#8, encrypted or not)
    /// and the certificate chain, leaf first. PKCS12: the key and its chain.
    std::string keystore_path;
    /// ssl.keystore.type: PEM or PKCS12.
    StoreType keystore_type = StoreType::pem;
    /// ssl.keystore.password: the PKCS12 file's password, which also
    /// protects its key (keytool allows no other for PKCS12).
    Secret keystore_password;
    /// ssl.key.password: decrypts the private key of a PEM keystore.
    Secret key_password;

    /// ssl.endpoint.identification.algorithm=https: the broker's certificate
    /// must name the host we connect to (a DNS name in its subject
    /// alternative names, or the IP address when we connect to one). Off, any
    /// certificate the trust store vouches for is accepted.
    bool verify_hostname = true;
};

/// SASL_PLAINTEXT and SASL_SSL.
struct SaslOptions {
    /// sasl.mechanism. No default: Kafka's is GSSAPI, which Ballast does not
    /// speak, and guessing PLAIN could send a password in clear.
    std::optional<SaslMechanism> mechanism;
    /// From sasl.jaas.config: username="..." and password="...".
    std::string username;
    Secret password;
    /// When the broker gives the session a lifetime (KIP-368;
    /// connections.max.reauth.ms on the broker), authenticate again on the
    /// same connection after this fraction of it. Kafka's clients draw a
    /// point in 0.85-0.95 per session; a fixed one keeps runs reproducible.
    /// In (0, 1].
    double reauthenticate_at = 0.9;
};

struct SecurityOptions {
    SecurityProtocol protocol = SecurityProtocol::plaintext;
    TlsOptions tls;    // read for SSL and SASL_SSL
    SaslOptions sasl;  // read for SASL_PLAINTEXT and SASL_SSL

    bool uses_tls() const;
    bool uses_sasl() const;

    /// What cannot work, named by Kafka property: a SASL protocol without a
    /// mechanism or username, a PEM trust store with a password, a fraction
    /// outside (0, 1]. Settings the protocol does not read are ignored, as
    /// Kafka's clients ignore them.
    events::Status check() const;

    /// The settings the protocol reads, as Kafka properties on one line,
    /// secrets as "[hidden]": "security.protocol=SASL_SSL,
    /// sasl.mechanism=SCRAM-SHA-512, sasl.username=ballast,
    /// sasl.password=[hidden], ssl.truststore.location=/etc/ballast/ca.pem,
    /// ...". For logs and `ballast config`.
    std::string redacted() const;
};

/// The transports `options` asks for: TCP, TLS over TCP, SASL over either.
/// A client's TLS context (trust store, key store) is loaded once, at the
/// first connection, and shared by every transport the factory makes; a
/// store that fails to load fails that connection with the file and the
/// reason, and the next connection tries again. When `check()` fails, every
/// transport fails to open with its error.
TransportFactory transport_factory(const SecurityOptions& options);

}  // namespace ballast::kafka::wire
